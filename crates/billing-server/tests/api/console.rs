//! The operator console (docs/console.md) as the real server serves it: the page with its
//! security headers, and `/console/session`, which tells the page what the signed-in user may
//! do (`crates/billing-http/tests/console.rs` snapshots the header set; `cargo xtask console`
//! drives the page in headless Chromium).

use serde_json::json;

api_test! {
    fn the_console_page_is_served_with_a_strict_policy(app) {
        let page = app.get("/console");
        assert_eq!(page.status, 200);
        assert_eq!(page.header("content-type"), Some("text/html; charset=utf-8"));
        assert_eq!(page.header("cache-control"), Some("no-store"));
        let policy = page.header("content-security-policy").expect("policy");
        assert!(policy.contains("script-src 'self'") && policy.contains("frame-ancestors 'none'"), "{policy}");
        assert!(page.text.contains("/console/assets/app.js"));
        let script = app.get("/console/assets/api.js");
        assert_eq!(script.header("content-type"), Some("text/javascript; charset=utf-8"));
        assert!(!script.text.contains("localStorage.setItem"), "tokens are never stored");
        app.get("/console/nothing-here").assert_problem(404);
    }

    fn the_session_reports_the_callers_roles_permissions_and_contract_owners(app) {
        let session = app.get("/console/session");
        assert_eq!(session.status, 200, "{}", session.text);
        assert_eq!(session.header("cache-control"), Some("no-store"));
        let admin = session.json();
        assert_eq!(admin["username"], "admin");
        assert_eq!(admin["roles"], json!(["ADMINISTRATOR"]));
        assert_eq!(admin["contractOwnerIds"], json!([]));
        assert_eq!(admin["apiKey"], false);
        for permission in ["USERS_MANAGE", "AUDIT_READ", "CUSTOMERS_WRITE", "REFERENCE_DATA_SOURCES_MANAGE"] {
            assert!(admin["permissions"].as_array().expect("permissions").contains(&json!(permission)), "{admin}");
        }

        let reader = app.user_with_roles("reader", &["READ_ONLY"]);
        let session = app.get_as(&reader, "/console/session").json();
        assert_eq!(session["roles"], json!(["READ_ONLY"]));
        assert_eq!(session["permissions"], json!(["REFERENCE_DATA_READ", "CUSTOMERS_READ", "API_KEYS_MANAGE_OWN"]));

        // A user limited to a contract owner: the page learns the limit from the same answer.
        let owner = app.create("/v1/contract-owners", json!({ "name": "Acme" }));
        let limited = app.post("/v1/users", json!({
            "username": "limited", "password": "a-long-enough-password",
            "roles": ["CUSTOMER_MANAGER"], "contractOwnerIds": [owner["id"]],
        }));
        assert_eq!(limited.status, 201, "{}", limited.text);
        let token = app.login("limited", "a-long-enough-password");
        let session = app.get_as(&token, "/console/session").json();
        assert_eq!(session["contractOwnerIds"], json!([owner["id"]]));
        assert!(!session["permissions"].as_array().expect("permissions").contains(&json!("USERS_MANAGE")));

        // No token, or a token of a deactivated user: 401, as for any API call.
        app.send("GET", "/console/session", None, &[], None).assert_problem(401);
        let user = app.get("/v1/users?page=1&pageSize=1&username=limited").json()[0]["id"].clone();
        let deactivated = app.patch(&format!("/v1/users/{user}"), json!([{ "op": "replace", "path": "/active", "value": false }]));
        assert_eq!(deactivated.status, 200, "{}", deactivated.text);
        app.get_as(&token, "/console/session").assert_problem(401);
    }
}
