//! JSON Patch (RFC 6902): one schema per operation, chosen by `op`.

use serde_json::{Map, Value, json};

/// A JSON Pointer (RFC 6901) to a member, as the server accepts it in a patch: `/` and then
/// reference tokens with `~` escaped as `~0` or `~1`; never `""` (the whole document).
pub(super) const JSON_POINTER_PATTERN: &str = "^(/([^/~]|~[01])*)+$";

pub(super) fn json_pointer(description: &str) -> Value {
    json!({ "type": "string", "pattern": JSON_POINTER_PATTERN, "maxLength": 1024,
        "description": format!("{description} A JSON Pointer (RFC 6901) to a member, such as /name; the whole document (\"\") cannot be patched.") })
}

/// `JsonPatch` (an array of at most 1000 operations) and one schema per RFC 6902 operation,
/// each naming exactly the members it takes, chosen by `op` (a discriminator): generators make
/// a type per operation, and `[{"op":"add"}]` does not type-check.
pub(super) fn insert_json_patch_schemas(schemas: &mut Map<String, Value>) {
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
