//! The one mapping from every error in the service to an HTTP response: problem+json
//! (RFC 9457) with `type`, `title`, `status`, `detail`, `instance`, `requestId`, plus `error`
//! and `message` for clients of the original platform and `errors` for field problems.

use actix_web::http::StatusCode;
use actix_web::http::header::{self, HeaderValue};
use actix_web::{HttpResponse, ResponseError};
use billing_auth::AuthError;
use billing_domain::{FieldError, ValidationErrors};
use billing_persistence::{PersistenceError, StorageError, StorageFault};

use crate::request_context;

/// An error on its way to becoming a response. Boxed: it travels through many `Result`s.
#[derive(Debug)]
pub struct ApiError(Box<Problem>);

#[derive(Debug)]
struct Problem {
    status: StatusCode,
    detail: String,
    errors: Vec<FieldError>,
    allow: Option<String>,
    retry_after: Option<u64>,
    /// `error` code for `WWW-Authenticate` (RFC 6750) on a 401; `None` when no token was sent.
    bearer_error: Option<&'static str>,
    /// The cause of a 5xx (or of a write conflict's 409), logged and never shown.
    cause: Option<String>,
    /// The storage fault this error came from, kept through every change of its wording so
    /// that `Database` can run a lost race again or drop a lost connection.
    fault: Option<StorageFault>,
}

impl ApiError {
    fn new(status: StatusCode, detail: impl Into<String>) -> Self {
        Self(Box::new(Problem {
            status,
            detail: detail.into(),
            errors: Vec::new(),
            allow: None,
            retry_after: None,
            bearer_error: None,
            cause: None,
            fault: None,
        }))
    }

    fn with(mut self, change: impl FnOnce(&mut Problem)) -> Self {
        change(&mut self.0);
        self
    }

    pub fn bad_request(detail: impl Into<String>) -> Self {
        Self::new(StatusCode::BAD_REQUEST, detail)
    }

    /// 400 naming one field.
    pub fn field(field: impl Into<String>, message: impl Into<String>) -> Self {
        Self::validation(ValidationErrors::single(field, message))
    }

    /// 400 naming every broken field.
    pub fn validation(errors: ValidationErrors) -> Self {
        let detail = format!("the request is invalid: {errors}");
        Self::new(StatusCode::BAD_REQUEST, detail).with(|p| p.errors = errors.errors)
    }

    /// The same error for element `prefix` of a bulk body (e.g. `[2]`): every field name is
    /// put under it (`[2].username`), or, with no field named, the detail is.
    /// The same error with every field error named `path` (an entry of a list of values,
    /// whose element's one member is not a name the client knows).
    pub fn at(self, path: &str) -> Self {
        if self.0.errors.is_empty() {
            return self.within(path);
        }
        let errors = self
            .0
            .errors
            .iter()
            .map(|error| FieldError::new(path.to_owned(), &error.message))
            .collect();
        Self::validation(ValidationErrors { errors })
    }

    pub fn within(self, prefix: &str) -> Self {
        if prefix.is_empty() {
            return self;
        }
        if self.0.errors.is_empty() {
            let detail = format!("element {prefix}: {}", self.0.detail);
            return self.with(|p| p.detail = detail);
        }
        let errors = self
            .0
            .errors
            .iter()
            .map(|error| FieldError::new(format!("{prefix}.{}", error.field), &error.message))
            .collect();
        Self::validation(ValidationErrors { errors })
    }

    /// The field problems of a 400 naming fields; any other error comes back as it was.
    pub fn into_field_errors(self) -> Result<Vec<FieldError>, Self> {
        if self.0.errors.is_empty() {
            Err(self)
        } else {
            Ok(self.0.errors)
        }
    }

    pub fn unauthorized(detail: impl Into<String>, bearer_error: Option<&'static str>) -> Self {
        Self::new(StatusCode::UNAUTHORIZED, detail).with(|p| p.bearer_error = bearer_error)
    }

    pub fn forbidden(detail: impl Into<String>) -> Self {
        Self::new(StatusCode::FORBIDDEN, detail)
    }

    pub fn not_found(detail: impl Into<String>) -> Self {
        Self::new(StatusCode::NOT_FOUND, detail)
    }

