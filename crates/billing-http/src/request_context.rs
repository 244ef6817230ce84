//! Request ids: accepted from `X-Request-Id` (when sane) or generated, echoed on the response,
//! attached to the one log line per request and to every error body. The log line also names
//! the caller (`user_id`, when a bearer token named one) and the time taken in milliseconds.

use std::pin::Pin;
use std::task::{Context, Poll};

use actix_web::HttpMessage;
use actix_web::body::{BodySize, BoxBody, MessageBody};
use actix_web::dev::Payload;
use actix_web::dev::{ServiceRequest, ServiceResponse};
use actix_web::error::PayloadError;
use actix_web::http::header::{HeaderName, HeaderValue};
use actix_web::middleware::Next;
use actix_web::web::Bytes;
use std::cell::{Cell, RefCell};
use std::rc::Rc;
use std::time::Instant;

/// Set by the item handler of a resource (`machinery::handlers`, reached as its scope's default
/// service, so the router knows no pattern): the resource's path, for the route label
/// `/v1/{path}/{id}`.
#[derive(Debug, Clone, Copy)]
pub struct ItemRoute(pub &'static str);

pub const REQUEST_ID_HEADER: &str = "x-request-id";

/// The longest request target (path and query string) served, in bytes; a longer one is 414.
/// Every response header the service writes from the query (`Link`) stays proportionate to it.
pub const MAX_URI_BYTES: usize = 8 * 1024;

/// The most bytes of request headers (names and values) served; more is 431. The HTTP library
/// itself refuses a request head over 128 KiB, or of more than 96 headers, before this is
/// reached ([`crate::transport`] makes those answers problem+json too).
pub const MAX_HEADER_BYTES: usize = 32 * 1024;

/// 414 or 431 problem+json for a request whose target or headers are over the limits above.
fn oversized(request: &ServiceRequest) -> Option<crate::error::ApiError> {
    let target = request
        .uri()
        .path_and_query()
        .map_or(0, |target| target.as_str().len());
    if target > MAX_URI_BYTES {
        return Some(crate::error::ApiError::uri_too_long(MAX_URI_BYTES));
    }
    let headers: usize = request
        .headers()
        .iter()
        .map(|(name, value)| name.as_str().len() + value.len())
        .sum();
    if headers > MAX_HEADER_BYTES {
        return Some(crate::error::ApiError::headers_too_large(MAX_HEADER_BYTES));
    }
    None
}

#[derive(Debug, Clone, Default)]
pub struct RequestContext {
    pub request_id: String,
    pub path: String,
    /// The caller's user id, once a bearer token named one (for the request's log line).
    pub user_id: Cell<Option<i64>>,
}

/// A request's body as the HTTP library delivers it, held by the middleware for the whole
/// request: the handler reads it through [`HeldBody`]. Still held when the answer is written,
/// a body not read to its end (a 401 before it was looked at, a 408, 413 or 415) makes the
/// library close the connection after the answer; dropped, a chunked body would be read on
/// (drained) for as long as the client trickles it.
#[derive(Clone)]
struct RequestBody(Rc<RefCell<Payload>>);

/// The handler's view of a [`RequestBody`].
struct HeldBody(RequestBody);

impl futures_util::Stream for HeldBody {
    type Item = Result<Bytes, PayloadError>;

    fn poll_next(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Self::Item>> {
        let mut payload = self.0.0.borrow_mut();
        Pin::new(&mut *payload).poll_next(cx)
    }
}

/// Whether the request says a body follows (a length above 0, or chunks).
fn has_body(request: &ServiceRequest) -> bool {
    let headers = request.headers();
    headers.contains_key(actix_web::http::header::TRANSFER_ENCODING)
        || headers
            .get(actix_web::http::header::CONTENT_LENGTH)
            .is_some_and(|length| length.as_bytes() != b"0")
}

tokio::task_local! {
    static CONTEXT: RequestContext;
}

/// The context of the request being served (empty outside one).
pub fn current() -> RequestContext {
    CONTEXT.try_with(Clone::clone).unwrap_or_default()
}

/// The answer to a request refused before it reaches the application (the transport's `Expect:
/// 100-continue` check), made as the middleware makes every answer: a new request id in
/// `X-Request-Id` and the problem, the request's log line and its metric (route `unmatched`).
pub fn refused_before_the_app(
    state: &crate::state::AppState,
    method: &actix_web::http::Method,
    path: &str,
    error: &crate::error::ApiError,
) -> actix_web::HttpResponse {
    use actix_web::ResponseError;
    let started = Instant::now();
    let context = RequestContext {
        request_id: uuid::Uuid::new_v4().to_string(),
        path: path.to_owned(),
        user_id: Cell::new(None),
    };
    let request_id = context.request_id.clone();
    let mut response = CONTEXT.sync_scope(context, || error.error_response());
    let status = response.status().as_u16();
    state
        .metrics
        .record(method.as_str(), "unmatched", status, started.elapsed());
    let answered = Answered {
        request_id: &request_id,
        method,
        path,
        status,
        user_id: None,
        client: None,
        started,
    };
    answered.note(response.headers_mut());
    response
}

/// A request as answered: what its `X-Request-Id` and its one log line say.
struct Answered<'a> {
    request_id: &'a str,
    method: &'a actix_web::http::Method,
    path: &'a str,
    status: u16,
    user_id: Option<i64>,
    /// The client's address as the sign-in throttle counts it (`None`: refused before the
    /// application saw the request).
    client: Option<std::net::IpAddr>,
    started: Instant,
}

impl Answered<'_> {
    /// Puts the request id on the answer's headers, with `X-Content-Type-Options: nosniff`
    /// (a browser takes a JSON answer for JSON, never for a page or a script), and writes the
    /// request's log line.
    fn note(&self, headers: &mut actix_web::http::header::HeaderMap) {
        if let Ok(value) = HeaderValue::from_str(self.request_id) {
            headers.insert(HeaderName::from_static(REQUEST_ID_HEADER), value);
        }
        headers.insert(
            actix_web::http::header::X_CONTENT_TYPE_OPTIONS,
            HeaderValue::from_static("nosniff"),
        );
        tracing::info!(
            request_id = %self.request_id,
            method = crate::metrics::method_label(self.method.as_str()),
            path = %self.path,
            status = self.status,
            user_id = self.user_id,
            client = self.client.map(tracing::field::display),
            elapsed_ms = milliseconds(self.started.elapsed()),
            "request"
        );
    }
}

