//! Response headers, each described once under `components.headers`, and what every
//! operation of the document has in common: the headers every answer may carry and the
//! statuses every operation may answer (added in one pass, not per path).

use serde_json::{Map, Value, json};

use super::responses::{WITHOUT_BODY, error_ref, error_without_body};

/// The most characters a list parameter's value may have (400 beyond).
pub(super) const QUERY_VALUE_MAX_CHARS: usize = crate::machinery::list::QUERY_VALUE_MAX_CHARS;
/// The most characters a header value can have: the headers are at most 32 KiB together
/// (431 beyond).
pub(super) const HEADER_VALUE_MAX_CHARS: u32 = 32 * 1024;

/// The headers every answer carries or may carry.
const ON_EVERY_ANSWER: [&str; 2] = ["X-Request-Id", "Access-Control-Allow-Origin"];

/// A `$ref` to the header `name` of `components.headers`.
pub(super) fn header(name: &str) -> Value {
    json!({ "$ref": format!("#/components/headers/{name}") })
}

/// `components.headers`.
pub(super) fn header_components() -> Map<String, Value> {
    let count = json!({ "type": "integer", "format": "int64", "minimum": 0, "maximum": i64::MAX });
    let headers = [
        (
            "ETag",
            "The record's version, for If-Match: \"3\", or \"3.1.2\" with the records shown inside it.",
            json!({ "type": "string", "pattern": "^\"[0-9]+(\\.[0-9]+)*\"$", "maxLength": HEADER_VALUE_MAX_CHARS }),
        ),
        (
            "Link",
            "RFC 8288 links to the first, previous, next and last pages, at most 8 KiB: first and last, then prev, are left out of a longer one.",
            json!({ "type": "string", "maxLength": 8192,
                "pattern": "^<[^>]*>; rel=\"(first|prev|next|last)\"(, <[^>]*>; rel=\"(first|prev|next|last)\")*$" }),
        ),
        (
            "Location",
            "The new record's path (a single create).",
            json!({ "type": "string", "format": "uri-reference", "maxLength": 2048 }),
        ),
        (
            "X-Total-Count",
            "Rows matching the filters (an estimate when Prefer asked for count=planned or count=estimated and Preference-Applied says so).",
            count.clone(),
        ),
        (
            "Preference-Applied",
            "The count preference the list applied (RFC 7240), when Prefer stated one.",
            json!({ "type": "string", "enum": ["count=exact", "count=planned", "count=estimated"] }),
        ),
        (
            "Content-Length",
            "The length of the body GET would send.",
            count,
        ),
        (
            "Idempotent-Replayed",
            "true when this is the stored answer of an earlier request with the same Idempotency-Key.",
            json!({ "type": "string", "enum": ["true"] }),
        ),
        (
            "Cache-Control",
            "no-store: the answer holds a credential (a sign-in's tokens, an API key's secret), which no cache may keep.",
            json!({ "type": "string", "enum": ["no-store"] }),
        ),
        (
            "Retry-After",
            "Seconds to wait before trying again.",
            json!({ "type": "integer", "format": "int32", "minimum": 1, "maximum": 86_400 }),
        ),
        (
            "WWW-Authenticate",
            "Bearer challenge (RFC 6750), with error and error_description when a token was sent.",
            json!({ "type": "string", "pattern": "^Bearer ", "maxLength": HEADER_VALUE_MAX_CHARS }),
        ),
        (
            "X-Request-Id",
            "The request's id, in the log and in problem+json: the client's X-Request-Id when it is 1 to 200 visible ASCII characters, else a new UUID.",
            json!({ "type": "string", "pattern": "^[!-~]+$", "minLength": 1, "maxLength": 200 }),
        ),
        (
            "Access-Control-Allow-Origin",
            "The request's Origin, when BILLING_CORS_ORIGINS names it (docs/api.md \"Browsers\"); absent otherwise.",
            json!({ "type": "string", "format": "uri", "maxLength": HEADER_VALUE_MAX_CHARS }),
        ),
    ];
    headers
        .into_iter()
        .map(|(name, description, schema)| {
            (
                name.to_owned(),
                json!({ "description": description, "schema": schema }),
            )
        })
        .collect()
}

/// Adds to every operation of `paths` what all of them share, and to every response
/// (`responses` being `components.responses`) the headers every answer may carry:
/// - 500, an unexpected fault (the problem's requestId is the one to quote);
/// - 414 and 431: a request target over 8 KiB, headers over 32 KiB (any request may send them,
///   and a query value or a header at its documented maximum may take a request past them);
/// - 503 wherever 401 is answered: the token's user is read from the database, which may be
///   unreachable;
/// - 408 wherever a body is read: it must arrive within `BILLING_BODY_TIMEOUT_SECONDS`.
pub(super) fn common_to_every_operation(paths: &mut Value, responses: &mut Map<String, Value>) {
    let Value::Object(paths) = paths else { return };
    let mut used = std::collections::BTreeSet::new();
    for item in paths.values_mut() {
        let Value::Object(methods) = item else {
            continue;
        };
        for (method, operation) in methods.iter_mut() {
            if method == "parameters" {
                continue;
            }
            let reads_body = operation.get("requestBody").is_some();
            let Some(answers) = operation
                .get_mut("responses")
                .and_then(Value::as_object_mut)
            else {
                continue;
            };
            let mut added = vec![414, 431, 500];
            if answers.contains_key("401") {
                added.push(503);
            }
            if reads_body {
                added.push(408);
            }
            for status in added {
                if let Some(reference) = error_ref(status) {
                    answers.entry(status.to_string()).or_insert(reference);
                }
            }
            if method == "head" {
                // A HEAD answer has no body, its errors included: declared so, a generated
                // client does not try to read a problem+json that never comes.
                for (status, answer) in answers.iter_mut() {
                    if answer.get("$ref").is_some()
                        && let Some(bare) = status.parse().ok().and_then(error_without_body)
                    {
                        used.insert(bare["$ref"].as_str().unwrap_or_default().to_owned());
                        *answer = bare;
                    }
                }
            }
            for answer in answers.values_mut() {
                with_common_headers(answer);
            }
            sort_by_status(answers);
        }
    }
    // Only the body-less errors some HEAD answers.
    responses.retain(|name, _| {
        !name.ends_with(WITHOUT_BODY) || used.contains(&format!("#/components/responses/{name}"))
    });
    for answer in responses.values_mut() {
        with_common_headers(answer);
    }
}

/// The headers every answer may carry, on a response that is not a `$ref`.
fn with_common_headers(answer: &mut Value) {
    if answer.get("$ref").is_some() {
        return;
    }
    let headers = answer
        .as_object_mut()
        .map(|members| members.entry("headers").or_insert_with(|| json!({})));
    if let Some(Value::Object(headers)) = headers {
        for name in ON_EVERY_ANSWER {
            headers.entry(name).or_insert_with(|| header(name));
        }
    }
}

/// Responses in the order of their status, as a reader looks them up.
fn sort_by_status(answers: &mut Map<String, Value>) {
    let mut sorted: Vec<(String, Value)> = std::mem::take(answers).into_iter().collect();
    sorted.sort_by(|(a, _), (b, _)| a.cmp(b));
    answers.extend(sorted);
}
