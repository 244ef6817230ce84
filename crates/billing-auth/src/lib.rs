//! Who is calling: passwords (argon2id on a bounded pool), access tokens (JWT, pinned HS256),
//! refresh tokens (rotating, stored hashed, reuse revokes the family) and the login throttle.
//!
//! **This crate knows no web framework.** The http crate turns its errors into responses.

pub mod api_key;
pub mod error;
pub mod password;
pub mod principal;
pub mod principal_cache;
pub mod refresh_token;
pub mod secret;
pub mod service;
pub mod throttle;
pub mod tokens;
pub mod verified_tokens;

pub use error::AuthError;
pub use principal::AuthenticatedUser;
pub use secret::Secret;
pub use service::{AuthConfig, AuthService, Bearer, TokenPair, UnreadCaller};