/// Notes the caller of the request being served (a no-op outside one): its log line names
/// them. Called once a bearer token is verified, before the user's row is checked.
pub fn set_user_id(user_id: i64) {
    let _ = CONTEXT.try_with(|context| context.user_id.set(Some(user_id)));
}

/// Milliseconds with two decimals (0.42, 12.35), as the request log shows them.
pub fn milliseconds(elapsed: std::time::Duration) -> f64 {
    (elapsed.as_secs_f64() * 100_000.0).round() / 100.0
}

/// A client's id is kept when it is 1..=200 visible ASCII characters and not one of the ids the
/// service gives what it does outside the API (`first-start`, `cli-…`: the audit trail's word
/// for where a record came from, docs/api.md "Audit trail"); otherwise a new one.
fn request_id_from(request: &ServiceRequest) -> String {
    request
        .headers()
        .get(REQUEST_ID_HEADER)
        .and_then(|value| value.to_str().ok())
        .filter(|value| client_may_name(value))
        .map_or_else(|| uuid::Uuid::new_v4().to_string(), str::to_owned)
}

/// Whether a client may name its request `request_id`: 1..=200 visible ASCII characters, not
/// `first-start` and not beginning `cli-` (in any case).
pub fn client_may_name(request_id: &str) -> bool {
    let reserved = request_id.eq_ignore_ascii_case("first-start")
        || request_id
            .get(..4)
            .is_some_and(|prefix| prefix.eq_ignore_ascii_case("cli-"));
    !request_id.is_empty()
        && request_id.len() <= 200
        && request_id.bytes().all(|b| b.is_ascii_graphic())
        && !reserved
}

