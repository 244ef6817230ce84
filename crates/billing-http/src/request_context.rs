//! Request ids: accepted from `X-Request-Id` (when sane) or generated, echoed on the response,
//! attached to the one log line per request and to every error body.

use actix_web::body::MessageBody;
use actix_web::dev::{ServiceRequest, ServiceResponse};
use actix_web::http::header::{HeaderName, HeaderValue};
use actix_web::middleware::Next;
use std::time::Instant;

pub const REQUEST_ID_HEADER: &str = "x-request-id";

#[derive(Debug, Clone, Default)]
pub struct RequestContext {
    pub request_id: String,
    pub path: String,
}

tokio::task_local! {
    static CONTEXT: RequestContext;
}

/// The context of the request being served (empty outside one).
pub fn current() -> RequestContext {
    CONTEXT.try_with(Clone::clone).unwrap_or_default()
}

/// A client's id is kept when it is 1..=200 visible ASCII characters; otherwise a new one.
fn request_id_from(request: &ServiceRequest) -> String {
    request
        .headers()
        .get(REQUEST_ID_HEADER)
        .and_then(|value| value.to_str().ok())
        .filter(|value| {
            !value.is_empty() && value.len() <= 200 && value.bytes().all(|b| b.is_ascii_graphic())
        })
        .map_or_else(|| uuid::Uuid::new_v4().to_string(), str::to_owned)
}

pub async fn middleware(
    request: ServiceRequest,
    next: Next<impl MessageBody>,
) -> Result<ServiceResponse<impl MessageBody>, actix_web::Error> {
    let started = Instant::now();
    let context = RequestContext {
        request_id: request_id_from(&request),
        path: request.path().to_owned(),
    };
    let method = request.method().clone();
    let request_id = context.request_id.clone();
    let path = context.path.clone();
    let state = request
        .app_data::<actix_web::web::Data<crate::state::AppState>>()
        .cloned();
    let mut response = CONTEXT.scope(context, next.call(request)).await?;
    if let Some(state) = state {
        let route = response
            .request()
            .match_pattern()
            .unwrap_or_else(|| "unmatched".to_owned());
        state.metrics.record(
            method.as_str(),
            &route,
            response.status().as_u16(),
            started.elapsed(),
        );
    }
    if let Ok(value) = HeaderValue::from_str(&request_id) {
        response
            .headers_mut()
            .insert(HeaderName::from_static(REQUEST_ID_HEADER), value);
    }
    tracing::info!(
        request_id = %request_id,
        method = %method,
        path = %path,
        status = response.status().as_u16(),
        elapsed_ms = started.elapsed().as_secs_f64() * 1000.0,
        "request"
    );
    Ok(response)
}
