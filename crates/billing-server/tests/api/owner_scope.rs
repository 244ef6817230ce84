//! The contract-owner scope (docs/api.md "Contract-owner scope") on the records shared between
//! owners and those that name other owners' records, kept fixed since hostile testing found side
//! doors (issue 19): a restricted user changes only what is wholly theirs, and a refusal names
//! no other owner's record.

use serde_json::{Value, json};

use crate::sites::{create_site, customer_of, site_body, world};
use crate::support::TestApp;

fn id(value: &Value) -> i64 {
    value["id"].as_i64().expect("id")
}

/// A user of `roles` limited to `owners`, signed in.
pub(crate) fn restricted(app: &TestApp, name: &str, roles: &[&str], owners: &[i64]) -> String {
    let reply = app.post(
        "/v1/users",
        json!({ "username": name, "password": "a-long-enough-password", "roles": roles, "contractOwnerIds": owners }),
    );
    assert_eq!(reply.status, 201, "{}", reply.text);
    app.login(name, "a-long-enough-password")
}

api_test! {
    fn a_restricted_user_is_counted_exactly_whatever_count_it_prefers(app) {
        // The planner's estimate is drawn from every owner's rows: a restricted user asking
        // for it gets the exact count of what they see, and is told so.
        let w = world(&app);
        let rival_owner = id(&app.create("/v1/contract-owners", json!({ "name": "Rival" })));
        for n in 0..12 {
            customer_of(&app, w.owner, w.cycle, &format!("Other {n}"));
        }
        customer_of(&app, rival_owner, w.cycle, "Rival customer 1");
        customer_of(&app, rival_owner, w.cycle, "Rival customer 2");
        let token = restricted(&app, "rival", &["READ_ONLY"], &[rival_owner]);
        for prefer in ["count=planned", "count=estimated"] {
            for method in ["GET", "HEAD"] {
                let reply = app.send(method, "/v1/customers?page=1&pageSize=1", Some(&token), &[("Prefer", prefer)], None);
                assert_eq!(reply.status, 200, "{prefer} {method}: {}", reply.text);
                assert_eq!(reply.header("x-total-count"), Some("2"), "{prefer} {method}");
                assert_eq!(reply.header("preference-applied"), Some("count=exact"), "{prefer} {method}");
            }
        }
    }

    fn a_restricted_user_cannot_change_a_mandate_or_field_another_owners_sites_use(app) {
        let w = world(&app);
        let rival_owner = id(&app.create("/v1/contract-owners", json!({ "name": "Rival" })));
        // Owner w's site names mandate MB-1 and holds a value of field w.field.
        let mut body = site_body(&w, "Theirs");
        body["siteInvoiceDetails"]["paymentMethod"] = json!("PROVIDER_B");
        body["siteInvoiceDetails"]["mandateReference"] = json!("MB-1");
        body["assignedCustomFields"] = json!([{ "customFieldDefinitionId": w.field, "value": "CC-1" }]);
        create_site(&app, body);
        let mandates = app.get("/v1/payment-provider-mandates?page=1&pageSize=10&mandateReference=MB-1").json();
        let used = format!("/v1/payment-provider-mandates/{}", mandates[0]["id"]);
        let unused = app.create("/v1/payment-provider-mandates", json!({ "provider": "PROVIDER_C", "mandateReference": "MC-9", "status": "active", "thirdPartyCustomerReference": "TP-9" }));
        let spare = app.create("/v1/custom-field-definitions", json!({ "label": "Spare" }));
        let token = restricted(&app, "rival", &["CUSTOMER_MANAGER", "BILLING_MANAGER"], &[rival_owner]);
        let status = json!([{ "op": "replace", "path": "/status", "value": "Cancelled" }]);
        let label = json!([{ "op": "replace", "path": "/label", "value": "Taken" }]);
        // Refused without naming the other owner's site.
        let refused = app.patch_as(&token, &used, status.clone()).assert_problem(403);
        assert!(refused["detail"].as_str().expect("detail").contains("named by a site of a contract owner you are not allowed to see"), "{refused}");
        app.json_as(&token, "DELETE", &used, None).assert_problem(403);
        app.patch_as(&token, &format!("/v1/custom-field-definitions/{}", w.field), label.clone()).assert_problem(403);
        assert_eq!(app.get(&used).json()["status"], "Active", "nothing changed");
        // What no other owner's site uses, they may change; an unrestricted user changes all.
        assert_eq!(app.patch_as(&token, &format!("/v1/payment-provider-mandates/{}", unused["id"]), status.clone()).status, 200);
        assert_eq!(app.patch_as(&token, &format!("/v1/custom-field-definitions/{}", spare["id"]), label.clone()).status, 200);
        assert_eq!(app.patch(&used, json!([{ "op": "replace", "path": "/status", "value": "Active" }])).status, 200);
    }

    fn a_restricted_user_cannot_change_or_remove_a_run_of_another_owners_sites(app) {
        let w = world(&app);
        let rival_owner = id(&app.create("/v1/contract-owners", json!({ "name": "Rival" })));
        let rival = customer_of(&app, rival_owner, w.cycle, "Rival customer");
        let mine = create_site(&app, site_body(&w, "Mine"));
        let mut theirs_body = site_body(&w, "Theirs");
        theirs_body["customerId"] = json!(rival);
        let theirs = create_site(&app, theirs_body);
        let theirs_only = app.create("/v1/adhoc-bill-runs", json!({ "name": "Theirs", "siteIds": [theirs["id"]] }));
        let mixed = app.create("/v1/adhoc-bill-runs", json!({ "name": "Mixed", "siteIds": [mine["id"], theirs["id"]] }));
        let my_run = app.create("/v1/adhoc-bill-runs", json!({ "name": "Mine", "siteIds": [mine["id"]] }));
        let token = restricted(&app, "limited", &["BILLING_MANAGER"], &[w.owner]);
        for run in [&theirs_only, &mixed] {
            let path = format!("/v1/adhoc-bill-runs/{}", run["id"]);
            let before = app.get(&path).json();
            app.patch_as(&token, &path, json!([{ "op": "replace", "path": "/siteIds", "value": [mine["id"]] }])).assert_problem(403);
            // A patch that changes nothing is still checked as a write.
            app.patch_as(&token, &path, json!([])).assert_problem(403);
            app.json_as(&token, "PUT", &path, Some(json!({ "name": "Taken", "siteIds": [mine["id"]] }))).assert_problem(403);
            app.json_as(&token, "DELETE", &path, None).assert_problem(403);
            let bulk = app.json_as(&token, "PATCH", "/v1/adhoc-bill-runs", Some(json!([{ "id": run["id"], "name": "Bulk" }])));
            if bulk.status != 405 {
                bulk.assert_problem(403);
            }
            assert_eq!(app.get(&path).json(), before, "the refused writes changed nothing");
        }
        // Their own run they may change and remove; naming another owner's site is still 403.
        let path = format!("/v1/adhoc-bill-runs/{}", my_run["id"]);
        app.patch_as(&token, &path, json!([{ "op": "add", "path": "/siteIds/-", "value": theirs["id"] }])).assert_problem(403);
        assert_eq!(app.patch_as(&token, &path, json!([{ "op": "replace", "path": "/name", "value": "Still mine" }])).status, 200);
        assert_eq!(app.json_as(&token, "DELETE", &path, None).status, 204);
        // An unrestricted user may do all of it.
        assert_eq!(app.delete(&format!("/v1/adhoc-bill-runs/{}", theirs_only["id"])).status, 204);
    }

    fn a_restricted_user_changes_only_their_own_contract_owners(app) {
        let mine = id(&app.create("/v1/contract-owners", json!({ "name": "Mine" })));
        let theirs = id(&app.create("/v1/contract-owners", json!({ "name": "Theirs" })));
        let token = restricted(&app, "limited", &["BILLING_MANAGER"], &[mine]);
        // Every owner can be read ...
        assert_eq!(app.get_as(&token, &format!("/v1/contract-owners/{theirs}")).status, 200);
        // ... but only their own changed; none created or removed.
        app.patch_as(&token, &format!("/v1/contract-owners/{theirs}"), json!([{ "op": "replace", "path": "/name", "value": "Mine now" }])).assert_problem(403);
        app.json_as(&token, "DELETE", &format!("/v1/contract-owners/{theirs}"), None).assert_problem(403);
        app.json_as(&token, "POST", "/v1/contract-owners", Some(json!({ "name": "New" }))).assert_problem(403);
        assert_eq!(app.get(&format!("/v1/contract-owners/{theirs}")).json()["name"], "Theirs");
        assert_eq!(app.patch_as(&token, &format!("/v1/contract-owners/{mine}"), json!([{ "op": "replace", "path": "/name", "value": "Mine, renamed" }])).status, 200);
        assert_eq!(app.head("/v1/contract-owners").header("x-total-count"), Some("2"));
    }

    fn an_administrator_cannot_be_limited_to_contract_owners(app) {
        let owner = id(&app.create("/v1/contract-owners", json!({ "name": "Owner" })));
        let refused = app.post("/v1/users", json!({ "username": "boss", "password": "a-long-enough-password",
            "roles": ["ADMINISTRATOR"], "contractOwnerIds": [owner] }));
        refused.assert_problem(400);
        assert_eq!(refused.error_fields(), vec!["contractOwnerIds"]);
        let admin = app.get("/v1/users?page=1&pageSize=1&username=admin").json()[0]["id"].clone();
        let refused = app.patch(&format!("/v1/users/{admin}"), json!([{ "op": "add", "path": "/contractOwnerIds/-", "value": owner }]));
        assert_eq!(refused.error_fields(), vec!["contractOwnerIds"]);
        // Limited users of other roles are fine; giving one ADMINISTRATOR keeps the rule.
        let user = app.create("/v1/users", json!({ "username": "ops", "password": "a-long-enough-password",
            "roles": ["BILLING_MANAGER"], "contractOwnerIds": [owner] }));
        let promoted = app.patch(&format!("/v1/users/{}", user["id"]), json!([{ "op": "add", "path": "/roles/-", "value": "ADMINISTRATOR" }]));
        assert_eq!(promoted.error_fields(), vec!["contractOwnerIds"]);
        let promoted = app.patch(&format!("/v1/users/{}", user["id"]), json!([
            { "op": "add", "path": "/roles/-", "value": "ADMINISTRATOR" },
            { "op": "replace", "path": "/contractOwnerIds", "value": [] }
        ]));
        assert_eq!(promoted.status, 200, "{}", promoted.text);
    }
}

