//! Access tokens already checked, so that a client presenting the same token again is not
//! decoded, parsed and HMAC-checked again: that work was about a fifth of the instructions of
//! an authenticated `GET` by id (docs/performance.md).
//!
//! What a token says cannot change (its bytes are signed), so only its times are checked on
//! every use, with the same leeway and errors as the first check ([`VerifiedToken::user_at`]).
//! Only tokens that passed every check are kept, keyed by their whole text: a token that differs
//! in one byte is checked in full. The caller's state (active, roles) is not kept here: that is
//! [`crate::principal_cache`]'s, for at most one second.

use std::collections::HashMap;
use std::sync::Mutex;

use crate::tokens::VerifiedToken;

/// How many tokens are kept. Past that, expired ones are dropped, and if that is not enough,
/// all of them (each is then checked in full once more).
pub const VERIFIED_TOKENS_KEPT: usize = 4096;

pub struct VerifiedTokens {
    capacity: usize,
    entries: Mutex<HashMap<Box<str>, VerifiedToken>>,
}

impl VerifiedTokens {
    pub fn new(capacity: usize) -> Self {
        Self {
            capacity: capacity.max(1),
            entries: Mutex::new(HashMap::new()),
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<Box<str>, VerifiedToken>> {
        // Every change is one insert, retain or clear: a poisoned map is still whole.
        self.entries
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// What `token` was found to hold, if it was checked before.
    pub fn get(&self, token: &str) -> Option<VerifiedToken> {
        self.lock().get(token).copied()
    }

    /// Keeps a token that passed every check. `now` (seconds since the epoch) decides which
    /// entries have expired when the map is full.
    pub fn insert(&self, token: &str, verified: VerifiedToken, now: i64) {
        let mut entries = self.lock();
        if entries.len() >= self.capacity {
            entries.retain(|_, kept| !kept.has_expired_at(now));
            if entries.len() >= self.capacity {
                entries.clear();
            }
        }
        entries.insert(token.into(), verified);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn token(user_id: i64, exp: i64) -> VerifiedToken {
        VerifiedToken {
            user_id,
            exp,
            nbf: exp - 900,
        }
    }

    #[test]
    fn a_kept_token_still_expires() {
        let kept = VerifiedTokens::new(8);
        kept.insert("a.b.c", token(7, 1_000), 500);
        let found = kept.get("a.b.c").expect("kept");
        assert_eq!(found.user_at(1_000).expect("valid until exp"), 7);
        assert_eq!(found.user_at(1_005).expect("and within the leeway"), 7);
        insta::assert_snapshot!(found.user_at(1_006).unwrap_err(), @"the access token has expired");
        insta::assert_snapshot!(found.user_at(0).unwrap_err(), @"the access token is not valid yet");
        assert_eq!(kept.get("a.b.d"), None, "another text is another token");
    }

    #[test]
    fn a_full_map_drops_expired_tokens_first_then_everything() {
        let kept = VerifiedTokens::new(2);
        kept.insert("old", token(1, 100), 50);
        kept.insert("new", token(2, 10_000), 50);
        kept.insert("newer", token(3, 10_000), 5_000);
        assert_eq!(kept.get("old"), None, "expired, so dropped first");
        assert!(kept.get("new").is_some() && kept.get("newer").is_some());
        kept.insert("newest", token(4, 10_000), 5_000);
        assert_eq!(kept.get("new"), None, "none expired: all dropped");
        assert!(kept.get("newest").is_some());
    }
}
