//! The OpenAPI 3.1 document, generated from the resource declarations (fields, filters, sort
//! keys, operations, permissions) plus the few hand-written routes. What is served is what is
//! documented: both come from the same declarations.

use billing_domain::query::FilterKind;
use billing_domain::roles::Permission;
use billing_domain::text::TEXT_PUNCTUATION;
use serde_json::{Map, Value, json};

use crate::machinery::resource::{
    Access, Field, FieldType, FilterParam, HeaderParam, Operations, Resource,
};

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
fn operation_id(verb: &str, noun: &str) -> String {
    let mut id = verb.to_owned();
    for word in noun.split([' ', '-']) {
        id.push_str(&capitalize(word));
    }
    id
}

fn capitalize(word: &str) -> String {
    let mut chars = word.chars();
    chars
        .next()
        .map(|first| first.to_uppercase().chain(chars).collect())
        .unwrap_or_default()
}

/// The free-text rule as a regular expression.
fn text_pattern() -> String {
    let mut escaped = String::new();
    for c in TEXT_PUNCTUATION.chars() {
        if "\\^$.|?*+()[]{}-/".contains(c) {
            escaped.push('\\');
        }
        escaped.push(c);
    }
    format!("^[\\p{{L}}\\p{{N}} \\t\\r\\n{escaped}]*$")
}

fn type_schema(field_type: &FieldType, access: Option<Access>) -> Value {
    match field_type {
        FieldType::Id => json!({ "type": "integer", "format": "int64", "minimum": 1 }),
        FieldType::Integer { minimum, maximum } => {
            json!({ "type": "integer", "format": "int64", "minimum": minimum, "maximum": maximum })
        }
        FieldType::Text { min, max } => {
            json!({ "type": "string", "minLength": min, "maxLength": max, "pattern": text_pattern() })
        }
        FieldType::Letters { min, max } => {
            json!({ "type": "string", "minLength": min, "maxLength": max, "pattern": format!("^[a-zA-Z]{{{min},{max}}}$") })
        }
        FieldType::Digits { min, max } => {
            json!({ "type": "string", "minLength": min, "maxLength": max, "pattern": format!("^[0-9]{{{min},{max}}}$") })
        }
        FieldType::Pattern {
            pattern, min, max, ..
        } => {
            json!({ "type": "string", "minLength": min, "maxLength": max, "pattern": pattern })
        }
        FieldType::Decimal {
            scale,
            minimum,
            maximum,
        } => {
            let step = billing_domain::money::format_decimal(1, *scale)
                .parse::<serde_json::Number>()
                .ok();
            json!({ "type": "number", "minimum": minimum, "maximum": maximum, "multipleOf": step })
        }
        FieldType::Date => json!({ "type": "string", "format": "date" }),
        FieldType::DateTime => json!({ "type": "string", "format": "date-time" }),
        FieldType::Boolean => json!({ "type": "boolean" }),
        FieldType::Enum(values) => json!({ "type": "string", "enum": values }),
        FieldType::Codes(name, _) => json!({ "$ref": format!("#/components/schemas/{name}") }),
        FieldType::Email { max } => {
            json!({ "type": "string", "format": "email", "maxLength": max })
        }
        FieldType::ObjectList(fields) => json!({ "type": "array",
            "items": object_schema(fields, access != Some(Access::ReadOnly)) }),
        FieldType::Object(fields) if access == Some(Access::ReadWrite) => reference_schema(fields),
        FieldType::Object(fields) => object_schema(fields, false),
        FieldType::Array(items) => json!({ "type": "array", "items": type_schema(items, access) }),
        FieldType::Json => json!({ "type": "object" }),
    }
}

/// A realistic value of a member, for the documentation (Swagger UI would otherwise make one
/// up from the pattern): the description's ``e.g. `Leeds` ``, else the kind's own example
/// (`FieldType::Pattern`), else one made from the type and the member's name. `None` for
/// objects, whose members carry their own.
fn example_of(field: &Field) -> Option<Value> {
    if let Some(text) = described_example(field.description) {
        return Some(typed_example(text, &field.field_type));
    }
    if matches!(field.field_type, FieldType::Boolean)
        && let Some(default) = field.default.and_then(|d| serde_json::from_str(d).ok())
    {
        return Some(default);
    }
    type_example(&field.field_type, field.name)
}

/// The text of the first ``e.g. `…` `` in a description.
fn described_example(description: &str) -> Option<&str> {
    let start = description.find("e.g. `")? + "e.g. `".len();
    let length = description[start..].find('`')?;
    Some(&description[start..start + length])
}

/// A described example as a value of the member's JSON type.
fn typed_example(text: &str, field_type: &FieldType) -> Value {
    match field_type {
        FieldType::Id
        | FieldType::Integer { .. }
        | FieldType::Decimal { .. }
        | FieldType::Boolean
        | FieldType::Array(_) => serde_json::from_str(text).unwrap_or_else(|_| json!(text)),
        _ => json!(text),
    }
}

/// A value of `field_type` for a member named `name` (`siteName` → "Site name").
fn type_example(field_type: &FieldType, name: &str) -> Option<Value> {
    let words = || {
        let mut words = String::new();
        for (index, c) in name.chars().enumerate() {
            if index == 0 {
                words.extend(c.to_uppercase());
            } else if c.is_uppercase() {
                words.push(' ');
                words.extend(c.to_lowercase());
            } else {
                words.push(c);
            }
        }
        words
    };
    let fit = |text: String, max: u32| text.chars().take(max as usize).collect::<String>();
    Some(match field_type {
        FieldType::Id => json!(1),
        FieldType::Integer { minimum, maximum } => json!(30.clamp(*minimum, *maximum)),
        FieldType::Text { max, .. } => json!(fit(words(), *max)),
        FieldType::Letters { max, .. } => {
            json!(fit(
                words().chars().filter(char::is_ascii_alphabetic).collect(),
                *max
            ))
        }
        FieldType::Digits { min, max } => {
            let length = (*min).max(8.min(*max)) as usize;
            json!(
                "12345678901234567890"
                    .chars()
                    .cycle()
                    .take(length)
                    .collect::<String>()
            )
        }
        FieldType::Pattern { example, .. } => json!(example),
        FieldType::Decimal {
            minimum, maximum, ..
        } => json!(if (*minimum..=*maximum).contains(&12) {
            12.5
        } else {
            *minimum as f64
        }),
        FieldType::Date => json!("2026-01-01"),
        FieldType::DateTime => json!("2026-01-01T09:30:00Z"),
        FieldType::Boolean => json!(true),
        FieldType::Enum(values) | FieldType::Codes(_, values) => json!(values.first()?),
        FieldType::Email { .. } => json!("accounts@example.com"),
        FieldType::Array(items) => json!([type_example(items, name)?]),
        FieldType::Object(_) | FieldType::ObjectList(_) | FieldType::Json => return None,
    })
}

