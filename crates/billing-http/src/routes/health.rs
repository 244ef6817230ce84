//! `/health/live` (the process answers), `/health/ready` (the database answers) and the
//! Prometheus `/metrics`.

use actix_web::{HttpResponse, web};
use serde_json::json;

use crate::error::ApiError;
use crate::state::AppState;

pub async fn live() -> HttpResponse {
    HttpResponse::Ok().json(json!({ "status": "ok" }))
}

pub async fn ready(state: web::Data<AppState>) -> Result<HttpResponse, ApiError> {
    let database = state.database.clone();
    if web::block(move || database.is_ready()).await? {
        Ok(HttpResponse::Ok().json(json!({ "status": "ok" })))
    } else {
        Err(ApiError::unavailable("database not reachable"))
    }
}

/// The pool's lock is taken once and `/proc/self` read (an in-memory file system), on the
/// async worker: a scrape every few seconds costs less than a trip to the blocking pool.
pub async fn metrics(state: web::Data<AppState>) -> HttpResponse {
    let process = crate::metrics::ProcessStats::read();
    HttpResponse::Ok()
        .content_type("text/plain; version=0.0.4")
        .body(
            state
                .metrics
                .render(&state.database.pool_status(), process.as_ref()),
        )
}
