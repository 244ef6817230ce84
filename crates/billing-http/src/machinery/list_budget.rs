//! How much the list pages being built may hold at once. A page of 1,000 records that each
//! own a hundred long elements is legitimately a hundred megabytes; eight such pages at once
//! would hold gigabytes. Each list takes, before it reads, its worst case from the
//! declaration (`pageSize` × [`max_json_bytes`] of a record) out of one budget
//! (`BILLING_LIST_MEMORY_BYTES`, 256 MiB by default). Once the page is written the share
//! shrinks to the bytes of the answer, and then to the bytes the connection has not taken yet,
//! as it takes them (`PageBody`, in chunks: the HTTP library asks for the next chunk only when
//! the client has read enough of the last; a compressed answer is counted at its compressed
//! bytes), so an answer a slow client has not read is still counted; a list whose worst case passes the whole budget takes all of it, so it runs alone.
//! Lists wait their turn (first come, first served) instead of being refused.

use std::sync::Arc;

use tokio::sync::{OwnedSemaphorePermit, Semaphore};

use super::fields::{Field, max_json_bytes};

/// The budget is counted in KiB.
const UNIT: usize = 1024;

pub struct ListBudget {
    permits: Arc<Semaphore>,
    units: u32,
}

impl ListBudget {
    pub fn new(bytes: usize) -> Self {
        let units = u32::try_from(bytes.div_ceil(UNIT).max(1)).unwrap_or(u32::MAX >> 4);
        let units = units.min(Semaphore::MAX_PERMITS as u32);
        Self {
            permits: Arc::new(Semaphore::new(units as usize)),
            units,
        }
    }

    /// What a page of `page_size` records of `fields` may hold at most, in budget units
    /// (at most the whole budget).
    pub fn units_for(&self, fields: &[Field], page_size: u32) -> u32 {
        let bytes = max_json_bytes(fields).saturating_mul(page_size as usize);
        u32::try_from(bytes.div_ceil(UNIT))
            .unwrap_or(u32::MAX)
            .clamp(1, self.units)
    }

    /// Waits until a page of `page_size` records of `fields` fits in what the other pages
    /// being built leave; the share is given back as it shrinks and when it is dropped.
    pub async fn take(&self, fields: &[Field], page_size: u32) -> Share {
        let units = self.units_for(fields, page_size);
        Share(
            Arc::clone(&self.permits)
                .acquire_many_owned(units)
                .await
                .expect("the list budget is never closed"),
        )
    }

    /// What is left now, in bytes (for tests and metrics).
    pub fn available_bytes(&self) -> usize {
        self.permits.available_permits() * UNIT
    }
}

/// A page's share of the budget.
#[derive(Debug)]
pub struct Share(OwnedSemaphorePermit);

impl Share {
    /// Gives back what more than `bytes` would need: the share becomes at most their units.
    pub fn hold_only(&mut self, bytes: usize) {
        let (held, needed) = (self.0.num_permits(), bytes.div_ceil(UNIT));
        if held > needed {
            drop(self.0.split(held - needed));
        }
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

/// 256 MiB: three pages of 100 sites at their worst at once, or one of 1,000.
pub const DEFAULT_BYTES: usize = 256 * 1024 * 1024;

#[cfg(test)]
pub(crate) mod tests;
