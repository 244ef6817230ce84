//! Brute-force protection: too many failed sign-ins for one username or one client address in
//! a window lock that key until the window has passed.
//!
//! Checking and counting are one step: [`LoginThrottle::reserve`] takes a slot under both keys
//! before the password is verified, and the slot counts as a failure unless the attempt
//! succeeds. However many attempts arrive at once, at most `per_username` wrong passwords for
//! one username (and `per_address` from one address) are verified per window.
//!
//! The slots live in the database (`billing_persistence::sign_in_attempts`), so every instance
//! on it counts the same attempts: a guesser spread over several instances behind a load
//! balancer meets one limit, not one per instance. Each step is one short transaction holding
//! the keys' locks; none of them waits for a password hash.

use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use billing_persistence::{Database, PersistenceError, sign_in_attempts};
use chrono::NaiveDateTime;

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

/// The throttle of one instance over the slots every instance shares (see the module
/// documentation). Its methods block on the database: call them off the async workers.
pub struct LoginThrottle {
    policy: ThrottlePolicy,
    database: Database,
    reservations: AtomicU64,
}

/// A slot taken by a sign-in attempt under its username and its address. It counts as a
/// failure until [`LoginThrottle::succeeded`] or [`LoginThrottle::abandoned`] says otherwise,
/// so an attempt whose caller goes away is counted too.
#[derive(Debug)]
#[must_use = "a reservation counts as a failure unless it is settled"]
pub struct Reservation {
    username_key: String,
    address_key: String,
    username_slot: i64,
    address_slot: i64,
}

/// Every this many reservations, an instance also removes the expired slots of every key.
const PRUNE_EVERY: u64 = 64;

/// A username's key holds the name's SHA-256, not the name: what people type as a username is
/// sometimes their password, and it is stored here whether or not such a user exists (and a
/// name with a NUL, which PostgreSQL text refuses, is stored like any other).
fn username_key(username: &str) -> String {
    format!("user:{}", crate::refresh_token::hash(username))
}

fn address_key(address: &str) -> String {
    format!("addr:{address}")
}

impl LoginThrottle {
    pub fn new(policy: ThrottlePolicy, database: Database) -> Self {
        Self {
            policy,
            database,
            reservations: AtomicU64::new(0),
        }
    }

    fn window(&self) -> chrono::Duration {
        chrono::Duration::from_std(self.policy.window).unwrap_or(chrono::Duration::minutes(15))
    }

    /// `Some(wait)` when `key` already holds `limit` slots of the window ending at `now`.
    fn full(
        &self,
        connection: &mut billing_persistence::DbConnection,
        key: &str,
        limit: usize,
        now: NaiveDateTime,
    ) -> Result<Option<Duration>, PersistenceError> {
        let (held, oldest) = sign_in_attempts::held_since(connection, key, now - self.window())?;
        if held < limit as i64 {
            return Ok(None);
        }
        let oldest = oldest.unwrap_or(now);
        let left = (self.window() - (now - oldest))
            .to_std()
            .unwrap_or_default();
        Ok(Some(left.max(Duration::from_secs(1))))
    }

    /// Takes a slot for a sign-in attempt at `now`, or `Ok(Err(wait))` when the username or
    /// the address is locked now. Checking and taking happen in one transaction holding both
    /// keys' locks.
    pub fn reserve(
        &self,
        username: &str,
        address: &str,
        now: NaiveDateTime,
    ) -> Result<Result<Reservation, Duration>, PersistenceError> {
        let (username_key, address_key) = (username_key(username), address_key(address));
        let keys = [username_key.as_str(), address_key.as_str()];
        let taken = self.database.write(|c| {
            sign_in_attempts::lock_keys(c, &keys)?;
            sign_in_attempts::prune_keys(c, &keys, now - self.window())?;
            if let Some(wait) = self.full(c, &username_key, self.policy.per_username, now)? {
                return Ok(Err(wait));
            }
            if let Some(wait) = self.full(c, &address_key, self.policy.per_address, now)? {
                return Ok(Err(wait));
            }
            let username_slot = sign_in_attempts::insert(c, &username_key, now)?;
            let address_slot = sign_in_attempts::insert(c, &address_key, now)?;
            Ok::<_, PersistenceError>(Ok((username_slot, address_slot)))
        })?;
        if self.reservations.fetch_add(1, Ordering::Relaxed) % PRUNE_EVERY == PRUNE_EVERY - 1 {
            // Keys nobody tries again: removed in a statement of its own, and only logged if
            // it fails (another instance may be doing the same).
            if let Err(error) = self
                .database
                .read(|c| sign_in_attempts::prune(c, now - self.window()))
            {
                tracing::warn!(%error, "could not remove expired sign-in attempts");
            }
        }
        Ok(taken.map(|(username_slot, address_slot)| Reservation {
            username_key,
            address_key,
            username_slot,
            address_slot,
        }))
    }

    /// The attempt failed (wrong password, unknown or inactive user): its slots stay counted.
    pub fn failed(&self, reservation: Reservation) {
        drop(reservation);
    }

