//! `/health/live` (the process answers), `/health/ready` (the database answers) and the
//! Prometheus `/metrics`.

use actix_web::{HttpResponse, web};
use serde_json::json;

use crate::error::ApiError;
use crate::state::AppState;

pub async fn live() -> HttpResponse {
    HttpResponse::Ok().json(json!({ "status": "ok" }))
}

/// How long `/health/ready` may take: a probe that times out is "not ready", in time for
/// the orchestrator's own timeout (one second by default in Kubernetes).
pub const READY_WITHIN: std::time::Duration = std::time::Duration::from_millis(800);

/// Ready when the database takes a write now (`Database::check_writable`), answered within
/// about [`READY_WITHIN`] even when every blocking thread is busy or the database is gone.
pub async fn ready(state: web::Data<AppState>) -> Result<HttpResponse, ApiError> {
    let database = state.database.clone();
    let probe = web::block(move || database.check_writable(READY_WITHIN));
    match tokio::time::timeout(READY_WITHIN + READY_WITHIN / 4, probe).await {
        Ok(Ok(Ok(()))) => Ok(HttpResponse::Ok().json(json!({ "status": "ok" }))),
        Ok(Ok(Err(error))) => Err(ApiError::unavailable(format!(
            "not ready: the database does not take writes: {error}"
        ))),
        Ok(Err(error)) => Err(ApiError::from(error)),
        Err(_) => Err(ApiError::unavailable(
            "not ready: the database did not answer within a second",
        )),
    }
}

/// The pool's lock is taken once and `/proc/self` read (an in-memory file system), on the
/// async worker: a scrape every few seconds costs less than a trip to the blocking pool.
pub async fn metrics(state: web::Data<AppState>) -> HttpResponse {
    let process = crate::metrics::ProcessStats::read();
    HttpResponse::Ok()
        .content_type("text/plain; version=0.0.4")
        .body(state.metrics.render(
            &state.database.pool_status(),
            process.as_ref(),
            state.rating.reloads(),
        ))
}
