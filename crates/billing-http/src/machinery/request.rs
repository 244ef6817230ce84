//! Reading requests: the caller, path ids, query pairs, preconditions and bodies. No handler
//! reads headers or bytes itself.

use std::future::{Future, Ready, ready};
use std::pin::Pin;

use actix_web::http::header;
use actix_web::{FromRequest, HttpRequest, web};
use billing_auth::{AuthenticatedUser, Bearer};
use billing_domain::ValidationErrors;
use billing_domain::roles::Permission;
use billing_persistence::DbConnection;
use futures_util::StreamExt;
use serde::de::DeserializeOwned;
use serde_json::Value;

use crate::error::ApiError;
use crate::state::{AppState, HttpLimits};

/// The authenticated caller. Extracting it checks the bearer token and the user's current state.
pub struct Caller(pub AuthenticatedUser);

impl FromRequest for Caller {
    type Error = ApiError;
    type Future = Pin<Box<dyn Future<Output = Result<Self, ApiError>>>>;

    fn from_request(request: &HttpRequest, _: &mut actix_web::dev::Payload) -> Self::Future {
        let state = request.app_data::<web::Data<AppState>>().cloned();
        let token = bearer_token(request).map(str::to_owned);
        Box::pin(async move {
            let state = state.ok_or_else(|| ApiError::internal("application state missing"))?;
            let user = state.auth.authenticate_bearer(&token?).await?;
            crate::request_context::set_user_id(user.id);
            Ok(Caller(user))
        })
    }
}

/// The caller of a read, checked without the database: known from memory (read less than a
/// second ago), or to be read on the connection the read itself uses ([`ReadCaller::read`]).
/// Either way a read makes one trip to the blocking pool, and none when it is refused.
pub struct ReadCaller(Bearer);

impl FromRequest for ReadCaller {
    type Error = ApiError;
    type Future = Ready<Result<Self, ApiError>>;

    fn from_request(request: &HttpRequest, _: &mut actix_web::dev::Payload) -> Self::Future {
        ready(
            request
                .app_data::<web::Data<AppState>>()
                .ok_or_else(|| ApiError::internal("application state missing"))
                .and_then(|state| {
                    let bearer = state.auth.check_bearer(bearer_token(request)?)?;
                    if let Some(user_id) = bearer.user_id() {
                        crate::request_context::set_user_id(user_id);
                    }
                    Ok(ReadCaller(bearer))
                }),
        )
    }
}

impl ReadCaller {
    /// Runs `work` on a pooled connection on the blocking pool once the caller holds
    /// `permission` (else 403) and `parsed`, what the handler read from the request, is
    /// well-formed (else its error): the order of [`Caller`] and `require` in the other
    /// handlers. A caller memory does not know is first read on the same connection (401 if
    /// inactive or gone). Gives back the work's result and `parsed`.
    pub async fn read<P, T>(
        self,
        state: &AppState,
        permission: Permission,
        parsed: Result<P, ApiError>,
        work: impl FnOnce(&mut DbConnection, &AuthenticatedUser, &P) -> Result<T, ApiError>
        + Send
        + 'static,
    ) -> Result<(T, P), ApiError>
    where
        P: Send + 'static,
        T: Send + 'static,
    {
        self.run(state, permission, parsed, work, false).await
    }

    /// [`ReadCaller::read`] for work of a bounded size (one record by its id, with its owned
    /// lists and shown records): on SQLite, for a caller known from memory, it runs on the
    /// async worker itself when a pooled connection is idle, which saves the two thread
    /// hand-offs of a trip to the blocking pool (about a fifth of a get by id). A SQLite read in
    /// WAL mode does not wait for writers, and the file's pages are in memory once read. Lists,
    /// whose filters may scan a whole table, and everything on PostgreSQL (a round trip to the
    /// server) keep to the blocking pool. A panic in `work` is a 500, as on the blocking pool.
    pub async fn read_one<P, T>(
        self,
        state: &AppState,
        permission: Permission,
        parsed: Result<P, ApiError>,
        work: impl FnOnce(&mut DbConnection, &AuthenticatedUser, &P) -> Result<T, ApiError>
        + Send
        + 'static,
    ) -> Result<(T, P), ApiError>
    where
        P: Send + 'static,
        T: Send + 'static,
    {
        // Only for a caller known from memory: reading an unknown caller may write (an API
        // key's use is noted), and a write waits for SQLite's lock (busy_timeout, 5 s), which
        // must not happen on an async worker.
        let inline = state.database.backend() == billing_persistence::Backend::Sqlite
            && matches!(self.0, Bearer::Known(_));
        self.run(state, permission, parsed, work, inline).await
    }

