//! The paths of a declared resource: list, count, create, bulk change, get, check, replace,
//! patch and delete, with their parameters.

use billing_domain::query::FilterKind;
use billing_domain::roles::Permission;
use serde_json::{Map, Value, json};

use super::headers::{QUERY_VALUE_MAX_CHARS, header};
use super::responses::{error_ref, json_body, with_errors};
use super::schemas::{
    DATE_TIME_MAX_CHARS, bulk_update_schema, example_of, id_schema, object_schema, row_of,
};
use super::{ResourceDoc, capitalize, operation_id, plural, with_article};
use crate::machinery::resource::{Access, Field, FieldType, FilterParam};
use billing_domain::query::MAX_PAGE_SIZE;

pub(super) fn filter_parameter(filter: &FilterParam) -> Value {
    let description = format!("{} Syntax: {}.", filter.description, filter.kind.syntax());
    let schema = match filter.kind {
        FilterKind::Boolean => json!({ "type": "string", "enum": ["true", "false"] }),
        FilterKind::Id => id_schema(),
        FilterKind::Date => {
            json!({ "type": "string", "maxLength": 14, "pattern": "^((lt|gt|gtn):)?[0-9]{4}-(0[1-9]|1[0-2])-(0[1-9]|[12][0-9]|3[01])$" })
        }
        FilterKind::String => {
            json!({ "type": "string", "maxLength": QUERY_VALUE_MAX_CHARS, "pattern": string_filter_pattern() })
        }
        FilterKind::Code { codes } => {
            let code = format!("({})", codes.join("|"));
            json!({ "type": "string", "maxLength": QUERY_VALUE_MAX_CHARS, "pattern": format!(
                "^({code}|in:{code}(,{code})*|like:[^\\u0000-\\u001F\\u007F-\\u009F]+)$") })
        }
        FilterKind::Decimal { scale } => {
            // The number itself is at most `DECIMAL_MAX_CHARS` characters, after `lt:` or `gt:`.
            json!({ "type": "string", "maxLength": billing_domain::money::DECIMAL_MAX_CHARS + 3,
                "pattern": decimal_filter_pattern(scale) })
        }
        FilterKind::DateTime => {
            json!({ "type": "string", "maxLength": DATE_TIME_MAX_CHARS + 3, "pattern":
            "^((lt|gt):)?[0-9]{4}-(0[1-9]|1[0-2])-(0[1-9]|[12][0-9]|3[01])T([01][0-9]|2[0-3]):[0-5][0-9]:[0-5][0-9](\\.[0-9]{1,9})?Z$" })
        }
    };
    json!({ "name": filter.name, "in": "query", "required": false, "description": description, "schema": schema })
}

/// What the parser takes for a decimal filter of `scale` places: digits, then places beyond
/// `scale` only when they are zeros (`1.50` is `1.5`; an integer filter takes `3.0`, not
/// `1.5`). Its range (the value in units of the last place fits 64 bits) is in the words.
fn decimal_filter_pattern(scale: u32) -> String {
    let places = match scale {
        0 => "0+".to_owned(),
        scale => format!("[0-9]{{1,{scale}}}0*"),
    };
    format!("^((lt|gt):)?-?[0-9]+(\\.{places})?$")
}

/// Exactly what the parser takes for a string filter (no engine needs look-ahead): `in:` with
/// non-empty items, `like:` with a value, or any other text that starts with neither prefix;
/// no control characters anywhere.
fn string_filter_pattern() -> String {
    const CONTROLS: &str = "\\u0000-\\u001F\\u007F-\\u009F";
    let any = format!("[^{CONTROLS}]");
    let item = format!("[^,{CONTROLS}]+");
    // A plain value: empty, or it leaves `in:` and `like:` at its first differing character.
    let plain = ["", "i", "in", "l", "li", "lik", "like"]
        .iter()
        .zip(["il", "n", ":", "i", "k", "e", ":"])
        .map(|(prefix, next)| format!("{prefix}|{prefix}[^{next}{CONTROLS}]{any}*"))
        .collect::<Vec<_>>()
        .join("|");
    format!("^(in:{item}(,{item})*|like:{any}+|{plain})$")
}