api_test! {
    fn a_replayed_create_is_refused_once_its_owner_is_outside_the_callers_scope(app) {
        let w = world(&app);
        let rival_owner = id(&app.create("/v1/contract-owners", json!({ "name": "Rival" })));
        let token = restricted(&app, "narrowed", &["CUSTOMER_MANAGER"], &[w.owner]);
        let body = json!({ "customerName": "Theirs later", "customerReference": "C-9", "contractOwnerId": w.owner,
            "billingCycleId": w.cycle, "startDate": "2026-01-01" });
        let send = || app.send("POST", "/v1/customers", Some(&token), &[("Idempotency-Key", "replay-1")], Some(("application/json", body.to_string())));
        let created = send();
        assert_eq!(created.status, 201, "{}", created.text);
        let replayed = send();
        assert_eq!((replayed.status, replayed.header("idempotent-replayed")), (201, Some("true")), "{}", replayed.text);
        // The user's scope moves to another owner: the record the key made is no longer theirs.
        let user = app.get("/v1/users?page=1&pageSize=1&username=narrowed").json()[0]["id"].clone();
        let moved = app.patch(&format!("/v1/users/{user}"), json!([{ "op": "replace", "path": "/contractOwnerIds", "value": [rival_owner] }]));
        assert_eq!(moved.status, 200, "{}", moved.text);
        let refused = send().assert_problem(403);
        assert!(!refused.to_string().contains("Theirs later"), "the refusal shows nothing of the record: {refused}");
    }

    fn a_replayed_create_is_refused_once_a_site_it_created_moved_to_another_owner(app) {
        let w = world(&app);
        let rival_owner = id(&app.create("/v1/contract-owners", json!({ "name": "Rival" })));
        let rival = crate::sites::customer_of(&app, rival_owner, w.cycle, "Rival customer");
        let token = restricted(&app, "embedder", &["CUSTOMER_MANAGER"], &[w.owner]);
        let mut site = site_body(&w, "Embedded");
        site["customerId"] = json!(0);
        let body = json!({ "customerName": "With a site", "customerReference": "C-8", "contractOwnerId": w.owner,
            "billingCycleId": w.cycle, "startDate": "2026-01-01", "sites": [site] });
        let send = || app.send("POST", "/v1/customers", Some(&token), &[("Idempotency-Key", "embedded-1")], Some(("application/json", body.to_string())));
        let created = send();
        assert_eq!(created.status, 201, "{}", created.text);
        let site_id = created.json()["sites"][0]["id"].clone();
        // The customer stays theirs; the site it created moves to another owner's customer.
        let moved = app.patch(&format!("/v1/sites/{site_id}"), json!([{ "op": "replace", "path": "/customerId", "value": rival }]));
        assert_eq!(moved.status, 200, "{}", moved.text);
        send().assert_problem(403);
    }
}
