//! An answer that holds its share of a memory budget until the client has read it: a list
//! page (`list_budget`), a rating lookup's answer (`body_budget`).
//!
//! The share shrinks to the bytes the connection has not taken yet as it takes them, chunk
//! by chunk: an answer a slow client has not read stays counted, and what it has read is given
//! back. A client that reads nothing for the body timeout is disconnected by the connection
//! (`transport`); one that reads a little now and then, never stalling that long, would keep
//! its share for hours, so an answer must also be taken within [`read_deadline`] of being
//! written: past it, what is left of the answer and its share are let go and the connection
//! closes.

use std::sync::{Arc, Mutex, Weak};
use std::time::Duration;

use actix_web::web::Bytes;

use super::list_budget::Share;

/// The most of an answer handed to the connection at once: with what the HTTP library keeps
/// in its buffer (32 KiB), what is left to write when the answer is complete and the
/// connection's 5 s keep-alive timer starts is at most 48 KiB.
pub const CHUNK_BYTES: usize = 16 * 1024;

/// The least time any answer is given.
const LEAST_PATIENCE: Duration = Duration::from_secs(60);
/// The slowest reading an answer is waited for: 32 KiB a second (a 6 MB rating answer has
/// about four minutes).
const SLOWEST_READ_BYTES_PER_SECOND: u64 = 32 * 1024;

/// How long a client has to take an answer of `bytes` whole.
pub fn read_deadline(bytes: usize) -> Duration {
    LEAST_PATIENCE + Duration::from_secs(bytes as u64 / SLOWEST_READ_BYTES_PER_SECOND)
}

/// What the answer, the connection and the deadline's watch share.
struct Unread {
    /// What the connection has not taken yet.
    body: Bytes,
    share: Option<Share>,
    /// Past the deadline: the connection gets an error instead of the rest.
    given_up: bool,
}

impl Unread {
    /// Gives back what the bytes not yet taken do not need.
    fn hold_only_the_rest(&mut self) {
        let rest = self.body.len();
        if let Some(share) = self.share.as_mut() {
            share.hold_only(rest);
        }
    }
}

/// An answer's mark on its response: the compression middleware takes the share from it,
/// holding it while it compresses and then for the compressed bytes, so the answer is counted
/// from its first byte to its last read.
#[derive(Clone)]
pub struct PageAnswer(Arc<Mutex<Unread>>);

impl PageAnswer {
    /// The answer's share, taken from its body (which then holds none).
    pub fn take_share(&self) -> Option<Share> {
        self.0.lock().ok()?.share.take()
    }
}

/// A sized answer with its share of a budget (see the module).
pub struct PageBody {
    unread: Arc<Mutex<Unread>>,
    size: u64,
    /// Whether the deadline's watch was started (at the first chunk the connection takes).
    watched: bool,
}

impl PageBody {
    pub fn new(body: impl Into<Bytes>, share: Option<Share>) -> Self {
        let mut unread = Unread {
            body: body.into(),
            share,
            given_up: false,
        };
        unread.hold_only_the_rest();
        Self {
            size: unread.body.len() as u64,
            unread: Arc::new(Mutex::new(unread)),
            watched: false,
        }
    }

    /// Its mark for the response (`PageAnswer`).
    pub fn answer(&self) -> PageAnswer {
        PageAnswer(Arc::clone(&self.unread))
    }

    /// Lets the rest of the answer and its share go once `deadline` passes, whether or not
    /// the connection asks for more (a client that reads nothing stops it asking).
    fn watch(&self, deadline: Duration) {
        let unread: Weak<Mutex<Unread>> = Arc::downgrade(&self.unread);
        if let Ok(runtime) = tokio::runtime::Handle::try_current() {
            runtime.spawn(async move {
                tokio::time::sleep(deadline).await;
                if let Some(unread) = unread.upgrade()
                    && let Ok(mut unread) = unread.lock()
                    && !unread.body.is_empty()
                {
                    unread.body = Bytes::new();
                    unread.share = None;
                    unread.given_up = true;
                }
            });
        }
    }
}

/// What the connection is told when the client took too long to read an answer.
#[derive(Debug)]
pub struct TooSlow;

impl std::fmt::Display for TooSlow {
    fn fmt(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        formatter.write_str("the client did not take the answer within its read deadline")
    }
}

impl std::error::Error for TooSlow {}

impl actix_web::body::MessageBody for PageBody {
    type Error = TooSlow;