/// `Prefer: count=…` of a resource's list and HEAD (docs/api.md, "Lists").
fn prefer_parameter() -> Value {
    json!({ "name": crate::machinery::list::PREFER, "in": "header", "required": false,
        "description": format!(
            "count=exact (the default: every matching row counted), count=planned (PostgreSQL's planner estimate, never fewer than the rows of the pages up to this one; SQLite counts) or count=estimated (exact up to {} rows by the estimate, else the estimate); X-Total-Count and Link's last follow it, and Preference-Applied says which was applied. Other preferences are ignored.",
            billing_domain::query::ESTIMATED_EXACT_UP_TO),
        // Any visible ASCII text: preferences the service does not know are ignored (RFC 7240);
        // other characters are 400.
        "schema": { "type": "string", "maxLength": super::headers::HEADER_VALUE_MAX_CHARS,
            "pattern": "^[\t -~]*$" },
        "example": "count=planned" })
}

/// A collection's `HEAD`: the list's parameters, the paging ones optional.
fn head_parameters(resource: &ResourceDoc) -> Vec<Value> {
    let mut parameters = list_parameters(resource, true);
    for parameter in &mut parameters {
        if parameter["name"] == "page" || parameter["name"] == "pageSize" {
            parameter["required"] = json!(false);
        }
    }
    parameters.push(prefer_parameter());
    parameters
}

pub(super) fn list_parameters(resource: &ResourceDoc, paged: bool) -> Vec<Value> {
    let mut parameters = Vec::new();
    if paged {
        parameters.push(json!({ "name": "page", "in": "query", "required": true, "schema": { "type": "integer", "format": "int32", "minimum": 1, "maximum": i32::MAX } }));
        parameters.push(json!({ "name": "pageSize", "in": "query", "required": true, "schema": { "type": "integer", "format": "int32", "minimum": 1, "maximum": MAX_PAGE_SIZE } }));
        let escaped: Vec<String> = resource
            .sort_keys
            .iter()
            .map(|key| key.replace('.', "\\."))
            .collect();
        let shape = resource.list_shape();
        let sort_key = format!("({})(:(asc|desc))?", escaped.join("|"));
        parameters.push(json!({ "name": "sort", "in": "query", "required": false,
            "description": format!("Comma-separated sort keys, each optionally suffixed :asc or :desc and named once; ties are broken by id. Keys: {}.", resource.sort_keys.join(", ")),
            "schema": { "type": "string", "maxLength": shape.sort_max_chars(), "pattern": format!("^{sort_key}(,{sort_key})*$") } }));
        let readable = shape.readable_fields();
        // A member of an owned object may be asked for alone: `siteAddress.town`.
        let choices: Vec<String> = shape
            .field_choices()
            .iter()
            .map(|choice| choice.replace('.', "\\."))
            .collect();
        let field = format!("({})", choices.join("|"));
        let nested_note = if choices.len() == readable.len() {
            String::new()
        } else {
            " A member of an owned object may be named alone (object.member).".to_owned()
        };
        parameters.push(json!({ "name": "fields", "in": "query", "required": false,
            "description": format!("Comma-separated top-level fields to return, each named once: {}.{nested_note}", readable.join(", ")),
            "schema": { "type": "string", "maxLength": shape.fields_max_chars(), "pattern": format!("^{field}(,{field})*$") } }));
    }
    parameters.extend(resource.filters.iter().map(filter_parameter));
    parameters
}

/// A member an example of a change can set to its own example: the first the input takes
/// that is plain text (not a reference, an owned object or a list), with its example.
fn changeable_member(fields: &[Field]) -> Option<(&'static str, Value)> {
    fields
        .iter()
        .filter(|field| field.access == Access::ReadWrite && !field.owned)
        .find_map(|field| match field.field_type {
            FieldType::Text { .. } | FieldType::Letters { .. } => {
                Some((field.name, example_of(field)?))
            }
            _ => None,
        })
}

