//! Reading requests: the caller, path ids, query pairs and preconditions (bodies are read in
//! `body`). No handler reads headers or bytes itself.

use std::future::{Future, Ready, ready};
use std::pin::Pin;

use actix_web::http::header;
use actix_web::{FromRequest, HttpRequest, web};
use billing_auth::{AuthenticatedUser, Bearer};
use billing_domain::roles::Permission;
use billing_persistence::DbConnection;

use crate::error::ApiError;
use crate::state::AppState;

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
/// makes the header malformed, wherever it is, and so does a second `Authorization` header
/// (one of two credentials must not be chosen silently).
fn bearer_token(request: &HttpRequest) -> Result<&str, ApiError> {
    let mut values = request.headers().get_all(header::AUTHORIZATION);
    let Some(value) = values.next() else {
        return Err(ApiError::unauthorized(
            "an Authorization: Bearer <token> header is required",
            None,
        ));
    };
    if values.next().is_some() {
        return Err(ApiError::unauthorized(
            "the Authorization header is sent more than once; send one Bearer <token>",
            Some("invalid_request"),
        ));
    }
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

/// The longest `If-Match` or `If-None-Match` header read (400 beyond): dozens of entity tags.
pub const IF_MATCH_MAX_CHARS: usize = 1024;

/// What an `If-Match` or `If-None-Match` header holds: `None` when absent, `Some(None)` for
/// `*`, else the tags as written (weak ones keep their `W/`).
pub type IfMatch = Option<Option<Vec<String>>>;

/// The entity tags of the `If-Match` header.
pub fn if_match(request: &HttpRequest) -> Result<IfMatch, ApiError> {
    entity_tags(request, header::IF_MATCH, "If-Match")
}

/// The entity tags of the `If-None-Match` header.
pub fn if_none_match(request: &HttpRequest) -> Result<IfMatch, ApiError> {
    entity_tags(request, header::IF_NONE_MATCH, "If-None-Match")
}

/// The entity tags of the header `name` (called `label` in errors), as written: a list of
/// quoted tags, each maybe `W/`, or `*`; anything else is 400 naming the header.
fn entity_tags(
    request: &HttpRequest,
    name: header::HeaderName,
    label: &str,
) -> Result<IfMatch, ApiError> {
    // Sent on several lines, the header is one list (RFC 9110 §5.3): the lines joined by commas.
    let mut lines = Vec::new();
    for value in request.headers().get_all(name) {
        lines.push(
            value
                .to_str()
                .map_err(|_| ApiError::field(label, "the header is malformed"))?,
        );
    }
    if lines.is_empty() {
        return Ok(None);
    }
    let joined = lines.join(",");
    let text = joined.trim();
    if text.len() > IF_MATCH_MAX_CHARS {
        return Err(ApiError::field(
            label,
            format!("must be at most {IF_MATCH_MAX_CHARS} characters"),
        ));
    }
    if text == "*" {
        return Ok(Some(None));
    }
    // RFC 9110 §5.6.1: empty elements of a list (`"1", ,"2",`) are ignored; one tag at least.
    let tags: Vec<String> = text
        .split(',')
        .map(str::trim)
        .filter(|tag| !tag.is_empty())
        .map(str::to_owned)
        .collect();
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
    if tags.is_empty()
        || tags
            .iter()
            .any(|tag| !quoted(tag.strip_prefix("W/").unwrap_or(tag)))
    {
        return Err(ApiError::field(
            label,
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

/// Whether `condition` (from [`if_none_match`]) names the current entity tag: `*`, or a tag
/// equal to it compared weakly (RFC 9110 §13.1.2: `W/"3"` and `"3"` both name version 3).
/// A read answers 304 then, a write 412.
pub fn none_match_names(condition: &IfMatch, tag: &str) -> bool {
    match condition {
        None => false,
        Some(None) => true,
        Some(Some(tags)) => tags
            .iter()
            .any(|candidate| candidate.strip_prefix("W/").unwrap_or(candidate) == tag),
    }
}

/// The preconditions of a write on one record (RFC 9110 §13.2.2, in its order): `If-Match`
/// must name the current version (strongly), then `If-None-Match` must not (weakly, or `*`,
/// which names any record that exists).
#[derive(Debug, Clone, Default)]
pub struct Preconditions {
    pub if_match: IfMatch,
    pub if_none_match: IfMatch,
}

impl Preconditions {
    pub fn of(request: &HttpRequest) -> Result<Self, ApiError> {
        Ok(Self {
            if_match: if_match(request)?,
            if_none_match: if_none_match(request)?,
        })
    }

    /// Whether the request sent either header (a write that loses a race is then 412).
    pub fn any(&self) -> bool {
        self.if_match.is_some() || self.if_none_match.is_some()
    }

    /// 412 unless both headers accept the record whose entity tag is `tag`.
    pub fn check(&self, tag: &str) -> Result<(), ApiError> {
        check_if_match(&self.if_match, tag)?;
        if none_match_names(&self.if_none_match, tag) {
            return Err(ApiError::precondition_failed(format!(
                "If-None-Match names the current version {tag}"
            )));
        }
        Ok(())
    }
}

/// The client's address: the socket's peer, or, when the peer is one of `proxies`, what
/// `X-Forwarded-For` says (`proxies::TrustedProxies::client_address`).
pub fn client_address(request: &HttpRequest, proxies: &super::proxies::TrustedProxies) -> String {
    client_ip(request, proxies).map_or_else(|| "unknown".to_owned(), |ip| ip.to_string())
}

/// [`client_address`] as an address; `None` when the connection has no peer address.
pub fn client_ip(
    request: &HttpRequest,
    proxies: &super::proxies::TrustedProxies,
) -> Option<std::net::IpAddr> {
    let peer = request.peer_addr()?;
    let forwarded_for = request
        .headers()
        .get_all("x-forwarded-for")
        .filter_map(|value| value.to_str().ok());
    Some(proxies.client_address(peer.ip(), forwarded_for))
}

#[cfg(test)]
mod tests {
    use actix_web::http::header::HeaderValue;

    use super::*;

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
        let twice = actix_web::test::TestRequest::default()
            .append_header((header::AUTHORIZATION, "Bearer a"))
            .append_header((header::AUTHORIZATION, "Bearer a"))
            .to_http_request();
        insta::assert_snapshot!(bearer_token(&twice).unwrap_err(), @"401 Unauthorized: the Authorization header is sent more than once; send one Bearer <token>");
    }

    fn if_match_of(value: &str) -> Result<IfMatch, ApiError> {
        let request = actix_web::test::TestRequest::default()
            .insert_header((header::IF_MATCH, value))
            .to_http_request();
        if_match(&request)
    }

    fn none_match_of(value: &str) -> Result<IfMatch, ApiError> {
        let request = actix_web::test::TestRequest::default()
            .insert_header((header::IF_NONE_MATCH, value))
            .to_http_request();
        if_none_match(&request)
    }

    #[test]
    fn if_none_match_compares_weakly_and_star_names_any_record() {
        let names =
            |value: &str| none_match_names(&none_match_of(value).expect("well-formed"), "\"3\"");
        assert!(names("\"3\""));
        assert!(names("W/\"3\""), "a weak tag names the same version");
        assert!(names("\"2\", W/\"3\""));
        assert!(names("*"));
        assert!(!names("\"2\""));
        assert!(!names("\"33\""));
        assert!(!none_match_names(&None, "\"3\""), "no header names nothing");
        let error = none_match_of("3").expect_err("unquoted");
        insta::assert_snapshot!(error.into_field_errors().expect("a field")[0].field, @"If-None-Match");
        let write = Preconditions {
            if_match: None,
            if_none_match: Some(None),
        };
        assert_eq!(write.check("\"3\"").unwrap_err().status().as_u16(), 412);
        let both = Preconditions {
            if_match: Some(Some(vec!["\"3\"".into()])),
            if_none_match: Some(Some(vec!["\"2\"".into()])),
        };
        assert!(both.check("\"3\"").is_ok());
        assert!(both.any() && !Preconditions::default().any());
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
