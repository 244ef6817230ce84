//! The callers' current state, served from memory for at most [`PRINCIPAL_MAX_AGE`] so that an
//! authenticated request needs no trip to the database for its caller (docs/api.md "Authentication and users": a changed
//! user takes effect "within seconds"; this keeps it to one second, and to at once for changes
//! made through this instance, which call [`PrincipalCache::forget_all`] after they commit).
//!
//! A load that started before a change committed must not put the old state back after the
//! change forgot it: every load notes the cache's generation first, and its result is kept
//! only if no change happened meanwhile.

use std::collections::HashMap;
use std::sync::Mutex;
use std::time::{Duration, Instant};

use crate::principal::AuthenticatedUser;

/// How long a caller's state is trusted without reading it again.
pub const PRINCIPAL_MAX_AGE: Duration = Duration::from_secs(1);

/// What the database said about a caller.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum KnownUser {
    Active(AuthenticatedUser),
    Inactive,
    Missing,
    /// No API key has that hash (never kept: its entries would be as many as the guesses).
    UnknownKey,
}

/// Whom a request's credential names: a user (an access token's subject) or an API key (by
/// the key's hash, never the key).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum CallerKey {
    User(i64),
    ApiKey(Box<str>),
}

struct Entry {
    user: KnownUser,
    loaded_at: Instant,
}

#[derive(Default)]
struct State {
    generation: u64,
    entries: HashMap<CallerKey, Entry>,
}

/// See the module documentation. Holds one entry per user that presented a valid token and
/// per existing API key presented, so it is bounded by the users and API keys tables.
pub struct PrincipalCache {
    max_age: Duration,
    state: Mutex<State>,
}

impl PrincipalCache {
    pub fn new(max_age: Duration) -> Self {
        Self {
            max_age,
            state: Mutex::new(State::default()),
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, State> {
        // A panic while holding the lock cannot leave the map half-written (every change is
        // one insert or clear), so a poisoned lock is still sound to use.
        self.state
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// The state of `caller` if it was read less than the maximum age ago.
    pub fn get(&self, caller: &CallerKey) -> Option<KnownUser> {
        let state = self.lock();
        let entry = state.entries.get(caller)?;
        (entry.loaded_at.elapsed() < self.max_age).then(|| entry.user.clone())
    }

    /// The generation to note before reading a user from the database.
    pub fn generation(&self) -> u64 {
        self.lock().generation
    }

    /// Keeps what a read that started at `generation` found, unless a change happened since.
    pub fn insert(&self, caller: CallerKey, user: KnownUser, generation: u64, loaded_at: Instant) {
        let mut state = self.lock();
        if state.generation == generation {
            state.entries.insert(caller, Entry { user, loaded_at });
        }
    }

    /// Forgets every caller: the next request of each reads the database again.
    pub fn forget_all(&self) {
        let mut state = self.lock();
        state.generation += 1;
        state.entries.clear();
    }
}

#[cfg(test)]
mod tests {
    use billing_domain::roles::{ContractOwnerScope, Role};

    use super::*;

    fn user() -> KnownUser {
        KnownUser::Active(AuthenticatedUser {
            id: 1,
            username: "a".into(),
            roles: vec![Role::ReadOnly],
            contract_owners: ContractOwnerScope::All,
            api_key_id: None,
        })
    }

    #[test]
    fn entries_expire_and_a_change_forgets_them() {
        let cache = PrincipalCache::new(Duration::from_secs(60));
        let generation = cache.generation();
        cache.insert(CallerKey::User(1), user(), generation, Instant::now());
        assert_eq!(cache.get(&CallerKey::User(1)), Some(user()));
        assert_eq!(cache.get(&CallerKey::User(2)), None);
        cache.forget_all();
        assert_eq!(cache.get(&CallerKey::User(1)), None);
        let old = Instant::now() - Duration::from_secs(61);
        cache.insert(CallerKey::User(1), user(), cache.generation(), old);
        assert_eq!(
            cache.get(&CallerKey::User(1)),
            None,
            "older than the maximum age"
        );
    }

    #[test]
    fn a_read_that_raced_a_change_is_not_kept() {
        let cache = PrincipalCache::new(Duration::from_secs(60));
        let before_the_change = cache.generation();
        cache.forget_all();
        cache.insert(
            CallerKey::User(1),
            user(),
            before_the_change,
            Instant::now(),
        );
        assert_eq!(cache.get(&CallerKey::User(1)), None);
        insta::assert_snapshot!(format!("{:?}", cache.get(&CallerKey::User(1))), @"None");
    }
}
