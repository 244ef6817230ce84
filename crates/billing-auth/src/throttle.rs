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
//!
//! A key found full only of attempts still in progress on this instance (ten sign-ins of one
//! user at once, each verifying a right password) is refused with a wait of one second, not
//! the window's rest: those attempts settle within it, and successes give their slots back.
//!
//! A key this instance has found locked is remembered for up to [`SEEN_LOCK_RECHECK`] (never
//! past the lock's end), and attempts on it are refused from memory in that time: a flood of
//! attempts on a locked key costs one transaction a second instead of one each. Settling an
//! attempt here forgets its keys at once; a slot given back on another instance can keep a key
//! refused here for up to that second longer.

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
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
    seen_locks: Mutex<HashMap<String, SeenLock>>,
    in_progress: Arc<InProgress>,
}

/// How many attempts of this instance hold a slot under each key and are not settled yet.
#[derive(Debug, Default)]
struct InProgress(Mutex<HashMap<String, usize>>);

impl InProgress {
    fn counts(&self) -> std::sync::MutexGuard<'_, HashMap<String, usize>> {
        // Counts a panic could leave off by one only make a wait one second instead of longer.
        self.0
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    fn begin(&self, keys: &[&str]) {
        let mut counts = self.counts();
        for key in keys {
            *counts.entry((*key).to_owned()).or_default() += 1;
        }
    }

    fn end(&self, keys: &[&str]) {
        let mut counts = self.counts();
        for key in keys {
            if let Some(count) = counts.get_mut(*key) {
                *count -= 1;
                if *count == 0 {
                    counts.remove(*key);
                }
            }
        }
    }

    fn count(&self, key: &str) -> usize {
        self.counts().get(key).copied().unwrap_or(0)
    }
}

/// A key found locked: refused from memory until `recheck_at`, told to wait until `until`.
#[derive(Debug, Clone, Copy)]
struct SeenLock {
    until: NaiveDateTime,
    recheck_at: NaiveDateTime,
}

/// How long a key found locked is refused from memory before the database is asked again.
pub const SEEN_LOCK_RECHECK: Duration = Duration::from_secs(1);

/// At most this many locked keys are remembered (when full, expired ones are dropped, and if
/// none has expired, all of them: forgetting only costs a transaction).
const SEEN_LOCKS_KEPT: usize = 4096;

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
    in_progress: Arc<InProgress>,
}

/// However the attempt ends (settled, failed, or its caller gone), it is no longer in progress.
impl Drop for Reservation {
    fn drop(&mut self) {
        self.in_progress
            .end(&[&self.username_key, &self.address_key]);
    }
}

/// Why a key takes no attempt now.
#[derive(Debug, Clone, Copy)]
enum Full {
    /// Its failures fill the window: wait this long.
    ForTheWindow(Duration),
    /// Attempts of this instance still in progress fill it: they settle within a second.
    UntilAttemptsSettle,
}

/// Every this many reservations, an instance also removes the expired slots of every key.
const PRUNE_EVERY: u64 = 64;

/// A username's key holds the name's SHA-256, not the name: what people type as a username is
/// sometimes their password, and it is stored here whether or not such a user exists (and a
/// name with a NUL, which PostgreSQL text refuses, is stored like any other).
fn username_key(username: &str) -> String {
    format!("user:{}", crate::refresh_token::hash(username))
}

/// An address's key: an IPv4 address itself; an IPv6 address's /64, the block one client
/// (a home, a host) is handed, so that a client cannot get a fresh allowance from each of its
/// 2^64 addresses.
fn address_key(address: &str) -> String {
    match address.parse::<std::net::IpAddr>() {
        Ok(std::net::IpAddr::V6(v6)) if v6.to_ipv4_mapped().is_none() => {
            let block = std::net::Ipv6Addr::from(v6.to_bits() & (u128::MAX << 64));
            format!("addr:{block}/64")
        }
        _ => format!("addr:{address}"),
    }
}

impl LoginThrottle {
    pub fn new(policy: ThrottlePolicy, database: Database) -> Self {
        Self {
            policy,
            database,
            reservations: AtomicU64::new(0),
            seen_locks: Mutex::new(HashMap::new()),
            in_progress: Arc::default(),
        }
    }

    fn seen_locks(&self) -> std::sync::MutexGuard<'_, HashMap<String, SeenLock>> {
        // The map holds no invariant a panic could break halfway.
        self.seen_locks
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// `Some(wait)` when this instance found `username` or `address` locked less than
    /// [`SEEN_LOCK_RECHECK`] before `now`: the attempt is refused without the database. Does
    /// not block: call it on the async workers before [`LoginThrottle::reserve`].
    pub fn seen_locked(
        &self,
        username: &str,
        address: &str,
        now: NaiveDateTime,
    ) -> Option<Duration> {
        self.seen_lock(&[&username_key(username), &address_key(address)], now)
    }