    fn size(&self) -> actix_web::body::BodySize {
        actix_web::body::BodySize::Sized(self.size)
    }

    fn poll_next(
        self: std::pin::Pin<&mut Self>,
        _: &mut std::task::Context<'_>,
    ) -> std::task::Poll<Option<Result<Bytes, Self::Error>>> {
        let this = self.get_mut();
        let Ok(mut unread) = this.unread.lock() else {
            return std::task::Poll::Ready(Some(Err(TooSlow)));
        };
        if unread.given_up {
            return std::task::Poll::Ready(Some(Err(TooSlow)));
        }
        if unread.body.is_empty() {
            unread.share = None;
            return std::task::Poll::Ready(None);
        }
        let length = unread.body.len().min(CHUNK_BYTES);
        let chunk = unread.body.split_to(length);
        unread.hold_only_the_rest();
        let more = !unread.body.is_empty();
        drop(unread);
        if more && !this.watched {
            this.watched = true;
            this.watch(read_deadline(this.size as usize));
        }
        std::task::Poll::Ready(Some(Ok(chunk)))
    }
}

#[cfg(test)]
mod tests {
    use actix_web::body::MessageBody;

    use super::*;
    use crate::machinery::body_budget::BodyBudget;
    use crate::machinery::list_budget::ListBudget;

    fn context() -> std::task::Context<'static> {
        std::task::Context::from_waker(std::task::Waker::noop())
    }

    #[tokio::test]
    async fn a_pages_share_follows_what_the_connection_has_not_taken() {
        let sites = crate::machinery::list_budget::tests::site_fields();
        let whole = 64 * 1024 * 1024;
        let budget = ListBudget::new(whole);
        let share = budget.take(sites, 1000).await;
        assert_eq!(budget.available_bytes(), 0, "the worst case of 1,000 sites");
        // The answer is 150 KiB: the rest of the worst case is given back at once.
        let mut page = PageBody::new(vec![b' '; 150 * 1024], Some(share));
        assert_eq!(budget.available_bytes(), whole - 150 * 1024);
        let mut taken = Vec::new();
        while let std::task::Poll::Ready(Some(Ok(chunk))) =
            std::pin::Pin::new(&mut page).poll_next(&mut context())
        {
            taken.push(chunk.len());
            let left: usize = 150 * 1024 - taken.iter().sum::<usize>();
            assert_eq!(budget.available_bytes(), whole - left, "after {taken:?}");
        }
        assert_eq!(taken, [vec![16 * 1024; 9], vec![6 * 1024]].concat());
        assert_eq!(budget.available_bytes(), whole);
    }

    #[tokio::test(start_paused = true)]
    async fn an_answer_not_taken_within_its_deadline_is_let_go_with_its_share() {
        let whole = 64 * 1024 * 1024;
        let budget = BodyBudget::new(whole);
        let share = budget.take(4 * 1024 * 1024).await;
        let mut page = PageBody::new(vec![b' '; 4 * 1024 * 1024], Some(share));
        // The connection takes one chunk, then the client reads no more.
        let first = std::pin::Pin::new(&mut page).poll_next(&mut context());
        assert!(matches!(first, std::task::Poll::Ready(Some(Ok(_)))));
        let deadline = read_deadline(4 * 1024 * 1024);
        assert_eq!(deadline, Duration::from_secs(60 + 128));
        tokio::time::sleep(deadline - Duration::from_secs(1)).await;
        assert_eq!(budget.available_bytes(), whole - (4 * 1024 - 16) * 1024);
        tokio::time::sleep(Duration::from_secs(2)).await;
        assert_eq!(
            budget.available_bytes(),
            whole,
            "the share outlived the deadline"
        );
        let next = std::pin::Pin::new(&mut page).poll_next(&mut context());
        assert!(matches!(next, std::task::Poll::Ready(Some(Err(TooSlow)))));
    }

    #[tokio::test(start_paused = true)]
    async fn an_answer_taken_in_time_is_not_cut() {
        let mut page = PageBody::new(vec![b' '; 200 * 1024], None);
        let mut taken = 0;
        while let std::task::Poll::Ready(Some(chunk)) =
            std::pin::Pin::new(&mut page).poll_next(&mut context())
        {
            taken += chunk.expect("in time").len();
            tokio::time::sleep(Duration::from_secs(4)).await;
        }
        assert_eq!(taken, 200 * 1024);
    }
}