    pub fn method_not_allowed(allow: &str) -> Self {
        Self::new(
            StatusCode::METHOD_NOT_ALLOWED,
            format!("this resource allows only {allow}"),
        )
        .with(|p| p.allow = Some(allow.to_owned()))
    }

    pub fn conflict(detail: impl Into<String>) -> Self {
        Self::new(StatusCode::CONFLICT, detail)
    }

    pub fn precondition_failed(detail: impl Into<String>) -> Self {
        Self::new(StatusCode::PRECONDITION_FAILED, detail)
    }

    pub fn payload_too_large(limit: usize) -> Self {
        Self::new(
            StatusCode::PAYLOAD_TOO_LARGE,
            format!("the request body is larger than {limit} bytes"),
        )
    }

    /// 414: the request target (path and query) is longer than `limit` bytes.
    pub fn uri_too_long(limit: usize) -> Self {
        Self::new(
            StatusCode::URI_TOO_LONG,
            format!("the request target (path and query string) is longer than {limit} bytes"),
        )
    }

    /// 431: the request's headers take more than `limit` bytes.
    pub fn headers_too_large(limit: usize) -> Self {
        Self::new(
            StatusCode::REQUEST_HEADER_FIELDS_TOO_LARGE,
            format!("the request headers take more than {limit} bytes"),
        )
    }

    /// 408: the body did not arrive in time. The connection is closed after the answer (the
    /// rest of the body is never read: `request_context` holds every request's body).
    pub fn request_timeout(timeout: std::time::Duration) -> Self {
        Self::new(
            StatusCode::REQUEST_TIMEOUT,
            format!(
                "the request body did not arrive within {} seconds",
                timeout.as_secs()
            ),
        )
    }

    /// 415: a request body sent compressed (`Content-Encoding`), which is read as sent.
    pub fn encoded_body() -> Self {
        Self::new(
            StatusCode::UNSUPPORTED_MEDIA_TYPE,
            "the request body must be sent without Content-Encoding (or as identity)",
        )
    }

    /// 415: a body labelled with a charset other than UTF-8, which JSON is (RFC 8259).
    pub fn charset_not_utf8(charset: &str) -> Self {
        Self::new(
            StatusCode::UNSUPPORTED_MEDIA_TYPE,
            format!(
                "the request body must be UTF-8, as JSON is: charset={charset} is not read; \
                 send charset=utf-8 or none"
            ),
        )
    }

    pub fn unsupported_media_type(expected: &str) -> Self {
        Self::new(
            StatusCode::UNSUPPORTED_MEDIA_TYPE,
            format!("the request body must be sent as Content-Type: {expected}"),
        )
    }

    pub fn too_many_requests(detail: impl Into<String>, retry_after_seconds: u64) -> Self {
        Self::new(StatusCode::TOO_MANY_REQUESTS, detail)
            .with(|p| p.retry_after = Some(retry_after_seconds.max(1)))
    }

    pub fn unavailable(cause: impl Into<String>) -> Self {
        let cause = cause.into();
        Self::new(
            StatusCode::SERVICE_UNAVAILABLE,
            "the service is busy; retry shortly",
        )
        .with(|p| {
            p.retry_after = Some(1);
            p.cause = Some(cause);
        })
    }

    /// 507: the rating index cannot hold the data the request needs (never retried by waiting).
    pub fn insufficient_storage(detail: impl Into<String>) -> Self {
        Self::new(StatusCode::INSUFFICIENT_STORAGE, detail)
    }

    pub fn internal(cause: impl Into<String>) -> Self {
        let cause = cause.into();
        Self::new(
            StatusCode::INTERNAL_SERVER_ERROR,
            "an internal error occurred; quote the requestId when reporting it",
        )
        .with(|p| p.cause = Some(cause))
    }

    pub fn status(&self) -> StatusCode {
        self.0.status
    }

    pub fn detail(&self) -> &str {
        &self.0.detail
    }

    /// The cause of a 5xx (never sent to clients), else the detail: for logs and the command line.
    pub fn cause_or_detail(&self) -> &str {
        self.0.cause.as_deref().unwrap_or(&self.0.detail)
    }
}

impl std::fmt::Display for ApiError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}: {}", self.0.status, self.0.detail)
    }
}

