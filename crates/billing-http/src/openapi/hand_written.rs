//! The paths of the hand-written routes: authentication, the reference data summary, rating
//! lookups, health, metrics and the document itself.

use billing_domain::roles::Permission;
use serde_json::{Map, Value, json};

use super::ResourceDoc;
use super::character_sets::member_schema;
use super::headers::header;
use super::resource_paths::{id_parameter, list_parameters};
use super::responses::{error_ref, json_body, with_errors};
use super::schemas::{id_schema, object_schema, row_of};
use crate::machinery::resource::Operations;

pub(super) fn hand_written_paths(paths: &mut Map<String, Value>, schemas: &mut Map<String, Value>) {
    use crate::routes::authentication::{REFRESH_TOKEN_MAX_CHARS, SIGN_IN_PASSWORD_MAX_CHARS};
    let username = json!({ "allOf": [{ "$ref": "#/components/schemas/Username" }], "minLength": 1, "maxLength": 100 });
    schemas.insert("Tokens".into(), json!({ "type": "object", "required": ["token", "tokenType", "expiresIn", "refreshToken", "username"], "properties": {
        "token": { "type": "string", "description": "JWT access token (HS256).", "maxLength": 4096,
            "pattern": "^[A-Za-z0-9_-]+\\.[A-Za-z0-9_-]+\\.[A-Za-z0-9_-]+$" },
        "tokenType": { "type": "string", "enum": ["Bearer"] },
        "expiresIn": { "type": "integer", "format": "int32", "minimum": 60, "maximum": 86400, "description": "Seconds until the access token expires: BILLING_ACCESS_TOKEN_MINUTES (1 to 1440; 15 by default) times 60." },
        "refreshToken": { "type": "string", "pattern": "^[A-Za-z0-9_-]{43}$", "minLength": 43, "maxLength": 43,
            "description": "Single-use; exchange at /v1/authenticate/refresh." },
        "username": username
    }, "examples": [{ "token": "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.c2lnbmF0dXJl", "tokenType": "Bearer",
        "expiresIn": 900, "refreshToken": "Q2hvb3NlIGEgbG9uZyByYW5kb20gcmVmcmVzaCB0b2s", "username": "operator" }] }));
    schemas.insert(
        "RefreshTokenRequest".into(),
        json!({ "type": "object", "required": ["refreshToken"], "additionalProperties": false,
        "properties": { "refreshToken": { "type": "string", "minLength": 1, "maxLength": REFRESH_TOKEN_MAX_CHARS,
            "pattern": "^[!-~]+$", "description": "The refresh token of a sign-in or of the last refresh." } },
        "examples": [{ "refreshToken": "Q2hvb3NlIGEgbG9uZyByYW5kb20gcmVmcmVzaCB0b2s" }] }),
    );
    // A sign-in's username and brand are text as every declared member's (1 to 100 characters).
    let sign_in_text = member_schema("FreeText", 1, 100);
    let described = |mut schema: Value, description: &str| {
        schema["description"] = json!(description);
        schema
    };
    schemas.insert("SignIn".into(), json!({ "type": "object", "required": ["username", "password"], "additionalProperties": false, "properties": {
        "brand": { "anyOf": [sign_in_text.clone(), { "type": "null" }],
            "description": "When given, must match the deployment's brand; null is as if left out. Free text as every text member (a character outside it is 400 naming `brand`)." },
        "username": described(sign_in_text, "Free text as every text member (a character outside it is 400 naming `username`): looked up, and an unknown username is 401 like a wrong password."),
        "password": { "type": "string", "minLength": 1, "maxLength": SIGN_IN_PASSWORD_MAX_CHARS, "writeOnly": true,
            "description": "Any characters; compared only with the user's password." }
    }, "examples": [{ "username": "operator", "password": "choose-a-long-password" }] }));
    let named = |name: &str| json!({ "$ref": format!("#/components/schemas/{name}") });
    let tokens = named("Tokens");
    let refresh_body = json_body(named("RefreshTokenRequest"), "application/json");
    let ok_tokens = json!({ "description": "Signed in.", "headers": { "Cache-Control": header("Cache-Control") },
        "content": { "application/json": { "schema": tokens } } });
    paths.insert("/v1/authenticate".into(), json!({ "post": {
        "tags": ["authentication"], "summary": "Sign in", "security": [], "operationId": "signIn",
        "description": "A username and password for an access token (15 minutes) and a single-use refresh token. Wrong credentials are 401; after 5 failures for a username, or 20 from one client address, within 15 minutes, 429 with Retry-After.",
        "requestBody": json_body(named("SignIn"), "application/json"),
        "responses": with_errors(Map::from_iter([("200".to_owned(), ok_tokens.clone())]), &[400, 401, 413, 415, 429, 503]),
    }}));
    paths.insert("/v1/authenticate/refresh".into(), json!({ "post": {
        "tags": ["authentication"], "summary": "Exchange a refresh token for a new pair", "security": [], "operationId": "refreshTokens",
        "description": "Refresh tokens rotate: each works once. Presenting a used one revokes its whole family.",
        "requestBody": refresh_body,
        "responses": with_errors(Map::from_iter([("200".to_owned(), ok_tokens)]), &[400, 401, 413, 415]),
    }}));
    paths.insert("/v1/authenticate/revoke".into(), json!({ "post": {
        "tags": ["authentication"], "summary": "Sign out: revoke a refresh token and its family", "security": [], "operationId": "signOut",
        "description": "Revokes the refresh token and every token rotated from it; an unknown token is accepted silently (204).",
        "requestBody": refresh_body,
        "responses": with_errors(Map::from_iter([("204".to_owned(), json!({ "description": "Revoked." }))]), &[400, 413, 415, 503]),
    }}));
    let summary_doc = ResourceDoc {
        path: "reference-data-summary",
        noun: "reference data summary row",
        description: "",
        read: Permission::ReadReferenceData,
        write: Permission::ReadReferenceData,
        operations: Operations::READ_ONLY,
        fields: &crate::routes::reference_data_summary::FIELDS,
        filters: &[],
        sort_keys: &crate::routes::reference_data_summary::SORT_KEYS,
        created_status: 200,
        headers: &[],
        embedded: &[],
    };
    let mut summary_parameters = vec![
        json!({ "name": "referenceDataSummaryType", "in": "path", "required": true,
            "schema": { "type": "string", "enum": crate::routes::reference_data_summary::SUMMARY_TYPES } }),
        id_parameter(),
    ];
    summary_parameters.extend(list_parameters(&summary_doc, true));
    let summary_rows = json!({ "type": "array", "maxItems": billing_domain::query::MAX_PAGE_SIZE, "items": row_of(object_schema(&crate::routes::reference_data_summary::FIELDS, false)) });
    paths.insert("/v1/reference-data-summary/{referenceDataSummaryType}/{id}".into(), json!({ "get": {
        "tags": ["reference-data-summary"], "summary": "The rating rows of a call class, a dialstring or a charge group",
        "operationId": "listReferenceDataSummaryRows",
        "description": "CALL_CLASS and DIALSTRING give that record's row; CHARGE_GROUP gives a row per dialstring and per call class of each of its source charge groups, and one row of a source charge group's own fields when it has neither. A row has the members its kind has. Needs permission REFERENCE_DATA_READ.",
        "parameters": summary_parameters,
        "responses": with_errors(Map::from_iter([("200".to_owned(), json!({ "description": "One page of rows.",
            "headers": { "X-Total-Count": header("X-Total-Count"), "Link": header("Link") },
            "content": { "application/json": { "schema": summary_rows } } }))]), &[400, 401, 403, 404]),
    }}));
    rating_lookups_path(paths, schemas);
    let health = |summary: &str, id: &str, description: &str| {
        json!({ "get": { "tags": ["operations"], "summary": summary, "security": [], "operationId": id,
        "description": description,
        "responses": { "200": { "description": "Healthy.", "content": { "application/json": { "schema": {
            "type": "object", "required": ["status"], "additionalProperties": false,
            "properties": { "status": { "type": "string", "const": "ok" } } } } } },
            "503": error_ref(503) } } })
    };
    paths.insert(
        "/health/live".into(),
        health(
            "The process is up",
            "live",
            "Liveness: the process answers; the database is not asked.",
        ),
    );
    paths.insert(
        "/health/ready".into(),
        health(
            "The database takes writes",
            "ready",
            "Readiness: one row is rewritten and committed, answered within a second; 503 when the database is unreachable, locked, read-only or out of disk.",
        ),
    );
    paths.insert("/".into(), json!({ "get": { "tags": ["operations"], "security": [], "operationId": "home",
        "summary": "Where the documentation is",
        "description": "Redirects to the documentation page.",
        "responses": { "307": { "description": "To /docs/, the documentation page (Swagger UI); the document itself is /v1/openapi.json.",
            "headers": { "Location": header("Location") } } } } }));
    paths.insert(
        "/metrics".into(),
        json!({ "get": { "tags": ["operations"], "security": [], "operationId": "metrics",
            "summary": "Prometheus metrics: requests by method, route and status; latency histogram",
            "description": "Served here unless BILLING_METRICS_BIND gives metrics an address of their own; no token needed.",
            "responses": { "200": { "description": "Text exposition format 0.0.4.",
                "content": { "text/plain": { "schema": { "type": "string", "pattern": "^# ", "maxLength": 1_048_576 } } } } } } }),
    );
    paths.insert(
        "/v1/openapi.json".into(),
        json!({ "get": { "tags": ["operations"], "summary": "This document", "security": [], "operationId": "openapi",
        "description": "The OpenAPI 3.1 document, generated from the declarations the service routes by.",
        "responses": { "200": { "description": "OpenAPI 3.1 document.",
            "content": { "application/json": { "schema": { "type": "object", "required": ["openapi", "info", "paths"] } } } } } } }),
    );
    for path in [
        "/v1/reference-data-summary/{referenceDataSummaryType}/{id}",
        "/health/live",
        "/health/ready",
        "/",
        "/metrics",
        "/v1/openapi.json",
    ] {
        if let Some(get) = paths.get(path).and_then(|item| item.get("get")) {
            let head = head_of(get);
            paths[path]["head"] = head;
        }
    }
}