/// A bulk update body: 1 to 1000 objects, each the id of a record and the members to change.
fn bulk_update_schema(fields: &[Field]) -> Value {
    let most = crate::machinery::handlers::MAX_BULK_ELEMENTS;
    let mut item = object_schema(fields, true);
    item["required"] = json!(["id"]);
    item["properties"]["id"] = json!({ "type": "integer", "format": "int64", "minimum": 1,
        "description": "The record to change." });
    json!({ "type": "array", "minItems": 1, "maxItems": most, "items": item })
}

/// A nested object in a body is a reference to an existing record: only its key (`id`, or
/// `code` where there is no id) is read, and any other member is ignored.
fn reference_schema(fields: &[Field]) -> Value {
    let key = fields
        .iter()
        .find(|field| field.name == "id")
        .or_else(|| fields.iter().find(|field| field.name == "code"));
    match key {
        Some(key) => {
            let mut properties = Map::new();
            let mut schema = type_schema(&key.field_type, None);
            schema["description"] = json!(key.description);
            if let Some(example) = example_of(key) {
                schema["example"] = example;
            }
            properties.insert(key.name.to_owned(), schema);
            // The record's other members may be sent back as read: any value, ignored. A name
            // the record does not have is refused (`members::check_object`).
            for other in fields.iter().filter(|field| field.name != key.name) {
                properties.insert(
                    other.name.to_owned(),
                    json!({ "description": format!("Ignored on input: {}", other.description) }),
                );
            }
            json!({ "type": "object", "properties": properties, "required": [key.name],
                "additionalProperties": false })
        }
        None => object_schema(fields, true),
    }
}

/// An owned object or list (child records): its members as sent or as returned, at every
/// depth, like the record's own (unlike a reference to another record).
fn owned_schema(field_type: &FieldType, input: bool) -> Value {
    match field_type {
        FieldType::Object(fields) => object_schema(fields, input),
        FieldType::Array(items) => json!({ "type": "array", "items": owned_schema(items, input) }),
        other => type_schema(other, None),
    }
}

/// The schema of an object of `fields`, as sent (`input`) or as returned.
/// A list row's schema from its record's: a row holds only the members `fields` names (and of
/// a nested object only the members named under it: `siteAddress.town`), so no member is
/// required, at any depth. Without `fields`, a row is the whole record.
fn row_of(mut schema: Value) -> Value {
    fn loosen(schema: &mut Value) {
        match schema {
            Value::Object(members) => {
                members.remove("required");
                for (_, child) in members.iter_mut() {
                    loosen(child);
                }
            }
            Value::Array(items) => items.iter_mut().for_each(loosen),
            _ => {}
        }
    }
    loosen(&mut schema);
    if let Value::Object(members) = &mut schema {
        members.insert(
            "description".into(),
            json!("A row of a list: the record, or with `fields` only the members it names (a nested path such as siteAddress.town keeps only that member of the object)."),
        );
    }
    schema
}

fn object_schema(fields: &[Field], input: bool) -> Value {
    let mut properties = Map::new();
    let mut required = Vec::new();
    for field in fields {
        let shown = if input {
            field.access != Access::ReadOnly
        } else {
            field.access != Access::WriteOnly
        };
        if !shown {
            continue;
        }
        let mut schema = if field.owned {
            owned_schema(&field.field_type, input)
        } else {
            type_schema(
                &field.field_type,
                Some(if input {
                    Access::ReadWrite
                } else {
                    Access::ReadOnly
                }),
            )
        };
        if field.nullable && schema.get("$ref").is_some() {
            schema = json!({ "anyOf": [schema, { "type": "null" }] });
        } else if field.nullable
            && let Some(kind) = schema.get("type").cloned()
        {
            schema["type"] = json!([kind, "null"]);
            // An enumeration lists every value the member takes, null included.
            if let Some(values) = schema.get_mut("enum").and_then(Value::as_array_mut) {
                values.push(Value::Null);
            }
        }
        schema["description"] = json!(field.description);
        if !field.owned
            && let Some(example) = example_of(field)
        {
            schema["example"] = example;
        }
        if field.non_empty {
            schema["minItems"] = json!(1);
        }
        if let Some(most) = field.max_items {
            schema["maxItems"] = json!(most);
        }
        if !input && field.access == Access::ReadOnly {
            schema["readOnly"] = json!(true);
        }
        if input && field.access == Access::WriteOnly {
            schema["writeOnly"] = json!(true);
        }
        if input
            && let Some(default) = field
                .default
                .and_then(|d| serde_json::from_str::<Value>(d).ok())
        {
            schema["default"] = default;
        }
        if (input && field.required)
            || (!input && !field.nullable && field.access != Access::WriteOnly)
        {
            required.push(field.name);
        }
        properties.insert(field.name.to_owned(), schema);
    }
    json!({ "type": "object", "properties": properties, "required": required, "additionalProperties": false })
}

/// Every error response, once: status, name under `components.responses`, description, and
/// the header it carries, if any. Operations refer to them by `$ref`.
const ERROR_RESPONSES: &[(u16, &str, &str, Option<&str>)] = &[
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
        405,
        "MethodNotAllowed",
        "Method not allowed on this path (see Allow).",
        Some("Allow"),
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
    (415, "UnsupportedMediaType", "Wrong Content-Type.", None),
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
        503,
        "ServiceUnavailable",
        "The database is busy or unreachable, or the password hashing queue is full (see Retry-After).",
        Some("Retry-After"),
    ),
];

/// `components.responses`: one problem+json response per error status.
fn error_response_components() -> Map<String, Value> {
    ERROR_RESPONSES
        .iter()
        .map(|(_, name, description, header)| {
            let mut response = json!({ "description": description, "content": { "application/problem+json": { "schema": { "$ref": "#/components/schemas/Problem" } } } });
            if let Some(header) = header {
                let text = match *header {
                    "WWW-Authenticate" => "Bearer challenge (RFC 6750).",
                    "Allow" => "The methods this path answers.",
                    _ => "Seconds to wait before trying again.",
                };
                response["headers"] = json!({ *header: { "description": text, "schema": { "type": "string" } } });
            }
            ((*name).to_owned(), response)
        })
        .collect()
}

/// A `$ref` to the error response of `status` (see [`ERROR_RESPONSES`]).
fn error_ref(status: u16) -> Option<Value> {
    ERROR_RESPONSES
        .iter()
        .find(|(code, ..)| *code == status)
        .map(|(_, name, ..)| json!({ "$ref": format!("#/components/responses/{name}") }))
}

fn errors(statuses: &[u16]) -> Map<String, Value> {
    statuses
        .iter()
        .filter_map(|status| Some((status.to_string(), error_ref(*status)?)))
        .collect()
}

