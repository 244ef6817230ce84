//! API keys: long-lived bearer credentials for scripts, `bk_` and 256 random bits (43
//! URL-safe characters). Stored only as a SHA-256 hash.
//!
//! **Why SHA-256 and not argon2.** A slow, salted hash protects what people choose, which is
//! guessable: argon2 makes each guess at a stolen password hash expensive. A key has 256 random
//! bits; no guess list exists, and brute force of 2^256 is out of reach whatever the hash
//! costs. So a fast hash loses nothing, and it lets a request find its key by an indexed
//! equality lookup in microseconds (argon2 would cost ~20 ms of a core on every request, and
//! its salt would prevent the lookup). Refresh tokens are stored the same way.

use crate::refresh_token;

/// What every key starts with: tells a key from a JWT at a glance (a JWT starts with `eyJ`),
/// and lets secret scanners recognise leaked keys.
pub const PREFIX: &str = "bk_";

/// How many characters of a key (its `bk_` included) are stored and shown to tell keys apart:
/// 48 of its 256 bits, leaving 208 secret.
pub const SHOWN_CHARACTERS: usize = 11;

/// A new key, what is shown of it, and its hash.
pub struct NewKey {
    /// Given to the client once, in the response to the create; never stored or logged.
    pub key: crate::Secret,
    pub prefix: String,
    pub hash: String,
}

pub fn generate() -> NewKey {
    let key = format!("{PREFIX}{}", refresh_token::random_text(32));
    NewKey {
        prefix: key[..SHOWN_CHARACTERS].to_owned(),
        hash: hash(&key),
        key: crate::Secret::new(key),
    }
}

/// Whether a bearer credential is an API key rather than an access token.
pub fn is_api_key(credential: &str) -> bool {
    credential.starts_with(PREFIX)
}

/// The stored form of a key.
pub fn hash(key: &str) -> String {
    refresh_token::hash(key)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_are_prefixed_random_and_hashed() {
        let first = generate();
        let second = generate();
        assert_ne!(first.key.expose(), second.key.expose());
        assert!(is_api_key(first.key.expose()));
        assert_eq!(first.key.expose().len(), 46);
        assert!(first.key.expose().starts_with(&first.prefix));
        assert_eq!(hash(first.key.expose()), first.hash);
        assert!(!is_api_key("eyJhbGciOiJIUzI1NiJ9.e30.x"));
    }
}
