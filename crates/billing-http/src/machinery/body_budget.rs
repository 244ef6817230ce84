//! How many request bytes the process may hold at once. Each request's body is bounded
//! (`BILLING_BODY_LIMIT_BYTES`, 8 MiB for a rating lookup), but a thousand clients sending
//! the largest body at the same moment would hold gigabytes, and a sign-in body is read before
//! anyone is known. So every body, before its first byte is read, takes its share of one
//! budget (`BILLING_BODY_MEMORY_BYTES`, 128 MiB by default): its `Content-Length`, or the
//! route's limit when it comes chunked (given back down to what arrived once it has), plus
//! what the route says reading it leads to (a rating lookup's answer, `rating_lookups`). The
//! share is held until the request's handler has finished with it (the request's extensions
//! hold it), or, for a rating lookup, until the client has taken the answer (`PageBody`).
//! Bodies wait their turn (first come, first served) within the body timeout; one that gets
//! no turn in that time is 503 with `Retry-After`. A share larger than the whole budget takes
//! all of it, so such a body is read alone.
//!
//! What parsing a body holds beside it (a JSON value is several times its text) is not
//! counted: parsing runs on the async workers, one body at a time each, and the value is
//! turned into the typed input before the handler waits for anything.

use std::sync::Arc;

use tokio::sync::Semaphore;

use super::list_budget::Share;

/// The budget is counted in KiB.
const UNIT: usize = 1024;

/// 128 MiB: sixteen rating lookups of the largest body at once, or a hundred and twenty-eight
/// bodies of the general limit.
pub const DEFAULT_BYTES: usize = 128 * 1024 * 1024;

pub struct BodyBudget {
    permits: Arc<Semaphore>,
    units: u32,
}

impl BodyBudget {
    pub fn new(bytes: usize) -> Self {
        let units = u32::try_from(bytes.div_ceil(UNIT).max(1))
            .unwrap_or(u32::MAX)
            .min(Semaphore::MAX_PERMITS as u32);
        Self {
            permits: Arc::new(Semaphore::new(units as usize)),
            units,
        }
    }

    /// Waits until `bytes` fit in what the other requests leave (at most the whole budget).
    pub async fn take(&self, bytes: usize) -> Share {
        let units = u32::try_from(bytes.div_ceil(UNIT))
            .unwrap_or(u32::MAX)
            .clamp(1, self.units);
        Share::new(
            Arc::clone(&self.permits)
                .acquire_many_owned(units)
                .await
                .expect("the body budget is never closed"),
        )
    }

    /// What is left of the budget now, in bytes.
    pub fn available_bytes(&self) -> usize {
        self.permits.available_permits() * UNIT
    }
}

impl Default for BodyBudget {
    fn default() -> Self {
        Self::new(DEFAULT_BYTES)
    }
}

/// A request's share, kept in its extensions until the request is dropped.
pub struct BodyShare(pub Share);

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::*;

    #[tokio::test]
    async fn a_body_waits_until_the_bodies_before_it_give_their_share_back() {
        let budget = Arc::new(BodyBudget::new(4 * UNIT));
        let first = budget.take(3 * UNIT).await;
        let waiting = tokio::spawn({
            let budget = Arc::clone(&budget);
            async move { budget.take(2 * UNIT).await.bytes() }
        });
        tokio::time::sleep(Duration::from_millis(20)).await;
        assert!(!waiting.is_finished(), "taken while the budget had no room");
        drop(first);
        assert_eq!(waiting.await.expect("taken"), 2 * UNIT);
        assert_eq!(budget.available_bytes(), 4 * UNIT);
    }

    #[tokio::test]
    async fn a_body_larger_than_the_budget_takes_all_of_it_and_an_empty_one_a_unit() {
        let budget = BodyBudget::new(4 * UNIT);
        let whole = budget.take(100 * UNIT).await;
        assert_eq!((whole.bytes(), budget.available_bytes()), (4 * UNIT, 0));
        drop(whole);
        let empty = budget.take(0).await;
        assert_eq!(empty.bytes(), UNIT);
    }

    #[tokio::test]
    async fn a_share_shrinks_to_what_arrived() {
        let budget = BodyBudget::new(8 * UNIT);
        let mut share = budget.take(8 * UNIT).await;
        share.hold_only(UNIT + 1);
        assert_eq!(
            (share.bytes(), budget.available_bytes()),
            (2 * UNIT, 6 * UNIT)
        );
    }
}