fn filter_parameter(filter: &FilterParam) -> Value {
    let description = format!("{} Syntax: {}.", filter.description, filter.kind.syntax());
    let schema = match filter.kind {
        FilterKind::Boolean => json!({ "type": "string", "enum": ["true", "false"] }),
        FilterKind::Id => json!({ "type": "integer", "format": "int64", "minimum": 1 }),
        FilterKind::Date => {
            json!({ "type": "string", "pattern": "^((lt|gt|gtn):)?[0-9]{4}-(0[1-9]|1[0-2])-(0[1-9]|[12][0-9]|3[01])$" })
        }
        FilterKind::String => {
            json!({ "type": "string", "pattern": "^[^\\u0000-\\u001F\\u007F-\\u009F]*$" })
        }
        FilterKind::Decimal { .. } => {
            json!({ "type": "string", "pattern": "^((lt|gt):)?-?[0-9]+(\\.[0-9]+)?$" })
        }
        FilterKind::DateTime => json!({ "type": "string", "pattern":
            "^((lt|gt):)?[0-9]{4}-(0[1-9]|1[0-2])-(0[1-9]|[12][0-9]|3[01])T([01][0-9]|2[0-3]):[0-5][0-9]:[0-5][0-9](\\.[0-9]{1,9})?Z$" }),
    };
    json!({ "name": filter.name, "in": "query", "required": false, "description": description, "schema": schema })
}

fn list_parameters(resource: &ResourceDoc, paged: bool) -> Vec<Value> {
    let mut parameters = Vec::new();
    if paged {
        parameters.push(json!({ "name": "page", "in": "query", "required": true, "schema": { "type": "integer", "format": "int32", "minimum": 1 } }));
        parameters.push(json!({ "name": "pageSize", "in": "query", "required": true, "schema": { "type": "integer", "format": "int32", "minimum": 1, "maximum": 1000 } }));
        let escaped: Vec<String> = resource
            .sort_keys
            .iter()
            .map(|key| key.replace('.', "\\."))
            .collect();
        let sort_key = format!("({})(:(asc|desc))?", escaped.join("|"));
        parameters.push(json!({ "name": "sort", "in": "query", "required": false,
            "description": format!("Comma-separated sort keys, each optionally suffixed :asc or :desc; ties are broken by id. Keys: {}.", resource.sort_keys.join(", ")),
            "schema": { "type": "string", "pattern": format!("^{sort_key}(,{sort_key})*$") } }));
        let readable: Vec<&str> = resource
            .fields
            .iter()
            .filter(|f| f.access != Access::WriteOnly)
            .map(|f| f.name)
            .collect();
        // A member of an owned object may be asked for alone: `siteAddress.town`.
        let nested: Vec<String> = resource
            .fields
            .iter()
            .filter(|f| f.owned)
            .filter_map(|f| match f.field_type {
                FieldType::Object(members) => Some((f.name, members)),
                _ => None,
            })
            .flat_map(|(object, members)| {
                members
                    .iter()
                    .filter(|m| m.access != Access::WriteOnly)
                    .map(move |m| format!("{object}\\.{}", m.name))
            })
            .collect();
        let choices: Vec<String> = readable
            .iter()
            .map(|name| (*name).to_owned())
            .chain(nested.iter().cloned())
            .collect();
        let field = format!("({})", choices.join("|"));
        let nested_note = if nested.is_empty() {
            String::new()
        } else {
            " A member of an owned object may be named alone (object.member).".to_owned()
        };
        parameters.push(json!({ "name": "fields", "in": "query", "required": false,
            "description": format!("Comma-separated top-level fields to return: {}.{nested_note}", readable.join(", ")),
            "schema": { "type": "string", "pattern": format!("^{field}(,{field})*$") } }));
    }
    parameters.extend(resource.filters.iter().map(filter_parameter));
    parameters
}

fn id_parameter() -> Value {
    json!({ "name": "id", "in": "path", "required": true, "schema": { "type": "integer", "format": "int64", "minimum": 1 } })
}

fn json_body(schema: Value, media_type: &str) -> Value {
    json!({ "required": true, "content": { media_type: { "schema": schema } } })
}

fn with_errors(mut responses: Map<String, Value>, statuses: &[u16]) -> Value {
    responses.extend(errors(statuses));
    Value::Object(responses)
}

fn permission_note(permission: Permission) -> String {
    format!(" Needs permission {}.", permission.code())
}