    async fn run<P, T>(
        self,
        state: &AppState,
        permission: Permission,
        parsed: Result<P, ApiError>,
        work: impl FnOnce(&mut DbConnection, &AuthenticatedUser, &P) -> Result<T, ApiError>
        + Send
        + 'static,
        inline: bool,
    ) -> Result<(T, P), ApiError>
    where
        P: Send + 'static,
        T: Send + 'static,
    {
        let database = state.database.clone();
        let auth = state.auth.clone();
        // A caller known from memory is refused before any trip.
        let (caller, parsed) = match self.0 {
            Bearer::Known(caller) => {
                caller.require(permission)?;
                (Ok(caller), Ok(parsed?))
            }
            Bearer::Unread(unread) => (Err(unread), parsed),
        };
        let job = move |c: &mut DbConnection| {
            let caller = match caller {
                Ok(caller) => caller,
                Err(unread) => {
                    let caller = auth.read_caller(c, &unread)?;
                    caller.require(permission)?;
                    caller
                }
            };
            let parsed = parsed?;
            work(c, &caller, &parsed).map(|done| (done, parsed))
        };
        let job = if inline {
            let attempt = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                database.read_if_idle(job)
            }));
            match attempt {
                Ok(Ok(done)) => return done,
                Ok(Err(job)) => job,
                Err(_) => return Err(ApiError::internal("a read panicked")),
            }
        } else {
            job
        };
        web::block(move || database.read(job)).await?
    }
}

/// The bytes a token68 (RFC 7235) may hold: letters, digits and `-._~+/=`.
const TOKEN68: [bool; 256] = {
    let mut table = [false; 256];
    let mut byte = 0;
    while byte < 256 {
        let b = byte as u8;
        table[byte] = b.is_ascii_alphanumeric()
            || matches!(b, b'-' | b'.' | b'_' | b'~' | b'+' | b'/' | b'=');
        byte += 1;
    }
    table
};

/// The token of an `Authorization: Bearer <token>` header (RFC 6750 token68 characters).
/// Read as bytes with a table, in one pass over the token: character by character, then in four
/// passes, it cost 7,000 and then 5,000 instructions a request for a token of ~330 characters.
/// Any byte outside the scheme, the blanks and token68 (a control character, a non-ASCII byte)
/// makes the header malformed, wherever it is.
fn bearer_token(request: &HttpRequest) -> Result<&str, ApiError> {
    let Some(value) = request.headers().get(header::AUTHORIZATION) else {
        return Err(ApiError::unauthorized(
            "an Authorization: Bearer <token> header is required",
            None,
        ));
    };
    let malformed = || {
        ApiError::unauthorized(
            "the Authorization header is malformed; expected Bearer <token>",
            Some("invalid_request"),
        )
    };
    let bytes = value.as_bytes();
    let (scheme, rest) = bytes.split_at(bytes.len().min(7));
    if !scheme.eq_ignore_ascii_case(b"bearer ") {
        return Err(malformed());
    }
    let token = trim_blanks(rest);
    // Every byte is looked at (no early exit), so the loop has no branch per byte.
    let token68 = token
        .iter()
        .fold(true, |all, &byte| all & TOKEN68[usize::from(byte)]);
    if token.is_empty() || !token68 {
        return Err(malformed());
    }
    // Only token68 bytes, all ASCII: always UTF-8.
    std::str::from_utf8(token).map_err(|_| malformed())
}

/// `bytes` without leading and trailing spaces and tabs.
fn trim_blanks(bytes: &[u8]) -> &[u8] {
    let blank = |b: &u8| *b == b' ' || *b == b'\t';
    let start = bytes.iter().position(|b| !blank(b)).unwrap_or(bytes.len());
    let end = bytes
        .iter()
        .rposition(|b| !blank(b))
        .map_or(start, |last| last + 1);
    &bytes[start..end]
}