/// A patch's example: set a text member to its example (an empty patch, which changes nothing,
/// where there is none: a `test` of `/id` would name one record, and an example is tried on
/// every record `cargo xtask contract` makes).
fn patch_example(fields: &[Field]) -> Value {
    match changeable_member(fields) {
        Some((name, value)) => {
            json!([{ "op": "replace", "path": format!("/{name}"), "value": value }])
        }
        None => json!([]),
    }
}

/// A bulk change's example: record 1 with a text member set to its example.
fn bulk_update_example(fields: &[Field]) -> Value {
    let mut change = json!({ "id": 1 });
    if let Some((name, value)) = changeable_member(fields) {
        change[name] = value;
    }
    json!([change])
}

/// OpenAPI links from a create's answer to what can be done with the new record (its `id`),
/// so that a client or a stateful tester (schemathesis) follows them with a real id. None
/// where the create also takes an array: its answer is then an array, in which `#/id` names
/// nothing (no runtime expression reaches "the id of each element").
fn created_links(resource: &ResourceDoc) -> Value {
    let ops = resource.operations;
    let mut links = Map::new();
    if ops.bulk_create {
        return Value::Object(links);
    }
    for (enabled, verb, name, description) in [
        (
            ops.get,
            "get",
            "GetCreated",
            "Read the record just created.",
        ),
        (
            ops.replace,
            "replace",
            "ReplaceCreated",
            "Replace the record just created.",
        ),
        (
            ops.patch,
            "patch",
            "PatchCreated",
            "Patch the record just created.",
        ),
        (
            ops.delete,
            "delete",
            "DeleteCreated",
            "Delete the record just created.",
        ),
    ] {
        if enabled {
            links.insert(
                name.to_owned(),
                json!({
                    "operationId": operation_id(verb, resource.noun),
                    "parameters": { "id": "$response.body#/id" },
                    "description": description,
                }),
            );
        }
    }
    Value::Object(links)
}

/// A request body with `example` under its media type (what Swagger UI's "Try it out" sends).
fn with_example(mut body: Value, media_type: &str, example: Value) -> Value {
    body["content"][media_type]["example"] = example;
    body
}

pub(super) fn id_parameter() -> Value {
    json!({ "name": "id", "in": "path", "required": true, "schema": id_schema() })
}

pub(super) fn permission_note(permission: Permission) -> String {
    format!(" Needs permission {}.", permission.code())
}

