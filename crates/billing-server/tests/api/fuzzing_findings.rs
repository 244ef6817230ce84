//! What `cargo xtask fuzz` (schemathesis) found, each fixed and pinned here: the served OpenAPI
//! document must describe what the server answers and refuses (docs/testing.md).

use serde_json::{Value, json};

use crate::sites::{site_body, world};
use crate::support::TestApp;

fn document(app: &TestApp) -> Value {
    let reply = app.send("GET", "/v1/openapi.json", None, &[], None);
    assert_eq!(reply.status, 200);
    reply.json()
}

/// `schema` with a local `$ref` followed.
fn resolve<'a>(document: &'a Value, schema: &'a Value) -> &'a Value {
    match schema["$ref"].as_str() {
        Some(reference) => document
            .pointer(reference.trim_start_matches('#'))
            .unwrap_or_else(|| panic!("{reference} does not resolve")),
        None => schema,
    }
}

/// The object schema the document gives for `value` answered by `operation` with `status`:
/// the variant of a `oneOf` of the value's JSON type (the items' for an array).
fn documented_object<'a>(
    document: &'a Value,
    path: &str,
    method: &str,
    status: &str,
    value: &Value,
) -> &'a Value {
    let mut schema = resolve(
        document,
        &document["paths"][path][method]["responses"][status]["content"]["application/json"]["schema"],
    );
    if let Some(variants) = schema["oneOf"].as_array() {
        let wanted = if value.is_array() { "array" } else { "object" };
        schema = variants
            .iter()
            .map(|variant| resolve(document, variant))
            .find(|variant| {
                variant["type"] == wanted
                    || (wanted == "object" && variant.get("properties").is_some())
            })
            .unwrap_or_else(|| panic!("{method} {path}: no {wanted} variant in {schema}"));
    }
    if value.is_array() {
        schema = resolve(document, &schema["items"]);
    }
    schema
}

/// Every member of `record` is a documented property, and every required one is there.
#[track_caller]
fn assert_matches(schema: &Value, record: &Value, what: &str) {
    let properties = schema["properties"].as_object().expect("properties");
    for member in record.as_object().expect("an object").keys() {
        assert!(
            properties.contains_key(member),
            "{what}: `{member}` is answered but not documented"
        );
    }
    for required in schema["required"].as_array().into_iter().flatten() {
        let name = required.as_str().expect("a name");
        assert!(
            record.get(name).is_some(),
            "{what}: required `{name}` is missing"
        );
    }
}

