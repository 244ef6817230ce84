//! `Idempotency-Key` on POST: the first response is stored with a fingerprint of the request;
//! a retry with the same key and body within 24 hours gets it again, another body a 409.

use actix_web::HttpRequest;
use billing_persistence::DbConnection;
use billing_persistence::idempotency::{self, NewIdempotencyRecord};
use hmac::{Hmac, Mac};
use serde_json::Value;
use sha2::Sha256;

use crate::error::ApiError;

pub const HEADER: &str = "idempotency-key";
/// The purpose the fingerprints' key is derived for ([`fingerprint`]).
pub const KEY_PURPOSE: &str = "billing idempotency fingerprints v1";
const RETENTION_HOURS: i64 = 24;

/// The key of a request, if it carries one: 1..=255 visible ASCII characters.
pub fn key(request: &HttpRequest) -> Result<Option<String>, ApiError> {
    let mut values = request.headers().get_all(HEADER);
    let Some(value) = values.next() else {
        return Ok(None);
    };
    // Two keys are two answers to "which request is this": neither is guessed.
    if values.next().is_some() {
        return Err(ApiError::field("Idempotency-Key", "must be sent once"));
    }
    match value.to_str() {
        Ok(text)
            if !text.is_empty()
                && text.len() <= 255
                && text.bytes().all(|b| b.is_ascii_graphic()) =>
        {
            Ok(Some(text.to_owned()))
        }
        _ => Err(ApiError::field(
            "Idempotency-Key",
            "must be 1 to 255 visible ASCII characters",
        )),
    }
}

/// What identifies "the same request": method, path and the body's JSON, whatever its
/// whitespace and the order of its members (a client library that serialises the body again
/// on a retry sends the same request); numbers and strings as written. Keyed (HMAC-SHA-256
/// under `key`, derived from the signing key), because the body may hold a password: a reader
/// of the stored fingerprints cannot test guesses against them.
pub fn fingerprint(request: &HttpRequest, body: &Value, key: &[u8; 32]) -> String {
    let mut hasher = Hmac::<Sha256>::new_from_slice(key).expect("HMAC takes a key of any length");
    hasher.update(request.method().as_str().as_bytes());
    hasher.update(b" ");
    hasher.update(request.path().as_bytes());
    hasher.update(b"\n");
    canonical(body, &mut hasher);
    hasher
        .finalize()
        .into_bytes()
        .iter()
        .map(|byte| format!("{byte:02x}"))
        .collect()
}

/// `value` as JSON with no whitespace and each object's members in name order, into `hasher`.
fn canonical(value: &Value, hasher: &mut Hmac<Sha256>) {
    match value {
        Value::Object(members) => {
            let mut names: Vec<&String> = members.keys().collect();
            names.sort();
            hasher.update(b"{");
            for (index, name) in names.into_iter().enumerate() {
                if index > 0 {
                    hasher.update(b",");
                }
                canonical(&Value::String(name.clone()), hasher);
                hasher.update(b":");
                canonical(&members[name], hasher);
            }
            hasher.update(b"}");
        }
        Value::Array(elements) => {
            hasher.update(b"[");
            for (index, element) in elements.iter().enumerate() {
                if index > 0 {
                    hasher.update(b",");
                }
                canonical(element, hasher);
            }
            hasher.update(b"]");
        }
        scalar => hasher.update(scalar.to_string().as_bytes()),
    }
}

/// A response to send again.
pub struct StoredResponse {
    pub status: u16,
    pub body: String,
    pub location: Option<String>,
    /// The `ETag` of a single created record, as first sent (a replay sends it again even if
    /// the record has changed since: the replay is the first response).
    pub etag: Option<String>,
}

fn not_before() -> chrono::NaiveDateTime {
    billing_persistence::now() - chrono::Duration::hours(RETENTION_HOURS)
}

/// Makes requests with the same key (for this user) take turns until the transaction ends;
/// call it in the write transaction, before [`replay`].
pub fn serialize(connection: &mut DbConnection, user_id: i64, key: &str) -> Result<(), ApiError> {
    idempotency::lock(connection, user_id, key)?;
    Ok(())
}

/// The stored response for this key, or a 409 when the key was used for another request.
pub fn replay(
    connection: &mut DbConnection,
    user_id: i64,
    key: &str,
    fingerprint: &str,
) -> Result<Option<StoredResponse>, ApiError> {
    match idempotency::find(connection, user_id, key, not_before())? {
        None => Ok(None),
        Some(row) if row.request_fingerprint == fingerprint => Ok(Some(StoredResponse {
            status: u16::try_from(row.response_status).unwrap_or(200),
            body: row.response_body,
            location: row.location,
            etag: row.etag,
        })),
        Some(_) => Err(ApiError::conflict(
            "this Idempotency-Key was already used with a different request",
        )),
    }
}

pub fn remember(
    connection: &mut DbConnection,
    user_id: i64,
    key: String,
    fingerprint: String,
    response: &StoredResponse,
) -> Result<(), ApiError> {
    idempotency::insert(
        connection,
        &NewIdempotencyRecord {
            user_id,
            idempotency_key: key,
            request_fingerprint: fingerprint,
            response_status: i32::from(response.status),
            response_body: response.body.clone(),
            location: response.location.clone(),
            created_date: billing_persistence::now(),
            etag: response.etag.clone(),
        },
        not_before(),
    )?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use actix_web::test::TestRequest;
    use serde_json::json;

    /// The same JSON is the same request under one key; under another key (another
    /// deployment's signing key) nothing matches, so a stored fingerprint is no plain hash of a
    /// body that may hold a password.
    #[test]
    fn fingerprints_are_keyed_and_ignore_layout() {
        let request = TestRequest::post().uri("/v1/users").to_http_request();
        let body = json!({ "username": "ann", "password": "correct horse battery" });
        let reordered: Value =
            serde_json::from_str(r#"{ "password": "correct horse battery", "username": "ann" }"#)
                .expect("json");
        let key = [7u8; 32];
        let first = fingerprint(&request, &body, &key);
        assert_eq!(first, fingerprint(&request, &reordered, &key));
        assert_ne!(first, fingerprint(&request, &body, &[8u8; 32]));
        let other = json!({ "username": "ann", "password": "correct horse battery!" });
        assert_ne!(first, fingerprint(&request, &other, &key));
        let mut plain = <sha2::Sha256 as sha2::Digest>::new();
        sha2::Digest::update(&mut plain, b"POST /v1/users\n");
        sha2::Digest::update(&mut plain, body.to_string().as_bytes());
        let plain: String = sha2::Digest::finalize(plain)
            .iter()
            .map(|byte| format!("{byte:02x}"))
            .collect();
        assert_ne!(first, plain);
    }
}