fn resource_paths(
    resource: &ResourceDoc,
    paths: &mut Map<String, Value>,
    schemas: &mut Map<String, Value>,
) {
    let name = resource.schema_name();
    let input_name = format!("{name}Input");
    let record_schema = object_schema(resource.fields, false);
    let row_schema = row_of(record_schema.clone());
    schemas.insert(name.clone(), record_schema);
    schemas.insert(format!("{name}Row"), row_schema);
    let record = json!({ "$ref": format!("#/components/schemas/{name}") });
    let row = json!({ "$ref": format!("#/components/schemas/{name}Row") });
    let input = json!({ "$ref": format!("#/components/schemas/{input_name}") });
    let tag = [resource.path];
    let ops = resource.operations;
    let etag_header = json!({ "ETag": { "description": "Version of the record, for If-Match.", "schema": { "type": "string" } } });
    let if_match = json!({ "name": "If-Match", "in": "header", "required": false, "description": "Apply only if the record still has this ETag (else 412). Compared strongly (RFC 9110): a weak tag (W/\"…\") never matches.", "schema": { "type": "string", "pattern": "^ *([*]|(W/)?\"[^\"]*\"( *, *(W/)?\"[^\"]*\")*) *$" } });

    let mut collection = Map::new();
    collection.insert("get".into(), json!({
        "tags": tag, "summary": format!("List {}", plural(resource.noun)),
        "operationId": operation_id("list", &plural(resource.noun)),
        "description": format!("{}{}", resource.description, permission_note(resource.read)),
        "parameters": list_parameters(resource, true),
        "responses": with_errors(Map::from_iter([("200".to_owned(), json!({
            "description": "One page of records.",
            "headers": {
                "X-Total-Count": { "description": "Rows matching the filters.", "schema": { "type": "integer" } },
                "Link": { "description": "RFC 8288 links: first, prev, next, last.", "schema": { "type": "string" } }
            },
            "content": { "application/json": { "schema": { "type": "array", "items": row } } }
        }))]), &[400, 401, 403]),
    }));
    collection.insert("head".into(), json!({
        "tags": tag, "summary": format!("Check whether {} matching the filters exist", plural(resource.noun)),
        "operationId": operation_id("count", &plural(resource.noun)),
        "description": format!("The filters of the list, without page or body: 200 with X-Total-Count when any record matches, 404 when none does.{}", permission_note(resource.read)),
        "parameters": list_parameters(resource, false),
        "responses": {
            "200": { "description": "At least one record matches.", "headers": { "X-Total-Count": { "schema": { "type": "integer" } } } },
            "404": { "description": "Nothing matches (X-Total-Count: 0).", "headers": { "X-Total-Count": { "schema": { "type": "integer" } } } },
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
        item["properties"][member.parent_member] = json!({ "type": "integer", "const": 0,
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
            json!({ "oneOf": [created, { "type": "array", "items": created }] })
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
                "headers": {
                    "Location": { "description": "The new record's path (a single create).", "schema": { "type": "string" } },
                    "ETag": { "description": "The new record's version, for If-Match (a single create).", "schema": { "type": "string" } },
                    "Idempotent-Replayed": { "description": "true when this is the stored answer of an earlier request with the same Idempotency-Key.", "schema": { "type": "string", "enum": ["true"] } }
                },
                "content": { "application/json": { "schema": created } }
            }))]), &[400, 401, 403, 409, 412, 413, 415]),
        }));
    }
    if ops.bulk_update {
        collection.insert("patch".into(), json!({
            "tags": tag, "summary": format!("Change several {}", plural(resource.noun)),
            "operationId": operation_id("update", &plural(resource.noun)),
            "description": format!("An array of objects, each with the id of a record and the members to change; all or nothing.{}", permission_note(resource.write)),
            "requestBody": json_body(bulk_update_schema(resource.fields), "application/json"),
            "responses": with_errors(Map::from_iter([("200".to_owned(), json!({
                "description": "The changed records.", "content": { "application/json": { "schema": { "type": "array", "items": record } } }
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
        "description": format!("The record with its ETag (its version, for If-Match); 404 when there is none.{}", permission_note(resource.read)),
        "responses": with_errors(Map::from_iter([("200".to_owned(), one("Found."))]), &[400, 401, 403, 404]),
    }));
    item.insert("head".into(), json!({
        "tags": tag, "summary": format!("Check one {} (as GET, without a body)", resource.noun),
        "operationId": operation_id("check", resource.noun),
        "description": "Answers exactly as GET would (status, ETag, Content-Type, Content-Length) with no body.",
        "responses": with_errors(Map::from_iter([("200".to_owned(), json!({
            "description": "Found; no body.",
            "headers": {
                "ETag": etag_header["ETag"],
                "Content-Length": { "description": "The length of the body GET would send.", "schema": { "type": "integer" } }
            }
        }))]), &[400, 401, 403, 404]),
    }));
    let mut write_parameters = vec![if_match.clone()];
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
            "requestBody": json_body(json!({ "$ref": "#/components/schemas/JsonPatch" }), "application/json-patch+json"),
            "responses": with_errors(Map::from_iter([("200".to_owned(), one("Patched."))]), &[400, 401, 403, 404, 409, 412, 413, 415]),
        }));
    }
    if ops.delete {
        item.insert("delete".into(), json!({
            "tags": tag, "summary": format!("Delete {}", with_article(resource.noun)), "parameters": [if_match],
            "operationId": operation_id("delete", resource.noun),
            "description": format!("Removes the record; 409 while other records still refer to it, naming them.{}", permission_note(resource.write)),
            "responses": with_errors(Map::from_iter([("204".to_owned(), json!({ "description": "Deleted." }))]), &[400, 401, 403, 404, 409, 412]),
        }));
    }
    paths.insert(format!("/v1/{}/{{id}}", resource.path), Value::Object(item));
}

fn hand_written_paths(paths: &mut Map<String, Value>, schemas: &mut Map<String, Value>) {
    schemas.insert("Tokens".into(), json!({ "type": "object", "required": ["token", "tokenType", "expiresIn", "refreshToken", "username"], "properties": {
        "token": { "type": "string", "description": "JWT access token (HS256)." },
        "tokenType": { "type": "string", "enum": ["Bearer"] },
        "expiresIn": { "type": "integer", "description": "Seconds until the access token expires." },
        "refreshToken": { "type": "string", "description": "Single-use; exchange at /v1/authenticate/refresh." },
        "username": { "type": "string" }
    }, "examples": [{ "token": "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.c2lnbmF0dXJl", "tokenType": "Bearer",
        "expiresIn": 900, "refreshToken": "rt_2b7c9d1e4f6a8b0c2d4e6f8a0b2c4d6e", "username": "admin" }] }));
    schemas.insert(
        "RefreshTokenRequest".into(),
        json!({ "type": "object", "required": ["refreshToken"], "additionalProperties": false,
        "properties": { "refreshToken": { "type": "string" } } }),
    );
    schemas.insert("SignIn".into(), json!({ "type": "object", "required": ["username", "password"], "additionalProperties": false, "properties": {
        "brand": { "type": "string", "minLength": 1, "maxLength": 100, "description": "When given, must match the deployment's brand." },
        "username": { "type": "string", "minLength": 1, "maxLength": 100 },
        "password": { "type": "string", "minLength": 1, "maxLength": crate::routes::authentication::SIGN_IN_PASSWORD_MAX_CHARS, "writeOnly": true }
    }, "examples": [{ "username": "admin", "password": "choose-a-long-password" }] }));
    let named = |name: &str| json!({ "$ref": format!("#/components/schemas/{name}") });
    let tokens = named("Tokens");
    let refresh_body = json_body(named("RefreshTokenRequest"), "application/json");
    let ok_tokens = json!({ "description": "Signed in.", "content": { "application/json": { "schema": tokens } } });
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
        "responses": with_errors(Map::from_iter([("204".to_owned(), json!({ "description": "Revoked." }))]), &[400, 413, 415]),
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
    let summary_rows = json!({ "type": "array", "items": row_of(object_schema(&crate::routes::reference_data_summary::FIELDS, false)) });
    paths.insert("/v1/reference-data-summary/{referenceDataSummaryType}/{id}".into(), json!({ "get": {
        "tags": ["reference-data-summary"], "summary": "The rating rows of a call class, a dialstring or a charge group",
        "operationId": "listReferenceDataSummaryRows",
        "description": "CALL_CLASS and DIALSTRING give that record's row; CHARGE_GROUP gives a row per dialstring and per call class of each of its source charge groups, and one row of a source charge group's own fields when it has neither. A row has the members its kind has. Needs permission REFERENCE_DATA_READ.",
        "parameters": summary_parameters,
        "responses": with_errors(Map::from_iter([("200".to_owned(), json!({ "description": "One page of rows.",
            "headers": { "X-Total-Count": { "schema": { "type": "integer" } }, "Link": { "schema": { "type": "string" } } },
            "content": { "application/json": { "schema": summary_rows } } }))]), &[400, 401, 403, 404]),
    }}));
    rating_lookups_path(paths);
    let health = |summary: &str, id: &str, description: &str| {
        json!({ "get": { "tags": ["operations"], "summary": summary, "security": [], "operationId": id,
        "description": description,
        "responses": { "200": { "description": "Healthy." }, "503": error_ref(503) } } })
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
            "headers": { "Location": { "schema": { "type": "string" } } } } } } }));
    paths.insert(
        "/metrics".into(),
        json!({ "get": { "tags": ["operations"], "security": [], "operationId": "metrics",
            "summary": "Prometheus metrics: requests by method, route and status; latency histogram",
            "description": "Served here unless BILLING_METRICS_BIND gives metrics an address of their own; no token needed.",
            "responses": { "200": { "description": "Text exposition format 0.0.4.",
                "content": { "text/plain": { "schema": { "type": "string" } } } } } } }),
    );
    paths.insert(
        "/v1/openapi.json".into(),
        json!({ "get": { "tags": ["operations"], "summary": "This document", "security": [], "operationId": "openapi",
        "description": "The OpenAPI 3.1 document, generated from the declarations the service routes by.",
        "responses": { "200": { "description": "OpenAPI 3.1 document." } } } }),
    );
}