pub async fn middleware(
    mut request: ServiceRequest,
    next: Next<impl MessageBody + 'static>,
) -> Result<ServiceResponse<impl MessageBody>, actix_web::Error> {
    let started = Instant::now();
    // Swagger UI's files answer GET only: a HEAD for one is served as its GET (the HTTP library
    // leaves the body out of the answer to a HEAD, whatever the route saw).
    if request.method() == actix_web::http::Method::HEAD && request.path().starts_with("/docs/") {
        request.head_mut().method = actix_web::http::Method::GET;
    }
    let context = RequestContext {
        request_id: request_id_from(&request),
        path: request.path().to_owned(),
        user_id: Cell::new(None),
    };
    let body = if has_body(&request) {
        let held = RequestBody(Rc::new(RefCell::new(request.take_payload())));
        let stream: Pin<Box<dyn futures_util::Stream<Item = Result<Bytes, PayloadError>>>> =
            Box::pin(HeldBody(held.clone()));
        request.set_payload(Payload::from(stream));
        Some(held)
    } else {
        None
    };
    let method = request.method().clone();
    let request_id = context.request_id.clone();
    let path = context.path.clone();
    let state = request
        .app_data::<actix_web::web::Data<crate::state::AppState>>()
        .cloned();
    // The caller is read back inside the scope, once the handler (and the extractor that
    // verified the token) ran.
    let (response, user_id) = CONTEXT
        .scope(context, async move {
            let response = match oversized(&request) {
                Some(error) => Ok(request.error_response(error)),
                None => next
                    .call(request)
                    .await
                    .map(ServiceResponse::map_into_boxed_body)
                    .map(problem_for_bare_404),
            };
            let user_id = CONTEXT
                .try_with(|context| context.user_id.get())
                .ok()
                .flatten();
            (response, user_id)
        })
        .await;
    let mut response = response?;
    if let Some(state) = &state {
        // An item names its route itself (the router would walk its whole map to find none).
        let served = response.request();
        let item = actix_web::HttpMessage::extensions(served)
            .get::<ItemRoute>()
            .copied();
        let route = match item {
            Some(ItemRoute(path)) => format!("{}/{path}/{{id}}", crate::API_BASE),
            None => served
                .match_pattern()
                .unwrap_or_else(|| "unmatched".to_owned()),
        };
        state.metrics.record(
            method.as_str(),
            &route,
            response.status().as_u16(),
            started.elapsed(),
        );
    }
    let client = state.as_ref().and_then(|state| {
        crate::machinery::request::client_ip(response.request(), &state.trusted_proxies)
    });
    let answered = Answered {
        request_id: &request_id,
        method: &method,
        path: &path,
        status: response.status().as_u16(),
        user_id,
        client,
        started,
    };
    answered.note(response.headers_mut());
    // The request's body lives in the answer until the answer's last byte is written: if it
    // was not read to its end, the HTTP library then closes the connection.
    Ok(response.map_body(|_, answer| AnswerBody {
        body: answer,
        request: body,
    }))
}

/// A 404 with no body that a library route answered (a file Swagger UI does not have, under
/// `/docs/`) is told as problem+json like every other; `HEAD` answers have no body by design.
fn problem_for_bare_404(response: ServiceResponse) -> ServiceResponse {
    let bare = response.status() == actix_web::http::StatusCode::NOT_FOUND
        && response.request().method() != actix_web::http::Method::HEAD
        && !response
            .headers()
            .contains_key(actix_web::http::header::CONTENT_TYPE)
        && matches!(
            response.response().body().size(),
            BodySize::None | BodySize::Sized(0)
        );
    if !bare {
        return response;
    }
    let request = response.request().clone();
    let error = crate::unknown_route(&request);
    ServiceResponse::new(request, actix_web::ResponseError::error_response(&error))
}

/// An answer's body, holding the request's body (if it had one) until the answer is written.
pub struct AnswerBody {
    body: BoxBody,
    request: Option<RequestBody>,
}

impl MessageBody for AnswerBody {
    type Error = <BoxBody as MessageBody>::Error;

    fn size(&self) -> BodySize {
        self.body.size()
    }

    fn poll_next(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Bytes, Self::Error>>> {
        Pin::new(&mut self.get_mut().body).poll_next(cx)
    }

    fn try_into_bytes(self) -> Result<Bytes, Self> {
        match self.request {
            // Written at once, the answer would let the body go before the library looks.
            Some(_) => Err(self),
            None => self.body.try_into_bytes().map_err(|body| AnswerBody {
                body,
                request: None,
            }),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn milliseconds_keep_two_decimals() {
        let ms = |micros| milliseconds(std::time::Duration::from_micros(micros)).to_string();
        assert_eq!(
            [ms(423), ms(12_345), ms(5), ms(2_000_000)],
            ["0.42", "12.35", "0.01", "2000"]
        );
    }
}