    fn seen_lock(&self, keys: &[&str], now: NaiveDateTime) -> Option<Duration> {
        let seen = self.seen_locks();
        if seen.is_empty() {
            return None;
        }
        keys.iter()
            .filter_map(|key| seen.get(*key))
            .filter(|lock| now < lock.recheck_at)
            .map(|lock| {
                (lock.until - now)
                    .to_std()
                    .unwrap_or_default()
                    .max(Duration::from_secs(1))
            })
            .max()
    }

    fn remember_lock(&self, key: &str, now: NaiveDateTime, wait: Duration) {
        let until = now + chrono::Duration::from_std(wait).unwrap_or(chrono::Duration::zero());
        let recheck = chrono::Duration::from_std(SEEN_LOCK_RECHECK).unwrap_or_default();
        let lock = SeenLock {
            until,
            recheck_at: (now + recheck).min(until),
        };
        let mut seen = self.seen_locks();
        if seen.len() >= SEEN_LOCKS_KEPT {
            seen.retain(|_, lock| now < lock.recheck_at);
            if seen.len() >= SEEN_LOCKS_KEPT {
                seen.clear();
            }
        }
        seen.insert(key.to_owned(), lock);
    }

    fn forget_locks(&self, keys: &[&str]) {
        let mut seen = self.seen_locks();
        if !seen.is_empty() {
            for key in keys {
                seen.remove(*key);
            }
        }
    }

    fn window(&self) -> chrono::Duration {
        chrono::Duration::from_std(self.policy.window).unwrap_or(chrono::Duration::minutes(15))
    }

    /// `Some(wait)` when `key` already holds `limit` slots of the window ending at `now`: the
    /// window's rest, or one second when attempts of this instance still in progress fill it.
    fn full(
        &self,
        connection: &mut billing_persistence::DbConnection,
        key: &str,
        limit: usize,
        now: NaiveDateTime,
    ) -> Result<Option<Full>, PersistenceError> {
        let (held, oldest) = sign_in_attempts::held_since(connection, key, now - self.window())?;
        if held < limit as i64 {
            return Ok(None);
        }
        let in_progress = i64::try_from(self.in_progress.count(key)).unwrap_or(i64::MAX);
        if held.saturating_sub(in_progress) < limit as i64 {
            return Ok(Some(Full::UntilAttemptsSettle));
        }
        let oldest = oldest.unwrap_or(now);
        let left = (self.window() - (now - oldest))
            .to_std()
            .unwrap_or_default();
        Ok(Some(Full::ForTheWindow(left.max(Duration::from_secs(1)))))
    }