api_test! {
    // A list with a mistyped element was checked by its rules without it: `["a", 1, -1]`
    // named the -1 as `[1]`, and a list left empty "must hold at least one" as well.
    fn a_list_with_a_mistyped_element_is_named_only_where_it_is_broken(app) {
        let body = |roles: Value, owners: Value| {
            json!({ "username": "listed", "password": "choose-a-long-password", "roles": roles,
                "contractOwnerIds": owners })
        };
        let reply = app.post("/v1/users", body(json!(["READ_ONLY"]), json!(["a", 1, -1])));
        reply.assert_problem(400);
        assert_eq!(reply.error_fields(), ["contractOwnerIds[0]"], "{}", reply.text);
        let reply = app.post("/v1/users", body(json!([5]), json!([])));
        reply.assert_problem(400);
        assert_eq!(reply.error_fields(), ["roles[0]"], "{}", reply.text);
        // Without a mistyped element, every broken one is named in its place; before one,
        // too.
        let reply = app.post("/v1/users", body(json!(["READ_ONLY"]), json!([1, -1, -2])));
        assert_eq!(reply.error_fields(), ["contractOwnerIds[1]", "contractOwnerIds[2]"], "{}", reply.text);
        let reply = app.post("/v1/users", body(json!(["READ_ONLY"]), json!([-1, "a", -2])));
        assert_eq!(reply.error_fields(), ["contractOwnerIds[1]", "contractOwnerIds[0]"], "{}", reply.text);
    }

    // schemathesis ST108: `POST /v1/customers` answers with the customer's `sites` (created
    // in the same request, `[]` when none were sent), which its response schema did not have
    // (`additionalProperties: false`).
    fn a_customer_create_answer_is_documented_with_its_sites(app) {
        let world = world(&app);
        let document = document(&app);
        let bare = app.create(
            "/v1/customers",
            json!({ "customerName": "Plain", "customerReference": "P-1",
                "contractOwnerId": world.owner, "billingCycleId": world.cycle,
                "startDate": "2026-01-01" }),
        );
        assert_eq!(bare["sites"], json!([]));
        let mut site = site_body(&world, "Head office");
        site["customerId"] = json!(0);
        let with_site = app.create(
            "/v1/customers",
            json!({ "customerName": "With a site", "customerReference": "W-1",
                "contractOwnerId": world.owner, "billingCycleId": world.cycle,
                "startDate": "2026-01-01", "sites": [site] }),
        );
        for answer in [&bare, &with_site] {
            let schema = documented_object(&document, "/v1/customers", "post", "201", answer);
            assert_matches(schema, answer, "POST /v1/customers");
            let site_schema = &schema["properties"]["sites"]["items"];
            for site in answer["sites"].as_array().expect("sites") {
                assert_matches(site_schema, site, "POST /v1/customers: sites[]");
            }
        }
    }

    // A bulk create answers with an array: its 201 is documented as one (`oneOf` record or
    // array of records).
    fn a_bulk_create_answer_is_documented_as_an_array(app) {
        let document = document(&app);
        let reply = app.post(
            "/v1/users",
            json!([{ "username": "bulk-one", "password": "a-long-password-1", "roles": ["READ_ONLY"] },
                   { "username": "bulk-two", "password": "a-long-password-2", "roles": ["READ_ONLY"] }]),
        );
        assert_eq!(reply.status, 201, "{}", reply.text);
        let answer = reply.json();
        assert!(answer.is_array());
        let schema = documented_object(&document, "/v1/users", "post", "201", &answer);
        for user in answer.as_array().expect("array") {
            assert_matches(schema, user, "POST /v1/users (bulk)");
        }
    }

    // Not a failure but a cost: schemathesis spent most of a run generating `sort` and
    // `fields` values of their documented maximum length (then 2,048) that also match their
    // pattern. The maximum is now the longest value that can be valid (each key once, a sort
    // key with `:desc`), which the server takes; naming one twice is 400.
    fn sort_and_fields_are_bounded_by_their_longest_valid_value(app) {
        let document = document(&app);
        let choices = |pattern: &str, end: &str| -> Vec<String> {
            let inner = pattern.strip_prefix("^(").and_then(|rest| rest.split_once(end)).map(|(keys, _)| keys);
            let keys = inner.unwrap_or_else(|| panic!("unexpected pattern {pattern}"));
            keys.split('|').map(|key| key.replace("\\.", ".")).collect()
        };
        let mut lists = 0;
        for (path, item) in document["paths"].as_object().expect("paths") {
            let Some(parameters) = item["get"]["parameters"].as_array() else { continue };
            let schema = |name: &str| parameters.iter().find(|p| p["name"] == name).map(|p| &p["schema"]);
            let (Some(sort), Some(fields)) = (schema("sort"), schema("fields")) else { continue };
            if path.contains('{') {
                continue;
            }
            lists += 1;
            let sort_keys = choices(sort["pattern"].as_str().expect("pattern"), ")(:(asc|desc))?");
            let longest_sort = sort_keys.iter().map(|key| format!("{key}:desc")).collect::<Vec<_>>().join(",");
            let field_names = choices(fields["pattern"].as_str().expect("pattern"), ")(,(");
            let longest_fields = field_names.join(",");
            assert_eq!(sort["maxLength"], longest_sort.len(), "{path} sort");
            assert_eq!(fields["maxLength"], longest_fields.len(), "{path} fields");
            let reply = app.get(&format!("{path}?page=1&pageSize=1&sort={longest_sort}&fields={longest_fields}"));
            assert_eq!(reply.status, 200, "{path}: {}", reply.text);
            let twice = format!("{path}?page=1&pageSize=1&fields={},{}", field_names[0], field_names[0]);
            let problem = app.get(&twice).assert_problem(400);
            assert_eq!(problem["errors"][0]["field"], "fields", "{path}: {problem}");
            assert_eq!(problem["errors"][0]["message"], format!("'{}' appears twice", field_names[0]));
            let twice = format!("{path}?page=1&pageSize=1&sort={},{}", sort_keys[0], sort_keys[0]);
            assert_eq!(app.get(&twice).assert_problem(400)["errors"][0]["field"], "sort", "{path}");
        }
        assert!(lists > 20, "only {lists} lists have sort and fields");
    }

    // schemathesis ST202: `[{"op": "add", "path": "/name"}]` was schema-valid, and refused
    // ("missing field `value`"). RFC 6902 needs `value` for add, replace and test and `from`
    // for move and copy: the document says so now, and the server still refuses both.
    fn json_patch_operations_document_their_value_and_from(app) {
        let document = document(&app);
        let schemas = &document["components"]["schemas"];
        // One schema per operation, chosen by `op` (the discriminator's mapping).
        let mapping = &schemas["JsonPatchOperation"]["discriminator"]["mapping"];
        let requires = |op: &str| -> Vec<String> {
            let reference = mapping[op].as_str().unwrap_or_else(|| panic!("no schema for {op}"));
            let name = reference.rsplit('/').next().expect("a name");
            let schema = &schemas[name];
            assert_eq!(schema["properties"]["op"]["enum"], json!([op]));
            schema["required"]
                .as_array()
                .into_iter()
                .flatten()
                .map(|r| r.as_str().expect("name").to_owned())
                .filter(|member| member != "op" && member != "path")
                .collect()
        };
        for op in ["add", "replace", "test"] {
            assert_eq!(requires(op), ["value"], "{op}");
        }
        for op in ["move", "copy"] {
            assert_eq!(requires(op), ["from"], "{op}");
        }
        assert!(requires("remove").is_empty());
        let category = app.create(
            "/v1/charge-group-categories",
            json!({ "name": "Calls", "chargingUnitType": "DURATION", "startDate": "2026-01-01" }),
        );
        let path = format!("/v1/charge-group-categories/{}", category["id"]);
        for operation in [
            json!({ "op": "add", "path": "/name" }),
            json!({ "op": "replace", "path": "/name" }),
            json!({ "op": "test", "path": "/name" }),
            json!({ "op": "move", "path": "/name" }),
            json!({ "op": "copy", "path": "/name" }),
        ] {
            app.patch(&path, json!([operation])).assert_problem(400);
        }
    }
}
