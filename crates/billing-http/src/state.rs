//! What every handler can reach: the database, the auth service, the limits and the rating
//! index.

use std::sync::Arc;

use billing_auth::AuthService;
use billing_persistence::Database;

#[derive(Debug, Clone, Copy)]
pub struct HttpLimits {
    /// The largest request body accepted, in bytes.
    pub body_bytes: usize,
}

impl Default for HttpLimits {
    fn default() -> Self {
        Self {
            body_bytes: 1024 * 1024,
        }
    }
}

pub struct AppState {
    pub database: Database,
    pub auth: Arc<AuthService>,
    pub limits: HttpLimits,
    /// The OpenAPI document, built once at start.
    pub openapi: serde_json::Value,
    pub metrics: crate::metrics::Metrics,
    /// The rating index `POST /v1/rating/lookups` answers from, kept current by the writes.
    pub rating: crate::live_rating::LiveRating,
    /// The proxies whose `X-Forwarded-For` names the client (`BILLING_TRUSTED_PROXIES`).
    pub trusted_proxies: crate::machinery::proxies::TrustedProxies,
}
