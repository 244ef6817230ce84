//! Brute-force protection: too many failed sign-ins for one username or one client address in
//! a window lock that key until the window has passed.
//!
//! Checking and counting are one step: [`LoginThrottle::reserve`] takes a slot under both keys
//! before the password is verified, and the slot counts as a failure unless the attempt
//! succeeds. However many attempts arrive at once, at most `per_username` wrong passwords for
//! one username (and `per_address` from one address) are verified per window.

use std::collections::{HashMap, VecDeque};
use std::sync::{Mutex, MutexGuard};
use std::time::{Duration, Instant};

#[derive(Debug, Clone, Copy)]
pub struct ThrottlePolicy {
    pub window: Duration,
    pub per_username: usize,
    pub per_address: usize,
}

impl Default for ThrottlePolicy {
    fn default() -> Self {
        Self {
            window: Duration::from_secs(15 * 60),
            per_username: 5,
            per_address: 20,
        }
    }
}

/// Attempt times per key (failures, and attempts still being verified), kept in memory: each
/// instance throttles on its own.
pub struct LoginThrottle {
    policy: ThrottlePolicy,
    attempts: Mutex<HashMap<String, VecDeque<Instant>>>,
}

/// A slot taken by a sign-in attempt under its username and its address. It counts as a
/// failure until [`LoginThrottle::succeeded`] or [`LoginThrottle::abandoned`] says otherwise,
/// so an attempt whose caller goes away is counted too.
#[derive(Debug)]
#[must_use = "a reservation counts as a failure unless it is settled"]
pub struct Reservation {
    username_key: String,
    address_key: String,
    at: Instant,
}

const MAX_TRACKED_KEYS: usize = 100_000;

fn username_key(username: &str) -> String {
    format!("user:{username}")
}

fn address_key(address: &str) -> String {
    format!("addr:{address}")
}

/// Removes one slot taken at `at` under `key` (slots taken at the same instant are alike).
fn remove_slot(attempts: &mut HashMap<String, VecDeque<Instant>>, key: &str, at: Instant) {
    if let Some(times) = attempts.get_mut(key) {
        if let Some(position) = times.iter().position(|time| *time == at) {
            times.remove(position);
        }
        if times.is_empty() {
            attempts.remove(key);
        }
    }
}

impl LoginThrottle {
    pub fn new(policy: ThrottlePolicy) -> Self {
        Self {
            policy,
            attempts: Mutex::new(HashMap::new()),
        }
    }

    fn lock(&self) -> MutexGuard<'_, HashMap<String, VecDeque<Instant>>> {
        self.attempts
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// `Err(wait)` when `key` already holds `limit` slots of the current window.
    fn room(
        &self,
        attempts: &mut HashMap<String, VecDeque<Instant>>,
        key: &str,
        limit: usize,
        now: Instant,
    ) -> Result<(), Duration> {
        let Some(times) = attempts.get_mut(key) else {
            return Ok(());
        };
        while times
            .front()
            .is_some_and(|first| now.saturating_duration_since(*first) >= self.policy.window)
        {
            times.pop_front();
        }
        if times.len() < limit {
            return Ok(());
        }
        let oldest = times.front().copied().unwrap_or(now);
        Err(self
            .policy
            .window
            .saturating_sub(now.saturating_duration_since(oldest))
            .max(Duration::from_secs(1)))
    }

    /// Takes a slot for a sign-in attempt, or `Err(wait)` when the username or the address is
    /// locked now. Checking and taking happen under one lock.
    pub fn reserve(
        &self,
        username: &str,
        address: &str,
        now: Instant,
    ) -> Result<Reservation, Duration> {
        let reservation = Reservation {
            username_key: username_key(username),
            address_key: address_key(address),
            at: now,
        };
        let mut attempts = self.lock();
        self.room(
            &mut attempts,
            &reservation.username_key,
            self.policy.per_username,
            now,
        )?;
        self.room(
            &mut attempts,
            &reservation.address_key,
            self.policy.per_address,
            now,
        )?;
        if attempts.len() >= MAX_TRACKED_KEYS {
            let window = self.policy.window;
            attempts.retain(|_, times| {
                times
                    .back()
                    .is_some_and(|last| now.saturating_duration_since(*last) < window)
            });
        }
        for key in [&reservation.username_key, &reservation.address_key] {
            attempts.entry(key.clone()).or_default().push_back(now);
        }
        Ok(reservation)
    }

