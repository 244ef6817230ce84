//! Member schemas: a declared kind as JSON Schema, its example, objects, rows and inputs.

use serde_json::{Map, Value, json};

use super::character_sets;
use crate::machinery::resource::{Access, Field, FieldType};

/// A record's id: a positive 64-bit integer.
pub(super) fn id_schema() -> Value {
    json!({ "type": "integer", "format": "int64", "minimum": 1, "maximum": i64::MAX })
}

/// The longest date-time the service writes or reads: `2026-11-22T10:15:00.123456789Z`.
pub(super) const DATE_TIME_MAX_CHARS: u32 = 30;

pub(super) fn type_schema(field_type: &FieldType, access: Option<Access>) -> Value {
    match field_type {
        FieldType::Id => id_schema(),
        FieldType::Integer { minimum, maximum } => {
            json!({ "type": "integer", "format": "int64", "minimum": minimum, "maximum": maximum })
        }
        FieldType::Text { min, max } => character_sets::member_schema(
            character_sets::component_of(field_type).unwrap_or_default(),
            *min,
            *max,
        ),
        FieldType::Letters { min, max } => {
            json!({ "type": "string", "minLength": min, "maxLength": max, "pattern": format!("^[a-zA-Z]{{{min},{max}}}$") })
        }
        FieldType::Digits { min, max } => {
            json!({ "type": "string", "minLength": min, "maxLength": max, "pattern": format!("^[0-9]{{{min},{max}}}$") })
        }
        FieldType::Pattern {
            pattern, min, max, ..
        } => match character_sets::component_of(field_type) {
            Some(component) => character_sets::member_schema(component, *min, *max),
            None => {
                json!({ "type": "string", "minLength": min, "maxLength": max, "pattern": pattern })
            }
        },
        // No `multipleOf`: validators that divide in floating point (Prism's, Python's
        // jsonschema) refuse 5.55 as a multiple of 0.0001. The places are in the description
        // (and a value with more is 400 naming the member).
        FieldType::Decimal {
            minimum,
            maximum,
            exclusive_minimum: false,
            ..
        } => json!({ "type": "number", "minimum": minimum, "maximum": maximum }),
        FieldType::Decimal {
            minimum,
            maximum,
            exclusive_minimum: true,
            ..
        } => json!({ "type": "number", "exclusiveMinimum": minimum, "maximum": maximum }),
        FieldType::Date => json!({ "type": "string", "format": "date", "maxLength": 10 }),
        FieldType::DateTime => {
            json!({ "type": "string", "format": "date-time", "maxLength": DATE_TIME_MAX_CHARS })
        }
        FieldType::Boolean => json!({ "type": "boolean" }),
        FieldType::Enum(values) => json!({ "type": "string", "enum": values }),
        FieldType::Codes(name, _) => json!({ "$ref": format!("#/components/schemas/{name}") }),
        FieldType::Email { max } => {
            json!({ "type": "string", "format": "idn-email", "maxLength": max })
        }
        FieldType::ObjectList(fields) => json!({ "type": "array",
            "items": object_schema(fields, access != Some(Access::ReadOnly)) }),
        FieldType::Object(fields) if access == Some(Access::ReadWrite) => reference_schema(fields),
        FieldType::Object(fields) => object_schema(fields, false),
        // A list of ids never names one twice (`IdList`: 400 naming the entry).
        FieldType::Array(FieldType::Id) => {
            json!({ "type": "array", "items": type_schema(&FieldType::Id, access), "uniqueItems": true })
        }
        FieldType::Array(items) => json!({ "type": "array", "items": type_schema(items, access) }),
        FieldType::Json => json!({ "type": "object" }),
    }
}

/// A realistic value of a member, for the documentation (Swagger UI would otherwise make one
/// up from the pattern): the description's ``e.g. `Leeds` ``, else the kind's own example
/// (`FieldType::Pattern`), else one made from the type and the member's name. `None` for
/// objects, whose members carry their own.
pub(super) fn example_of(field: &Field) -> Option<Value> {
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
pub(super) fn described_example(description: &str) -> Option<&str> {
    let start = description.find("e.g. `")? + "e.g. `".len();
    let length = description[start..].find('`')?;
    Some(&description[start..start + length])
}

/// A described example as a value of the member's JSON type.
pub(super) fn typed_example(text: &str, field_type: &FieldType) -> Value {
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
pub(super) fn type_example(field_type: &FieldType, name: &str) -> Option<Value> {
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
        // An end date in the future: an example record is in force, so the examples that
        // name it (a site sending its invoices to site 1) are accepted.
        FieldType::Date if name.ends_with("EndDate") || name == "endDate" => json!("2030-12-31"),
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
pub(super) fn bulk_update_schema(fields: &[Field]) -> Value {
    let most = crate::machinery::handlers::MAX_BULK_ELEMENTS;
    let mut item = object_schema(fields, true);
    item["required"] = json!(["id"]);
    item["properties"]["id"] = id_schema();
    item["properties"]["id"]["description"] = json!("The record to change.");
    json!({ "type": "array", "minItems": 1, "maxItems": most, "items": item })
}

/// A nested object in a body is a reference to an existing record: only its key (`id`, or
/// `code` where there is no id) is read, and any other member is ignored.
pub(super) fn reference_schema(fields: &[Field]) -> Value {
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
pub(super) fn owned_schema(field_type: &FieldType, input: bool) -> Value {
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
pub(super) fn row_of(mut schema: Value) -> Value {
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

pub(super) fn object_schema(fields: &[Field], input: bool) -> Value {
    let mut properties = Map::new();
    let mut required = Vec::new();
    for field in fields {
        let shown = if input {
            field.access != Access::ReadOnly || field.echoed
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
        if field.nullable && (schema.get("$ref").is_some() || schema.get("allOf").is_some()) {
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
        // The value a body that leaves the member out gets, in words: as `default`,
        // openapi-typescript would make the member required in the input type.
        if input
            && let Some(default) = field.default
            && !field.description.contains("Default")
        {
            schema["description"] = json!(format!("{} Default: `{default}`.", field.description));
        }
        // Sent: the required members, and a write-only one (required when a record is
        // created, and no resource that has one takes a `PUT`). Returned: every member shown,
        // null when unset, never left out (docs/api.md); but one shown only in the answer to
        // the create (an API key's `key`).
        if (input && (field.required || field.access == Access::WriteOnly))
            || (!input && field.access != Access::WriteOnly && !field.shown_once)
        {
            required.push(field.name);
        }
        properties.insert(field.name.to_owned(), schema);
    }
    json!({ "type": "object", "properties": properties, "required": required, "additionalProperties": false })
}

/// The named code sets `fields` use, at every depth, each as one component schema.
pub(super) fn code_set_schemas(fields: &[Field], schemas: &mut Map<String, Value>) {
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
