//! What every handler can reach: the database, the auth service, the limits and the rating
//! index.

use std::sync::Arc;

use billing_auth::AuthService;
use billing_persistence::Database;

#[derive(Debug, Clone, Copy)]
pub struct HttpLimits {
    /// The largest request body accepted, in bytes (and the most a JSON Patch may grow a
    /// document to).
    pub body_bytes: usize,
    /// The longest a request body may take to arrive, whole (408 past it).
    pub body_timeout: std::time::Duration,
}

impl Default for HttpLimits {
    fn default() -> Self {
        Self {
            body_bytes: 1024 * 1024,
            body_timeout: std::time::Duration::from_secs(30),
        }
    }
}

pub struct AppState {
    pub database: Database,
    pub auth: Arc<AuthService>,
    pub limits: HttpLimits,
    /// The OpenAPI document, built and written once at start.
    pub openapi: crate::routes::documentation::DocumentAnswer,
    pub metrics: crate::metrics::Metrics,
    /// The rating index `POST /v1/rating/lookups` answers from, kept current by the writes.
    pub rating: crate::live_rating::LiveRating,
    /// The proxies whose `X-Forwarded-For` names the client (`BILLING_TRUSTED_PROXIES`).
    pub trusted_proxies: crate::machinery::proxies::TrustedProxies,
    /// The origins browsers may call the API from (`BILLING_CORS_ORIGINS`; none: CORS off).
    pub cors: crate::cors::CorsOrigins,
    /// What the list pages being built may hold at once (`BILLING_LIST_MEMORY_BYTES`).
    pub list_budget: crate::machinery::list_budget::ListBudget,
    /// What the request bodies being read and handled may hold at once
    /// (`BILLING_BODY_MEMORY_BYTES`).
    pub body_budget: crate::machinery::body_budget::BodyBudget,
}
