//! What the request set reads from the document: its operations, path templates and the
//! example body of an operation (as Swagger UI makes it).

use serde_json::{Value, json};

use super::{Flow, METHODS, Operation};

impl Flow<'_> {
    pub(super) fn operations(&self) -> Vec<Operation> {
        let mut found = Vec::new();
        for (path, item) in self.document["paths"].as_object().into_iter().flatten() {
            for method in METHODS {
                if let Some(spec) = item.get(method) {
                    found.push(Operation {
                        method: method.to_owned(),
                        path: path.clone(),
                        spec: spec.clone(),
                    });
                }
            }
        }
        found
    }

    pub(super) fn has_operation(&self, method: &str, path: &str) -> bool {
        self.document["paths"][path].get(method).is_some()
    }

    /// Whether `path`'s `GET` is a paged list (it takes `page`).
    pub(super) fn is_list(&self, path: &str) -> bool {
        self.document["paths"][path]["get"]["parameters"]
            .as_array()
            .is_some_and(|parameters| parameters.iter().any(|p| p["name"] == "page"))
    }

    /// A collection of a declared resource (`/v1/<name>`, with an item path).
    pub(super) fn is_resource(&self, path: &str) -> bool {
        self.document["paths"]
            .get(format!("{path}/{{id}}"))
            .is_some()
    }

    /// The path template a concrete path matches (`/v1/sites/3` → `/v1/sites/{id}`).
    pub(super) fn template_of(&self, _method: &str, path: &str) -> Option<String> {
        let path = path.split('?').next().unwrap_or(path);
        let parts: Vec<&str> = path.split('/').collect();
        self.document["paths"]
            .as_object()?
            .keys()
            .find(|template| {
                let pattern: Vec<&str> = template.split('/').collect();
                pattern.len() == parts.len()
                    && pattern.iter().zip(&parts).all(|(want, got)| {
                        want == got || (want.starts_with('{') && !got.is_empty())
                    })
            })
            .cloned()
    }

    /// The example body of an operation: its media type's `example`, else one made from its
    /// schema as Swagger UI makes it (each member's example; objects member by member).
    pub(super) fn request_example(&self, method: &str, path: &str) -> Result<Value, String> {
        let operation = self
            .operations()
            .into_iter()
            .find(|op| op.method == method && op.path == path)
            .ok_or_else(|| format!("no {method} {path} in the document"))?;
        let content = &operation.spec["requestBody"]["content"];
        let media = content
            .as_object()
            .and_then(|media| media.values().next())
            .ok_or_else(|| format!("{method} {path} takes no body"))?;
        if let Some(example) = media.get("example") {
            return Ok(example.clone());
        }
        self.example_of(&media["schema"], 0)
            .ok_or_else(|| format!("{method} {path}: no example can be made"))
    }

    fn example_of(&self, schema: &Value, depth: usize) -> Option<Value> {
        if depth > 12 {
            return None;
        }
        if let Some(example) = schema.get("example").or_else(|| schema.get("const")) {
            return Some(example.clone());
        }
        if let Some(first) = schema["examples"].as_array().and_then(|all| all.first()) {
            return Some(first.clone());
        }
        if let Some(reference) = schema["$ref"].as_str() {
            let name = reference.trim_start_matches("#/components/schemas/");
            return self.example_of(&self.document["components"]["schemas"][name], depth + 1);
        }
        for choice in ["oneOf", "anyOf", "allOf"] {
            if let Some(first) = schema[choice]
                .as_array()
                .and_then(|all| all.iter().find(|s| s["type"] != "null"))
            {
                return self.example_of(first, depth + 1);
            }
        }
        if let Some(default) = schema.get("default") {
            return Some(default.clone());
        }
        if let Some(members) = schema["properties"].as_object() {
            let mut object = serde_json::Map::new();
            for (name, member) in members {
                if member["readOnly"] == true {
                    continue;
                }
                if let Some(value) = self.example_of(member, depth + 1) {
                    object.insert(name.clone(), value);
                }
            }
            return Some(Value::Object(object));
        }
        if schema["type"] == "array" {
            return Some(json!([self.example_of(&schema["items"], depth + 1)?]));
        }
        None
    }
}
