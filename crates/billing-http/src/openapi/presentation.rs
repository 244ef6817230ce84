//! Finishing touches over the whole document: operation ids and Markdown-safe placeholders.

use super::capitalize;
use serde_json::{Value, json};

/// Gives every operation without an `operationId` one made of its method and path, so
/// generated clients name every call (`postV1RatingLookups`).
pub(super) fn name_operations(paths: &mut Value) {
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
pub(super) fn show_placeholders(value: &mut Value) {
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

pub(super) fn code_placeholders(text: &str) -> String {
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