/// The `{id}` path segment (or, for an item routed by its scope's default service, the rest of
/// the path after `/`): an integer >= 1.
pub fn path_id(request: &HttpRequest) -> Result<i64, ApiError> {
    let path = request.match_info();
    let raw = match path.get("id") {
        Some(raw) => raw,
        None => path.unprocessed().trim_start_matches('/'),
    };
    match raw.parse::<i64>() {
        Ok(id) if id >= 1 && !raw.starts_with('+') => Ok(id),
        _ => Err(ApiError::field("id", "the path id must be an integer >= 1")),
    }
}

pub use super::query_string::{query_pairs, reject_query};

/// The longest `If-Match` header a write reads (400 beyond): dozens of entity tags.
pub const IF_MATCH_MAX_CHARS: usize = 1024;

/// What an `If-Match` header accepts: `None` when absent, `Some(None)` for `*`, else the tags.
pub type IfMatch = Option<Option<Vec<String>>>;

/// The entity tags of an `If-Match` header, as written: weak ones keep their `W/`, so the
/// strong comparison of [`check_if_match`] never matches them.
pub fn if_match(request: &HttpRequest) -> Result<IfMatch, ApiError> {
    let Some(value) = request.headers().get(header::IF_MATCH) else {
        return Ok(None);
    };
    let text = value
        .to_str()
        .map_err(|_| ApiError::field("If-Match", "the header is malformed"))?
        .trim();
    if text.len() > IF_MATCH_MAX_CHARS {
        return Err(ApiError::field(
            "If-Match",
            format!("must be at most {IF_MATCH_MAX_CHARS} characters"),
        ));
    }
    if text == "*" {
        return Ok(Some(None));
    }
    let tags: Vec<String> = text.split(',').map(|tag| tag.trim().to_owned()).collect();
    // RFC 9110 §8.8.3: an opaque tag is quoted and holds no quote, space or control character
    // (`"1" "1"` is two tags without their comma: malformed, not a tag that never matches).
    let quoted = |tag: &str| {
        tag.len() >= 2
            && tag.starts_with('"')
            && tag.ends_with('"')
            && tag[1..tag.len() - 1]
                .bytes()
                .all(|b| b == 0x21 || (0x23..=0x7e).contains(&b) || b >= 0x80)
    };
    if tags
        .iter()
        .any(|tag| !quoted(tag.strip_prefix("W/").unwrap_or(tag)))
    {
        return Err(ApiError::field(
            "If-Match",
            "expected one or more quoted entity tags, or *",
        ));
    }
    Ok(Some(Some(tags)))
}

