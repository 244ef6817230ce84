//! Reading request bodies: content type, size, time, JSON syntax, then the typed input with
//! serde's errors put in the API's words and garde's checks named in camelCase.

use actix_web::http::header;
use actix_web::{HttpMessage, HttpRequest, web};
use billing_domain::ValidationErrors;
use futures_util::StreamExt;
use serde::de::DeserializeOwned;
use serde_json::Value;

use super::body_budget::{BodyDeadline, BodyShare};
use crate::error::ApiError;
use crate::state::{AppState, HttpLimits};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BodyKind {
    Json,
    /// A JSON Patch document (`PATCH` on a record).
    JsonPatch,
    /// A `PATCH` on a collection (a bulk change): a JSON array, not a JSON Patch document.
    BulkChanges,
}

impl BodyKind {
    /// The media type the document names, which a 415 asks for.
    fn media_type(self) -> &'static str {
        match self {
            BodyKind::Json | BodyKind::BulkChanges => "application/json",
            BodyKind::JsonPatch => "application/json-patch+json",
        }
    }

    /// Whether a body sent as `media_type` is read. Every `PATCH` body is taken as either JSON
    /// type: the specification sends them all as `application/json-patch+json` (a bulk change
    /// too), and generated clients (openapi-fetch) send every body as `application/json`; the
    /// body is read the same way whichever it says (docs/api.md, "Writes").
    fn accepts(self, media_type: &str) -> bool {
        match self {
            BodyKind::Json => media_type == "application/json",
            BodyKind::JsonPatch | BodyKind::BulkChanges => {
                matches!(
                    media_type,
                    "application/json" | "application/json-patch+json"
                )
            }
        }
    }
}

/// Reads the body: checks the content type (415), the size limit (413), the time it takes
/// (408) and the JSON syntax (400). `leads_to` is what handling a body of so many bytes holds
/// beside it ([`read_body`]).
pub async fn read_json(
    request: &HttpRequest,
    payload: web::Payload,
    kind: BodyKind,
    limits: &HttpLimits,
    leads_to: fn(usize) -> usize,
) -> Result<(Value, Vec<u8>), ApiError> {
    let bytes = read_body(
        request,
        payload,
        kind,
        limits.body_bytes,
        limits.body_timeout,
        leads_to,
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
///
/// Before its first byte is read the body takes its share of the body budget (`body_budget`):
/// its `Content-Length` (the limit when chunked) plus `leads_to` of it, what handling a body of
/// that many bytes holds beside it; the share shrinks to what arrived and stays in the
/// request's extensions ([`BodyShare`]) until the request is dropped.
pub async fn read_body(
    request: &HttpRequest,
    mut payload: web::Payload,
    kind: BodyKind,
    limit: usize,
    timeout: std::time::Duration,
    leads_to: fn(usize) -> usize,
) -> Result<Vec<u8>, ApiError> {
    // A body given up before its end closes the connection after the answer
    // (`request_context`, which holds every request's body).
    read_whole_body(request, &mut payload, kind, limit, timeout, leads_to).await
}

/// What handling a body holds beside it, for most routes: nothing the budget counts.
pub fn nothing_more(_: usize) -> usize {
    0
}

/// The `charset` a Content-Type names when it is not UTF-8 (RFC 8259: JSON is UTF-8 only), as
/// sent; `None` when it names none or UTF-8 (any case, quoted or not).
fn charset_other_than_utf8(content_type: &str) -> Option<&str> {
    let charset = content_type.split(';').skip(1).find_map(|parameter| {
        let (name, value) = parameter.split_once('=')?;
        name.trim()
            .eq_ignore_ascii_case("charset")
            .then(|| value.trim().trim_matches('"'))
    })?;
    (!charset.eq_ignore_ascii_case("utf-8") && !charset.eq_ignore_ascii_case("utf8"))
        .then_some(charset)
}

async fn read_whole_body(
    request: &HttpRequest,
    payload: &mut web::Payload,
    kind: BodyKind,
    limit: usize,
    timeout: std::time::Duration,
    leads_to: fn(usize) -> usize,
) -> Result<Vec<u8>, ApiError> {
    let content_type = request
        .headers()
        .get(header::CONTENT_TYPE)
        .and_then(|value| value.to_str().ok());
    let media_type = content_type.map(|value| {
        value
            .split(';')
            .next()
            .unwrap_or_default()
            .trim()
            .to_ascii_lowercase()
    });
    if !media_type.is_some_and(|media_type| kind.accepts(&media_type)) {
        return Err(ApiError::unsupported_media_type(kind.media_type()));
    }
    if let Some(charset) = content_type.and_then(charset_other_than_utf8) {
        return Err(ApiError::charset_not_utf8(charset));
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
    let deadline = tokio::time::Instant::now() + timeout;
    let share = match request.app_data::<web::Data<AppState>>() {
        Some(state) => {
            let bytes = declared.unwrap_or(limit);
            let take = state
                .body_budget
                .take(bytes.saturating_add(leads_to(bytes)));
            Some(tokio::time::timeout_at(deadline, take).await.map_err(|_| {
                ApiError::unavailable(
                    "the request bodies being handled hold the whole body budget \
                     (BILLING_BODY_MEMORY_BYTES) and none gave room within the body timeout",
                )
            })?)
        }
        None => None,
    };
    // Sized once from Content-Length (never past the limit): a large body is one allocation,
    // given back whole when the request ends, not a trail of doubled buffers.
    let mut bytes = Vec::with_capacity(declared.unwrap_or(0));
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
    if let Some(mut share) = share {
        share.hold_only(bytes.len().saturating_add(leads_to(bytes.len())));
        request.extensions_mut().insert(BodyShare(share));
        request.extensions_mut().insert(BodyDeadline(deadline));
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_charset_other_than_utf8_is_told() {
        let told: Vec<Option<&str>> = [
            "application/json",
            "application/json; charset=utf-8",
            "application/json;charset=\"UTF-8\"",
            "application/json; Charset=utf8",
            "application/json; charset=latin1",
            "application/json; foo=bar; charset=\"utf-16\"",
        ]
        .into_iter()
        .map(charset_other_than_utf8)
        .collect();
        assert_eq!(
            told,
            [None, None, None, None, Some("latin1"), Some("utf-16")]
        );
    }

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
}