/// The `HEAD` of a hand-written `GET` (docs/api.md: every path served by GET answers HEAD):
/// its parameters, statuses and headers, no bodies.
fn head_of(get: &Value) -> Value {
    let mut head = get.clone();
    let id = get["operationId"].as_str().unwrap_or_default();
    head["operationId"] = json!(format!("head{}", super::capitalize(id)));
    head["summary"] = json!(format!(
        "{} (HEAD: as GET, without a body)",
        get["summary"].as_str().unwrap_or_default()
    ));
    if let Some(responses) = head["responses"].as_object_mut() {
        for response in responses.values_mut() {
            if let Some(response) = response.as_object_mut() {
                response.remove("content");
            }
        }
    }
    head
}

/// `POST /v1/rating/lookups`.
pub(super) fn rating_lookups_path(
    paths: &mut Map<String, Value>,
    schemas: &mut Map<String, Value>,
) {
    use crate::routes::rating_lookups::{
        BODY_LIMIT_BYTES, CALL_CLASS, DIALLED_NUMBER, MAX_ITEMS, MAX_NUMBER_CHARS, MAX_TEXT_CHARS,
        OUTCOMES, SERVICE_ID, SOURCE,
    };
    let source = || {
        let mut schema = id_schema();
        schema["description"] = json!("The source to rate against; an unknown source is 400.");
        schema["example"] = json!(1);
        schema
    };
    let date = |nullable: bool| json!({ "type": if nullable { json!(["string", "null"]) } else { json!("string") }, "format": "date", "maxLength": 10 });
    let text = |max: usize, description: &str, example: &str| json!({ "type": ["string", "null"], "maxLength": max, "description": description, "example": example });
    let request = json!({ "type": "object", "required": [SOURCE, "items"], "additionalProperties": false, "properties": {
        SOURCE: source(),
        "date": { "type": ["string", "null"], "format": "date", "maxLength": 10, "description": "The date the usage happened (yyyy-MM-dd); today (UTC) when left out." },
        "items": { "type": "array", "minItems": 1, "maxItems": MAX_ITEMS, "items": { "$ref": "#/components/schemas/RatingItem" } }
    }});
    schemas.insert("RatingItem".into(), json!({ "type": "object", "additionalProperties": false,
        "description": "One usage item: a dialled number, a call class, or both, and the service it was for.", "properties": {
            DIALLED_NUMBER: text(MAX_NUMBER_CHARS, "Digits; a leading + and spaces are dropped. Anything else makes this item an error (the others are rated).", "+44 113 496 0000"),
            CALL_CLASS: text(MAX_TEXT_CHARS, "Checked against ignored call classes first, then used when no dialstring matches.", "NATIONAL"),
            SERVICE_ID: text(MAX_TEXT_CHARS, "An ignored service id in force makes the item IGNORED.", "01134960000"),
        } }));
    let mut result_members = Map::new();
    result_members.insert(
        "outcome".into(),
        json!({ "type": "string", "enum": OUTCOMES }),
    );
    // The members of the match, as a summary row has them.
    let summary = object_schema(&crate::routes::reference_data_summary::FIELDS, false);
    if let Some(members) = summary["properties"].as_object() {
        result_members.extend(members.clone());
    }
    result_members.insert("ignoredRecordType".into(), json!({ "type": "string", "enum": ["SERVICE_ID", "CALL_CLASS"], "description": "IGNORED only: which list ignored the item." }));
    let mut ignored = id_schema();
    ignored["description"] =
        json!("IGNORED only: the ignored service id or ignored call class record.");
    result_members.insert("ignoredRecordId".into(), ignored);
    result_members.insert("ignoredRecordStartDate".into(), date(false));
    result_members.insert("ignoredRecordEndDate".into(), date(true));
    result_members.insert(
        SERVICE_ID.into(),
        json!({ "type": "string", "maxLength": MAX_TEXT_CHARS,
        "description": "The item's service id, when it was ignored for it." }),
    );
    let entry_text =
        json!({ "type": "string", "maxLength": crate::error::PROBLEM_ERROR_TEXT_MAX_CHARS });
    result_members.insert("error".into(), json!({ "type": "object", "required": ["field", "message"], "description": "Instead of outcome: why this item could not be rated (a malformed dialled number).",
        "properties": { "field": entry_text, "message": entry_text } }));
    let response = json!({ "type": "object", "required": [SOURCE, "date", "results"], "properties": {
        SOURCE: source(),
        "date": date(false),
        "results": { "type": "array", "maxItems": MAX_ITEMS, "description": "One per item, in order.", "items": { "$ref": "#/components/schemas/RatingResult" } }
    }});
    schemas.insert(
        "RatingResult".into(),
        json!({ "type": "object", "properties": result_members,
        "description": "An item's outcome and the members of its match, or its error." }),
    );
    schemas.insert("RatingRequest".into(), request);
    schemas.insert("RatingAnswer".into(), response);
    paths.insert("/v1/rating/lookups".into(), json!({ "post": {
        "tags": ["rating"], "summary": "Rate usage items against a source on a date", "operationId": "rateUsage",
        "description": format!("Per item: an ignored service id or ignored call class in force makes it IGNORED; else the longest dialstring of the source that prefixes the number and is in force makes it DIALSTRING; else its call class in force makes it CALL_CLASS; else UNRATED. A result carries the summary row members of the match (the members its kind has; an open end date is null). Answered from the in-memory index, which every write of rating data updates before its response. Up to {MAX_ITEMS} items; the body may be up to {} MiB. Needs permission REFERENCE_DATA_READ.", BODY_LIMIT_BYTES / (1024 * 1024)),
        "requestBody": json_body(json!({ "$ref": "#/components/schemas/RatingRequest" }), "application/json"),
        "responses": with_errors(Map::from_iter([("200".to_owned(), json!({ "description": "The results, in item order.",
            "content": { "application/json": { "schema": { "$ref": "#/components/schemas/RatingAnswer" } } } }))]), &[400, 401, 403, 413, 415, 507]),
    }}));
}
