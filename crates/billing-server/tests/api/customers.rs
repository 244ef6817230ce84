//! `/v1/customers`, `/v1/billing-cycles` and `/v1/invoice-templates`: the machinery's per-row
//! contract-owner scope, server stamps and create-only fields.

use serde_json::{Value, json};

use crate::support::TestApp;

struct World {
    cycle: i64,
    owner_a: i64,
    owner_b: i64,
    brand_a: i64,
    brand_b: i64,
}

fn world(app: &TestApp) -> World {
    let cycle = app.create("/v1/billing-cycles", json!({ "name": "Monthly" }))["id"]
        .as_i64()
        .expect("id");
    let a = app.create(
        "/v1/contract-owners",
        json!({ "name": "Owner A", "subBrands": [{ "name": "A Mobile" }] }),
    );
    let b = app.create(
        "/v1/contract-owners",
        json!({ "name": "Owner B", "subBrands": [{ "name": "B Home" }] }),
    );
    World {
        cycle,
        owner_a: a["id"].as_i64().expect("id"),
        owner_b: b["id"].as_i64().expect("id"),
        brand_a: a["subBrands"][0]["id"].as_i64().expect("id"),
        brand_b: b["subBrands"][0]["id"].as_i64().expect("id"),
    }
}

fn customer(name: &str, owner: i64, cycle: i64) -> Value {
    json!({
        "customerName": name,
        "customerReference": format!("REF-{name}"),
        "contractOwnerId": owner,
        "billingCycleId": cycle,
        "startDate": "2026-01-01",
    })
}

fn as_user(
    app: &TestApp,
    token: &str,
    method: &str,
    path: &str,
    body: Option<Value>,
) -> crate::support::Reply {
    match (method, body) {
        ("PATCH", Some(operations)) => app.patch_as(token, path, operations),
        (method, body) => app.json_as(token, method, path, body),
    }
}

fn restricted_user(app: &TestApp, username: &str, owners: &[i64]) -> (i64, String) {
    let password = "a-long-enough-password";
    let user = app.create("/v1/users", json!({
        "username": username, "password": password, "roles": ["CUSTOMER_MANAGER"], "contractOwnerIds": owners,
    }));
    (
        user["id"].as_i64().expect("id"),
        app.login(username, password),
    )
}