    /// The attempt succeeded: the username's count is cleared, and the address gets its slot
    /// back (a success is not a failure of that address).
    pub fn succeeded(&self, reservation: Reservation) -> Result<(), PersistenceError> {
        self.database.write(|c| {
            sign_in_attempts::lock_keys(c, &[&reservation.username_key, &reservation.address_key])?;
            sign_in_attempts::clear(c, &reservation.username_key)?;
            sign_in_attempts::delete(c, &[reservation.address_slot])
        })
    }

    /// No password was verified (the hashing pool was busy, storage failed): both slots are
    /// given back.
    pub fn abandoned(&self, reservation: Reservation) -> Result<(), PersistenceError> {
        self.database.write(|c| {
            sign_in_attempts::lock_keys(c, &[&reservation.username_key, &reservation.address_key])?;
            sign_in_attempts::delete(c, &[reservation.username_slot, reservation.address_slot])
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A throttle over a fresh SQLite database of its own (the PostgreSQL half is covered by
    /// the integration tests, which run every sign-in on both backends).
    fn throttle(per_username: usize, per_address: usize) -> (LoginThrottle, std::path::PathBuf) {
        let dir = std::env::temp_dir().join(format!(
            "billing_throttle_{}",
            uuid::Uuid::new_v4().simple()
        ));
        let database = Database::open(&billing_persistence::DatabaseConfig {
            url: None,
            data_dir: dir.clone(),
            pool_size: 4,
            connection_timeout: Duration::from_secs(30),
        })
        .expect("database");
        let policy = ThrottlePolicy {
            window: Duration::from_secs(60),
            per_username,
            per_address,
        };
        (LoginThrottle::new(policy, database), dir)
    }

    fn at(seconds: i64) -> NaiveDateTime {
        billing_persistence::now() + chrono::Duration::seconds(seconds)
    }

    fn reserve(
        throttle: &LoginThrottle,
        username: &str,
        address: &str,
        now: NaiveDateTime,
    ) -> Result<Reservation, Duration> {
        throttle.reserve(username, address, now).expect("storage")
    }

    #[test]
    fn locks_after_the_limit_and_unlocks_after_the_window() {
        let (throttle, dir) = throttle(3, 10);
        let start = at(0);
        for _ in 0..3 {
            let slot = reserve(&throttle, "alice", "10.0.0.1", start).expect("room");
            throttle.failed(slot);
        }
        let wait = reserve(
            &throttle,
            "alice",
            "10.0.0.2",
            start + chrono::Duration::seconds(10),
        )
        .unwrap_err();
        assert_eq!(wait, Duration::from_secs(50));
        assert!(
            reserve(&throttle, "bob", "10.0.0.1", start).is_ok(),
            "another user from the same address"
        );
        assert!(
            reserve(
                &throttle,
                "alice",
                "10.0.0.1",
                start + chrono::Duration::seconds(61)
            )
            .is_ok()
        );
        let _ = std::fs::remove_dir_all(dir);
    }

    #[test]
    fn an_attempt_in_progress_holds_its_slot() {
        let (throttle, dir) = throttle(1, 10);
        let now = at(0);
        let first = reserve(&throttle, "alice", "a", now).expect("room");
        assert!(
            reserve(&throttle, "alice", "b", now).is_err(),
            "the first attempt is not settled yet"
        );
        throttle.failed(first);
        assert!(reserve(&throttle, "alice", "b", now).is_err());
        let _ = std::fs::remove_dir_all(dir);
    }

    #[test]
    fn success_clears_the_username_and_returns_the_address_slot() {
        let (throttle, dir) = throttle(2, 2);
        let now = at(0);
        let wrong = reserve(&throttle, "alice", "a", now).expect("room");
        throttle.failed(wrong);
        let right = reserve(&throttle, "alice", "a", now).expect("room");
        throttle.succeeded(right).expect("storage");
        // alice is clear; the address holds only the one failure.
        let slot = reserve(&throttle, "alice", "a", now).expect("room");
        throttle.failed(slot);
        assert!(
            reserve(&throttle, "bob", "a", now).is_err(),
            "two failures from a"
        );
        let _ = std::fs::remove_dir_all(dir);
    }

    #[test]
    fn an_abandoned_attempt_gives_both_slots_back() {
        let (throttle, dir) = throttle(1, 1);
        let now = at(0);
        let slot = reserve(&throttle, "alice", "a", now).expect("room");
        throttle.abandoned(slot).expect("storage");
        assert!(reserve(&throttle, "alice", "a", now).is_ok());
        let _ = std::fs::remove_dir_all(dir);
    }

    #[test]
    fn concurrent_attempts_never_exceed_the_limit() {
        let (throttle, dir) = throttle(5, 1000);
        let barrier = std::sync::Barrier::new(20);
        let admitted = std::thread::scope(|scope| {
            let threads: Vec<_> = (0..20)
                .map(|_| {
                    let (throttle, barrier) = (&throttle, &barrier);
                    scope.spawn(move || {
                        barrier.wait();
                        match reserve(throttle, "alice", "10.0.0.1", billing_persistence::now()) {
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
        let _ = std::fs::remove_dir_all(dir);
    }
}