/// The most characters of `detail` (and `message`) a problem carries; a longer one is cut
/// with `…` (docs/api.md "Errors").
pub const PROBLEM_DETAIL_MAX_CHARS: usize = 4000;
/// The most entries of `errors` a problem lists: the first ones, in order.
pub const PROBLEM_ERRORS_MAX: usize = 1000;
/// The most characters of an entry's `field` or `message`.
pub const PROBLEM_ERROR_TEXT_MAX_CHARS: usize = 1000;

/// `text` cut to at most `max` characters, the last one `…` when it was cut.
fn at_most(text: &str, max: usize) -> std::borrow::Cow<'_, str> {
    match text.char_indices().nth(max.saturating_sub(1)) {
        Some((end, _)) if text[end..].chars().nth(1).is_some() => {
            format!("{}…", &text[..end]).into()
        }
        _ => text.into(),
    }
}

/// The problem+json body (RFC 9457 members, then `requestId`, then `error` and `message` for
/// clients of the original platform, then `errors` on validation failures), in this order.
#[derive(serde::Serialize)]
struct ProblemBody<'a> {
    #[serde(rename = "type")]
    kind: &'static str,
    title: &'a str,
    status: u16,
    detail: &'a str,
    instance: &'a str,
    #[serde(rename = "requestId")]
    request_id: &'a str,
    error: &'a str,
    message: &'a str,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    errors: Vec<FieldErrorBody<'a>>,
}

/// One member of `errors`.
#[derive(serde::Serialize)]
struct FieldErrorBody<'a> {
    field: std::borrow::Cow<'a, str>,
    message: std::borrow::Cow<'a, str>,
}

impl ResponseError for ApiError {
    fn status_code(&self) -> StatusCode {
        self.0.status
    }

    fn error_response(&self) -> HttpResponse {
        let context = request_context::current();
        if let Some(cause) = &self.0.cause {
            let status = self.0.status.as_u16();
            if self.0.status.is_server_error() {
                tracing::error!(request_id = %context.request_id, status, %cause, "request failed");
            } else {
                // A write that lost its races (409): the client is told to send it again.
                tracing::warn!(request_id = %context.request_id, status, %cause, "request refused");
            }
        }
        let title = self.0.status.canonical_reason().unwrap_or("Error");
        let detail = at_most(&self.0.detail, PROBLEM_DETAIL_MAX_CHARS);
        let body = ProblemBody {
            kind: "about:blank",
            title,
            status: self.0.status.as_u16(),
            detail: &detail,
            instance: &context.path,
            request_id: &context.request_id,
            error: title,
            message: &detail,
            errors: self
                .0
                .errors
                .iter()
                .take(PROBLEM_ERRORS_MAX)
                .map(|error| FieldErrorBody {
                    field: at_most(&error.field, PROBLEM_ERROR_TEXT_MAX_CHARS),
                    message: at_most(&error.message, PROBLEM_ERROR_TEXT_MAX_CHARS),
                })
                .collect(),
        };
        let mut response = HttpResponse::build(self.0.status);
        response.content_type("application/problem+json");
        if let Some(allow) = &self.0.allow {
            response.insert_header((header::ALLOW, allow.as_str()));
        }
        if let Some(seconds) = self.0.retry_after {
            response.insert_header((header::RETRY_AFTER, seconds.to_string()));
        }
        if self.0.status == StatusCode::UNAUTHORIZED {
            let challenge = match self.0.bearer_error {
                Some(code) => format!(
                    "Bearer realm=\"billing\", error=\"{code}\", error_description=\"{}\"",
                    self.0.detail.replace('"', "'")
                ),
                None => "Bearer realm=\"billing\"".to_owned(),
            };
            if let Ok(value) = HeaderValue::from_str(&challenge) {
                response.insert_header((header::WWW_AUTHENTICATE, value));
            }
        }
        // Written straight to JSON text from borrowed parts (through a `serde_json::Value`, a
        // refused sign-in spent a fifth of its time here).
        response.body(serde_json::to_vec(&body).unwrap_or_default())
    }
}

impl From<ValidationErrors> for ApiError {
    fn from(errors: ValidationErrors) -> Self {
        ApiError::validation(errors)
    }
}