/// 412 unless `condition` (from [`if_match`]) accepts the current entity tag. The comparison
/// is strong (RFC 9110 §13.1.1): `"3"` matches `"3"`, `W/"3"` matches nothing.
pub fn check_if_match(condition: &Option<Option<Vec<String>>>, tag: &str) -> Result<(), ApiError> {
    match condition {
        Some(Some(tags)) if !tags.iter().any(|candidate| candidate == tag) => {
            Err(ApiError::precondition_failed(format!(
                "If-Match does not match the current version {tag}; fetch the record again"
            )))
        }
        _ => Ok(()),
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BodyKind {
    Json,
    JsonPatch,
}

impl BodyKind {
    fn media_type(self) -> &'static str {
        match self {
            BodyKind::Json => "application/json",
            BodyKind::JsonPatch => "application/json-patch+json",
        }
    }
}

/// Reads the body: checks the content type (415), the size limit (413), the time it takes
/// (408) and the JSON syntax (400).
pub async fn read_json(
    request: &HttpRequest,
    payload: web::Payload,
    kind: BodyKind,
    limits: &HttpLimits,
) -> Result<(Value, Vec<u8>), ApiError> {
    let bytes = read_body(
        request,
        payload,
        kind,
        limits.body_bytes,
        limits.body_timeout,
    )
    .await?;
    let value = serde_json::from_slice::<Value>(&bytes).map_err(not_json)?;
    if let Some(path) = super::repeated_members::first_repeated_member(&bytes) {
        return Err(ApiError::field(path, super::repeated_members::REPEATED));
    }
    Ok((value, bytes))
}

/// The 400 of a body that is not JSON.
pub fn not_json(error: serde_json::Error) -> ApiError {
    ApiError::bad_request(format!("the request body is not valid JSON: {error}"))
}

/// Reads the body's bytes: checks the content type (415), the size limit `limit` (413, as soon
/// as `Content-Length` or the bytes so far pass it) and the time the whole body takes to
/// arrive (408 past `timeout`, however slowly it trickles).
pub async fn read_body(
    request: &HttpRequest,
    mut payload: web::Payload,
    kind: BodyKind,
    limit: usize,
    timeout: std::time::Duration,
) -> Result<Vec<u8>, ApiError> {
    // A body given up before its end closes the connection after the answer
    // (`request_context`, which holds every request's body).
    read_whole_body(request, &mut payload, kind, limit, timeout).await
}

async fn read_whole_body(
    request: &HttpRequest,
    payload: &mut web::Payload,
    kind: BodyKind,
    limit: usize,
    timeout: std::time::Duration,
) -> Result<Vec<u8>, ApiError> {
    let content_type = request
        .headers()
        .get(header::CONTENT_TYPE)
        .and_then(|value| value.to_str().ok())
        .map(|value| {
            value
                .split(';')
                .next()
                .unwrap_or_default()
                .trim()
                .to_ascii_lowercase()
        });
    if content_type.as_deref() != Some(kind.media_type()) {
        return Err(ApiError::unsupported_media_type(kind.media_type()));
    }
    // A body is read as sent: a compressed one would be taken for text that is not JSON, and
    // a plain one labelled compressed for what it is not.
    if let Some(coding) = request.headers().get(header::CONTENT_ENCODING)
        && !coding.as_bytes().eq_ignore_ascii_case(b"identity")
    {
        return Err(ApiError::encoded_body());
    }
    let declared = request
        .headers()
        .get(header::CONTENT_LENGTH)
        .and_then(|value| value.to_str().ok())
        .and_then(|value| value.parse::<usize>().ok());
    if declared.is_some_and(|length| length > limit) {
        return Err(ApiError::payload_too_large(limit));
    }
    // Sized once from Content-Length (never past the limit): a large body is one allocation,
    // given back whole when the request ends, not a trail of doubled buffers.
    let mut bytes = Vec::with_capacity(declared.unwrap_or(0));
    let deadline = tokio::time::Instant::now() + timeout;
    loop {
        let chunk = match tokio::time::timeout_at(deadline, payload.next()).await {
            Err(_) => return Err(ApiError::request_timeout(timeout)),
            Ok(None) => break,
            // The library's own words name its internals ("payload reached EOF before
            // completing: None"): the client is told what it sent instead.
            Ok(Some(chunk)) => chunk.map_err(|_| {
                ApiError::bad_request(
                    "the request body could not be read: a malformed chunk, or the body ended early",
                )
            })?,
        };
        if bytes.len() + chunk.len() > limit {
            return Err(ApiError::payload_too_large(limit));
        }
        bytes.extend_from_slice(&chunk);
    }
    Ok(bytes)
}

/// Turns a JSON value into `T`, naming the field of the first error in the words the declared
/// resources use ("is required", "must be a string"), not serde's.
pub fn deserialize<T: DeserializeOwned>(value: Value) -> Result<T, ApiError> {
    serde_path_to_error::deserialize::<_, T>(value).map_err(|error| {
        let path = error.path().to_string();
        let (field, message) = in_plain_words(&path, &error.into_inner().to_string());
        ApiError::field(field, message)
    })
}

/// serde's error `message` at `path` (`.` for the whole body) as the field it is about and
/// the API's words: a missing member is named itself, not its parent.
fn in_plain_words(path: &str, message: &str) -> (String, String) {
    let field = if path == "." {
        "body".to_owned()
    } else {
        path.to_owned()
    };
    let quoted = |prefix: &str| {
        message
            .strip_prefix(prefix)
            .and_then(|rest| rest.split_once('`'))
            .map(|(name, _)| name.to_owned())
    };
    if let Some(member) = quoted("missing field `") {
        let member = if path == "." {
            member
        } else {
            format!("{path}.{member}")
        };
        return (member, "is required".to_owned());
    }
    if quoted("unknown field `").is_some() {
        return (field, "unknown field".to_owned());
    }
    // serde takes an array for a struct, member by member: an empty or short one ends so.
    if message.starts_with("invalid length") && message.contains("expected struct") {
        return (field, "must be a JSON object".to_owned());
    }
    let Some((found, expected)) = message
        .strip_prefix("invalid type: ")
        .and_then(|rest| rest.split_once(", expected "))
    else {
        return (field, message.to_owned());
    };
    let words = if found == "null" {
        "must not be null"
    } else if expected.contains("string") {
        "must be a string"
    } else if expected.contains("sequence") {
        "must be an array"
    } else if expected.contains("boolean") {
        "must be true or false"
    } else if expected.contains("integer") || expected.starts_with(['i', 'u']) {
        "must be an integer"
    } else if expected.starts_with("struct") || expected.contains("map") {
        "must be a JSON object"
    } else {
        return (field, message.to_owned());
    };
    (field, words.to_owned())
}

/// Runs garde's checks, naming fields in the API's camelCase.
pub fn validate<T: garde::Validate<Context = ()>>(value: &T) -> Result<(), ApiError> {
    value.validate().map_err(|report| {
        let mut errors = ValidationErrors::default();
        for (path, error) in report.iter() {
            errors.push(
                camel_case_path(&path.to_string()),
                error.message().to_owned(),
            );
        }
        ApiError::validation(errors)
    })
}

/// `charge_group_id` → `chargeGroupId`, segment by segment; a raw identifier (`r#type`, a
/// member named after a keyword) loses its `r#`.
pub fn camel_case_path(path: &str) -> String {
    let mut out = String::with_capacity(path.len());
    let mut upper_next = false;
    let mut rest = path;
    while let Some(c) = rest.chars().next() {
        let segment_start = out.is_empty() || out.ends_with('.');
        if segment_start && let Some(unraw) = rest.strip_prefix("r#") {
            rest = unraw;
            continue;
        }
        rest = &rest[c.len_utf8()..];
        if c == '_' {
            upper_next = true;
        } else if upper_next {
            out.extend(c.to_uppercase());
            upper_next = false;
        } else {
            out.push(c);
        }
    }
    out
}

/// The client's address: the socket's peer, or, when the peer is one of `proxies`, what
/// `X-Forwarded-For` says (`proxies::TrustedProxies::client_address`).
pub fn client_address(request: &HttpRequest, proxies: &super::proxies::TrustedProxies) -> String {
    let Some(peer) = request.peer_addr() else {
        return "unknown".to_owned();
    };
    let forwarded_for = request
        .headers()
        .get_all("x-forwarded-for")
        .filter_map(|value| value.to_str().ok());
    proxies.client_address(peer.ip(), forwarded_for).to_string()
}

#[cfg(test)]
mod tests {
    use actix_web::http::header::HeaderValue;

    use super::*;

    #[test]
    fn serde_errors_in_plain_words() {
        #[derive(Debug, serde::Deserialize)]
        #[serde(deny_unknown_fields)]
        #[allow(dead_code)]
        struct Inner {
            name: String,
            count: u32,
            on: bool,
            tags: Vec<String>,
        }
        #[derive(Debug, serde::Deserialize)]
        #[serde(deny_unknown_fields)]
        #[allow(dead_code)]
        struct Outer {
            inner: Inner,
            items: Vec<Inner>,
        }
        let said = |value: Value| {
            let errors = deserialize::<Outer>(value)
                .expect_err("refused")
                .into_field_errors();
            let pairs: Vec<(String, String)> = errors
                .expect("field errors")
                .into_iter()
                .map(|error| (error.field, error.message))
                .collect();
            serde_json::to_string(&pairs).expect("json")
        };
        let inner = serde_json::json!({ "name": "a", "count": 1, "on": true, "tags": [] });
        insta::assert_snapshot!(said(serde_json::json!({})), @r#"[["inner","is required"]]"#);
        insta::assert_snapshot!(said(serde_json::json!({ "inner": inner, "items": [{}] })), @r#"[["items[0].name","is required"]]"#);
        insta::assert_snapshot!(said(serde_json::json!({ "inner": inner, "bogus": 1 })), @r#"[["bogus","unknown field"]]"#);
        let wrong = |member: &str, value: Value| {
            let mut changed = inner.clone();
            changed[member] = value;
            said(serde_json::json!({ "inner": changed, "items": [] }))
        };
        insta::assert_snapshot!(wrong("name", Value::Null), @r#"[["inner.name","must not be null"]]"#);
        insta::assert_snapshot!(wrong("name", 5.into()), @r#"[["inner.name","must be a string"]]"#);
        insta::assert_snapshot!(wrong("count", "x".into()), @r#"[["inner.count","must be an integer"]]"#);
        insta::assert_snapshot!(wrong("on", "yes".into()), @r#"[["inner.on","must be true or false"]]"#);
        insta::assert_snapshot!(wrong("tags", "x".into()), @r#"[["inner.tags","must be an array"]]"#);
        insta::assert_snapshot!(said(serde_json::json!({ "inner": [] })), @r#"[["inner","must be a JSON object"]]"#);
        insta::assert_snapshot!(said(serde_json::json!({ "inner": 5 })), @r#"[["inner","must be a JSON object"]]"#);
    }

    #[test]
    fn camel_case_paths() {
        insta::assert_snapshot!(camel_case_path("locale.country_code[0].charge_group_id"), @"locale.countryCode[0].chargeGroupId");
        insta::assert_snapshot!(camel_case_path("r#type"), @"type");
        insta::assert_snapshot!(camel_case_path("items[0].r#type"), @"items[0].type");
    }

    #[test]
    fn if_match_versions() {
        assert!(check_if_match(&None, "\"3\"").is_ok());
        assert!(check_if_match(&Some(None), "\"3\"").is_ok());
        assert!(check_if_match(&Some(Some(vec!["\"3\"".into()])), "\"3\"").is_ok());
        assert_eq!(
            check_if_match(&Some(Some(vec!["\"2\"".into()])), "\"3\"")
                .unwrap_err()
                .status()
                .as_u16(),
            412
        );
    }

    fn token_of(value: &str) -> Result<String, String> {
        let request = actix_web::test::TestRequest::default()
            .insert_header((header::AUTHORIZATION, value))
            .to_http_request();
        bearer_token(&request)
            .map(str::to_owned)
            .map_err(|error| error.to_string())
    }

    #[test]
    fn bearer_tokens() {
        assert_eq!(
            token_of("Bearer abc.DEF-_~+/=").as_deref(),
            Ok("abc.DEF-_~+/=")
        );
        assert_eq!(token_of("bEaReR \t x \t").as_deref(), Ok("x"));
        for malformed in [
            "Basic x",
            "Bearer",
            "Bearer ",
            "Bearer a b",
            "Bearer a,b",
            "Bearer\tx",
        ] {
            assert!(token_of(malformed).is_err(), "{malformed:?}");
        }
        let request = actix_web::test::TestRequest::default()
            .insert_header((
                header::AUTHORIZATION,
                HeaderValue::from_bytes(b"Bearer \xc3\xa9").expect("opaque bytes"),
            ))
            .to_http_request();
        assert!(bearer_token(&request).is_err(), "not ASCII");
        let missing = actix_web::test::TestRequest::default().to_http_request();
        insta::assert_snapshot!(bearer_token(&missing).unwrap_err(), @"401 Unauthorized: an Authorization: Bearer <token> header is required");
    }

    fn if_match_of(value: &str) -> Result<IfMatch, ApiError> {
        let request = actix_web::test::TestRequest::default()
            .insert_header((header::IF_MATCH, value))
            .to_http_request();
        if_match(&request)
    }

    #[test]
    fn a_weak_tag_never_matches() {
        let weak = if_match_of("W/\"3\"").expect("a weak tag is well-formed");
        assert_eq!(
            check_if_match(&weak, "\"3\"")
                .unwrap_err()
                .status()
                .as_u16(),
            412
        );
        let mixed = if_match_of("W/\"3\", \"3\"").expect("well-formed");
        assert!(check_if_match(&mixed, "\"3\"").is_ok());
        assert!(check_if_match(&if_match_of(" \"3\" ").expect("well-formed"), "\"3\"").is_ok());
        for malformed in ["W/3", "3", "W/", "\"3\", x"] {
            assert!(if_match_of(malformed).is_err(), "{malformed}");
        }
    }
}
