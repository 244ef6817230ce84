//! The OpenAPI 3.1 document, generated from the resource declarations (fields, filters, sort
//! keys, operations, permissions) plus the few hand-written routes. What is served is what is
//! documented: both come from the same declarations.

use billing_domain::roles::Permission;
use serde_json::{Map, Value, json};

mod character_sets;
mod hand_written;
mod headers;
mod json_patch;
#[cfg(test)]
mod member_schema_tests;
mod presentation;
mod resource_paths;
mod responses;
mod schemas;
#[cfg(test)]
mod tests;

use crate::machinery::resource::{Field, FilterParam, HeaderParam, Operations, Resource};
use hand_written::hand_written_paths;
use json_patch::insert_json_patch_schemas;
use presentation::{name_operations, show_placeholders};
use resource_paths::resource_paths;
use responses::error_response_components;
use schemas::code_set_schemas;

/// A resource's declaration, type-erased for documentation.
pub struct ResourceDoc {
    pub path: &'static str,
    pub noun: &'static str,
    pub description: &'static str,
    pub read: Permission,
    pub write: Permission,
    pub operations: Operations,
    pub fields: &'static [Field],
    pub filters: &'static [FilterParam],
    pub sort_keys: &'static [&'static str],
    pub created_status: u16,
    pub headers: &'static [HeaderParam],
    pub embedded: &'static [crate::machinery::embedded::Embedded],
}

impl ResourceDoc {
    /// What this resource's list offers, as the list machinery reads it.
    pub fn list_shape(&self) -> crate::machinery::list::ListShape {
        crate::machinery::list::ListShape {
            fields: self.fields,
            filters: self.filters,
            sort_keys: self.sort_keys,
        }
    }

    pub fn of<R: Resource>() -> Self {
        Self {
            path: R::PATH,
            noun: R::NOUN,
            description: R::DESCRIPTION,
            read: R::READ,
            write: R::WRITE,
            operations: R::OPERATIONS,
            fields: R::FIELDS,
            filters: R::filters(),
            sort_keys: R::sort_keys(),
            created_status: R::CREATED_STATUS,
            headers: R::HEADERS,
            embedded: R::EMBEDDED,
        }
    }

    fn schema_name(&self) -> String {
        self.noun.split(' ').map(capitalize).collect()
    }
}

/// The plural of a noun in English (`currency` → `currencies`, `ad hoc bill run` → `ad hoc bill
/// runs`, `address` → `addresses`).
pub fn plural(noun: &str) -> String {
    let vowel_before_y = noun
        .chars()
        .rev()
        .nth(1)
        .is_some_and(|c| "aeiou".contains(c));
    if noun.ends_with('y') && !vowel_before_y {
        format!("{}ies", &noun[..noun.len() - 1])
    } else if ["s", "x", "z", "ch", "sh"]
        .iter()
        .any(|end| noun.ends_with(end))
    {
        format!("{noun}es")
    } else {
        format!("{noun}s")
    }
}

/// `a` or `an` and the noun, by its sound: `an ad hoc bill run`, `a user` (a vowel that
/// sounds "you" takes `a`).
pub fn with_article(noun: &str) -> String {
    let lower = noun.to_ascii_lowercase();
    let sounds_like_you = ["user", "uni", "use"]
        .iter()
        .any(|start| lower.starts_with(start));
    let article = if lower.starts_with(['a', 'e', 'i', 'o', 'u']) && !sounds_like_you {
        "an"
    } else {
        "a"
    };
    format!("{article} {noun}")
}

/// An operationId: the verb and the noun's words in lower camel case (`listAdHocBillRuns`).
pub(super) fn operation_id(verb: &str, noun: &str) -> String {
    let mut id = verb.to_owned();
    for word in noun.split([' ', '-']) {
        id.push_str(&capitalize(word));
    }
    id
}

pub(super) fn capitalize(word: &str) -> String {
    let mut chars = word.chars();
    chars
        .next()
        .map(|first| first.to_uppercase().chain(chars).collect())
        .unwrap_or_default()
}

/// The document's tags, in the order a reader looks for them (signing in first, then
/// reference data and rating, customers and sites, users, the trail, operations), each with
/// its resource's description.
fn tags(resources: &[ResourceDoc]) -> Value {
    let described = |name: &str| {
        resources
            .iter()
            .find(|resource| resource.path == name)
            .map(|resource| resource.description.to_owned())
    };
    let order: [(&str, &str); 30] = [
        (
            "authentication",
            "Sign in, refresh and sign out: bearer tokens (JWT) and their refresh tokens.",
        ),
        ("api-keys", ""),
        ("user-roles", ""),
        ("users", ""),
        ("countries", ""),
        ("currencies", ""),
        ("locales", ""),
        ("reference-data-sources", ""),
        ("charge-group-categories", ""),
        ("charge-groups", ""),
        ("reference-data-source-charge-groups", ""),
        ("dialstrings", ""),
        ("call-classes", ""),
        ("ignored-call-classes", ""),
        ("ignored-service-ids", ""),
        ("tax-bands", ""),
        ("currency-rates", ""),
        (
            "reference-data-summary",
            "The rating rows of a call class, a dialstring or a charge group.",
        ),
        (
            "rating",
            "Rate usage items against a source's reference data, from the in-memory index.",
        ),
        ("contract-owners", ""),
        ("billing-cycles", ""),
        ("invoice-templates", ""),
        ("payment-provider-mandates", ""),
        ("custom-field-definitions", ""),
        ("customers", ""),
        ("sites", ""),
        ("inventory-items", ""),
        ("adhoc-bill-runs", ""),
        ("audit-events", ""),
        (
            "operations",
            "Health, metrics and this document: no token needed.",
        ),
    ];
    let mut tags: Vec<Value> = order
        .iter()
        .map(|(name, description)| {
            let description = described(name).unwrap_or_else(|| (*description).to_owned());
            json!({ "name": name, "description": description.trim() })
        })
        .collect();
    // A resource added later is listed too, after the others, until it is placed above.
    for resource in resources {
        if !order.iter().any(|(name, _)| *name == resource.path) {
            tags.push(json!({ "name": resource.path, "description": resource.description.trim() }));
        }
    }
    Value::Array(tags)
}

