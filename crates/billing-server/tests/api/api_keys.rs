//! `/v1/api-keys`: long-lived keys for machine clients, used as bearer credentials.

use serde_json::{Value, json};

use crate::support::{Reply, TestApp};

fn create_key(app: &TestApp, token: &str, body: Value) -> Reply {
    app.post_as(token, "/v1/api-keys", body)
}

#[track_caller]
fn new_key(app: &TestApp, token: &str, body: Value) -> (i64, String) {
    let reply = create_key(app, token, body);
    assert_eq!(reply.status, 201, "{}", reply.text);
    let created = reply.json();
    (
        created["id"].as_i64().expect("id"),
        created["key"].as_str().expect("key").to_owned(),
    )
}

fn user_id(app: &TestApp, username: &str) -> i64 {
    app.get(&format!("/v1/users?page=1&pageSize=10&username={username}"))
        .json()[0]["id"]
        .as_i64()
        .expect("id")
}

const CATEGORY: &str = "/v1/charge-group-categories";

fn category(name: &str) -> Value {
    json!({ "name": name, "chargingUnitType": "MB", "startDate": "2026-01-01" })
}

api_test! {
    fn the_key_is_shown_once_and_stored_only_hashed(app) {
        let token = app.user_with_roles("script-owner", &["REFERENCE_DATA_MANAGER", "READ_ONLY"]);
        let reply = create_key(&app, &token, json!({ "name": "nightly import" }));
        assert_eq!(reply.status, 201, "{}", reply.text);
        let created = reply.json();
        let key = created["key"].as_str().expect("key").to_owned();
        assert!(key.starts_with("bk_") && key.len() == 46, "{key}");
        assert_eq!(created["keyPrefix"].as_str(), Some(&key[..11]));
        let location = reply.header("location").expect("Location").to_owned();
        insta::assert_json_snapshot!(crate::support::plain(&created), {
            ".id" => "[id]", ".userId" => "[id]", ".keyPrefix" => "[prefix]", ".key" => "[key]", ".createdDate" => "[date]"
        }, @r#"
        {
          "id": "[id]",
          "userId": "[id]",
          "name": "nightly import",
          "keyPrefix": "[prefix]",
          "roles": [
            "REFERENCE_DATA_MANAGER",
            "READ_ONLY"
          ],
          "createdDate": "[date]",
          "lastUsedAt": null,
          "key": "[key]"
        }
        "#);
        // Never again: not in a read, a list, the audit trail, or the database.
        let read = app.get_as(&token, &location);
        assert_eq!(read.status, 200);
        assert!(read.json().get("key").is_none() && !read.text.contains(&key));
        let list = app.get_as(&token, "/v1/api-keys?page=1&pageSize=10");
        assert_eq!(list.header("x-total-count"), Some("1"));
        assert!(!list.text.contains(&key[11..]));
        let audit = app.get("/v1/audit-events?page=1&pageSize=10&resource=api-keys");
        assert_eq!(audit.header("x-total-count"), Some("1"));
        assert!(!audit.text.contains(&key[11..]), "{}", audit.text);
        let database = app.open_database();
        let stored: Vec<(String, String)> = database
            .read(|c| {
                use billing_persistence::schema::api_keys;
                use diesel::prelude::*;
                api_keys::table
                    .select((api_keys::key_prefix, api_keys::key_hash))
                    .load(c)
                    .map_err(billing_persistence::PersistenceError::from)
            })
            .expect("read");
        assert_eq!(stored.len(), 1);
        assert_eq!(stored[0].0, &key[..11]);
        assert!(!stored[0].1.contains(&key[11..]), "the key is stored hashed");
        // An Idempotency-Key replay answers without the key, which is kept nowhere.
        let body = json!({ "name": "retried" }).to_string();
        let send = || app.send("POST", "/v1/api-keys", Some(&token), &[("Idempotency-Key", "k-1")], Some(("application/json", body.clone())));
        let first = send();
        assert_eq!(first.status, 201);
        let first_key = first.json()["key"].as_str().expect("key").to_owned();
        // The answer that holds the secret is kept by no cache; one without it may be.
        assert_eq!(first.header("cache-control"), Some("no-store"));
        let replay = send();
        assert_eq!(replay.header("cache-control"), None);
        assert_eq!(replay.header("idempotent-replayed"), Some("true"));
        assert!(replay.json().get("key").is_none(), "{}", replay.text);
        assert_eq!(replay.json()["id"], first.json()["id"]);
        assert!(!replay.text.contains(&first_key[11..]));
        // An administrator's key for another user is replayed only while they may still see it.
        let second_admin = app.user_with_roles("second-admin", &["ADMINISTRATOR"]);
        let other = app.get("/v1/users?page=1&pageSize=1&username=second-admin").json()[0]["id"].clone();
        let target = app.get("/v1/users?page=1&pageSize=1&username=admin").json()[0]["id"].clone();
        let for_other = json!({ "name": "for admin", "userId": target }).to_string();
        let send_for = || app.send("POST", "/v1/api-keys", Some(&second_admin), &[("Idempotency-Key", "k-other")], Some(("application/json", for_other.clone())));
        assert_eq!(send_for().status, 201);
        let demoted = app.patch(&format!("/v1/users/{other}"), json!([{ "op": "replace", "path": "/roles", "value": ["BILLING_MANAGER"] }]));
        assert_eq!(demoted.status, 200, "{}", demoted.text);
        send_for().assert_problem(404);
        // No list or read shows it, so `fields` cannot ask for it (it gave `[{}]`).
        let asked = app.get_as(&token, "/v1/api-keys?page=1&pageSize=10&fields=key");
        asked.assert_problem(400);
        assert_eq!(asked.error_fields(), vec!["fields"]);
        let listed = app.get_as(&token, "/v1/api-keys?page=1&pageSize=10&fields=name,keyPrefix").json();
        assert_eq!(listed[0].as_object().map(|row| row.len()), Some(2), "{listed}");
    }

    fn a_key_works_as_a_bearer_credential_with_its_roles(app) {
        let token = app.user_with_roles("builder", &["REFERENCE_DATA_MANAGER", "READ_ONLY"]);
        let (_, key) = new_key(&app, &token, json!({ "name": "writer" }));
        assert_eq!(app.post_as(&key, CATEGORY, category("By key")).status, 201);
        assert_eq!(app.get_as(&key, "/v1/currencies?page=1&pageSize=5").status, 200);
        // The write is the user's, in the audit trail.
        let audit = app.get("/v1/audit-events?page=1&pageSize=10&resource=charge-group-categories").json();
        assert_eq!(audit[0]["username"], "builder");
        // A read-only key of the same user can read but not write.
        let (_, reader) = new_key(&app, &token, json!({ "name": "reader", "roles": ["READ_ONLY"] }));
        assert_eq!(app.get_as(&reader, "/v1/currencies?page=1&pageSize=5").status, 200);
        app.post_as(&reader, CATEGORY, category("By reader")).assert_problem(403);
        // lastUsedAt is noted.
        let keys = app.get_as(&token, "/v1/api-keys?page=1&pageSize=10&name=writer").json();
        assert!(keys[0]["lastUsedAt"].is_string(), "{keys}");
        // A key that is not one: 401, never echoed.
        let forged = format!("bk_{}", "A".repeat(43));
        let reply = app.get_as(&forged, "/v1/currencies?page=1&pageSize=5");
        assert_eq!(reply.assert_problem(401)["detail"], "the API key is unknown or revoked");
        assert!(!reply.text.contains(&forged));
    }

    fn a_key_carries_a_subset_of_its_users_roles(app) {
        let token = app.user_with_roles("subset", &["REFERENCE_DATA_MANAGER", "CUSTOMER_MANAGER"]);
        let (_, narrow) = new_key(&app, &token, json!({ "name": "customers only", "roles": ["CUSTOMER_MANAGER"] }));
        app.post_as(&narrow, CATEGORY, category("Refused")).assert_problem(403);
        assert_eq!(app.post_as(&token, CATEGORY, category("Allowed")).status, 201);
        // More than the user holds: 400 naming roles.
        let reply = create_key(&app, &token, json!({ "name": "too much", "roles": ["ADMINISTRATOR"] }));
        reply.assert_problem(400);
        assert_eq!(reply.error_fields(), vec!["roles"]);
        let none = create_key(&app, &token, json!({ "name": "none", "roles": [] })).assert_problem(400);
        assert_eq!(none["errors"], json!([{ "field": "roles", "message": "must name at least one role (leave it out for all of the user's)" }]));
        let zero = create_key(&app, &token, json!({ "name": "nobody", "userId": 0 })).assert_problem(400);
        assert_eq!(zero["errors"], json!([{ "field": "userId", "message": "must be an integer >= 1" }]));
        create_key(&app, &token, json!({ "name": "odd", "roles": ["NOT_A_ROLE"] })).assert_problem(400);
        create_key(&app, &token, json!({ "roles": ["CUSTOMER_MANAGER"] })).assert_problem(400);
        // A name is text as every member's: no NUL (PostgreSQL refuses it), no control character.
        for name in ["a\u{0}b", "a\u{1}b", "a\u{202e}b"] {
            let reply = create_key(&app, &token, json!({ "name": name }));
            reply.assert_problem(400);
            assert_eq!(reply.error_fields(), vec!["name"], "{name:?}");
        }
        // A role the user loses is lost by the key too; one regained is back.
        let (_, wide) = new_key(&app, &token, json!({ "name": "both" }));
        assert_eq!(app.post_as(&wide, CATEGORY, category("Wide")).status, 201);
        let id = user_id(&app, "subset");
        assert_eq!(app.patch(&format!("/v1/users/{id}"), json!([{ "op": "replace", "path": "/roles", "value": ["CUSTOMER_MANAGER"] }])).status, 200);
        app.post_as(&wide, CATEGORY, category("Lost")).assert_problem(403);
        // Keys cannot make keys.
        create_key(&app, &wide, json!({ "name": "successor" })).assert_problem(403);
    }

    fn an_api_key_sets_no_password(app) {
        // With a password the key's holder could sign in and make keys that outlive the key:
        // a key may set none, its own user's, another user's, or a new user's.
        let admin_id = user_id(&app, "admin");
        let (_, key) = new_key(&app, &app.admin_token, json!({ "name": "automation" }));
        let own = format!("/v1/users/{admin_id}");
        let change = json!([{ "op": "replace", "path": "/password", "value": "taken-over-password" }]);
        let refused = app.send("PATCH", &own, Some(&key), &[], Some(("application/json-patch+json", change.to_string())));
        assert!(refused.assert_problem(403)["detail"].as_str().expect("detail").contains("API key"), "{}", refused.text);
        assert!(!app.login("admin", crate::support::ADMIN_PASSWORD).is_empty(), "the password is unchanged");
        let other = app.post("/v1/users", json!({ "username": "colleague", "password": "a-long-enough-password", "roles": ["READ_ONLY"] })).json();
        let reset = app.send("PATCH", &format!("/v1/users/{}", other["id"]), Some(&key), &[], Some(("application/json-patch+json", change.to_string())));
        reset.assert_problem(403);
        assert!(!app.login("colleague", "a-long-enough-password").is_empty(), "the colleague's password is unchanged");
        let created = app.send("POST", "/v1/users", Some(&key), &[], Some(("application/json",
            json!({ "username": "backdoor", "password": "a-long-enough-password", "roles": ["ADMINISTRATOR"] }).to_string())));
        created.assert_problem(403);
        assert_eq!(app.get("/v1/users?page=1&pageSize=10&username=backdoor").header("x-total-count"), Some("0"));
        // Its own user's other members, and other users' roles, it may change.
        let renamed = app.send("PATCH", &own, Some(&key), &[], Some(("application/json-patch+json",
            json!([{ "op": "replace", "path": "/email", "value": "ops@example.com" }]).to_string())));
        assert_eq!(renamed.status, 200, "{}", renamed.text);
        let promoted = app.send("PATCH", &format!("/v1/users/{}", other["id"]), Some(&key), &[], Some(("application/json-patch+json",
            json!([{ "op": "replace", "path": "/roles", "value": ["CUSTOMER_MANAGER"] }]).to_string())));
        assert_eq!(promoted.status, 200, "{}", promoted.text);
    }

    fn a_revoked_key_and_a_deactivated_users_key_are_refused(app) {
        let token = app.user_with_roles("revoker", &["READ_ONLY"]);
        let (id, key) = new_key(&app, &token, json!({ "name": "soon gone" }));
        let (_, other) = new_key(&app, &token, json!({ "name": "kept" }));
        assert_eq!(app.get_as(&key, "/v1/currencies?page=1&pageSize=5").status, 200);
        // A key cannot revoke keys, not even itself.
        assert_eq!(app.send("DELETE", &format!("/v1/api-keys/{id}"), Some(&key), &[], None).status, 403);
        assert_eq!(app.send("DELETE", &format!("/v1/api-keys/{id}"), Some(&token), &[], None).status, 204);
        let reply = app.get_as(&key, "/v1/currencies?page=1&pageSize=5");
        assert_eq!(reply.assert_problem(401)["detail"], "the API key is unknown or revoked");
        app.get_as(&token, &format!("/v1/api-keys/{id}")).assert_problem(404);
        assert_eq!(app.get_as(&other, "/v1/currencies?page=1&pageSize=5").status, 200);
        let audit = app.get(&format!("/v1/audit-events?page=1&pageSize=10&resource=api-keys&recordId={id}"));
        assert_eq!(audit.header("x-total-count"), Some("2"), "{}", audit.text);
        // The user deactivated: every key of theirs stops.
        let user = user_id(&app, "revoker");
        assert_eq!(app.patch(&format!("/v1/users/{user}"), json!([{ "op": "replace", "path": "/active", "value": false }])).status, 200);
        let reply = app.get_as(&other, "/v1/currencies?page=1&pageSize=5");
        assert_eq!(reply.assert_problem(401)["detail"], "the user account is inactive");
    }

    fn keys_are_private_to_their_user_except_to_administrators(app) {
        let alice = app.user_with_roles("alice", &["READ_ONLY"]);
        let bob = app.user_with_roles("bob", &["READ_ONLY"]);
        let (alice_key, _) = new_key(&app, &alice, json!({ "name": "alice's" }));
        let (bob_key, _) = new_key(&app, &bob, json!({ "name": "bob's" }));
        let listed = app.get_as(&bob, "/v1/api-keys?page=1&pageSize=10");
        assert_eq!(listed.header("x-total-count"), Some("1"));
        assert_eq!(listed.json()[0]["id"], bob_key);
        // Bob filtering on Alice's id still sees only his own (none of hers).
        let alice_id = user_id(&app, "alice");
        let filtered = app.get_as(&bob, &format!("/v1/api-keys?page=1&pageSize=10&userId={alice_id}"));
        assert_eq!(filtered.header("x-total-count"), Some("0"));
        app.get_as(&bob, &format!("/v1/api-keys/{alice_key}")).assert_problem(404);
        app.send("DELETE", &format!("/v1/api-keys/{alice_key}"), Some(&bob), &[], None).assert_problem(404);
        create_key(&app, &bob, json!({ "name": "for alice", "userId": alice_id })).assert_problem(403);
        // The administrator sees both, makes one for Alice (her roles at most) and revokes Bob's.
        let all = app.get("/v1/api-keys?page=1&pageSize=10&sort=id");
        assert_eq!(all.header("x-total-count"), Some("2"));
        let reply = app.post("/v1/api-keys", json!({ "name": "admin-made", "userId": alice_id, "roles": ["ADMINISTRATOR"] }));
        assert_eq!(reply.error_fields(), vec!["roles"]);
        let made = app.create("/v1/api-keys", json!({ "name": "admin-made", "userId": alice_id }));
        assert_eq!(made["userId"], alice_id);
        assert_eq!(made["roles"], json!(["READ_ONLY"]));
        assert_eq!(app.get_as(&alice, "/v1/api-keys?page=1&pageSize=10").header("x-total-count"), Some("2"));
        assert_eq!(app.delete(&format!("/v1/api-keys/{bob_key}")).status, 204);
        let reply = app.post("/v1/api-keys", json!({ "name": "ghost", "userId": 999 }));
        assert_eq!(reply.error_fields(), vec!["userId"]);
    }

    fn a_key_revoked_through_one_instance_is_refused_by_the_other_within_a_second(app) {
        let second = app.second_instance();
        let token = app.user_with_roles("far", &["READ_ONLY"]);
        let (id, key) = new_key(&app, &token, json!({ "name": "shared" }));
        assert_eq!(second.get_as(&key, "/v1/currencies?page=1&pageSize=5").status, 200);
        assert_eq!(app.send("DELETE", &format!("/v1/api-keys/{id}"), Some(&token), &[], None).status, 204);
        let started = std::time::Instant::now();
        loop {
            let reply = second.get_as(&key, "/v1/currencies?page=1&pageSize=5");
            if reply.status == 401 {
                break;
            }
            assert_eq!(reply.status, 200, "{}", reply.text);
            assert!(started.elapsed() < std::time::Duration::from_millis(1500), "still served after {:?}", started.elapsed());
            std::thread::sleep(std::time::Duration::from_millis(20));
        }
    }
}
