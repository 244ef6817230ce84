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
    let receive =
        &schemas["Site"]["properties"]["siteContacts"]["items"]["properties"]["receiveInvoiceBy"];
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
        super::presentation::code_placeholders("Syntax: <value>, in:<v1>,<v2>,… or like:<value>."),
        "Syntax: `<value>`, in:`<v1>`,`<v2>`,… or like:`<value>`."
    );
    assert_eq!(
        super::presentation::code_placeholders("a `<b>` c < d"),
        "a `<b>` c < d"
    );
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

/// A member's schema with its rule's component merged in (`allOf`) and a nullable member's
/// `anyOf [schema, null]` read as the schema with `null` among its types, so that an example is
/// checked against everything the document says of it.
fn flattened(schema: &serde_json::Value, schemas: &serde_json::Value) -> serde_json::Value {
    use serde_json::{Value, json};
    let mut own = schema.clone();
    if let Some(alternatives) = schema["anyOf"].as_array()
        && let [inner, null] = alternatives.as_slice()
        && null["type"] == "null"
    {
        let mut merged = flattened(inner, schemas);
        let kinds = match &merged["type"] {
            Value::String(kind) => vec![json!(kind), json!("null")],
            Value::Array(kinds) => kinds.iter().cloned().chain([json!("null")]).collect(),
            _ => Vec::new(),
        };
        if !kinds.is_empty() {
            merged["type"] = Value::Array(kinds);
        }
        if let Some(members) = own.as_object_mut() {
            members.remove("anyOf");
        }
        for (key, value) in own.as_object().into_iter().flatten() {
            merged[key] = value.clone();
        }
        return merged;
    }
    if let Some([part]) = schema["allOf"].as_array().map(Vec::as_slice) {
        let name = part["$ref"].as_str().expect("allOf names a component");
        let mut merged = schemas[name.trim_start_matches("#/components/schemas/")].clone();
        assert!(merged.is_object(), "{name} is a component");
        for (key, value) in own.as_object().into_iter().flatten() {
            if key != "allOf" {
                merged[key] = value.clone();
            }
        }
        return merged;
    }
    own.take()
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
        let schema = &flattened(&schema, schemas);
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
        "EMAIL",
        "in:POST,EMAIL",
        "EMAILS",
        "like:mai",
        "in:",
        "in:a,",
        "in:,a",
        "in:a,,b",
        "like:",
        "i",
        "in",
        "inx",
        "l",
        "lik",
        "likes",
        "lik:e",
        "\u{85}",
        "1",
        "1.5",
        "1.0",
        "1.50",
        "1.505",
        "-3",
        "lt:2.25",
        "gt:-0.1",
        "1.",
        ".5",
        "1e2",
        "+1",
        "00012.30",
        "0.000",
        "lt:",
    ];
    let code = FilterKind::Code {
        codes: &["EMAIL", "POST"],
    };
    for kind in [
        FilterKind::Date,
        FilterKind::DateTime,
        FilterKind::String,
        code,
        FilterKind::Decimal { scale: 0 },
        FilterKind::Decimal { scale: 2 },
    ] {
        let parameter = super::resource_paths::filter_parameter(
            &crate::machinery::resource::FilterParam::new("x", kind, ""),
        );
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
        crate::machinery::body::validate(&request).is_ok() && request.check().is_ok()
    };
    let documented = |member: &str, value: &str| {
        let length = value.chars().count() as u64;
        // A nullable member's text schema is the first of its `anyOf`.
        let schema = match sign_in[member].get("anyOf") {
            Some(choices) => &choices[0],
            None => &sign_in[member],
        };
        // Its characters: the component its `allOf` names.
        let characters = schema["allOf"][0]["$ref"].as_str().map(|reference| {
            let name = reference.trim_start_matches("#/components/schemas/");
            let pattern = schemas[name]["pattern"].as_str().expect("a pattern");
            regex::Regex::new(pattern)
                .expect("compiles")
                .is_match(value)
        });
        characters.unwrap_or(true)
            && schema["minLength"].as_u64().is_none_or(|min| length >= min)
            && schema["maxLength"].as_u64().is_none_or(|max| length <= max)
    };
    for (member, value) in [
        ("username", ""),
        ("username", "admin"),
        ("username", &"u".repeat(100)),
        ("username", &"u".repeat(101)),
        ("username", "a\u{7}b"),
        ("username", "a<b"),
        ("username", "Zoë O'Brien"),
        ("password", ""),
        ("password", "x"),
        ("password", &"p".repeat(1024)),
        ("password", &"p".repeat(1025)),
        ("brand", ""),
        ("brand", "acme"),
        ("brand", &"b".repeat(101)),
        ("brand", "a\u{0}b"),
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
fn every_error_response_is_a_shared_component_and_head_errors_have_no_body() {
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
                if code < 400 {
                    continue;
                }
                if method == "head" && response.get("$ref").is_none() {
                    // A collection's 404: nothing matches, X-Total-Count 0.
                    assert!(
                        response.get("content").is_none(),
                        "{method} {path} {status}"
                    );
                    continue;
                }
                let reference = response["$ref"]
                    .as_str()
                    .unwrap_or_else(|| panic!("{method} {path} {status} is inlined"));
                let name = reference
                    .strip_prefix("#/components/responses/")
                    .expect("a response reference");
                assert!(responses.get(name).is_some(), "{reference}");
                // A HEAD answer has no body, its errors included.
                assert_eq!(
                    method == "head",
                    name.ends_with("WithoutBody"),
                    "{method} {path} {status}"
                );
                assert_eq!(
                    responses[name].get("content").is_none(),
                    method == "head",
                    "{reference}"
                );
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
        // A list row holds every member a read shows, and only those (`fields` may name each);
        // read-only resources have only rows.
        let name = format!("{}Row", resource.schema_name());
        for field in resource.fields {
            assert_eq!(
                schemas[&name]["properties"].get(field.name).is_some(),
                field.readable(),
                "{name}.{}",
                field.name
            );
        }
    }
}

#[test]
fn decimals_state_no_step_that_floating_point_validators_misjudge() {
    // 5.55 is a valid rate of 4 places, but 5.55 / 0.0001 is not an integer in floating point:
    // Prism and Python's jsonschema refused it against `multipleOf: 0.0001`.
    let document = crate::openapi_document().to_string();
    assert!(!document.contains("multipleOf"));
    let rate = &crate::openapi_document()["components"]["schemas"]["TaxBand"]["properties"]["rate"];
    assert!(
        rate["description"]
            .as_str()
            .expect("description")
            .contains("at most 4 decimal places"),
        "{rate}"
    );
}

#[test]
fn a_fields_name_is_accepted_exactly_when_the_document_offers_it() {
    for resource in crate::resources::documentation() {
        let shape = resource.list_shape();
        let choices = shape.field_choices();
        for choice in &choices {
            assert!(shape.is_field_choice(choice), "{choice}");
        }
        // Every field and member name, readable or not, top-level or nested, in every form.
        for field in shape.fields {
            let mut names = vec![field.name.to_owned(), format!("{}.x", field.name)];
            if let crate::machinery::resource::FieldType::Object(members) = field.field_type {
                names.extend(members.iter().map(|m| format!("{}.{}", field.name, m.name)));
                names.extend(members.iter().map(|m| m.name.to_owned()));
            }
            for name in names {
                assert_eq!(
                    shape.is_field_choice(&name),
                    choices.contains(&name),
                    "{}: {name}",
                    resource.schema_name()
                );
            }
        }
    }
}