impl From<PersistenceError> for ApiError {
    fn from(error: PersistenceError) -> Self {
        match error {
            PersistenceError::UniqueViolation { constraint } => ApiError::conflict(format!(
                "a record with the same unique values already exists ({})",
                describe_constraint(&constraint)
            )),
            PersistenceError::StillReferenced { table, id, by } => {
                let by: Vec<String> = by.iter().map(|table| camel_case(table)).collect();
                let record = record_noun(table);
                ApiError::conflict(if by.is_empty() {
                    format!("{record} {id} is still used by other records")
                } else {
                    format!("{record} {id} is still used by: {}", by.join(", "))
                })
            }
            PersistenceError::ForeignKeyViolation { .. } => ApiError::conflict(
                "the record is still referenced by other records, or refers to a missing one",
            ),
            PersistenceError::Unavailable(cause) => {
                ApiError::unavailable(cause).with(|p| p.fault = Some(StorageFault::Unavailable))
            }
            PersistenceError::WriteConflict(cause) => ApiError::conflict(format!(
                "other requests changed the same records at the same moment, {} times running; \
                 send the request again",
                billing_persistence::WRITE_ATTEMPTS
            ))
            .with(|p| {
                p.fault = Some(StorageFault::WriteConflict);
                p.cause = Some(cause);
            }),
            other => ApiError::internal(other.to_string()),
        }
    }
}

/// A table's name as the API names its resource: `reference_data_source_charge_groups` ->
/// `referenceDataSourceChargeGroups`.
fn camel_case(table: &str) -> String {
    let mut name = String::with_capacity(table.len());
    let mut upper = false;
    for character in table.chars() {
        if character == '_' {
            upper = true;
        } else if upper {
            name.extend(character.to_uppercase());
            upper = false;
        } else {
            name.push(character);
        }
    }
    name
}

/// One row of a table in words: `charge_groups` -> `charge group`, `currencies` -> `currency`.
fn record_noun(table: &str) -> String {
    let words = table.replace('_', " ");
    if let Some(stem) = words.strip_suffix("ies") {
        format!("{stem}y")
    } else if let Some(stem) = words.strip_suffix("sses") {
        format!("{stem}ss")
    } else {
        words.strip_suffix('s').unwrap_or(&words).to_owned()
    }
}

/// Which fields a unique constraint covers, in API words.
fn describe_constraint(constraint: &str) -> &'static str {
    const KNOWN: [(&str, &str); 8] = [
        ("username", "username"),
        ("currencies", "code"),
        ("locales", "country and currency"),
        ("reference_data_sources", "name"),
        ("source_charge_groups", "referenceDataSourceId and code"),
        (
            "reference_data_source_charge_groups",
            "referenceDataSourceId and code",
        ),
        ("payment_provider_mandates", "provider and mandateReference"),
        (
            "currency_rates",
            "fromCurrencyId, toCurrencyId and effectiveDate",
        ),
    ];
    KNOWN
        .iter()
        .find(|(needle, _)| constraint.contains(needle))
        .map_or("unique fields", |(_, words)| words)
}

impl StorageError for ApiError {
    fn storage_fault(&self) -> Option<StorageFault> {
        self.0.fault
    }
}

impl From<AuthError> for ApiError {
    fn from(error: AuthError) -> Self {
        match error {
            AuthError::InvalidCredentials => ApiError::unauthorized(error.to_string(), None),
            AuthError::BrandMismatch => ApiError::unauthorized(error.to_string(), None),
            AuthError::InvalidToken(reason) => {
                ApiError::unauthorized(reason, Some("invalid_token"))
            }
            AuthError::InvalidRefreshToken => ApiError::unauthorized(error.to_string(), None),
            AuthError::TooManyAttempts { retry_after } => {
                let seconds = retry_after.as_secs().max(1);
                ApiError::too_many_requests(
                    format!(
                        "too many sign-in attempts for this username or from this address (failed, or still being checked): try again in {seconds} s (the Retry-After header)"
                    ),
                    seconds,
                )
            }
            AuthError::Busy => ApiError::unavailable("password hashing pool saturated"),
            AuthError::Forbidden(permission) => ApiError::forbidden(format!(
                "this operation needs the permission {permission}, which your roles do not grant"
            )),
            AuthError::Storage(storage) => storage.into(),
            AuthError::Internal(cause) => ApiError::internal(cause),
        }
    }
}

impl From<actix_web::error::BlockingError> for ApiError {
    fn from(error: actix_web::error::BlockingError) -> Self {
        ApiError::internal(format!("blocking task failed: {error}"))
    }
}

#[cfg(test)]
mod tests;
