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
//! A write knows what it will hold only once its body is parsed (how many records it creates,
//! how large the record it changes may be: `handlers/holds.rs`): it then makes its share
//! at least that ([`hold_at_least`]), and the share goes with the answer to the client
//! (`compression`), shrunk to the answer's bytes, until the client has taken it. So a replay
//! of a large create, or a patch answered with a large record, is counted until it is read.
//! A share that must grow takes the more at once when the budget has room; else it is given
//! back whole and the whole is waited for in turn, so that no request waits while holding a
//! share (two large writes each holding half the budget and waiting for the other's half would
//! wait forever).
//!
//! What parsing a body holds beside it (a JSON value is several times its text) is not
//! counted: parsing runs on the async workers, one body at a time each, and the value is
//! turned into the typed input before the handler waits for anything.

use std::sync::Arc;

use actix_web::{HttpMessage, HttpRequest};
use tokio::sync::Semaphore;

use super::list_budget::Share;
use crate::error::ApiError;

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
        Share::new(
            Arc::clone(&self.permits)
                .acquire_many_owned(self.units_for(bytes))
                .await
                .expect("the body budget is never closed"),
        )
    }

    /// `bytes` (at most the whole budget) if they fit now, without waiting.
    fn try_take(&self, bytes: usize) -> Option<Share> {
        Arc::clone(&self.permits)
            .try_acquire_many_owned(self.units_for(bytes))
            .ok()
            .map(Share::new)
    }

    fn units_for(&self, bytes: usize) -> u32 {
        u32::try_from(bytes.div_ceil(UNIT))
            .unwrap_or(u32::MAX)
            .clamp(1, self.units)
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

/// A request's share, kept in its extensions until its answer takes it (`compression`).
pub struct BodyShare(pub Share);

/// When the request's body had to arrive by, with its turn in the budget: the wait for a
/// larger share ([`hold_at_least`]) ends then too, so a write waits at most the body timeout
/// in all before its 503.
#[derive(Clone, Copy)]
pub struct BodyDeadline(pub tokio::time::Instant);

/// Makes the request's share hold at least `bytes` (at most the whole budget) while it is
/// handled: the more at once when the budget has room, else the share is given back and the
/// whole waited for in turn, until the request's [`BodyDeadline`] (else `timeout` from now;
/// then 503 with `Retry-After`).
pub async fn hold_at_least(
    request: &HttpRequest,
    budget: &BodyBudget,
    bytes: usize,
    timeout: std::time::Duration,
) -> Result<(), ApiError> {
    let deadline = request.extensions().get::<BodyDeadline>().map_or_else(
        || tokio::time::Instant::now() + timeout,
        |BodyDeadline(at)| *at,
    );
    let wanted = budget.units_for(bytes) as usize * UNIT;
    let held = request.extensions_mut().remove::<BodyShare>();
    let share = match held {
        Some(BodyShare(share)) if share.bytes() >= wanted => share,
        Some(BodyShare(mut share)) => match budget.try_take(wanted - share.bytes()) {
            Some(more) => {
                share.merge(more);
                share
            }
            None => {
                drop(share);
                wait_for(budget, wanted, deadline).await?
            }
        },
        None => wait_for(budget, wanted, deadline).await?,
    };
    request.extensions_mut().insert(BodyShare(share));
    Ok(())
}

async fn wait_for(
    budget: &BodyBudget,
    bytes: usize,
    deadline: tokio::time::Instant,
) -> Result<Share, ApiError> {
    tokio::time::timeout_at(deadline, budget.take(bytes))
        .await
        .map_err(|_| {
            ApiError::unavailable(
                "the requests being handled hold the whole body budget \
                 (BILLING_BODY_MEMORY_BYTES) and none gave room within the body timeout",
            )
        })
}

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

    fn request_holding(share: Option<Share>) -> HttpRequest {
        let request = actix_web::test::TestRequest::default().to_http_request();
        if let Some(share) = share {
            request.extensions_mut().insert(BodyShare(share));
        }
        request
    }

    fn held(request: &HttpRequest) -> usize {
        request
            .extensions()
            .get::<BodyShare>()
            .map_or(0, |BodyShare(share)| share.bytes())
    }

    #[tokio::test]
    async fn a_share_grows_at_once_when_the_budget_has_room() {
        let budget = BodyBudget::new(8 * UNIT);
        let request = request_holding(Some(budget.take(2 * UNIT).await));
        let wait = Duration::from_millis(50);
        hold_at_least(&request, &budget, 5 * UNIT, wait)
            .await
            .expect("room");
        assert_eq!(
            (held(&request), budget.available_bytes()),
            (5 * UNIT, 3 * UNIT)
        );
        // Already enough: nothing changes.
        hold_at_least(&request, &budget, UNIT, wait)
            .await
            .expect("held");
        assert_eq!(held(&request), 5 * UNIT);
        // More than the whole budget: all of it.
        hold_at_least(&request, &budget, 100 * UNIT, wait)
            .await
            .expect("the whole");
        assert_eq!((held(&request), budget.available_bytes()), (8 * UNIT, 0));
    }

    #[tokio::test]
    async fn a_share_that_cannot_grow_is_given_back_while_it_waits() {
        let budget = BodyBudget::new(8 * UNIT);
        let other = budget.take(4 * UNIT).await;
        let request = request_holding(Some(budget.take(4 * UNIT).await));
        // Two writes each holding half and each wanting more would wait forever if they
        // kept their half while waiting: this one gives its half back.
        let growing = hold_at_least(&request, &budget, 6 * UNIT, Duration::from_secs(5));
        tokio::pin!(growing);
        assert!(
            tokio::time::timeout(Duration::from_millis(20), &mut growing)
                .await
                .is_err(),
            "grew without room"
        );
        assert_eq!(held(&request), 0, "held its half while waiting");
        drop(other);
        growing.await.expect("grew");
        assert_eq!(
            (held(&request), budget.available_bytes()),
            (6 * UNIT, 2 * UNIT)
        );
    }

    #[tokio::test]
    async fn a_share_that_gets_no_room_in_time_is_503_and_holds_nothing() {
        let budget = BodyBudget::new(4 * UNIT);
        let _other = budget.take(3 * UNIT).await;
        let request = request_holding(Some(budget.take(UNIT).await));
        let refused = hold_at_least(&request, &budget, 2 * UNIT, Duration::from_millis(30))
            .await
            .expect_err("no room");
        assert_eq!(
            refused.status(),
            actix_web::http::StatusCode::SERVICE_UNAVAILABLE
        );
        assert_eq!((held(&request), budget.available_bytes()), (0, UNIT));
    }

    #[tokio::test(start_paused = true)]
    async fn a_share_waits_no_longer_than_its_bodys_deadline() {
        let budget = BodyBudget::new(4 * UNIT);
        let _other = budget.take(3 * UNIT).await;
        let request = request_holding(Some(budget.take(UNIT).await));
        // The body took most of its 30 s to arrive: 2 s are left for its turn.
        let deadline = tokio::time::Instant::now() + Duration::from_secs(2);
        request.extensions_mut().insert(BodyDeadline(deadline));
        let refused = hold_at_least(&request, &budget, 2 * UNIT, Duration::from_secs(30))
            .await
            .expect_err("no room");
        assert_eq!(
            refused.status(),
            actix_web::http::StatusCode::SERVICE_UNAVAILABLE
        );
        assert_eq!(tokio::time::Instant::now(), deadline);
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
