//! The one error enum of authentication.

use std::time::Duration;

use billing_persistence::PersistenceError;

#[derive(Debug, thiserror::Error)]
pub enum AuthError {
    /// Wrong username or password, or an inactive user: one answer for all, on purpose.
    #[error("invalid username or password")]
    InvalidCredentials,
    #[error("the brand does not match this deployment")]
    BrandMismatch,
    /// The bearer token is missing, malformed, expired, wrongly signed or names a user who can
    /// no longer sign in. The text says which, without echoing the token.
    #[error("{0}")]
    InvalidToken(&'static str),
    #[error("the refresh token is invalid, expired or already used")]
    InvalidRefreshToken,
    #[error("too many failed sign-in attempts")]
    TooManyAttempts { retry_after: Duration },
    #[error("the password hashing pool is saturated")]
    Busy,
    #[error("missing permission {0}")]
    Forbidden(&'static str),
    #[error(transparent)]
    Storage(#[from] PersistenceError),
    #[error("internal authentication failure: {0}")]
    Internal(String),
}

impl billing_persistence::StorageError for AuthError {
    fn storage_fault(&self) -> Option<billing_persistence::StorageFault> {
        match self {
            AuthError::Storage(storage) => storage.fault(),
            _ => None,
        }
    }
}
