//! Refresh tokens: 256 random bits, handed out once and stored only as a SHA-256 hash.

use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use rand::RngCore;
use sha2::{Digest, Sha256};

/// A new token (to give the client) and its hash (to store).
pub fn generate() -> (String, String) {
    let mut bytes = [0u8; 32];
    rand::rng().fill_bytes(&mut bytes);
    let token = URL_SAFE_NO_PAD.encode(bytes);
    let hash = hash(&token);
    (token, hash)
}

/// The stored form of a token: its SHA-256 in lower-case hex. Written with a table: one
/// `format!` per byte cost about 19,000 instructions, a fifth of a refused sign-in.
pub fn hash(token: &str) -> String {
    const HEX: &[u8; 16] = b"0123456789abcdef";
    let digest = Sha256::digest(token.as_bytes());
    let mut text = String::with_capacity(digest.len() * 2);
    for byte in digest {
        text.push(char::from(HEX[usize::from(byte >> 4)]));
        text.push(char::from(HEX[usize::from(byte & 0x0f)]));
    }
    text
}

/// Random text of `bytes` random bytes, URL-safe (passwords and keys made on first start).
pub fn random_text(bytes: usize) -> String {
    let mut buffer = vec![0u8; bytes];
    rand::rng().fill_bytes(&mut buffer);
    URL_SAFE_NO_PAD.encode(buffer)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tokens_are_unique_and_hashed() {
        let (first, first_hash) = generate();
        let (second, _) = generate();
        assert_ne!(first, second);
        assert_eq!(first.len(), 43);
        assert_eq!(hash(&first), first_hash);
        insta::assert_snapshot!(hash("known"), @"7117fff2d0fd294462b3c802b7cb8753579f23f3946b99cf55f38e873f013f10");
    }
}

#[cfg(test)]
mod hash_tests {
    #[test]
    fn hash_is_lower_case_hex_sha256() {
        // SHA-256 of "abc" (FIPS 180-2, appendix B.1).
        assert_eq!(
            super::hash("abc"),
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
        );
    }
}