    /// Takes a slot for a sign-in attempt at `now`, or `Ok(Err(wait))` when the username or
    /// the address is locked now. Checking and taking happen in one transaction holding both
    /// keys' locks (unless this instance found one of them locked within the last second).
    pub fn reserve(
        &self,
        username: &str,
        address: &str,
        now: NaiveDateTime,
    ) -> Result<Result<Reservation, Duration>, PersistenceError> {
        let (username_key, address_key) = (username_key(username), address_key(address));
        let keys = [username_key.as_str(), address_key.as_str()];
        if let Some(wait) = self.seen_lock(&keys, now) {
            return Ok(Err(wait));
        }
        let limits = [self.policy.per_username, self.policy.per_address];
        let taken = self.database.write_guarded_by_locks(|c| {
            sign_in_attempts::lock_keys(c, &keys)?;
            sign_in_attempts::prune_keys(c, &keys, now - self.window())?;
            for (key, limit) in keys.iter().zip(limits) {
                if let Some(full) = self.full(c, key, limit, now)? {
                    return Ok(Err((*key, full)));
                }
            }
            let username_slot = sign_in_attempts::insert(c, &username_key, now)?;
            let address_slot = sign_in_attempts::insert(c, &address_key, now)?;
            Ok::<_, PersistenceError>(Ok((username_slot, address_slot)))
        })?;
        let taken = taken.map_err(|(key, full)| match full {
            Full::ForTheWindow(wait) => {
                self.remember_lock(key, now, wait);
                wait
            }
            Full::UntilAttemptsSettle => Duration::from_secs(1),
        });
        if taken.is_ok() {
            self.in_progress.begin(&keys);
        }
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
            in_progress: self.in_progress.clone(),
        }))
    }

    /// The attempt failed (wrong password, unknown or inactive user): its slots stay counted.
    pub fn failed(&self, reservation: Reservation) {
        drop(reservation);
    }

    /// The attempt succeeded: the username's count is cleared, and the address gets its slot
    /// back (a success is not a failure of that address).
    pub fn succeeded(&self, reservation: Reservation) -> Result<(), PersistenceError> {
        self.database.write_guarded_by_locks(|c| {
            sign_in_attempts::lock_keys(c, &[&reservation.username_key, &reservation.address_key])?;
            sign_in_attempts::clear(c, &reservation.username_key)?;
            sign_in_attempts::delete(c, &[reservation.address_slot])
        })?;
        self.forget_locks(&[&reservation.username_key, &reservation.address_key]);
        Ok(())
    }

    /// No password was verified (the hashing pool was busy, storage failed): both slots are
    /// given back.
    pub fn abandoned(&self, reservation: Reservation) -> Result<(), PersistenceError> {
        self.database.write_guarded_by_locks(|c| {
            sign_in_attempts::lock_keys(c, &[&reservation.username_key, &reservation.address_key])?;
            sign_in_attempts::delete(c, &[reservation.username_slot, reservation.address_slot])
        })?;
        self.forget_locks(&[&reservation.username_key, &reservation.address_key]);
        Ok(())
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
    fn an_ipv6_client_is_counted_by_its_64_block() {
        let (throttle, dir) = throttle(10, 2);
        let now = at(0);
        for (user, address) in [("a", "2001:db8:0:1::1"), ("b", "2001:db8:0:1:ffff::2")] {
            let slot = reserve(&throttle, user, address, now).expect("room");
            throttle.failed(slot);
        }
        // Another address of the same /64 finds the block's allowance used up; another /64,
        // and an IPv4 address, have their own.
        assert!(reserve(&throttle, "c", "2001:db8:0:1::3", now).is_err());
        assert!(reserve(&throttle, "c", "2001:db8:0:2::1", now).is_ok());
        assert!(reserve(&throttle, "d", "192.0.2.1", now).is_ok());
        assert_eq!(
            address_key("2001:db8:0:1:abcd::9"),
            "addr:2001:db8:0:1::/64"
        );
        assert_eq!(address_key("192.0.2.1"), "addr:192.0.2.1");
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
    fn a_key_full_of_attempts_in_progress_asks_for_a_second_not_the_window() {
        let (throttle, dir) = throttle(2, 10);
        let now = at(0);
        let first = reserve(&throttle, "alice", "a", now).expect("room");
        let second = reserve(&throttle, "alice", "a", now).expect("room");
        // Two sign-ins of alice still being checked fill her limit: the third waits a second.
        assert_eq!(
            reserve(&throttle, "alice", "a", now).unwrap_err(),
            Duration::from_secs(1)
        );
        throttle.succeeded(first).expect("storage");
        assert!(
            reserve(&throttle, "alice", "a", now).is_ok(),
            "a success gave the slots back"
        );
        // Failures fill it: the window's rest (60 s here), remembered.
        throttle.failed(second);
        let wrong = reserve(&throttle, "bob", "b", now).expect("room");
        throttle.failed(wrong);
        let wrong = reserve(&throttle, "bob", "b", now).expect("room");
        throttle.failed(wrong);
        assert_eq!(
            reserve(&throttle, "bob", "b", now).unwrap_err(),
            Duration::from_secs(60)
        );
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
    fn a_key_found_locked_is_refused_from_memory_for_a_second() {
        let (throttle, dir) = throttle(1, 10);
        let now = at(0);
        let slot = reserve(&throttle, "alice", "a", now).expect("room");
        throttle.failed(slot);
        assert!(reserve(&throttle, "alice", "b", now).is_err(), "locked");
        // Another instance gives the slot back: this one does not look for a second.
        throttle
            .database
            .write(|c| sign_in_attempts::clear(c, &username_key("alice")))
            .expect("storage");
        let wait = throttle.seen_locked("alice", "c", now + chrono::Duration::milliseconds(900));
        assert_eq!(
            wait,
            Some(Duration::from_millis(59_100)),
            "until the lock's own end"
        );
        assert!(
            reserve(&throttle, "alice", "c", now).is_err(),
            "from memory"
        );
        assert_eq!(
            throttle.seen_locked("bob", "c", now),
            None,
            "other keys are asked"
        );
        let later = now + chrono::Duration::seconds(1);
        assert_eq!(throttle.seen_locked("alice", "c", later), None);
        let slot = reserve(&throttle, "alice", "c", later).expect("the database says free");
        throttle.failed(slot);
        let _ = std::fs::remove_dir_all(dir);
    }

    #[test]
    fn settling_an_attempt_forgets_its_keys_locks() {
        let (throttle, dir) = throttle(1, 10);
        let now = at(0);
        let slot = reserve(&throttle, "alice", "a", now).expect("room");
        assert!(
            reserve(&throttle, "alice", "b", now).is_err(),
            "in progress"
        );
        throttle.succeeded(slot).expect("storage");
        assert_eq!(throttle.seen_locked("alice", "b", now), None);
        assert!(reserve(&throttle, "alice", "b", now).is_ok());
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
