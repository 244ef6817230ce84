//! Brute-force protection: too many failed sign-ins for one username or one client address in
//! a window lock that key until the window has passed.

use std::collections::{HashMap, VecDeque};
use std::sync::Mutex;
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

/// Failure times per key, kept in memory (each instance throttles on its own).
pub struct LoginThrottle {
    policy: ThrottlePolicy,
    failures: Mutex<HashMap<String, VecDeque<Instant>>>,
}

const MAX_TRACKED_KEYS: usize = 100_000;

impl LoginThrottle {
    pub fn new(policy: ThrottlePolicy) -> Self {
        Self {
            policy,
            failures: Mutex::new(HashMap::new()),
        }
    }

    fn keys(username: &str, address: &str) -> [(String, usize); 2] {
        [
            (format!("user:{username}"), 0),
            (format!("addr:{address}"), 1),
        ]
    }

    /// `Err(wait)` when either key is locked now.
    pub fn check(&self, username: &str, address: &str, now: Instant) -> Result<(), Duration> {
        let mut failures = self
            .failures
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        for (key, which) in Self::keys(username, address) {
            let limit = if which == 0 {
                self.policy.per_username
            } else {
                self.policy.per_address
            };
            if let Some(times) = failures.get_mut(&key) {
                while times
                    .front()
                    .is_some_and(|first| now.duration_since(*first) >= self.policy.window)
                {
                    times.pop_front();
                }
                if times.len() >= limit {
                    let oldest = times.front().copied().unwrap_or(now);
                    return Err(self
                        .policy
                        .window
                        .saturating_sub(now.duration_since(oldest))
                        .max(Duration::from_secs(1)));
                }
            }
        }
        Ok(())
    }

    pub fn record_failure(&self, username: &str, address: &str, now: Instant) {
        let mut failures = self
            .failures
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        if failures.len() >= MAX_TRACKED_KEYS {
            let window = self.policy.window;
            failures.retain(|_, times| {
                times
                    .back()
                    .is_some_and(|last| now.duration_since(*last) < window)
            });
        }
        for (key, _) in Self::keys(username, address) {
            failures.entry(key).or_default().push_back(now);
        }
    }

    /// A successful sign-in clears the username's failures (not the address's).
    pub fn record_success(&self, username: &str) {
        let mut failures = self
            .failures
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        failures.remove(&format!("user:{username}"));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn locks_after_the_limit_and_unlocks_after_the_window() {
        let throttle = LoginThrottle::new(ThrottlePolicy {
            window: Duration::from_secs(60),
            per_username: 3,
            per_address: 10,
        });
        let start = Instant::now();
        for _ in 0..3 {
            assert!(throttle.check("alice", "10.0.0.1", start).is_ok());
            throttle.record_failure("alice", "10.0.0.1", start);
        }
        let wait = throttle
            .check("alice", "10.0.0.2", start + Duration::from_secs(10))
            .unwrap_err();
        assert_eq!(wait, Duration::from_secs(50));
        assert!(
            throttle.check("bob", "10.0.0.1", start).is_ok(),
            "another user from the same address"
        );
        assert!(
            throttle
                .check("alice", "10.0.0.1", start + Duration::from_secs(61))
                .is_ok()
        );
    }

    #[test]
    fn success_clears_the_username() {
        let throttle = LoginThrottle::new(ThrottlePolicy {
            window: Duration::from_secs(60),
            per_username: 1,
            per_address: 10,
        });
        let now = Instant::now();
        throttle.record_failure("alice", "a", now);
        assert!(throttle.check("alice", "b", now).is_err());
        throttle.record_success("alice");
        assert!(throttle.check("alice", "b", now).is_ok());
    }
}