api_test! {
    fn a_restricted_user_sees_and_writes_only_its_contract_owners_customers(app) {
        let w = world(&app);
        let a1 = app.create("/v1/customers", customer("a1", w.owner_a, w.cycle))["id"].as_i64().expect("id");
        app.create("/v1/customers", customer("a2", w.owner_a, w.cycle));
        let b1 = app.create("/v1/customers", customer("b1", w.owner_b, w.cycle))["id"].as_i64().expect("id");
        let (user_id, token) = restricted_user(&app, "only-a", &[w.owner_a]);

        // Lists and counts are filtered in SQL, with the caller's filters and paging on top.
        let page = as_user(&app, &token, "GET", "/v1/customers?page=1&pageSize=10&sort=customerName", None);
        assert_eq!(page.status, 200, "{}", page.text);
        let listed = page.json();
        let names: Vec<&str> = listed.as_array().expect("page").iter().map(|c| c["customerName"].as_str().expect("name")).collect();
        assert_eq!(names, vec!["a1", "a2"]);
        assert_eq!(page.header("x-total-count"), Some("2"));
        let one = as_user(&app, &token, "GET", "/v1/customers?page=2&pageSize=1", None);
        assert_eq!(one.header("x-total-count"), Some("2"));
        assert_eq!(one.json()[0]["customerName"], "a2");
        let head = as_user(&app, &token, "HEAD", "/v1/customers?customerName=b1", None);
        assert_eq!(head.header("x-total-count"), Some("0"));
        assert_eq!(app.head("/v1/customers?customerName=b1").header("x-total-count"), Some("1"));
        assert_eq!(app.get("/v1/customers?page=1&pageSize=10").header("x-total-count"), Some("3"));

        // Another owner's record: 403 on every direct request, and nothing changes.
        let other = format!("/v1/customers/{b1}");
        let before = app.get(&other).json();
        as_user(&app, &token, "GET", &other, None).assert_problem(403);
        assert_eq!(as_user(&app, &token, "HEAD", &other, None).status, 403);
        as_user(&app, &token, "PUT", &other, Some(customer("b1x", w.owner_b, w.cycle))).assert_problem(403);
        as_user(&app, &token, "PATCH", &other, Some(json!([{ "op": "replace", "path": "/customerName", "value": "x" }]))).assert_problem(403);
        as_user(&app, &token, "DELETE", &other, None).assert_problem(403);
        assert_eq!(app.get(&other).json(), before);
        // Its own owner's record is readable and writable.
        let own = format!("/v1/customers/{a1}");
        assert_eq!(as_user(&app, &token, "GET", &own, None).status, 200);
        let renamed = as_user(&app, &token, "PATCH", &own, Some(json!([{ "op": "replace", "path": "/customerName", "value": "a1 renamed" }])));
        assert_eq!(renamed.status, 200, "{}", renamed.text);

        // Creating for, or moving a record to, another owner: 403, nothing written.
        let refused = as_user(&app, &token, "POST", "/v1/customers", Some(customer("b2", w.owner_b, w.cycle)));
        refused.assert_problem(403);
        assert!(refused.text.contains("contractOwnerId"), "{}", refused.text);
        as_user(&app, &token, "PATCH", &own, Some(json!([{ "op": "replace", "path": "/contractOwnerId", "value": w.owner_b }]))).assert_problem(403);
        assert_eq!(app.get(&own).json()["contractOwnerId"], w.owner_a);
        assert_eq!(app.get("/v1/customers?page=1&pageSize=10").header("x-total-count"), Some("3"));

        // A change of the user's contract owners applies to the next request.
        let user = app.get(&format!("/v1/users/{user_id}"));
        let etag = user.header("etag").expect("etag").to_owned();
        let changed = app.send("PATCH", &format!("/v1/users/{user_id}"), Some(&app.admin_token), &[("If-Match", &etag)],
            Some(("application/json-patch+json", json!([{ "op": "replace", "path": "/contractOwnerIds", "value": [w.owner_b] }]).to_string())));
        assert_eq!(changed.status, 200, "{}", changed.text);
        let now_b = as_user(&app, &token, "GET", "/v1/customers?page=1&pageSize=10", None);
        assert_eq!(now_b.header("x-total-count"), Some("1"));
        assert_eq!(now_b.json()[0]["id"], b1);
        as_user(&app, &token, "GET", &own, None).assert_problem(403);
        let _ = w.brand_b;
    }

    fn customers_are_stamped_and_their_references_checked(app) {
        let w = world(&app);
        let mut body = customer("c", w.owner_a, w.cycle);
        body["contractOwnerSubBrandId"] = json!(w.brand_a);
        let created = app.create("/v1/customers", body.clone());
        assert_eq!(created["createdDate"], created["updatedDate"]);
        assert!(created["createdDate"].as_str().expect("date").ends_with('Z'));
        // Stamps are the server's: read-only in a body.
        let mut stamped = body.clone();
        stamped["createdDate"] = json!("2020-01-01T00:00:00Z");
        assert_eq!(app.post("/v1/customers", stamped).error_fields(), vec!["createdDate"]);
        let path = format!("/v1/customers/{}", created["id"]);
        app.patch(&path, json!([{ "op": "replace", "path": "/updatedDate", "value": "2020-01-01T00:00:00Z" }])).assert_problem(400);
        // A write keeps createdDate and moves updatedDate.
        let patched = app.patch(&path, json!([{ "op": "replace", "path": "/customerName", "value": "c2" }])).json();
        assert_eq!(patched["createdDate"], created["createdDate"]);
        assert_ne!(patched["updatedDate"], created["updatedDate"]);

        // References: each named by its field.
        let mut other_brand = body.clone();
        other_brand["contractOwnerSubBrandId"] = json!(w.brand_b);
        assert_eq!(app.post("/v1/customers", other_brand).error_fields(), vec!["contractOwnerSubBrandId"]);
        assert_eq!(app.post("/v1/customers", customer("x", 999, w.cycle)).error_fields(), vec!["contractOwnerId"]);
        assert_eq!(app.post("/v1/customers", customer("x", w.owner_a, 999)).error_fields(), vec!["billingCycleId"]);
        let mut backwards = body.clone();
        backwards["endDate"] = json!("2025-12-31");
        assert_eq!(app.post("/v1/customers", backwards).error_fields(), vec!["endDate"]);
        let mut long = body.clone();
        long["customerName"] = json!("x".repeat(101));
        assert_eq!(app.post("/v1/customers", long).error_fields(), vec!["customerName"]);

        // Filters on the declared fields.
        assert_eq!(app.head(&format!("/v1/customers?contractOwnerId={}", w.owner_b)).header("x-total-count"), Some("0"));
        assert_eq!(app.head(&format!("/v1/customers?contractOwnerSubBrandId={}", w.brand_a)).header("x-total-count"), Some("1"));

        // What customers use cannot be removed.
        app.delete(&format!("/v1/billing-cycles/{}", w.cycle)).assert_problem(409);
        app.delete(&format!("/v1/contract-owners/{}", w.owner_a)).assert_problem(409);
        assert_eq!(app.delete(&path).status, 204);
        assert_eq!(app.delete(&format!("/v1/billing-cycles/{}", w.cycle)).status, 204);
    }

    fn an_invoice_template_type_is_set_on_creation_only(app) {
        let created = app.create("/v1/invoice-templates", json!({ "name": "Standard", "type": "INVOICE" }));
        insta::assert_json_snapshot!(crate::support::plain(&created), @r#"
        {
          "id": 1,
          "name": "Standard",
          "type": "INVOICE"
        }
        "#);
        let path = format!("/v1/invoice-templates/{}", created["id"]);
        // Sending the same type back is fine; a different one is refused, naming the field.
        let renamed = app.put(&path, json!({ "name": "Standard 2", "type": "INVOICE" }));
        assert_eq!(renamed.status, 200, "{}", renamed.text);
        let changed = app.put(&path, json!({ "name": "Standard 3", "type": "INVOICE_SUMMARY" }));
        assert_eq!(changed.error_fields(), vec!["type"]);
        let patched = app.patch(&path, json!([{ "op": "replace", "path": "/type", "value": "ELECTRONIC_SUMMARY" }]));
        assert_eq!(patched.error_fields(), vec!["type"]);
        assert!(patched.text.contains("set on creation only"), "{}", patched.text);
        let stored = app.get(&path).json();
        assert_eq!((stored["name"].as_str(), stored["type"].as_str()), (Some("Standard 2"), Some("INVOICE")));
        // Any type may be chosen on creation; only the listed ones.
        app.create("/v1/invoice-templates", json!({ "name": "Summary", "type": "INVOICE_SUMMARY" }));
        assert_eq!(app.post("/v1/invoice-templates", json!({ "name": "X", "type": "LETTER" })).error_fields(), vec!["type"]);
        assert_eq!(app.head("/v1/invoice-templates?type=INVOICE_SUMMARY").header("x-total-count"), Some("1"));
    }
}

api_test! {
    fn mandates_are_unique_per_provider_and_filter_on_optional_text(app) {
        let body = |provider: &str, reference: &str, third: Value| json!({
            "provider": provider, "mandateReference": reference, "status": "Active", "thirdPartyCustomerReference": third,
        });
        let created = app.create("/v1/payment-provider-mandates", body("PROVIDER_B", "MD-1", json!("Cust-ABC")));
        assert_eq!(created["createdDate"], created["updatedDate"]);
        let duplicate = app.post("/v1/payment-provider-mandates", body("PROVIDER_B", "MD-1", Value::Null));
        duplicate.assert_problem(409);
        assert!(duplicate.text.contains("provider and mandateReference"), "{}", duplicate.text);
        app.create("/v1/payment-provider-mandates", body("PROVIDER_C", "MD-1", Value::Null));
        assert_eq!(app.post("/v1/payment-provider-mandates", body("PROVIDER_A", "MD-2", Value::Null)).error_fields(), vec!["provider"]);
        assert_eq!(app.post("/v1/payment-provider-mandates", body("PROVIDER_D", "", Value::Null)).error_fields(), vec!["mandateReference"]);
        // An optional text member filters like any text; unset rows never match.
        assert_eq!(app.head("/v1/payment-provider-mandates?thirdPartyCustomerReference=like:abc").header("x-total-count"), Some("1"));
        assert_eq!(app.head("/v1/payment-provider-mandates?thirdPartyCustomerReference=Cust-ABC").header("x-total-count"), Some("1"));
        assert_eq!(app.head("/v1/payment-provider-mandates?mandateReference=MD-1").header("x-total-count"), Some("2"));
        let sorted = app.get("/v1/payment-provider-mandates?page=1&pageSize=10&sort=thirdPartyCustomerReference:desc");
        assert_eq!(sorted.status, 200, "{}", sorted.text);
    }

    fn custom_field_definitions_follow_the_customer_permissions(app) {
        let manager = app.user_with_roles("manager", &["CUSTOMER_MANAGER"]);
        let reader = app.user_with_roles("reader", &["READ_ONLY"]);
        let created = app.post_as(&manager, "/v1/custom-field-definitions", json!({ "label": "Cost centre" }));
        assert_eq!(created.status, 201, "{}", created.text);
        app.post_as(&reader, "/v1/custom-field-definitions", json!({ "label": "No" })).assert_problem(403);
        assert_eq!(app.get_as(&reader, "/v1/custom-field-definitions?page=1&pageSize=5").header("x-total-count"), Some("1"));
        assert_eq!(app.post("/v1/custom-field-definitions", json!({ "label": "x".repeat(256) })).error_fields(), vec!["label"]);
    }
}