/// The named code sets `fields` use, at every depth, each as one component schema.
fn code_set_schemas(fields: &[Field], schemas: &mut Map<String, Value>) {
    fn visit(field_type: &FieldType, schemas: &mut Map<String, Value>) {
        match field_type {
            FieldType::Codes(name, codes) => {
                schemas.insert(
                    (*name).to_owned(),
                    json!({ "type": "string", "enum": codes }),
                );
            }
            FieldType::Object(members) | FieldType::ObjectList(members) => {
                code_set_schemas(members, schemas)
            }
            FieldType::Array(element) => visit(element, schemas),
            _ => {}
        }
    }
    for field in fields {
        visit(&field.field_type, schemas);
    }
}

/// Gives every operation without an `operationId` one made of its method and path, so
/// generated clients name every call (`postV1RatingLookups`).
fn name_operations(paths: &mut Value) {
    let Value::Object(paths) = paths else { return };
    for (path, item) in paths.iter_mut() {
        let Value::Object(methods) = item else {
            continue;
        };
        for (method, operation) in methods.iter_mut() {
            if operation.get("operationId").is_none() && operation.is_object() {
                let words: String = path
                    .split(['/', '-', '{', '}', '.'])
                    .filter(|word| !word.is_empty())
                    .map(capitalize)
                    .collect();
                operation["operationId"] = json!(format!("{method}{words}"));
            }
        }
    }
}

/// Markdown renderers (Swagger UI) drop `<value>` as an HTML tag: every `<placeholder>` in a
/// description is set as code, so the filter syntax reads `<value>`, `in:<v1>,<v2>,…`.
fn show_placeholders(value: &mut Value) {
    match value {
        Value::Object(map) => {
            for (key, member) in map.iter_mut() {
                match member {
                    Value::String(text) if key == "description" => *text = code_placeholders(text),
                    other => show_placeholders(other),
                }
            }
        }
        Value::Array(items) => items.iter_mut().for_each(show_placeholders),
        _ => {}
    }
}

fn code_placeholders(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 8);
    let mut rest = text;
    while let Some(start) = rest.find('<') {
        let Some(length) = rest[start..].find('>') else {
            break;
        };
        let placeholder = &rest[start..=start + length];
        let inside = &placeholder[1..placeholder.len() - 1];
        let already_code = rest[..start].ends_with('`');
        out.push_str(&rest[..start]);
        if !already_code && !inside.is_empty() && !inside.contains([' ', '<']) {
            out.push('`');
            out.push_str(placeholder);
            out.push('`');
        } else {
            out.push_str(placeholder);
        }
        rest = &rest[start + length + 1..];
    }
    out.push_str(rest);
    out
}

/// `POST /v1/rating/lookups`.
fn rating_lookups_path(paths: &mut Map<String, Value>) {
    use crate::routes::rating_lookups::{MAX_ITEMS, MAX_NUMBER_CHARS, MAX_TEXT_CHARS, OUTCOMES};
    let text = |max: usize, description: &str| json!({ "type": ["string", "null"], "maxLength": max, "description": description });
    let request = json!({ "type": "object", "required": ["referenceDataSourceId", "items"], "additionalProperties": false, "properties": {
        "referenceDataSourceId": { "type": "integer", "format": "int64", "minimum": 1, "description": "The source to rate against; an unknown source is 400." },
        "date": { "type": ["string", "null"], "format": "date", "description": "The date the usage happened (yyyy-MM-dd); today (UTC) when left out." },
        "items": { "type": "array", "minItems": 1, "maxItems": MAX_ITEMS, "items": { "type": "object", "additionalProperties": false, "properties": {
            "dialledNumber": text(MAX_NUMBER_CHARS, "Digits; a leading + and spaces are dropped. Anything else makes this item an error (the others are rated)."),
            "callClass": text(MAX_TEXT_CHARS, "Checked against ignored call classes first, then used when no dialstring matches."),
            "serviceId": text(MAX_TEXT_CHARS, "An ignored service id in force makes the item IGNORED."),
        } } }
    }});
    let mut result_members = Map::new();
    result_members.insert(
        "outcome".into(),
        json!({ "type": "string", "enum": OUTCOMES }),
    );
    for field in &crate::routes::reference_data_summary::FIELDS {
        let schema = match field.field_type {
            FieldType::Id => json!({ "type": "integer", "format": "int64" }),
            FieldType::Date => json!({ "type": ["string", "null"], "format": "date" }),
            _ => json!({ "type": ["string", "null"] }),
        };
        result_members.insert(field.name.to_owned(), schema);
    }
    result_members.insert("ignoredRecordType".into(), json!({ "type": "string", "enum": ["SERVICE_ID", "CALL_CLASS"], "description": "IGNORED only: which list ignored the item." }));
    result_members.insert("ignoredRecordId".into(), json!({ "type": "integer", "format": "int64", "description": "IGNORED only: the ignored service id or ignored call class record." }));
    result_members.insert(
        "ignoredRecordStartDate".into(),
        json!({ "type": "string", "format": "date" }),
    );
    result_members.insert(
        "ignoredRecordEndDate".into(),
        json!({ "type": ["string", "null"], "format": "date" }),
    );
    result_members.insert("serviceId".into(), json!({ "type": "string" }));
    result_members.insert("error".into(), json!({ "type": "object", "required": ["field", "message"], "description": "Instead of outcome: why this item could not be rated (a malformed dialled number).",
        "properties": { "field": { "type": "string" }, "message": { "type": "string" } } }));
    let response = json!({ "type": "object", "required": ["referenceDataSourceId", "date", "results"], "properties": {
        "referenceDataSourceId": { "type": "integer", "format": "int64" },
        "date": { "type": "string", "format": "date" },
        "results": { "type": "array", "description": "One per item, in order.", "items": { "type": "object", "properties": result_members } }
    }});
    paths.insert("/v1/rating/lookups".into(), json!({ "post": {
        "tags": ["rating"], "summary": "Rate usage items against a source on a date",
        "description": format!("Per item: an ignored service id or ignored call class in force makes it IGNORED; else the longest dialstring of the source that prefixes the number and is in force makes it DIALSTRING; else its call class in force makes it CALL_CLASS; else UNRATED. A result carries the interface 2.4 members of the match (the members its kind has; an open end date is null). Answered from the in-memory index, which every write of rating data updates before its response. Up to {MAX_ITEMS} items; the body may be up to 16 MiB. Needs permission REFERENCE_DATA_READ."),
        "requestBody": json_body(request, "application/json"),
        "responses": with_errors(Map::from_iter([("200".to_owned(), json!({ "description": "The results, in item order.",
            "content": { "application/json": { "schema": response } } }))]), &[400, 401, 403, 413, 415, 507]),
    }}));
}

/// A JSON Pointer (RFC 6901) to a member, as the server accepts it in a patch: `/` and then
/// reference tokens with `~` escaped as `~0` or `~1`; never `""` (the whole document).
const JSON_POINTER_PATTERN: &str = "^(/([^/~]|~[01])*)+$";

