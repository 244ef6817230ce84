//! `/v1/users` and `/v1/user-roles`.

use serde_json::{Value, json};

use crate::support::TestApp;

api_test! {
    fn create_user_never_returns_the_password(app) {
        let reply = app.post("/v1/users", json!({ "username": "ops.team", "email": "ops@example.com", "password": "correct-horse-battery", "roles": ["READ_ONLY", "BILLING_MANAGER"] }));
        assert_eq!(reply.status, 201, "{}", reply.text);
        assert_eq!(reply.header("location"), Some("/v1/users/2"));
        assert!(!reply.text.contains("correct-horse") && !reply.text.contains("argon2"));
        insta::assert_json_snapshot!(crate::support::plain(&reply.json()), { ".createdDate" => "[date]", ".updatedDate" => "[date]" }, @r#"
        {
          "id": 2,
          "username": "ops.team",
          "email": "ops@example.com",
          "active": true,
          "roles": [
            "BILLING_MANAGER",
            "READ_ONLY"
          ],
          "createdDate": "[date]",
          "updatedDate": "[date]",
          "lastLoginDate": null,
          "contractOwnerIds": []
        }
        "#);
        let listed = app.get("/v1/users?page=1&pageSize=10");
        assert!(!listed.text.contains("password"));
    }

    fn user_rules_name_each_field(app) {
        let reply = app.post("/v1/users", json!({ "username": "bad user", "email": "nope", "password": "short", "roles": ["ROOT"] }));
        reply.assert_problem(400);
        assert_eq!(reply.error_fields(), vec!["email", "password", "roles", "username"]);
        assert!(reply.text.contains("unknown role 'ROOT'"), "{}", reply.text);
        let missing = app.post("/v1/users", json!({ "username": "nopass", "roles": ["READ_ONLY"] }));
        assert_eq!(missing.error_fields(), vec!["password"]);
        let read_only = app.post("/v1/users", json!({ "id": 9, "username": "x", "password": "long-enough-pass", "roles": ["READ_ONLY"] }));
        assert_eq!(read_only.error_fields(), vec!["id"]);
    }

    fn duplicate_usernames_conflict(app) {
        app.create("/v1/users", json!({ "username": "twin", "password": "long-enough-pass", "roles": ["READ_ONLY"] }));
        let again = app.post("/v1/users", json!({ "username": "twin", "password": "long-enough-pass", "roles": ["READ_ONLY"] }));
        assert!(again.assert_problem(409)["detail"].as_str().expect("detail").contains("username"));
    }

    fn bulk_create_is_all_or_nothing(app) {
        let reply = app.post("/v1/users", json!([
            { "username": "first", "password": "long-enough-pass", "roles": ["READ_ONLY"] },
            { "username": "second", "password": "short", "roles": ["READ_ONLY"] }
        ]));
        reply.assert_problem(400);
        assert_eq!(reply.error_fields(), vec!["[1].password"]);
        let unknown = app.post("/v1/users", json!([
            { "username": "first", "password": "long-enough-pass", "roles": ["READ_ONLY"] },
            { "username": "second", "roles": ["READ_ONLY"], "colour": "red" },
            { "username": "third", "password": "long-enough-pass", "roles": 7 }
        ]));
        unknown.assert_problem(400);
        assert_eq!(unknown.error_fields(), vec!["[1].colour", "[2].roles"]);
        assert_eq!(app.get("/v1/users?page=1&pageSize=10").header("x-total-count"), Some("1"));
        let reply = app.post("/v1/users", json!([
            { "username": "first", "password": "long-enough-pass", "roles": ["READ_ONLY"] },
            { "username": "second", "password": "long-enough-pass", "roles": ["READ_ONLY"] }
        ]));
        assert_eq!(reply.status, 201, "{}", reply.text);
        assert_eq!(reply.json().as_array().map(Vec::len), Some(2));
        let duplicate_inside = app.post("/v1/users", json!([
            { "username": "third", "password": "long-enough-pass", "roles": ["READ_ONLY"] },
            { "username": "third", "password": "long-enough-pass", "roles": ["READ_ONLY"] }
        ]));
        duplicate_inside.assert_problem(409);
        assert_eq!(app.get("/v1/users?page=1&pageSize=10").header("x-total-count"), Some("3"));
        // A bulk body holds 1 to 100 elements: none, or 101, is 400 naming the body, for a
        // create and an update alike, and nothing is written.
        let many: Vec<Value> = (0..101).map(|n| json!({ "username": format!("u{n}"), "password": "long-enough-pass", "roles": ["READ_ONLY"] })).collect();
        for (method, body) in [("POST", json!([])), ("POST", Value::Array(many)), ("PATCH", json!([])),
            ("PATCH", Value::Array((0..101).map(|_| json!({ "id": 2, "active": true })).collect()))] {
            let reply = app.json_as(&app.admin_token, method, "/v1/users", Some(body));
            assert_eq!(reply.error_fields(), vec!["body"], "{method}: {}", reply.text);
        }
        assert_eq!(app.get("/v1/users?page=1&pageSize=10").header("x-total-count"), Some("3"));
    }

    fn bulk_patch_changes_several_users(app) {
        app.create("/v1/users", json!({ "username": "a1", "password": "long-enough-pass", "roles": ["READ_ONLY"] }));
        app.create("/v1/users", json!({ "username": "a2", "password": "long-enough-pass", "roles": ["READ_ONLY"] }));
        let body = json!([{ "id": 2, "email": "a1@example.com" }, { "id": 3, "active": false }]).to_string();
        let reply = app.send("PATCH", "/v1/users", Some(&app.admin_token), &[], Some(("application/json", body)));
        assert_eq!(reply.status, 200, "{}", reply.text);
        let users = reply.json();
        assert_eq!(users[0]["email"], "a1@example.com");
        assert_eq!(users[1]["active"], false);
        // The specification sends every PATCH body as application/json-patch+json: a bulk
        // change is taken under that type too (its body is the same array); any other is 415.
        let labelled_patch = json!([{ "id": 2, "email": "a1-patch@example.com" }]).to_string();
        let reply = app.send("PATCH", "/v1/users", Some(&app.admin_token), &[], Some(("application/json-patch+json", labelled_patch)));
        assert_eq!(reply.status, 200, "{}", reply.text);
        assert_eq!(app.get("/v1/users/2").json()["email"], "a1-patch@example.com");
        let back = json!([{ "id": 2, "email": "a1@example.com" }]).to_string();
        let reply = app.send("PATCH", "/v1/users", Some(&app.admin_token), &[], Some(("text/plain", back.clone())));
        reply.assert_problem(415);
        let reply = app.send("PATCH", "/v1/users", Some(&app.admin_token), &[], Some(("application/json", back)));
        assert_eq!(reply.status, 200, "{}", reply.text);
        let bad = json!([{ "id": 2, "email": "changed@example.com" }, { "id": 99, "active": false }]).to_string();
        let reply = app.send("PATCH", "/v1/users", Some(&app.admin_token), &[], Some(("application/json", bad)));
        let problem = reply.assert_problem(404);
        assert!(problem["detail"].as_str().expect("detail").starts_with("element [1]: "), "{problem}");
        assert_eq!(app.get("/v1/users/2").json()["email"], "a1@example.com", "nothing changed");
        let invalid = json!([{ "id": 2, "email": "fine@example.com" }, { "id": 3, "email": "not an address" }]).to_string();
        let reply = app.send("PATCH", "/v1/users", Some(&app.admin_token), &[], Some(("application/json", invalid)));
        reply.assert_problem(400);
        assert_eq!(reply.error_fields(), vec!["[1].email"]);
        assert_eq!(app.get("/v1/users/2").json()["email"], "a1@example.com", "nothing changed");
        // An element that changes nothing keeps its record's version and writes no audit event;
        // the others in the same body are written.
        let events = |app: &TestApp, id: u8| app.head(&format!("/v1/audit-events?resource=users&recordId={id}")).header("x-total-count").map(str::to_owned);
        let (tag_2, events_2, events_3) = (app.get("/v1/users/2").header("etag").map(str::to_owned), events(&app, 2), events(&app, 3));
        let same_and_changed = json!([{ "id": 2, "email": "a1@example.com" }, { "id": 3, "active": true }]).to_string();
        let reply = app.send("PATCH", "/v1/users", Some(&app.admin_token), &[], Some(("application/json", same_and_changed)));
        assert_eq!(reply.status, 200, "{}", reply.text);
        assert_eq!(reply.json()[0]["email"], "a1@example.com");
        assert_eq!(reply.json()[1]["active"], true);
        assert_eq!(app.get("/v1/users/2").header("etag").map(str::to_owned), tag_2, "the version stays");
        assert_eq!(events(&app, 2), events_2, "no audit event for what changed nothing");
        assert_ne!(events(&app, 3), events_3, "the change beside it is recorded");
        // Still checked as a write: setting a password is a change even though no member shows it.
        let password = json!([{ "id": 2, "password": "another-long-pass" }]).to_string();
        let reply = app.send("PATCH", "/v1/users", Some(&app.admin_token), &[], Some(("application/json", password)));
        assert_eq!(reply.status, 200, "{}", reply.text);
        assert_ne!(app.get("/v1/users/2").header("etag").map(str::to_owned), tag_2);
        app.login("a1", "another-long-pass");
        // A record named twice is refused, naming the second, and nothing is written; an id
        // that is not an integer is said to be one, not to be missing.
        let tag_2 = app.get("/v1/users/2").header("etag").map(str::to_owned);
        let twice = json!([{ "id": 2, "email": "x@example.com" }, { "id": 2, "email": "y@example.com" }]).to_string();
        let reply = app.send("PATCH", "/v1/users", Some(&app.admin_token), &[], Some(("application/json", twice)));
        assert_eq!(reply.error_fields(), vec!["[1].id"], "{}", reply.text);
        assert_eq!(app.get("/v1/users/2").header("etag").map(str::to_owned), tag_2);
        for id in [json!("2"), json!(2.5), json!(0)] {
            let body = json!([{ "id": id, "email": "x@example.com" }]).to_string();
            let problem = app.send("PATCH", "/v1/users", Some(&app.admin_token), &[], Some(("application/json", body))).assert_problem(400);
            assert_eq!(problem["errors"][0]["field"], "[0].id", "{problem}");
            assert!(problem["errors"][0]["message"].as_str().expect("message").starts_with("must be an integer"), "{problem}");
        }
    }

    fn a_patch_that_changes_nothing_once_normalised_keeps_the_version(app) {
        let owner = app.create("/v1/contract-owners", json!({ "name": "A" }));
        let other = app.create("/v1/contract-owners", json!({ "name": "B" }));
        let user = app.create("/v1/users", json!({ "username": "scoped", "password": "long-enough-pass",
            "roles": ["BILLING_MANAGER", "READ_ONLY"], "contractOwnerIds": [owner["id"], other["id"]] }));
        let path = format!("/v1/users/{}", user["id"]);
        let events = || app.head(&format!("/v1/audit-events?resource=users&recordId={}", user["id"])).header("x-total-count").map(str::to_owned);
        let (tag, audited) = (app.get(&path).header("etag").map(str::to_owned), events());
        // A role or an owner added again, the same ids in another order, a password given and
        // taken back: each is stored as it was, so nothing is written.
        for operations in [
            json!([{ "op": "add", "path": "/roles/-", "value": "READ_ONLY" }]),
            json!([{ "op": "add", "path": "/contractOwnerIds/-", "value": owner["id"] }]),
            json!([{ "op": "replace", "path": "/contractOwnerIds", "value": [other["id"], owner["id"]] }]),
            json!([{ "op": "move", "from": "/roles/0", "path": "/roles/-" }]),
            json!([{ "op": "add", "path": "/password", "value": "a-new-long-password" }, { "op": "remove", "path": "/password" }]),
        ] {
            let reply = app.patch(&path, operations.clone());
            assert_eq!(reply.status, 200, "{operations}: {}", reply.text);
            assert_eq!(reply.header("etag").map(str::to_owned), tag, "{operations}");
        }
        assert_eq!(app.get(&path).header("etag").map(str::to_owned), tag);
        assert_eq!(events(), audited, "no audit event");
        app.login("scoped", "long-enough-pass");
        // A real change still is one.
        let reply = app.patch(&path, json!([{ "op": "remove", "path": "/roles/1" }]));
        assert_eq!(reply.status, 200, "{}", reply.text);
        assert_ne!(reply.header("etag").map(str::to_owned), tag);
        assert_ne!(events(), audited);
    }

    fn the_last_administrator_cannot_be_removed(app) {
        let reply = app.patch("/v1/users/1", json!([{ "op": "replace", "path": "/roles", "value": ["READ_ONLY"] }]));
        reply.assert_problem(409);
        let reply = app.patch("/v1/users/1", json!([{ "op": "replace", "path": "/active", "value": false }]));
        reply.assert_problem(409);
        assert_eq!(app.get("/v1/users/1").json()["roles"], json!(["ADMINISTRATOR"]));
    }

    fn a_password_change_takes_effect(app) {
        app.create("/v1/users", json!({ "username": "pat", "password": "first-password-1", "roles": ["READ_ONLY"] }));
        let reply = app.patch("/v1/users/2", json!([{ "op": "add", "path": "/password", "value": "second-password-2" }]));
        assert_eq!(reply.status, 200, "{}", reply.text);
        app.login("pat", "second-password-2");
        // `replace` sets it as `add` does (the member is write-only: never in the record).
        let reply = app.patch("/v1/users/2", json!([{ "op": "replace", "path": "/password", "value": "third-password-3" }]));
        assert_eq!(reply.status, 200, "{}", reply.text);
        assert!(reply.json().get("password").is_none());
        app.login("pat", "third-password-3");
        // It is never read: not copied or moved out into a member that is (nothing written).
        for op in ["copy", "move"] {
            let reply = app.patch("/v1/users/2", json!([
                { "op": "add", "path": "/password", "value": "leak-me@example.com" },
                { "op": op, "from": "/password", "path": "/email" }
            ]));
            assert_eq!(reply.error_fields(), vec!["[1].from"], "{op}: {}", reply.text);
        }
        assert_eq!(app.get("/v1/users/2").json()["email"], serde_json::Value::Null);
        app.login("pat", "third-password-3");
    }

    fn only_administrators_manage_users(app) {
        let token = app.user_with_roles("manager", &["BILLING_MANAGER"]);
        app.get_as(&token, "/v1/users?page=1&pageSize=10").assert_problem(403);
        app.post_as(&token, "/v1/users", json!({ "username": "x", "password": "long-enough-pass", "roles": ["ADMINISTRATOR"] })).assert_problem(403);
    }

    fn a_roles_filter_finds_every_user_holding_the_role(app) {
        for (name, roles) in [("both", json!(["READ_ONLY", "CUSTOMER_MANAGER"])), ("reader", json!(["READ_ONLY"])), ("billing", json!(["BILLING_MANAGER"]))] {
            let created = app.post("/v1/users", json!({ "username": name, "password": "a-long-enough-password", "roles": roles }));
            assert_eq!(created.status, 201, "{}", created.text);
        }
        let names = |query: &str| -> Vec<String> {
            let reply = app.get(&format!("/v1/users?page=1&pageSize=10&sort=username&{query}"));
            assert_eq!(reply.status, 200, "{query}: {}", reply.text);
            reply.json().as_array().expect("a page").iter().map(|user| user["username"].as_str().expect("username").to_owned()).collect()
        };
        assert_eq!(names("roles=READ_ONLY"), ["both", "reader"]);
        assert_eq!(names("roles=CUSTOMER_MANAGER"), ["both"]);
        assert_eq!(names("roles=in:ADMINISTRATOR,READ_ONLY"), ["admin", "both", "reader"]);
        assert_eq!(names("roles=like:manager"), ["billing", "both"]);
        assert_eq!(names("roles=like:%2C"), Vec::<String>::new(), "the separator is not a role");
        assert_eq!(app.head("/v1/users?roles=CUSTOMER_MANAGER").header("x-total-count"), Some("1"));
        // A code outside the set, or the joined text, is not a role.
        for bad in ["roles=REVIEWER", "roles=CUSTOMER_MANAGER,READ_ONLY"] {
            app.get(&format!("/v1/users?page=1&pageSize=10&{bad}")).assert_problem(400);
        }
    }

    fn user_roles_lists_the_built_in_roles(app) {
        let token = app.user_with_roles("reader", &["READ_ONLY"]);
        let reply = app.get_as(&token, "/v1/user-roles?page=1&pageSize=10");
        assert_eq!(reply.status, 200);
        assert_eq!(reply.header("x-total-count"), Some("5"));
        let codes: Vec<String> = reply.json().as_array().expect("array").iter().map(|r| r["code"].as_str().unwrap_or_default().to_owned()).collect();
        assert_eq!(codes, ["ADMINISTRATOR", "BILLING_MANAGER", "REFERENCE_DATA_MANAGER", "CUSTOMER_MANAGER", "READ_ONLY"]);
        insta::assert_json_snapshot!(crate::support::plain(&reply.json()[2]), @r#"
        {
          "code": "REFERENCE_DATA_MANAGER",
          "name": "Reference data manager",
          "description": "Writes reference data; reads customers and sites (not users or the audit trail).",
          "permissions": [
            "REFERENCE_DATA_READ",
            "REFERENCE_DATA_WRITE",
            "CUSTOMERS_READ",
            "API_KEYS_MANAGE_OWN"
          ]
        }
        "#);
        app.send("POST", "/v1/user-roles", Some(&app.admin_token), &[], Some(("application/json", "{}".into()))).assert_problem(405);
    }

    fn user_roles_follow_the_list_conventions(app) {
        // Paging is required, as on every collection; unknown parameters are refused.
        assert_eq!(app.get("/v1/user-roles?page=1").error_fields(), vec!["pageSize"]);
        assert_eq!(app.get("/v1/user-roles").error_fields(), vec!["page", "pageSize"]);
        assert_eq!(app.get("/v1/user-roles?page=1&pageSize=5&colour=red").error_fields(), vec!["colour"]);
        let page = app.get("/v1/user-roles?page=2&pageSize=2&sort=code:desc&fields=code");
        assert_eq!(page.status, 200, "{}", page.text);
        assert_eq!(page.json(), json!([{ "code": "CUSTOMER_MANAGER" }, { "code": "BILLING_MANAGER" }]));
        assert_eq!(page.header("x-total-count"), Some("5"));
        let link = page.header("link").expect("a Link header");
        assert!(link.contains("rel=\"next\"") && link.contains("rel=\"prev\""), "{link}");
        let filtered = app.get("/v1/user-roles?page=1&pageSize=10&name=like:MANAGER&sort=name");
        let names: Vec<String> = filtered.json().as_array().expect("array").iter().map(|r| r["name"].as_str().unwrap_or_default().to_owned()).collect();
        assert_eq!(names, ["Billing manager", "Customer manager", "Reference data manager"]);
        assert_eq!(app.get("/v1/user-roles?page=1&pageSize=10&code=in:READ_ONLY,ADMINISTRATOR").header("x-total-count"), Some("2"));
        assert_eq!(app.head("/v1/user-roles?code=READ_ONLY").status, 200);
        assert_eq!(app.head("/v1/user-roles?code=NOBODY").status, 404);
        assert_eq!(app.head("/v1/user-roles?code=NOBODY").header("x-total-count"), Some("0"));
        // Roles are keyed by code: there is no item route.
        assert_eq!(app.get("/v1/user-roles/1").status, 404);
        // Past the last page: an empty page and the total.
        let past = app.get("/v1/user-roles?page=9&pageSize=10");
        assert_eq!(past.json(), json!([]));
        assert_eq!(past.header("x-total-count"), Some("5"));
    }
}

api_test! {
    fn contract_owner_ids_name_existing_contract_owners(app) {
        let user = |owners: serde_json::Value| json!({
            "username": "scoped", "password": "correct horse battery", "roles": ["CUSTOMER_MANAGER"], "contractOwnerIds": owners
        });
        let unknown = app.post("/v1/users", user(json!([7])));
        assert_eq!(unknown.error_fields(), vec!["contractOwnerIds[0]"]);
        assert!(unknown.text.contains("contract owner 7 does not exist"), "{}", unknown.text);
        let owner = app.create("/v1/contract-owners", json!({ "name": "Acme" }));
        let created = app.create("/v1/users", user(json!([owner["id"]])));
        assert_eq!(created["contractOwnerIds"], json!([owner["id"]]));
        let path = format!("/v1/users/{}", created["id"]);
        let added = app.patch(&path, json!([{ "op": "add", "path": "/contractOwnerIds/-", "value": 99 }]));
        assert_eq!(added.error_fields(), vec!["contractOwnerIds[1]"]);
        assert_eq!(app.get(&path).json()["contractOwnerIds"], json!([owner["id"]]));
        // A contract owner a user is restricted to cannot be deleted.
        app.delete(&format!("/v1/contract-owners/{}", owner["id"])).assert_problem(409);
        assert_eq!(app.patch(&path, json!([{ "op": "replace", "path": "/contractOwnerIds", "value": [] }])).status, 200);
        assert_eq!(app.delete(&format!("/v1/contract-owners/{}", owner["id"])).status, 204);
    }
}