pub(super) fn resource_paths(
    resource: &ResourceDoc,
    paths: &mut Map<String, Value>,
    schemas: &mut Map<String, Value>,
) {
    let name = resource.schema_name();
    let input_name = format!("{name}Input");
    let record_schema = object_schema(resource.fields, false);
    // A row holds what a read shows: not what only the create's answer carries (`key`).
    let readable: Vec<Field> = resource
        .fields
        .iter()
        .filter(|field| field.readable())
        .cloned()
        .collect();
    let row_schema = row_of(object_schema(&readable, false));
    // The record's own schema, where an operation answers or takes a whole record.
    let ops = resource.operations;
    if ops.get || ops.create || ops.replace || ops.patch || ops.bulk_update {
        schemas.insert(name.clone(), record_schema);
    }
    schemas.insert(format!("{name}Row"), row_schema);
    let record = json!({ "$ref": format!("#/components/schemas/{name}") });
    let row = json!({ "$ref": format!("#/components/schemas/{name}Row") });
    let input = json!({ "$ref": format!("#/components/schemas/{input_name}") });
    let tag = [resource.path];
    let etag_header = json!({ "ETag": header("ETag") });
    // What If-Match and If-None-Match both hold: quoted entity tags (maybe weak), a comma
    // between two, empty list elements ignored (RFC 9110 §5.6.1), or `*`.
    let entity_tags = json!({ "type": "string", "maxLength": crate::machinery::request::IF_MATCH_MAX_CHARS, "pattern": "^ *([*]|[ ,]*(W/)?\"[^\"]*\"( *,[ ,]*(W/)?\"[^\"]*\")*[ ,]*) *$" });
    let if_none_match = |effect: &str| json!({ "name": "If-None-Match", "in": "header", "required": false, "description": format!("{effect} when the record's ETag is one of these (compared weakly: W/\"3\" names version 3), or for *."), "schema": entity_tags });
    let not_modified = json!({ "description": "Not modified: If-None-Match names the record's current ETag. No body.", "headers": { "ETag": header("ETag") } });
    let if_match = json!({ "name": "If-Match", "in": "header", "required": false, "description": "Apply only if the record still has this ETag (else 412). Compared strongly (RFC 9110): a weak tag (W/\"…\") never matches.", "schema": entity_tags });

    let mut collection = Map::new();
    collection.insert("get".into(), json!({
        "tags": tag, "summary": format!("List {}", plural(resource.noun)),
        "operationId": operation_id("list", &plural(resource.noun)),
        "description": format!("{}{}", resource.description, permission_note(resource.read)),
        "parameters": list_parameters(resource, true).into_iter().chain([prefer_parameter()]).collect::<Vec<_>>(),
        "responses": with_errors(Map::from_iter([("200".to_owned(), json!({
            "description": "One page of records.",
            "headers": { "X-Total-Count": header("X-Total-Count"), "Link": header("Link"),
                "Preference-Applied": header("Preference-Applied") },
            "content": { "application/json": { "schema": { "type": "array", "items": row, "maxItems": MAX_PAGE_SIZE } } }
        }))]), &[400, 401, 403]),
    }));
    collection.insert("head".into(), json!({
        "tags": tag, "summary": format!("Check whether {} matching the filters exist", plural(resource.noun)),
        "operationId": operation_id("count", &plural(resource.noun)),
        "description": format!("The filters of the list, without a body: 200 with X-Total-Count when any record matches, 404 when none does. The list's URL may be sent as it is: page, pageSize, sort and fields are optional here, checked as the list checks them, and change nothing of the answer.{}", permission_note(resource.read)),
        "parameters": head_parameters(resource),
        "responses": {
            "200": { "description": "At least one record matches.", "headers": { "X-Total-Count": header("X-Total-Count"), "Preference-Applied": header("Preference-Applied") } },
            "404": { "description": "Nothing matches (X-Total-Count: 0).", "headers": { "X-Total-Count": header("X-Total-Count"), "Preference-Applied": header("Preference-Applied") } },
            "400": error_ref(400), "401": error_ref(401), "403": error_ref(403)
        }
    }));
    if ops.create || ops.replace || ops.patch || ops.bulk_update {
        schemas.insert(input_name.clone(), object_schema(resource.fields, true));
    }
    // Records of other resources a create may carry (a customer's sites): each as that
    // resource's own create body, naming the parent as 0; accepted by POST only, so POST has a
    // body schema of its own.
    let create_input = if resource.embedded.is_empty() {
        input.clone()
    } else {
        let create_name = format!("{name}CreateInput");
        schemas.insert(create_name.clone(), object_schema(resource.fields, true));
        json!({ "$ref": format!("#/components/schemas/{create_name}") })
    };
    let create_name = format!("{name}CreateInput");
    for member in resource.embedded {
        let mut item = object_schema(member.fields, true);
        item["properties"][member.parent_member] = json!({ "type": "integer", "format": "int64", "minimum": 0, "maximum": 0, "const": 0, "example": 0,
            "description": format!("0: the {} being created.", resource.noun) });
        let property = json!({ "type": "array", "items": item,
            "maxItems": crate::machinery::handlers::MAX_BULK_ELEMENTS, "writeOnly": true,
            "description": format!("{}s created with the {} in the same transaction, all or none (POST only); the response shows them under this member.", capitalize(member.noun), resource.noun) });
        if let Some(properties) = schemas
            .get_mut(&create_name)
            .and_then(|schema| schema.get_mut("properties"))
            .and_then(Value::as_object_mut)
        {
            properties.insert(member.member.to_owned(), property);
        }
    }
    if ops.create {
        // What a create answers: the record, plus the records created inside it (a customer's
        // `sites`, always present, `[]` when none were sent); an array of those for a bulk body.
        let created = if resource.embedded.is_empty() {
            record.clone()
        } else {
            let created_name = format!("{name}Created");
            let mut schema = object_schema(resource.fields, false);
            for member in resource.embedded {
                schema["properties"][member.member] = json!({ "type": "array",
                    "items": object_schema(member.fields, false),
                    "maxItems": crate::machinery::handlers::MAX_BULK_ELEMENTS,
                    "description": format!("The {}s created with the {} in the same request.", member.noun, resource.noun) });
                if let Some(required) = schema["required"].as_array_mut() {
                    required.push(json!(member.member));
                } else {
                    schema["required"] = json!([member.member]);
                }
            }
            schemas.insert(created_name.clone(), schema);
            json!({ "$ref": format!("#/components/schemas/{created_name}") })
        };
        let created = if ops.bulk_create {
            json!({ "oneOf": [created, { "type": "array", "items": created,
                "maxItems": crate::machinery::handlers::MAX_BULK_ELEMENTS }] })
        } else {
            created
        };
        let body_schema = if ops.bulk_create {
            json!({ "oneOf": [create_input, { "type": "array", "items": create_input, "minItems": 1,
                "maxItems": crate::machinery::handlers::MAX_BULK_ELEMENTS }] })
        } else {
            create_input.clone()
        };
        collection.insert("post".into(), json!({
            "tags": tag, "summary": format!("Create {}", with_article(resource.noun)),
            "operationId": operation_id("create", resource.noun),
            "description": format!("Read-only fields are refused. Idempotency-Key makes retries safe for 24 hours.{}", permission_note(resource.write)),
            "parameters": [{ "name": "Idempotency-Key", "in": "header", "required": false, "schema": { "type": "string", "minLength": 1, "maxLength": 255, "pattern": "^[!-~]+$" } }],
            "requestBody": json_body(body_schema, "application/json"),
            "responses": with_errors(Map::from_iter([(resource.created_status.to_string(), json!({
                "description": "Created (or, with an Idempotency-Key seen before, the first answer again).",
                "headers": { "Location": header("Location"), "ETag": header("ETag"),
                    "Idempotent-Replayed": header("Idempotent-Replayed") },
                "content": { "application/json": { "schema": created } },
                "links": created_links(resource),
            // 404: an Idempotency-Key whose record is gone, or no longer the caller's to see.
            }))]), &[400, 401, 403, 404, 409, 412, 413, 415]),
        }));
        let created_answer =
            &mut collection["post"]["responses"][resource.created_status.to_string()];
        if resource.fields.iter().any(|field| field.shown_once) {
            created_answer["headers"]["Cache-Control"] = header("Cache-Control");
        }
        if created_answer["links"]
            .as_object()
            .is_some_and(Map::is_empty)
        {
            created_answer
                .as_object_mut()
                .map(|answer| answer.remove("links"));
        }
    }
    if ops.bulk_update {
        collection.insert("patch".into(), json!({
            "tags": tag, "summary": format!("Change several {}", plural(resource.noun)),
            "operationId": operation_id("update", &plural(resource.noun)),
            "description": format!("An array of objects, each with the id of a record and the members to change; all or nothing.{}", permission_note(resource.write)),
            "requestBody": with_example(
                json_body(bulk_update_schema(resource.fields), "application/json"),
                "application/json",
                bulk_update_example(resource.fields),
            ),
            "responses": with_errors(Map::from_iter([("200".to_owned(), json!({
                "description": "The changed records.", "content": { "application/json": { "schema": { "type": "array", "items": record,
                    "maxItems": crate::machinery::handlers::MAX_BULK_ELEMENTS } } }
            }))]), &[400, 401, 403, 404, 409, 413, 415]),
        }));
    }
    paths.insert(format!("/v1/{}", resource.path), Value::Object(collection));
    if !ops.get {
        return;
    }
    let one = |description: &str| json!({ "description": description, "headers": etag_header, "content": { "application/json": { "schema": record } } });
    let mut item = Map::new();
    item.insert("parameters".into(), json!([id_parameter()]));
    item.insert("get".into(), json!({
        "tags": tag, "summary": format!("Get one {}", resource.noun),
        "operationId": operation_id("get", resource.noun),
        "description": format!("The record with its ETag (its version, for If-Match); 404 when there is none; 304 when If-None-Match names its ETag.{}", permission_note(resource.read)),
        "parameters": [if_none_match("304 with no body")],
        "responses": with_errors(Map::from_iter([("200".to_owned(), one("Found.")), ("304".to_owned(), not_modified.clone())]), &[400, 401, 403, 404]),
    }));
    item.insert("head".into(), json!({
        "tags": tag, "summary": format!("Check one {} (as GET, without a body)", resource.noun),
        "operationId": operation_id("check", resource.noun),
        "description": "Answers exactly as GET would (status, ETag, Content-Type, Content-Length) with no body.",
        "parameters": [if_none_match("304")],
        "responses": with_errors(Map::from_iter([("200".to_owned(), json!({
            "description": "Found; no body.",
            "headers": { "ETag": header("ETag"), "Content-Length": header("Content-Length") }
        })), ("304".to_owned(), not_modified)]), &[400, 401, 403, 404]),
    }));
    let if_none_match = if_none_match("Refused (412)");
    let mut write_parameters = vec![if_match.clone(), if_none_match.clone()];
    write_parameters.extend(resource.headers.iter().map(|header| json!({
        "name": header.name, "in": "header", "required": false, "description": header.description,
        "schema": { "type": "string", "enum": ["true", "false"] }
    })));
    if ops.replace {
        item.insert("put".into(), json!({
            "tags": tag, "summary": format!("Replace {}", with_article(resource.noun)), "parameters": write_parameters,
            "operationId": operation_id("replace", resource.noun),
            "description": format!("A whole body, checked as a create's; with If-Match, only while the record still has that ETag (412 otherwise).{}", permission_note(resource.write)),
            "requestBody": json_body(input.clone(), "application/json"),
            "responses": with_errors(Map::from_iter([("200".to_owned(), one("Replaced."))]), &[400, 401, 403, 404, 409, 412, 413, 415]),
        }));
    }
    if ops.patch {
        item.insert("patch".into(), json!({
            "tags": tag, "summary": format!("Patch {} (RFC 6902)", with_article(resource.noun)),
            "operationId": operation_id("patch", resource.noun),
            "description": "Operations apply to the record's JSON form, all or nothing; the result is validated as a replace would be. Read-only fields cannot be changed; a failed test is 409.",
            "parameters": write_parameters,
            "requestBody": with_example(
                json_body(json!({ "$ref": "#/components/schemas/JsonPatch" }), "application/json-patch+json"),
                "application/json-patch+json",
                patch_example(resource.fields),
            ),
            "responses": with_errors(Map::from_iter([("200".to_owned(), one("Patched."))]), &[400, 401, 403, 404, 409, 412, 413, 415]),
        }));
    }
    if ops.delete {
        item.insert("delete".into(), json!({
            "tags": tag, "summary": format!("Delete {}", with_article(resource.noun)), "parameters": [if_match, if_none_match],
            "operationId": operation_id("delete", resource.noun),
            "description": format!("Removes the record; 409 while other records still refer to it, naming them.{}", permission_note(resource.write)),
            "responses": with_errors(Map::from_iter([("204".to_owned(), json!({ "description": "Deleted." }))]), &[400, 401, 403, 404, 409, 412]),
        }));
    }
    paths.insert(format!("/v1/{}/{{id}}", resource.path), Value::Object(item));
}
