//! SQLite's writers take turns inside the process, first come first served.
//!
//! SQLite lets one write transaction in at a time. Left to its busy handler, a writer that
//! finds the lock taken sleeps for a growing while and tries again, so under load some writers
//! wait far longer than the writes ahead of them take (a p99 of 1.8 s for creates at 32
//! connections, docs/performance.md) while others get in at once. Here each writer of the
//! process waits for its turn in a queue and is woken the moment the writer ahead of it is
//! done: the wait is the queue's length times the length of a write. Other processes on the
//! same file (the command line's batch jobs) still meet the busy handler.

use std::collections::VecDeque;
use std::sync::{Condvar, Mutex, MutexGuard};
use std::time::{Duration, Instant};

use crate::error::PersistenceError;

/// The queue of one database's writers.
#[derive(Debug, Default)]
pub(crate) struct WriteTurns {
    state: Mutex<Queue>,
    changed: Condvar,
}

#[derive(Debug, Default)]
struct Queue {
    next_ticket: u64,
    waiting: VecDeque<u64>,
    writing: bool,
}

/// A writer's turn: the next waits until this is dropped.
#[derive(Debug)]
pub(crate) struct Turn<'a> {
    turns: &'a WriteTurns,
}

impl WriteTurns {
    fn lock(&self) -> MutexGuard<'_, Queue> {
        // A writer that panicked left the queue consistent: every change is one statement.
        self.state
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// Waits for this writer's turn, at most `patience` (then `Unavailable`, as SQLite's own
    /// busy timeout would say, and the writer leaves the queue).
    pub(crate) fn wait(&self, patience: Duration) -> Result<Turn<'_>, PersistenceError> {
        let deadline = Instant::now() + patience;
        let mut queue = self.lock();
        let ticket = queue.next_ticket;
        queue.next_ticket += 1;
        queue.waiting.push_back(ticket);
        loop {
            if !queue.writing && queue.waiting.front() == Some(&ticket) {
                queue.waiting.pop_front();
                queue.writing = true;
                return Ok(Turn { turns: self });
            }
            let now = Instant::now();
            if now >= deadline {
                queue.waiting.retain(|waiting| *waiting != ticket);
                drop(queue);
                self.changed.notify_all();
                return Err(PersistenceError::Unavailable(format!(
                    "waited {} s for the other writes of this instance to finish",
                    patience.as_secs()
                )));
            }
            queue = self
                .changed
                .wait_timeout(queue, deadline - now)
                .unwrap_or_else(std::sync::PoisonError::into_inner)
                .0;
        }
    }
}

impl Drop for Turn<'_> {
    fn drop(&mut self) {
        self.turns.lock().writing = false;
        self.turns.changed.notify_all();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn writers_go_in_the_order_they_came() {
        let turns = WriteTurns::default();
        let order = Mutex::new(Vec::new());
        let first = turns.wait(Duration::from_secs(5)).expect("the first turn");
        std::thread::scope(|scope| {
            for writer in 0..4 {
                let (turns, order) = (&turns, &order);
                scope.spawn(move || {
                    let _turn = turns.wait(Duration::from_secs(5)).expect("a turn");
                    order.lock().expect("order").push(writer);
                });
                // Each queues before the next is started.
                while turns.lock().waiting.len() < writer + 1 {
                    std::thread::yield_now();
                }
            }
            drop(first);
        });
        assert_eq!(*order.lock().expect("order"), [0, 1, 2, 3]);
    }

    #[test]
    fn a_writer_that_waits_too_long_leaves_the_queue() {
        let turns = WriteTurns::default();
        let held = turns.wait(Duration::from_secs(5)).expect("held");
        let refused = turns.wait(Duration::from_millis(20)).unwrap_err();
        insta::assert_snapshot!(refused.to_string(), @"database unavailable: waited 0 s for the other writes of this instance to finish");
        drop(held);
        // The queue goes on without the one that left.
        assert!(turns.wait(Duration::from_millis(20)).is_ok());
    }
}
