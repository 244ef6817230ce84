//! How much the list pages being built may hold at once. A page of 1,000 records that each
//! own a hundred long elements is legitimately a hundred megabytes; eight such pages at once
//! would hold gigabytes. Each list takes, before it reads, its worst case from the
//! declaration (`pageSize` × [`max_json_bytes`] of a record, times [`HELD_PER_ANSWER_BYTE`]
//! for the rows and records held beside the text while it is written) out of one budget
//! (`BILLING_LIST_MEMORY_BYTES`, 256 MiB by default). Once the page is written the share
//! shrinks to the bytes of the answer, and then to the bytes the connection has not taken yet,
//! as it takes them (`PageBody`, in chunks: the HTTP library asks for the next chunk only when
//! the client has read enough of the last; a compressed answer is counted at its compressed
//! bytes), so an answer a slow client has not read is still counted; a list whose worst case passes the whole budget takes all of it, so it runs alone.
//! Lists wait their turn (first come, first served) instead of being refused. A small page
//! (at most [`SMALL_PAGE_BYTES`] at its worst) never waits behind large ones: when the budget
//! has no room for it at once, it takes its share from a reserve of its own
//! ([`SMALL_PAGES_RESERVE_BYTES`], beyond the budget), so a client asking for pages of 1,000
//! sites over and over delays another's page of currencies by nothing. A page of one record
//! (and a record read alone) is a small page whatever its type.

use std::sync::Arc;

use tokio::sync::{OwnedSemaphorePermit, Semaphore};

use super::fields::{Field, max_json_bytes};

/// The budget is counted in KiB.
const UNIT: usize = 1024;

pub struct ListBudget {
    permits: Arc<Semaphore>,
    units: u32,
    small_pages: Arc<Semaphore>,
}

/// What a page holds while it is built, per byte of its answer: the rows read, the records
/// made of them and the answer's text, at once (measured: 1.6 to 2.4 times the answer).
pub const HELD_PER_ANSWER_BYTE: usize = 3;

/// The most a page may hold at its worst to be a small one (3 MiB: a page of 100 currencies,
/// or of one site, whose answer is at most 1 MiB).
pub const SMALL_PAGE_BYTES: usize = HELD_PER_ANSWER_BYTE * 1024 * 1024;
/// What small pages may hold beyond the budget when it has no room for them at once.
pub const SMALL_PAGES_RESERVE_BYTES: usize = 16 * SMALL_PAGE_BYTES;

impl ListBudget {
    pub fn new(bytes: usize) -> Self {
        let units = u32::try_from(bytes.div_ceil(UNIT).max(1)).unwrap_or(u32::MAX >> 4);
        let units = units.min(Semaphore::MAX_PERMITS as u32);
        Self {
            permits: Arc::new(Semaphore::new(units as usize)),
            units,
            small_pages: Arc::new(Semaphore::new(SMALL_PAGES_RESERVE_BYTES / UNIT)),
        }
    }

    /// What a page of `page_size` records of `fields` may hold at most, in budget units
    /// (at most the whole budget).
    pub fn units_for(&self, fields: &[Field], page_size: u32) -> u32 {
        let bytes = max_json_bytes(fields)
            .saturating_mul(page_size as usize)
            .saturating_mul(HELD_PER_ANSWER_BYTE);
        u32::try_from(bytes.div_ceil(UNIT))
            .unwrap_or(u32::MAX)
            .clamp(1, self.units)
    }

    /// Waits until a page of `page_size` records of `fields` fits in what the other pages
    /// being built leave; the share is given back as it shrinks and when it is dropped.
    pub async fn take(&self, fields: &[Field], page_size: u32) -> Share {
        let units = self.units_for(fields, page_size);
        // A record read alone is a small page whatever its type (an audit event may hold
        // 2 MB at its worst): it never waits behind pages of a thousand.
        let from = if units as usize * UNIT <= SMALL_PAGE_BYTES || page_size == 1 {
            // The budget's room now, else the small pages' reserve (waiting there only behind
            // other small pages).
            match Arc::clone(&self.permits).try_acquire_many_owned(units) {
                Ok(permit) => return Share(permit),
                Err(_) => &self.small_pages,
            }
        } else {
            &self.permits
        };
        Share(
            Arc::clone(from)
                .acquire_many_owned(units)
                .await
                .expect("the list budget is never closed"),
        )
    }

    /// What is left of the budget now, in bytes (for tests and metrics).
    pub fn available_bytes(&self) -> usize {
        self.permits.available_permits() * UNIT
    }

    /// What is left of the small pages' reserve now, in bytes.
    pub fn available_small_pages_bytes(&self) -> usize {
        self.small_pages.available_permits() * UNIT
    }
}

/// A page's share of the budget.
#[derive(Debug)]
pub struct Share(OwnedSemaphorePermit);

impl Share {
    /// A share of a budget counted in the same units (`body_budget`).
    pub(crate) fn new(permit: OwnedSemaphorePermit) -> Self {
        Self(permit)
    }

    /// Gives back what more than `bytes` would need: the share becomes at most their units.
    pub fn hold_only(&mut self, bytes: usize) {
        let (held, needed) = (self.0.num_permits(), bytes.div_ceil(UNIT));
        if held > needed {
            drop(self.0.split(held - needed));
        }
    }

    /// Adds `other`'s bytes to this share (both of the same budget).
    pub(crate) fn merge(&mut self, other: Share) {
        self.0.merge(other.0);
    }

    /// The bytes the share holds now.
    pub fn bytes(&self) -> usize {
        self.0.num_permits() * UNIT
    }
}

impl Default for ListBudget {
    fn default() -> Self {
        Self::new(DEFAULT_BYTES)
    }
}

/// 256 MiB: one page of 100 sites at its worst (249 MB while built), or many of real sites.
pub const DEFAULT_BYTES: usize = 256 * 1024 * 1024;

#[cfg(test)]
pub(crate) mod tests;
