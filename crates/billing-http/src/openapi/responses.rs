//! The shared responses: one problem+json component per error status.

use serde_json::{Map, Value, json};

use super::headers::header;

/// Every error response, once: status, name under `components.responses`, description, and
/// the header it carries, if any. Operations refer to them by `$ref`.
pub(super) const ERROR_RESPONSES: &[(u16, &str, &str, Option<&str>)] = &[
    (
        400,
        "BadRequest",
        "Invalid request: the body, a parameter or a field breaks a rule (errors names each field).",
        None,
    ),
    (
        401,
        "Unauthorized",
        "Missing, malformed, expired or invalid bearer token, inactive user, or wrong credentials.",
        Some("WWW-Authenticate"),
    ),
    (
        403,
        "Forbidden",
        "The user's roles lack the permission, or the record is outside the user's contract owners.",
        None,
    ),
    (
        404,
        "NotFound",
        "No record with this id, or no such route.",
        None,
    ),
    (
        408,
        "RequestTimeout",
        "The body did not arrive within BILLING_BODY_TIMEOUT_SECONDS (30 s by default).",
        None,
    ),
    (
        409,
        "Conflict",
        "Conflict: duplicate, still referenced, concurrent change, reused Idempotency-Key or failed test operation.",
        None,
    ),
    (
        412,
        "PreconditionFailed",
        "If-Match does not match, or the data belongs to a source with siMaintained = true.",
        None,
    ),
    (
        413,
        "PayloadTooLarge",
        "The body is larger than the limit.",
        None,
    ),
    (
        414,
        "UriTooLong",
        "The request target (path and query) is over 8 KiB.",
        None,
    ),
    (415, "UnsupportedMediaType", "Wrong Content-Type.", None),
    (
        431,
        "RequestHeaderFieldsTooLarge",
        "The request's headers are over 32 KiB together.",
        None,
    ),
    (
        429,
        "TooManyRequests",
        "Too many failed sign-ins (see Retry-After).",
        Some("Retry-After"),
    ),
    (
        507,
        "InsufficientStorage",
        "The rating index cannot hold the named source's data (its dialstrings exceed the engine's limit): lookups against it are refused until its data fits.",
        None,
    ),
    (
        500,
        "InternalServerError",
        "An unexpected fault, logged with the problem's requestId (quote it when reporting); nothing was changed.",
        None,
    ),
    (
        503,
        "ServiceUnavailable",
        "The database is busy or unreachable, or the password hashing queue is full (see Retry-After).",
        Some("Retry-After"),
    ),
];

/// `components.responses`: one problem+json response per error status, and the same without
/// a body for `HEAD` requests.
pub(super) fn error_response_components() -> Map<String, Value> {
    ERROR_RESPONSES
        .iter()
        .flat_map(|(_, name, description, carried)| {
            let mut bare = json!({ "description": format!("{description} No body: the answer to a HEAD request.") });
            if let Some(carried) = carried {
                bare["headers"] = json!({ *carried: header(carried) });
            }
            let mut response = bare.clone();
            response["description"] = json!(description);
            response["content"] = json!({ "application/problem+json": { "schema": { "$ref": "#/components/schemas/Problem" } } });
            [
                ((*name).to_owned(), response),
                (format!("{name}{WITHOUT_BODY}"), bare),
            ]
        })
        .collect()
}

/// A `$ref` to the error response of `status` (see [`ERROR_RESPONSES`]).
pub(super) fn error_ref(status: u16) -> Option<Value> {
    ERROR_RESPONSES
        .iter()
        .find(|(code, ..)| *code == status)
        .map(|(_, name, ..)| json!({ "$ref": format!("#/components/responses/{name}") }))
}

/// A `$ref` to the error response of `status` as a `HEAD` request gets it: the same status
/// and headers, no body (`<Name>WithoutBody` under `components.responses`).
pub(super) fn error_without_body(status: u16) -> Option<Value> {
    ERROR_RESPONSES
        .iter()
        .find(|(code, ..)| *code == status)
        .map(|(_, name, ..)| {
            json!({ "$ref": format!("#/components/responses/{name}{WITHOUT_BODY}") })
        })
}

/// The suffix of a `HEAD` request's error responses under `components.responses`.
pub(super) const WITHOUT_BODY: &str = "WithoutBody";

fn errors(statuses: &[u16]) -> Map<String, Value> {
    statuses
        .iter()
        .filter_map(|status| Some((status.to_string(), error_ref(*status)?)))
        .collect()
}

pub(super) fn json_body(schema: Value, media_type: &str) -> Value {
    json!({ "required": true, "content": { media_type: { "schema": schema } } })
}

pub(super) fn with_errors(mut responses: Map<String, Value>, statuses: &[u16]) -> Value {
    responses.extend(errors(statuses));
    Value::Object(responses)
}