/// The whole document.
pub fn document(resources: &[ResourceDoc]) -> Value {
    let mut paths = Map::new();
    let mut schemas = Map::new();
    for resource in resources {
        resource_paths(resource, &mut paths, &mut schemas);
    }
    hand_written_paths(&mut paths, &mut schemas);
    use crate::error::{
        PROBLEM_DETAIL_MAX_CHARS, PROBLEM_ERROR_TEXT_MAX_CHARS, PROBLEM_ERRORS_MAX,
    };
    let reason = json!({ "type": "string", "maxLength": 100, "pattern": "^[A-Za-z' -]+$" });
    let detail = json!({ "type": "string", "maxLength": PROBLEM_DETAIL_MAX_CHARS,
        "description": "What went wrong, in plain words; a longer one is cut with …." });
    let entry_text = json!({ "type": "string", "maxLength": PROBLEM_ERROR_TEXT_MAX_CHARS });
    schemas.insert("Problem".into(), json!({ "type": "object", "required": ["type", "title", "status", "detail"], "properties": {
        "type": { "type": "string", "enum": ["about:blank"] }, "title": reason,
        "status": { "type": "integer", "format": "int32", "minimum": 400, "maximum": 599 },
        "detail": detail, "instance": { "type": "string", "pattern": "^(/|$)", "maxLength": 8192, "description": "The request's path; empty when the request was refused before its path was read (414, 431)." },
        "requestId": { "type": "string", "pattern": "^[!-~]+$", "minLength": 1, "maxLength": 200, "description": "As X-Request-Id." },
        "error": { "type": "string", "maxLength": 100, "pattern": "^[A-Za-z' -]+$", "description": "The reason phrase, as the original platform sent it." },
        "message": { "type": "string", "maxLength": PROBLEM_DETAIL_MAX_CHARS, "description": "Same as detail." },
        "errors": { "type": "array", "maxItems": PROBLEM_ERRORS_MAX,
            "description": "Every broken field, in order (the first 1000).",
            "items": { "type": "object", "required": ["field", "message"],
            "properties": { "field": entry_text, "message": entry_text } } }
    }, "examples": [{ "type": "about:blank", "title": "Bad Request", "status": 400,
        "detail": "the request is invalid: name: must be 1 to 255 characters long (got 0)",
        "instance": "/v1/charge-groups", "requestId": "5fe2e607-1c1f-4b43-9f8e-4b7d0e0c2a11",
        "error": "Bad Request", "message": "the request is invalid: name: must be 1 to 255 characters long (got 0)",
        "errors": [{ "field": "name", "message": "must be 1 to 255 characters long (got 0)" }] }] }));
    for resource in resources {
        code_set_schemas(resource.fields, &mut schemas);
    }
    schemas.extend(character_sets::component_schemas());
    // RFC 6902 §4: `add`, `replace` and `test` need `value`; `move` and `copy` need `from`.
    insert_json_patch_schemas(&mut schemas);
    let mut paths = Value::Object(paths);
    let mut responses = error_response_components();
    headers::common_to_every_operation(&mut paths, &mut responses);
    name_operations(&mut paths);
    show_placeholders(&mut paths);
    json!({
        "openapi": "3.1.0",
        "tags": tags(resources),
        "info": {
            "title": "Billing service",
            "version": env!("CARGO_PKG_VERSION"),
            "contact": { "name": "Billing platform operators", "url": "https://github.com/billing-platform/billing-service" },
            "description": "Reference data, customer sites and authentication. Errors are application/problem+json. \
                Lists take page and pageSize and return X-Total-Count and Link headers. \
                Any request may also be answered 405 (a method the path does not answer; see Allow), as problem+json. \
                Reference data interface 1.12; customer and sites interface 1.45."
        },
        "servers": [{ "url": "/", "description": "The deployment serving this document, local, staging or production alike: paths are relative to it.", "x-internal": false }],
        "security": [{ "bearer": [] }],
        "paths": paths,
        "components": {
            "schemas": schemas,
            "responses": responses,
            "headers": headers::header_components(),
            "securitySchemes": { "bearer": { "type": "http", "scheme": "bearer", "bearerFormat": "JWT or API key",
                "description": "An access token (JWT) from /v1/authenticate, or an API key (bk_…) from /v1/api-keys." } }
        }
    })
}