    /// The attempt failed (wrong password, unknown or inactive user): its slot stays counted.
    pub fn failed(&self, reservation: Reservation) {
        drop(reservation);
    }

    /// The attempt succeeded: the username's count is cleared, and the address gets its slot
    /// back (a success is not a failure of that address).
    pub fn succeeded(&self, reservation: Reservation) {
        let mut attempts = self.lock();
        attempts.remove(&reservation.username_key);
        remove_slot(&mut attempts, &reservation.address_key, reservation.at);
    }

    /// No password was verified (the hashing pool was busy, storage failed): both slots are
    /// given back.
    pub fn abandoned(&self, reservation: Reservation) {
        let mut attempts = self.lock();
        remove_slot(&mut attempts, &reservation.username_key, reservation.at);
        remove_slot(&mut attempts, &reservation.address_key, reservation.at);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn throttle(per_username: usize, per_address: usize) -> LoginThrottle {
        LoginThrottle::new(ThrottlePolicy {
            window: Duration::from_secs(60),
            per_username,
            per_address,
        })
    }

    #[test]
    fn locks_after_the_limit_and_unlocks_after_the_window() {
        let throttle = throttle(3, 10);
        let start = Instant::now();
        for _ in 0..3 {
            let slot = throttle.reserve("alice", "10.0.0.1", start).expect("room");
            throttle.failed(slot);
        }
        let wait = throttle
            .reserve("alice", "10.0.0.2", start + Duration::from_secs(10))
            .unwrap_err();
        assert_eq!(wait, Duration::from_secs(50));
        assert!(
            throttle.reserve("bob", "10.0.0.1", start).is_ok(),
            "another user from the same address"
        );
        assert!(
            throttle
                .reserve("alice", "10.0.0.1", start + Duration::from_secs(61))
                .is_ok()
        );
    }

    #[test]
    fn an_attempt_in_progress_holds_its_slot() {
        let throttle = throttle(1, 10);
        let now = Instant::now();
        let first = throttle.reserve("alice", "a", now).expect("room");
        assert!(
            throttle.reserve("alice", "b", now).is_err(),
            "the first attempt is not settled yet"
        );
        throttle.failed(first);
        assert!(throttle.reserve("alice", "b", now).is_err());
    }

    #[test]
    fn success_clears_the_username_and_returns_the_address_slot() {
        let throttle = throttle(2, 2);
        let now = Instant::now();
        let wrong = throttle.reserve("alice", "a", now).expect("room");
        throttle.failed(wrong);
        let right = throttle.reserve("alice", "a", now).expect("room");
        throttle.succeeded(right);
        // alice is clear; the address holds only the one failure.
        let slot = throttle.reserve("alice", "a", now).expect("room");
        throttle.failed(slot);
        assert!(
            throttle.reserve("bob", "a", now).is_err(),
            "two failures from a"
        );
    }

    #[test]
    fn an_abandoned_attempt_gives_both_slots_back() {
        let throttle = throttle(1, 1);
        let now = Instant::now();
        let slot = throttle.reserve("alice", "a", now).expect("room");
        throttle.abandoned(slot);
        assert!(throttle.reserve("alice", "a", now).is_ok());
    }

    #[test]
    fn concurrent_attempts_never_exceed_the_limit() {
        let throttle = throttle(5, 1000);
        let barrier = std::sync::Barrier::new(20);
        let admitted = std::thread::scope(|scope| {
            let threads: Vec<_> = (0..20)
                .map(|_| {
                    let (throttle, barrier) = (&throttle, &barrier);
                    scope.spawn(move || {
                        barrier.wait();
                        match throttle.reserve("alice", "10.0.0.1", Instant::now()) {
                            Ok(slot) => {
                                // The password check takes a while; everyone else arrives.
                                std::thread::sleep(Duration::from_millis(20));
                                throttle.failed(slot);
                                1
                            }
                            Err(_) => 0,
                        }
                    })
                })
                .collect();
            threads
                .into_iter()
                .map(|thread| thread.join().expect("thread"))
                .sum::<usize>()
        });
        assert_eq!(admitted, 5);
    }
}