fn json_pointer(description: &str) -> Value {
    json!({ "type": "string", "pattern": JSON_POINTER_PATTERN,
        "description": format!("{description} A JSON Pointer (RFC 6901) to a member, such as /name; the whole document (\"\") cannot be patched.") })
}

/// `JsonPatch` (an array of at most 1000 operations) and one schema per RFC 6902 operation,
/// each naming exactly the members it takes, chosen by `op` (a discriminator): generators make
/// a type per operation, and `[{"op":"add"}]` does not type-check.
fn insert_json_patch_schemas(schemas: &mut Map<String, Value>) {
    let path = json_pointer("The member the operation applies to.");
    let from = json_pointer("The member a move or copy takes its value from.");
    let value = json!({ "description": "The value to add, to replace with or to compare with (any JSON)." });
    let operations: [(&str, &str, &str, &[&str]); 6] = [
        (
            "add",
            "JsonPatchAdd",
            "Adds value at path (appends to an array with /-).",
            &["value"],
        ),
        (
            "remove",
            "JsonPatchRemove",
            "Removes the member at path.",
            &[],
        ),
        (
            "replace",
            "JsonPatchReplace",
            "Replaces the member at path with value.",
            &["value"],
        ),
        (
            "move",
            "JsonPatchMove",
            "Moves the member at from to path.",
            &["from"],
        ),
        (
            "copy",
            "JsonPatchCopy",
            "Copies the member at from to path.",
            &["from"],
        ),
        (
            "test",
            "JsonPatchTest",
            "Fails the whole patch (409) unless the member at path equals value.",
            &["value"],
        ),
    ];
    let mut mapping = Map::new();
    let mut one_of = Vec::new();
    for (op, name, description, takes) in operations {
        let mut properties = Map::new();
        properties.insert("op".into(), json!({ "type": "string", "enum": [op] }));
        properties.insert("path".into(), path.clone());
        let mut required = vec!["op", "path"];
        for member in takes {
            properties.insert(
                (*member).into(),
                if *member == "from" {
                    from.clone()
                } else {
                    value.clone()
                },
            );
            required.push(member);
        }
        let example = match op {
            "add" => json!({ "op": "add", "path": "/endDate", "value": "2026-12-31" }),
            "remove" => json!({ "op": "remove", "path": "/endDate" }),
            "replace" => json!({ "op": "replace", "path": "/name", "value": "New name" }),
            "move" => json!({ "op": "move", "from": "/endDate", "path": "/startDate" }),
            "copy" => json!({ "op": "copy", "from": "/startDate", "path": "/endDate" }),
            _ => json!({ "op": "test", "path": "/name", "value": "Old name" }),
        };
        schemas.insert(
            name.into(),
            json!({ "type": "object", "description": description,
            "required": required, "properties": properties, "examples": [example] }),
        );
        let reference = format!("#/components/schemas/{name}");
        mapping.insert(op.into(), json!(reference));
        one_of.push(json!({ "$ref": reference }));
    }
    schemas.insert("JsonPatchOperation".into(), json!({
        "description": "One RFC 6902 operation. Every broken member of every operation is named in one 400 (\"[0].path: is required\").",
        "oneOf": one_of,
        "discriminator": { "propertyName": "op", "mapping": mapping },
    }));
    schemas.insert(
        "JsonPatch".into(),
        json!({ "type": "array", "maxItems": 1000,
        "description": "A JSON Patch (RFC 6902), applied all or nothing.",
        "items": { "$ref": "#/components/schemas/JsonPatchOperation" },
        "examples": [[
            { "op": "test", "path": "/name", "value": "Old name" },
            { "op": "replace", "path": "/name", "value": "New name" }
        ]] }),
    );
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
            "The rating rows of a call class, a dialstring or a charge group (interface 2.4).",
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
    schemas.insert("Problem".into(), json!({ "type": "object", "required": ["type", "title", "status", "detail"], "properties": {
        "type": { "type": "string" }, "title": { "type": "string" }, "status": { "type": "integer" },
        "detail": { "type": "string" }, "instance": { "type": "string" }, "requestId": { "type": "string" },
        "error": { "type": "string", "description": "The reason phrase, as the original platform sent it." },
        "message": { "type": "string", "description": "Same as detail." },
        "errors": { "type": "array", "items": { "type": "object", "required": ["field", "message"],
            "properties": { "field": { "type": "string" }, "message": { "type": "string" } } } }
    }, "examples": [{ "type": "about:blank", "title": "Bad Request", "status": 400,
        "detail": "the request is invalid: name: must be 1 to 255 characters long (got 0)",
        "instance": "/v1/charge-groups", "requestId": "5fe2e607-1c1f-4b43-9f8e-4b7d0e0c2a11",
        "error": "Bad Request", "message": "the request is invalid: name: must be 1 to 255 characters long (got 0)",
        "errors": [{ "field": "name", "message": "must be 1 to 255 characters long (got 0)" }] }] }));
    for resource in resources {
        code_set_schemas(resource.fields, &mut schemas);
    }
    // RFC 6902 §4: `add`, `replace` and `test` need `value`; `move` and `copy` need `from`.
    insert_json_patch_schemas(&mut schemas);
    let mut paths = Value::Object(paths);
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
                Reference data interface 1.12; customer and sites interface 1.45."
        },
        "servers": [{ "url": "/" }],
        "security": [{ "bearer": [] }],
        "paths": paths,
        "components": {
            "schemas": schemas,
            "responses": error_response_components(),
            "securitySchemes": { "bearer": { "type": "http", "scheme": "bearer", "bearerFormat": "JWT or API key",
                "description": "An access token (JWT) from /v1/authenticate, or an API key (bk_…) from /v1/api-keys." } }
        }
    })
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_document_is_a_visible_diff() {
        // As text: numbers parsed with arbitrary precision serialize specially outside serde_json.
        let text = serde_json::to_string_pretty(&crate::openapi_document()).expect("json");
        insta::assert_snapshot!("openapi", text);
    }

    #[test]
    fn articles_follow_the_sound() {
        assert_eq!(super::with_article("user"), "a user");
        assert_eq!(super::with_article("ad hoc bill run"), "an ad hoc bill run");
        assert_eq!(
            super::with_article("invoice template"),
            "an invoice template"
        );
        assert_eq!(super::with_article("charge group"), "a charge group");
    }

    /// Every `pattern` in the document, with where it is.
    fn patterns(value: &serde_json::Value, at: &str, out: &mut Vec<(String, String)>) {
        match value {
            serde_json::Value::Object(map) => {
                for (key, child) in map {
                    match (key.as_str(), child) {
                        ("pattern", serde_json::Value::String(p)) => {
                            out.push((at.to_owned(), p.clone()))
                        }
                        _ => patterns(child, &format!("{at}/{key}"), out),
                    }
                }
            }
            serde_json::Value::Array(items) => {
                for (index, child) in items.iter().enumerate() {
                    patterns(child, &format!("{at}/{index}"), out);
                }
            }
            _ => {}
        }
    }

    #[test]
    fn every_operation_has_a_unique_operation_id_and_english_summary() {
        let document = super::document(&crate::resources::documentation());
        let mut ids = std::collections::BTreeSet::new();
        for (path, item) in document["paths"].as_object().expect("paths") {
            for (method, operation) in item.as_object().expect("item") {
                if !operation.is_object() || method == "parameters" {
                    continue;
                }
                let id = operation["operationId"]
                    .as_str()
                    .unwrap_or_else(|| panic!("{method} {path}"));
                assert!(ids.insert(id.to_owned()), "{id} twice");
            }
        }
        let summary = |path: &str, method: &str| {
            document["paths"][path][method]["summary"]
                .as_str()
                .unwrap_or_default()
                .to_owned()
        };
        assert_eq!(summary("/v1/currencies", "get"), "List currencies");
        assert_eq!(
            summary("/v1/adhoc-bill-runs", "post"),
            "Create an ad hoc bill run"
        );
        assert_eq!(
            document["paths"]["/v1/adhoc-bill-runs"]["get"]["operationId"],
            "listAdHocBillRuns"
        );
        assert_eq!(super::plural("address"), "addresses");
        assert_eq!(super::plural("key"), "keys");
    }

    #[test]
    fn code_sets_are_named_component_schemas() {
        let document = super::document(&crate::resources::documentation());
        let schemas = &document["components"]["schemas"];
        assert_eq!(
            schemas["ChargingUnitType"]["enum"],
            serde_json::json!(["DURATION", "MB", "ONE_OFF"])
        );
        assert_eq!(
            schemas["ChargeGroupCategory"]["properties"]["chargingUnitType"]["$ref"],
            "#/components/schemas/ChargingUnitType"
        );
        // A member that may be null refers to the set or null.
        let receive = &schemas["Site"]["properties"]["siteContacts"]["items"]["properties"]["receiveInvoiceBy"];
        assert_eq!(
            receive["anyOf"][0]["$ref"], "#/components/schemas/ReceiveBy",
            "{receive}"
        );
        assert_eq!(receive["anyOf"][1]["type"], "null");
        let text = document.to_string();
        assert_eq!(
            text.matches("\"ONE_OFF\"").count(),
            1,
            "the set is written once"
        );
    }

    #[test]
    fn filter_placeholders_survive_markdown() {
        assert_eq!(
            super::code_placeholders("Syntax: <value>, in:<v1>,<v2>,… or like:<value>."),
            "Syntax: `<value>`, in:`<v1>`,`<v2>`,… or like:`<value>`."
        );
        assert_eq!(super::code_placeholders("a `<b>` c < d"), "a `<b>` c < d");
        let document = super::document(&crate::resources::documentation());
        let text = document.to_string();
        assert!(!text.contains(" <value>"), "a bare placeholder is left");
    }

    /// Every `example` in the document, with the schema it sits in.
    fn examples(value: &serde_json::Value, at: &str, out: &mut Vec<(String, serde_json::Value)>) {
        match value {
            serde_json::Value::Object(map) => {
                if map.contains_key("example") {
                    out.push((at.to_owned(), value.clone()));
                }
                for (key, child) in map {
                    examples(child, &format!("{at}/{key}"), out);
                }
            }
            serde_json::Value::Array(items) => {
                for (index, child) in items.iter().enumerate() {
                    examples(child, &format!("{at}/{index}"), out);
                }
            }
            _ => {}
        }
    }

    /// Realistic examples (not Swagger UI's strings made up from patterns), each a value its
    /// own schema accepts: type, pattern, lengths, bounds and enumeration.
    #[test]
    fn every_example_is_valid_for_its_schema() {
        use serde_json::Value;
        let document = crate::openapi_document();
        let mut found = Vec::new();
        examples(&document, "", &mut found);
        assert!(
            found.len() > 300,
            "members carry examples ({})",
            found.len()
        );
        let schemas = &document["components"]["schemas"];
        for (at, schema) in found {
            let example = &schema["example"];
            let types: Vec<&str> = match &schema["type"] {
                Value::String(kind) => vec![kind.as_str()],
                Value::Array(kinds) => kinds.iter().filter_map(Value::as_str).collect(),
                _ => Vec::new(),
            };
            let allowed = |kind: &str| types.is_empty() || types.contains(&kind);
            match example {
                Value::String(text) => {
                    assert!(allowed("string"), "{at}: {example} is not a {types:?}");
                    let length = text.chars().count() as u64;
                    assert!(
                        schema["minLength"].as_u64().is_none_or(|min| length >= min),
                        "{at}: {text}"
                    );
                    assert!(
                        schema["maxLength"].as_u64().is_none_or(|max| length <= max),
                        "{at}: {text}"
                    );
                    if let Some(pattern) = schema["pattern"].as_str() {
                        let pattern = regex::Regex::new(pattern).expect("pattern");
                        assert!(
                            pattern.is_match(text),
                            "{at}: {text:?} does not match {pattern}"
                        );
                    }
                    if schema["format"] == "date" {
                        assert!(
                            billing_domain::dates::parse_date(text).is_some(),
                            "{at}: {text}"
                        );
                    }
                    if let Some(reference) = schema["$ref"].as_str() {
                        let name = reference.trim_start_matches("#/components/schemas/");
                        let codes = schemas[name]["enum"].as_array().expect("a code set");
                        assert!(codes.contains(example), "{at}: {text} is not one of {name}");
                    }
                }
                Value::Number(number) => {
                    assert!(allowed("integer") || allowed("number"), "{at}: {example}");
                    let value = number.as_f64().expect("a number");
                    assert!(
                        schema["minimum"].as_f64().is_none_or(|min| value >= min),
                        "{at}: {value}"
                    );
                    assert!(
                        schema["maximum"].as_f64().is_none_or(|max| value <= max),
                        "{at}: {value}"
                    );
                    if allowed("integer") && !allowed("number") {
                        assert!(number.is_i64(), "{at}: {value} is not an integer");
                    }
                }
                Value::Bool(_) => assert!(allowed("boolean"), "{at}: {example}"),
                Value::Array(_) => assert!(allowed("array"), "{at}: {example}"),
                // A member that is null in the example (one of two that exclude each other).
                Value::Null => assert!(allowed("null"), "{at}: null, but not nullable"),
                other => panic!("{at}: an example of {other}"),
            }
            if let Some(values) = schema["enum"].as_array() {
                assert!(
                    values.contains(example),
                    "{at}: {example} is not one of {values:?}"
                );
            }
        }
    }

    #[test]
    fn every_pattern_compiles() {
        let mut found = Vec::new();
        patterns(&crate::openapi_document(), "", &mut found);
        assert!(found.len() > 50, "patterns are documented");
        for (at, pattern) in found {
            assert!(regex::Regex::new(&pattern).is_ok(), "{at}: {pattern}");
        }
    }

    /// The filter patterns accept exactly what the server's filter parser accepts, on samples.
    #[test]
    fn filter_patterns_agree_with_the_parser() {
        use billing_domain::query::{FilterKind, parse_filter};
        let samples = [
            "2024-01-31",
            "lt:2024-01-31",
            "gt:2024-02-29",
            "gtn:2024-12-01",
            "2024-13-01",
            "2024-00-10",
            "24-01-01",
            "x",
            "",
            "2024-01-31T10:00:00Z",
            "lt:2024-01-31T23:59:59Z",
            "gt:2024-01-31T10:00:00.123Z",
            "2024-01-31T24:00:00Z",
            "2024-01-31T10:00:00",
            "gtn:2024-01-31T10:00:00Z",
            "plain",
            "in:a,b",
            "like:x",
            "bad\u{7}",
        ];
        for kind in [FilterKind::Date, FilterKind::DateTime, FilterKind::String] {
            let parameter = super::filter_parameter(&crate::machinery::resource::FilterParam::new(
                "x", kind, "",
            ));
            let pattern = parameter["schema"]["pattern"].as_str().expect("a pattern");
            let pattern = regex::Regex::new(pattern).expect("compiles");
            for sample in samples {
                assert_eq!(
                    pattern.is_match(sample),
                    parse_filter(kind, sample).is_ok(),
                    "{kind:?} {sample:?}"
                );
            }
        }
    }

    fn pattern_at(document: &serde_json::Value, pointer: &str) -> regex::Regex {
        let pattern = document
            .pointer(pointer)
            .and_then(serde_json::Value::as_str)
            .unwrap_or_else(|| panic!("no pattern at {pointer}"));
        regex::Regex::new(pattern).expect("compiles")
    }

    /// The password, roles, sign-in and JSON Patch schemas accept what the server accepts.
    #[test]
    fn body_schemas_agree_with_the_server() {
        use billing_domain::users::{PASSWORD_MAX_CHARS, PASSWORD_MIN_CHARS, check_password};
        let document = crate::openapi_document();
        let schemas = &document["components"]["schemas"];

        let password = &schemas["UserInput"]["properties"]["password"];
        assert_eq!(password["minLength"], PASSWORD_MIN_CHARS);
        assert_eq!(password["maxLength"], PASSWORD_MAX_CHARS);
        let pattern = pattern_at(
            &document,
            "/components/schemas/UserInput/properties/password/pattern",
        );
        for sample in [
            "correct <horse> battery",
            "pässwörd-ünïcode-ok",
            "tab\tand\nnewline",
            "aaaaaaaaaaaa",
            "            ",
            "\t\n\r\u{b}\u{c}       ",
            "\u{85}\u{a0}\u{1680}\u{2000}\u{200a}\u{2028}\u{2029}\u{202f}\u{205f}\u{3000}  ",
            "\u{feff}\u{feff}\u{feff}\u{feff}\u{feff}\u{feff}\u{feff}\u{feff}\u{feff}\u{feff}\u{feff}\u{feff}",
            "\u{200b}           ",
        ] {
            assert_eq!(
                pattern.is_match(sample),
                check_password("password", sample).is_ok(),
                "{sample:?}"
            );
        }

        for schema in [&schemas["UserInput"], &schemas["User"]] {
            assert_eq!(schema["properties"]["roles"]["minItems"], 1);
        }
        let bulk = &document["paths"]["/v1/users"]["patch"]["requestBody"]["content"]["application/json"]
            ["schema"]["items"];
        assert_eq!(bulk["properties"]["roles"]["minItems"], 1);
        assert!(
            billing_domain::users::parse_roles("roles", &[]).is_err(),
            "the server refuses an empty list"
        );

        assert_eq!(
            document["paths"]["/v1/authenticate"]["post"]["requestBody"]["content"]["application/json"]
                ["schema"]["$ref"],
            "#/components/schemas/SignIn"
        );
        let sign_in = &schemas["SignIn"]["properties"];
        let accepted = |body: serde_json::Value| {
            let request: crate::routes::authentication::AuthenticateRequest =
                serde_json::from_value(body).expect("the shape");
            crate::machinery::request::validate(&request).is_ok() && request.check().is_ok()
        };
        let documented = |member: &str, value: &str| {
            let length = value.chars().count() as u64;
            let schema = &sign_in[member];
            schema["minLength"].as_u64().is_none_or(|min| length >= min)
                && schema["maxLength"].as_u64().is_none_or(|max| length <= max)
        };
        for (member, value) in [
            ("username", ""),
            ("username", "admin"),
            ("username", &"u".repeat(100)),
            ("username", &"u".repeat(101)),
            ("password", ""),
            ("password", "x"),
            ("password", &"p".repeat(1024)),
            ("password", &"p".repeat(1025)),
            ("brand", ""),
            ("brand", "acme"),
            ("brand", &"b".repeat(101)),
        ] {
            let mut body = serde_json::json!({ "username": "admin", "password": "secret" });
            body[member] = serde_json::json!(value);
            assert_eq!(
                accepted(body),
                documented(member, value),
                "{member} = {value:?}"
            );
        }

        let fields = <crate::resources::users::Users as super::Resource>::FIELDS;
        for member in ["path", "from"] {
            let pointer = pattern_at(
                &document,
                &format!("/components/schemas/JsonPatchCopy/properties/{member}/pattern"),
            );
            for sample in [
                "", "/", "/name", "a/b", "name", "/a~1b", "/a~0b", "/a~2b", "/~", "//x", "/email/0",
            ] {
                let operation = if member == "path" {
                    serde_json::json!([{ "op": "test", "path": sample, "value": 1 }])
                } else {
                    serde_json::json!([{ "op": "copy", "from": sample, "path": "/email" }])
                };
                assert_eq!(
                    pointer.is_match(sample),
                    crate::machinery::patch::parse_patch(operation, fields).is_ok(),
                    "{member} = {sample:?}"
                );
            }
        }
    }

    #[test]
    fn every_error_response_is_a_shared_component() {
        let document = crate::openapi_document();
        let responses = &document["components"]["responses"];
        let mut references = 0;
        for (path, item) in document["paths"].as_object().expect("paths") {
            for (method, operation) in item.as_object().expect("item") {
                let Some(answers) = operation["responses"].as_object() else {
                    continue;
                };
                for (status, response) in answers {
                    let code: u16 = status.parse().expect("a status");
                    let problem =
                        code >= 400 && !(method == "head" && code == 404 && !path.ends_with("}"));
                    if !problem {
                        continue;
                    }
                    let reference = response["$ref"]
                        .as_str()
                        .unwrap_or_else(|| panic!("{method} {path} {status} is inlined"));
                    let name = reference
                        .strip_prefix("#/components/responses/")
                        .expect("a response reference");
                    assert!(responses.get(name).is_some(), "{reference}");
                    references += 1;
                }
            }
        }
        assert!(references > 100);
    }

    #[test]
    fn every_declared_field_is_documented() {
        let document = crate::openapi_document();
        let schemas = &document["components"]["schemas"];
        for resource in crate::resources::documentation() {
            let name = resource.schema_name();
            for field in resource
                .fields
                .iter()
                .filter(|f| f.access != super::Access::WriteOnly)
            {
                assert!(
                    schemas[&name]["properties"].get(field.name).is_some(),
                    "{name}.{}",
                    field.name
                );
            }
        }
    }
}
