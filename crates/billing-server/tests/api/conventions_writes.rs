//! The shared conventions for writes (docs/api.md "Everywhere"): bodies, path ids, ETags and
//! If-Match, idempotency keys and JSON Patch, exercised through charge group categories.

use serde_json::{Value, json};

use crate::conventions::PATH;
use crate::support::TestApp;

api_test! {
    fn bodies_are_checked_before_anything_is_written(app) {
        let send = |content_type: &str, body: &str| app.send("POST", PATH, Some(&app.admin_token), &[], Some((content_type, body.to_owned())));
        send("text/plain", "{}").assert_problem(415);
        // JSON is UTF-8 only: a body labelled otherwise is not read as something it is not.
        let latin1 = send("application/json; charset=latin1", "{}").assert_problem(415);
        assert!(latin1["detail"].as_str().is_some_and(|detail| detail.contains("charset=latin1")), "{latin1}");
        send("application/json; charset=UTF-8", "{\"name\": ").assert_problem(400);
        send("application/json", "{\"name\": ").assert_problem(400);
        send("application/json", "[1, 2]").assert_problem(400);
        let reply = send("application/json", &json!({ "name": "X", "chargingUnitType": "MB", "startDate": "2026-01-01", "colour": "red" }).to_string());
        assert_eq!(reply.error_fields(), vec!["colour"]);
        let reply = send("application/json", &json!({ "id": 5, "name": "X", "chargingUnitType": "MB", "startDate": "2026-01-01" }).to_string());
        assert_eq!(reply.error_fields(), vec!["id"]);
        let reply = send("application/json", &json!({ "name": 12, "chargingUnitType": "MB", "startDate": "2026-01-01" }).to_string());
        assert_eq!(reply.error_fields(), vec!["name"]);
        let reply = send("application/json", &json!({ "name": "X", "chargingUnitType": "MB", "startDate": "01/02/2026" }).to_string());
        assert_eq!(reply.error_fields(), vec!["startDate"]);
        let reply = send("application/json", &json!({ "chargingUnitType": "MB" }).to_string());
        assert_eq!(reply.error_fields(), vec!["name", "startDate"]);
        let huge = json!({ "name": "x".repeat(70 * 1024), "chargingUnitType": "MB", "startDate": "2026-01-01" }).to_string();
        send("application/json", &huge).assert_problem(413);
        assert_eq!(app.get(&format!("{PATH}?page=1&pageSize=10")).header("x-total-count"), Some("0"));
    }

    fn text_rules_count_characters_and_refuse_markup(app) {
        let body = |name: String| json!({ "name": name, "chargingUnitType": "MB", "startDate": "2026-01-01" });
        assert_eq!(app.post(PATH, body("é".repeat(50))).status, 201);
        assert_eq!(app.post(PATH, body("é".repeat(51))).error_fields(), vec!["name"]);
        assert_eq!(app.post(PATH, body("<script>".into())).error_fields(), vec!["name"]);
        assert_eq!(app.post(PATH, body("bell\u{7}".into())).error_fields(), vec!["name"]);
        assert_eq!(app.post(PATH, body(String::new())).error_fields(), vec!["name"]);
    }

    fn path_ids_must_be_positive_integers(app) {
        for id in ["0", "-1", "abc", "1.5", "99999999999999999999"] {
            let reply = app.get(&format!("{PATH}/{id}"));
            reply.assert_problem(400);
            assert_eq!(reply.error_fields(), vec!["id"], "{id}");
        }
        app.get(&format!("{PATH}/999")).assert_problem(404);
        app.get(&format!("{PATH}/1?page=1")).assert_problem(400);
    }

    fn etag_and_if_match_guard_updates(app) {
        app.create(PATH, json!({ "name": "Calls", "chargingUnitType": "DURATION", "startDate": "2026-01-01" }));
        let read = app.get(&format!("{PATH}/1"));
        let etag = read.header("etag").expect("etag").to_owned();
        let body = json!({ "name": "Voice", "chargingUnitType": "DURATION", "startDate": "2026-01-01" }).to_string();
        let put = |tag: &str| app.send("PUT", &format!("{PATH}/1"), Some(&app.admin_token), &[("If-Match", tag)], Some(("application/json", body.clone())));
        let first = put(&etag);
        assert_eq!(first.status, 200, "{}", first.text);
        assert_ne!(first.header("etag"), Some(etag.as_str()));
        put(&etag).assert_problem(412);
        let ops = json!([{ "op": "replace", "path": "/name", "value": "Other" }]).to_string();
        let patch = app.send("PATCH", &format!("{PATH}/1"), Some(&app.admin_token), &[("If-Match", &etag)], Some(("application/json-patch+json", ops)));
        patch.assert_problem(412);
        app.send("DELETE", &format!("{PATH}/1"), Some(&app.admin_token), &[("If-Match", &etag)], None).assert_problem(412);
        app.send("DELETE", &format!("{PATH}/1"), Some(&app.admin_token), &[("If-Match", "garbage")], None).assert_problem(400);
        for malformed in ["\"1\" \"1\"", "\"1\"2\"", "\"a b\""] {
            let reply = app.send("DELETE", &format!("{PATH}/1"), Some(&app.admin_token), &[("If-Match", malformed)], None);
            assert_eq!(reply.error_fields(), vec!["If-Match"], "{malformed}: {}", reply.text);
        }
        assert_eq!(app.get(&format!("{PATH}/1")).json()["name"], "Voice");
        let current = app.get(&format!("{PATH}/1")).header("etag").expect("etag").to_owned();
        assert_eq!(app.send("DELETE", &format!("{PATH}/1"), Some(&app.admin_token), &[("If-Match", &current)], None).status, 204);
    }

    fn if_none_match_answers_304_to_a_current_copy_and_412_to_a_write(app) {
        app.create(PATH, json!({ "name": "Calls", "chargingUnitType": "DURATION", "startDate": "2026-01-01" }));
        let item = format!("{PATH}/1");
        let etag = app.get(&item).header("etag").expect("etag").to_owned();
        let get = |method: &str, tag: &str| app.send(method, &item, Some(&app.admin_token), &[("If-None-Match", tag)], None);
        // The client's copy is current: 304, no body, the tag again; compared weakly, `*` any.
        for tag in [etag.clone(), format!("W/{etag}"), format!("\"0\", {etag}"), "*".to_owned()] {
            for method in ["GET", "HEAD"] {
                let reply = get(method, &tag);
                assert_eq!(reply.status, 304, "{method} {tag}: {}", reply.text);
                assert_eq!(reply.text, "", "{method} {tag}");
                assert_eq!(reply.header("etag"), Some(etag.as_str()), "{method} {tag}");
            }
        }
        let stale = get("GET", "\"0\"");
        assert_eq!(stale.status, 200, "{}", stale.text);
        assert_eq!(stale.json()["name"], "Calls");
        assert_eq!(get("GET", "garbage").error_fields(), vec!["If-None-Match"]);
        app.send("GET", &format!("{PATH}/9"), Some(&app.admin_token), &[("If-None-Match", "*")], None).assert_problem(404);
        // A write is refused (412) while If-None-Match names the record, and changes nothing.
        let body = json!({ "name": "Voice", "chargingUnitType": "DURATION", "startDate": "2026-01-01" }).to_string();
        let ops = json!([{ "op": "replace", "path": "/name", "value": "Voice" }]).to_string();
        for tag in ["*", etag.as_str()] {
            app.send("PUT", &item, Some(&app.admin_token), &[("If-None-Match", tag)], Some(("application/json", body.clone()))).assert_problem(412);
            app.send("PATCH", &item, Some(&app.admin_token), &[("If-None-Match", tag)], Some(("application/json-patch+json", ops.clone()))).assert_problem(412);
            app.send("DELETE", &item, Some(&app.admin_token), &[("If-None-Match", tag)], None).assert_problem(412);
        }
        assert_eq!(app.get(&item).header("etag"), Some(etag.as_str()), "nothing changed");
        // If-Match is checked first; a write whose If-None-Match names another version goes on.
        app.send("PATCH", &item, Some(&app.admin_token), &[("If-Match", "\"9\""), ("If-None-Match", "\"0\"")], Some(("application/json-patch+json", ops.clone()))).assert_problem(412);
        let patched = app.send("PATCH", &item, Some(&app.admin_token), &[("If-Match", &etag), ("If-None-Match", "\"0\"")], Some(("application/json-patch+json", ops)));
        assert_eq!(patched.status, 200, "{}", patched.text);
        assert_eq!(patched.json()["name"], "Voice");
    }

    fn a_bulk_update_refuses_preconditions_it_could_not_honour(app) {
        app.create("/v1/users", json!({ "username": "a1", "password": "long-enough-pass", "roles": ["READ_ONLY"] }));
        let body = json!([{ "id": 2, "email": "a1@example.com" }]).to_string();
        for header in ["If-Match", "If-None-Match"] {
            let reply = app.send("PATCH", "/v1/users", Some(&app.admin_token), &[(header, "*")], Some(("application/json", body.clone())));
            reply.assert_problem(400);
            assert_eq!(reply.error_fields(), vec![header]);
        }
        assert_eq!(app.get("/v1/users/2").json()["email"], serde_json::Value::Null, "nothing changed");
    }

    fn a_create_refuses_preconditions_it_could_not_honour(app) {
        let body = json!({ "name": "Guarded", "chargingUnitType": "MB", "startDate": "2026-01-01" }).to_string();
        for (header, value) in [("If-Match", "*"), ("If-None-Match", "*"), ("If-Match", "\"1\"")] {
            let reply = app.send("POST", PATH, Some(&app.admin_token), &[(header, value)], Some(("application/json", body.clone())));
            reply.assert_problem(400);
            assert_eq!(reply.error_fields(), vec![header]);
            assert!(reply.text.contains("Idempotency-Key"), "{}", reply.text);
        }
        assert_eq!(app.get(&format!("{PATH}?page=1&pageSize=10")).header("x-total-count"), Some("0"), "nothing created");
        assert_eq!(app.post(PATH, json!({ "name": "Guarded", "chargingUnitType": "MB", "startDate": "2026-01-01" })).status, 201);
    }

    fn long_parameter_values_and_if_match_headers_are_refused_by_name(app) {
        // A list parameter's value is at most 2048 characters, If-Match at most 1024
        // (docs/api.md, "Lists"): beyond, 400 naming it, well before the 8 KiB request target.
        let at_most = "a".repeat(2048);
        assert_eq!(app.get(&format!("{PATH}?page=1&pageSize=10&name={at_most}")).status, 200);
        let reply = app.get(&format!("{PATH}?page=1&pageSize=10&name={at_most}a"));
        assert_eq!(reply.error_fields(), vec!["name"]);
        app.create(PATH, json!({ "name": "Calls", "chargingUnitType": "DURATION", "startDate": "2026-01-01" }));
        let ops = json!([{ "op": "replace", "path": "/name", "value": "Other" }]).to_string();
        let long = format!("\"1\"{}", ", \"2\"".repeat(300));
        let reply = app.send("PATCH", &format!("{PATH}/1"), Some(&app.admin_token), &[("If-Match", &long)], Some(("application/json-patch+json", ops)));
        assert_eq!(reply.error_fields(), vec!["If-Match"]);
        assert_eq!(app.get(&format!("{PATH}/1")).json()["name"], "Calls", "nothing changed");
    }

    fn if_match_compares_strongly_so_a_weak_tag_never_matches(app) {
        app.create(PATH, json!({ "name": "Calls", "chargingUnitType": "DURATION", "startDate": "2026-01-01" }));
        let etag = app.get(&format!("{PATH}/1")).header("etag").expect("etag").to_owned();
        assert_eq!(etag, "\"1\"");
        let body = json!({ "name": "Voice", "chargingUnitType": "DURATION", "startDate": "2026-01-01" }).to_string();
        let put = |tag: &str| app.send("PUT", &format!("{PATH}/1"), Some(&app.admin_token), &[("If-Match", tag)], Some(("application/json", body.clone())));
        put("W/\"1\"").assert_problem(412);
        // Empty list elements are ignored (RFC 9110 §5.6.1); a list of none is malformed.
        put(", \"7\",").assert_problem(412);
        assert_eq!(put(" ,").error_fields(), vec!["If-Match"]);
        assert_eq!(put("\"7\" \"8\"").error_fields(), vec!["If-Match"]);
        let ops = json!([{ "op": "replace", "path": "/name", "value": "Other" }]).to_string();
        app.send("PATCH", &format!("{PATH}/1"), Some(&app.admin_token), &[("If-Match", "W/\"1\"")], Some(("application/json-patch+json", ops))).assert_problem(412);
        app.send("DELETE", &format!("{PATH}/1"), Some(&app.admin_token), &[("If-Match", "W/\"1\"")], None).assert_problem(412);
        assert_eq!(app.get(&format!("{PATH}/1")).json()["name"], "Calls", "nothing changed");
        // A list may mix both kinds: the strong tag matches.
        assert_eq!(put("W/\"1\", \"1\"").status, 200);
        // `*` matches any current version.
        assert_eq!(put("*").status, 200);
        assert_eq!(app.send("DELETE", &format!("{PATH}/1"), Some(&app.admin_token), &[("If-Match", "*")], None).status, 204);
        app.send("DELETE", &format!("{PATH}/1"), Some(&app.admin_token), &[("If-Match", "*")], None).assert_problem(404);
    }

    fn idempotency_keys_replay_the_first_response(app) {
        let body = json!({ "name": "Calls", "chargingUnitType": "DURATION", "startDate": "2026-01-01" }).to_string();
        let post = |key: &str, body: &str| app.send("POST", PATH, Some(&app.admin_token), &[("Idempotency-Key", key)], Some(("application/json", body.to_owned())));
        let first = post("key-1", &body);
        assert_eq!(first.status, 201);
        let again = post("key-1", &body);
        assert_eq!((again.status, again.text.as_str(), again.header("location")), (201, first.text.as_str(), first.header("location")));
        assert_eq!(again.header("idempotent-replayed"), Some("true"));
        // The same JSON written again, with other whitespace and member order, is the same request.
        let rewritten = "{ \"startDate\": \"2026-01-01\",\n  \"name\": \"Calls\", \"chargingUnitType\": \"DURATION\" }";
        let retried = post("key-1", rewritten);
        assert_eq!((retried.status, retried.header("idempotent-replayed")), (201, Some("true")), "{}", retried.text);
        // A value written otherwise is not: the name with another letter case.
        post("key-1", &body.replace("Calls", "CALLS")).assert_problem(409);
        assert_eq!(app.get(&format!("{PATH}?page=1&pageSize=10")).header("x-total-count"), Some("1"));
        let other = json!({ "name": "Data", "chargingUnitType": "MB", "startDate": "2026-01-01" }).to_string();
        post("key-1", &other).assert_problem(409);
        post(&"k".repeat(256), &other).assert_problem(400);
        // The same key on another path (with a body valid there) is another request: 409 too,
        // nothing created.
        let cycle = json!({ "name": "Monthly" }).to_string();
        let elsewhere = app.send("POST", "/v1/billing-cycles", Some(&app.admin_token), &[("Idempotency-Key", "key-1")], Some(("application/json", cycle)));
        elsewhere.assert_problem(409);
        assert_eq!(app.head("/v1/billing-cycles").header("x-total-count"), Some("0"));
        // A refused request is not stored: corrected, it is sent again with its key and creates.
        let refused = json!({ "name": "Data", "chargingUnitType": "PARSECS", "startDate": "2026-01-01" }).to_string();
        assert_eq!(post("key-2", &refused).error_fields(), vec!["chargingUnitType"]);
        assert_eq!(post("key-2", &other).status, 201);
        assert_eq!(post("key-2", &other).header("idempotent-replayed"), Some("true"));
        assert_eq!(app.get(&format!("{PATH}?page=1&pageSize=10")).header("x-total-count"), Some("2"));
    }

    fn an_idempotency_key_is_forgotten_after_24_hours(app) {
        use billing_persistence::schema::idempotency_keys;
        use diesel::prelude::*;
        let body = json!({ "name": "Calls", "chargingUnitType": "DURATION", "startDate": "2026-01-01" }).to_string();
        let post = || app.send("POST", PATH, Some(&app.admin_token), &[("Idempotency-Key", "day-old")], Some(("application/json", body.clone())));
        assert_eq!(post().status, 201);
        let age = |hours: i64| {
            app.open_database()
                .write(|c| {
                    diesel::update(idempotency_keys::table)
                        .set(idempotency_keys::created_date.eq(billing_persistence::now() - chrono::Duration::hours(hours)))
                        .execute(c)
                        .map_err(billing_persistence::PersistenceError::from)
                })
                .expect("age the stored key");
        };
        // 23 hours on, a retry is still a replay; 25 hours on, the key is free and creates.
        age(23);
        assert_eq!(post().header("idempotent-replayed"), Some("true"));
        age(25);
        let late = post();
        assert_eq!(late.status, 201, "{}", late.text);
        assert_eq!(late.header("idempotent-replayed"), None);
        assert_eq!(app.get(&format!("{PATH}?page=1&pageSize=10")).header("x-total-count"), Some("2"));
    }

    fn an_idempotent_replay_carries_the_first_etag(app) {
        let body = json!({ "name": "Calls", "chargingUnitType": "DURATION", "startDate": "2026-01-01" }).to_string();
        let post = || app.send("POST", PATH, Some(&app.admin_token), &[("Idempotency-Key", "etag-key")], Some(("application/json", body.clone())));
        let first = post();
        assert_eq!(first.status, 201, "{}", first.text);
        let etag = first.header("etag").expect("the first response has an ETag").to_owned();
        let again = post();
        assert_eq!(again.header("idempotent-replayed"), Some("true"));
        assert_eq!(again.header("etag"), Some(etag.as_str()));
    }

    fn concurrent_posts_with_one_idempotency_key_create_once(app) {
        let body = json!({ "name": "Calls", "chargingUnitType": "DURATION", "startDate": "2026-01-01" }).to_string();
        let barrier = std::sync::Barrier::new(10);
        let replies: Vec<crate::support::Reply> = std::thread::scope(|scope| {
            let posts: Vec<_> = (0..10)
                .map(|_| {
                    let (app, barrier, body) = (&app, &barrier, &body);
                    scope.spawn(move || {
                        barrier.wait();
                        app.send("POST", PATH, Some(&app.admin_token), &[("Idempotency-Key", "same-key")], Some(("application/json", body.clone())))
                    })
                })
                .collect();
            posts.into_iter().map(|post| post.join().expect("post")).collect()
        });
        for reply in &replies {
            assert_eq!(reply.status, 201, "{}", reply.text);
            assert_eq!(reply.text, replies[0].text);
            assert_eq!(reply.header("location"), replies[0].header("location"));
            assert_eq!(reply.header("etag"), replies[0].header("etag"));
        }
        let replayed = replies.iter().filter(|reply| reply.header("idempotent-replayed") == Some("true")).count();
        assert_eq!(replayed, 9);
        assert_eq!(app.get(&format!("{PATH}?page=1&pageSize=10")).header("x-total-count"), Some("1"));
    }

    fn json_patch_supports_every_operation_atomically(app) {
        app.create(PATH, json!({ "name": "Calls", "chargingUnitType": "DURATION", "startDate": "2026-01-01", "endDate": "2026-12-31" }));
        let reply = app.patch(&format!("{PATH}/1"), json!([
            { "op": "test", "path": "/name", "value": "Calls" },
            { "op": "copy", "from": "/startDate", "path": "/endDate" },
            { "op": "replace", "path": "/name", "value": "Voice" },
            { "op": "add", "path": "/chargingUnitType", "value": "ONE_OFF" },
        ]));
        assert_eq!(reply.status, 200, "{}", reply.text);
        insta::assert_json_snapshot!(crate::support::plain(&reply.json()), @r#"
        {
          "id": 1,
          "name": "Voice",
          "chargingUnitType": "ONE_OFF",
          "startDate": "2026-01-01",
          "endDate": "2026-01-01"
        }
        "#);
        let removed = app.patch(&format!("{PATH}/1"), json!([{ "op": "remove", "path": "/endDate" }]));
        assert_eq!(removed.json()["endDate"], Value::Null);
        let moved = app.patch(&format!("{PATH}/1"), json!([{ "op": "move", "from": "/startDate", "path": "/endDate" }]));
        assert_eq!(moved.error_fields(), vec!["startDate"], "moving startDate away leaves it missing");
        let failed = app.patch(&format!("{PATH}/1"), json!([
            { "op": "replace", "path": "/name", "value": "Changed" },
            { "op": "test", "path": "/name", "value": "Voice" },
        ]));
        failed.assert_problem(409);
        let invalid = app.patch(&format!("{PATH}/1"), json!([
            { "op": "replace", "path": "/name", "value": "Changed" },
            { "op": "replace", "path": "/endDate", "value": "2025-01-01" },
        ]));
        assert_eq!(invalid.error_fields(), vec!["endDate"]);
        assert_eq!(app.get(&format!("{PATH}/1")).json()["name"], "Voice", "failed patches change nothing");
    }

    fn json_patch_refuses_bad_documents(app) {
        app.create(PATH, json!({ "name": "Calls", "chargingUnitType": "DURATION", "startDate": "2026-01-01" }));
        let item = format!("{PATH}/1");
        assert_eq!(app.patch(&item, json!([{ "op": "replace", "path": "/id", "value": 7 }])).error_fields(), vec!["[0].path"]);
        // Pointers name a member: never the whole document, always starting with /.
        assert_eq!(app.patch(&item, json!([{ "op": "replace", "path": "", "value": {} }])).error_fields(), vec!["[0].path"]);
        assert_eq!(app.patch(&item, json!([{ "op": "test", "path": "/name", "value": "Calls" }, { "op": "test", "path": "", "value": {} }])).error_fields(), vec!["[1].path"]);
        assert_eq!(app.patch(&item, json!([{ "op": "copy", "from": "", "path": "/name" }])).error_fields(), vec!["[0].from"]);
        app.patch(&item, json!([{ "op": "replace", "path": "name", "value": "X" }])).assert_problem(400);
        assert_eq!(app.patch(&item, json!([{ "op": "add", "path": "/colour", "value": "red" }])).error_fields(), vec!["colour"]);
        app.patch(&item, json!([{ "op": "jump", "path": "/name" }])).assert_problem(400);
        // Every broken member of every operation in one answer, in plain words.
        let broken = app.patch(&item, json!([{ "op": "add" }, {}, { "op": "move", "path": "/name" }, 7, { "op": "replace", "path": 3, "value": 1 },
            { "op": "test", "path": "/a~2b", "value": 1 }, { "op": "copy", "from": "/name~", "path": "/name" }]));
        let body = broken.assert_problem(400);
        let errors: Vec<String> = body["errors"].as_array().expect("errors").iter()
            .map(|e| format!("{}: {}", e["field"].as_str().unwrap_or_default(), e["message"].as_str().unwrap_or_default()))
            .collect();
        insta::assert_debug_snapshot!(errors, @r#"
        [
            "[0].path: is required",
            "[0].value: is required for add",
            "[1].op: is required: add, remove, replace, move, copy or test",
            "[1].path: is required",
            "[2].from: is required",
            "[3]: must be an object with op and path (and value or from)",
            "[4].path: must be a string: a JSON Pointer such as /name",
            "[5].path: must be a JSON Pointer: a ~ is written ~0, and a / inside a name ~1",
            "[6].from: must be a JSON Pointer: a ~ is written ~0, and a / inside a name ~1",
        ]
        "#);
        // An integer past 64 bits, at any depth of a value, is named in plain words, with the
        // other operations' errors.
        let huge = r#"[{"op":"add"},{"op":"replace","path":"/name","value":99999999999999999999},{"op":"add","path":"/x","value":{"y":[1,-99999999999999999999]}}]"#;
        let reply = app.send("PATCH", &item, Some(&app.admin_token), &[], Some(("application/json-patch+json", huge.into())));
        assert_eq!(reply.error_fields(), vec!["[0].path", "[0].value", "[1].value", "[2].value"], "{}", reply.text);
        assert!(reply.text.contains("holds a number too large"), "{}", reply.text);
        // Members RFC 6902 does not give an operation are ignored, whatever they hold.
        let ignored = r#"[{"op":"test","path":"/name","value":"Calls","x":99999999999999999999},{"op":"remove","path":"/endDate","from":-99999999999999999999,"value":1e999}]"#;
        let reply = app.send("PATCH", &item, Some(&app.admin_token), &[], Some(("application/json-patch+json", ignored.into())));
        assert_eq!(reply.status, 200, "{}", reply.text);
        // With the whole document's pointer, the other broken members are named too.
        assert_eq!(app.patch(&item, json!([{ "op": "test", "path": "" }])).error_fields(), vec!["[0].path", "[0].value"]);
        assert_eq!(app.patch(&item, json!([{ "op": "move", "from": "", "path": "" }])).error_fields(), vec!["[0].path", "[0].from"]);
        // What cannot be applied names the member at fault and its pointer as sent.
        let failed = |operations: Value| {
            let body = app.patch(&item, operations).assert_problem(400);
            let error = &body["errors"][0];
            format!("{}: {}", error["field"].as_str().unwrap_or_default(), error["message"].as_str().unwrap_or_default())
        };
        insta::assert_snapshot!(failed(json!([{ "op": "copy", "from": "/nope", "path": "/name" }])), @"[0].from: '/nope' names nothing in the record: no such member or array element");
        insta::assert_snapshot!(failed(json!([{ "op": "move", "from": "/id", "path": "/name" }])), @"[0].from: 'id' is read-only");
        insta::assert_snapshot!(failed(json!([{ "op": "replace", "path": "/nothing/deeper", "value": 1 }])), @"[0].path: '/nothing/deeper' names nothing in the record: a member on the way is missing or an array index is out of range");
        app.patch(&item, json!({ "op": "replace" })).assert_problem(400);
        let too_many: Vec<Value> = (0..1001).map(|_| json!({ "op": "test", "path": "/name", "value": "Calls" })).collect();
        app.patch(&item, Value::Array(too_many)).assert_problem(400);
        // A JSON Patch sent as application/json is read the same (generated clients send every
        // body so); any other type is 415.
        let plain_json = app.send("PATCH", &item, Some(&app.admin_token), &[],
            Some(("application/json", r#"[{"op":"replace","path":"/name","value":"Plain"}]"#.into())));
        assert_eq!(plain_json.status, 200, "{}", plain_json.text);
        assert_eq!(app.get(&item).json()["name"], "Plain");
        let text = app.send("PATCH", &item, Some(&app.admin_token), &[], Some(("text/plain", "[]".into())));
        text.assert_problem(415);
        let merge = app.send("PATCH", &item, Some(&app.admin_token), &[], Some(("application/merge-patch+json", "{}".into())));
        merge.assert_problem(415);
        app.patch(&format!("{PATH}/77"), json!([])).assert_problem(404);
    }
}

api_test! {
    // A body's errors come back in one answer, in plain words: an unknown member, a date that
    // does not exist, a string where an integer belongs and an empty name together.
    fn every_error_of_a_body_is_named_in_one_answer(app) {
        let reply = app.post("/v1/charge-groups", serde_json::json!({
            "name": "", "chargeGroupCategoryId": "1", "startDate": "2026-02-30", "colour": "red"
        }));
        let body = reply.assert_problem(400);
        let errors: Vec<(String, String)> = body["errors"].as_array().expect("errors").iter()
            .map(|e| (e["field"].as_str().unwrap_or_default().to_owned(), e["message"].as_str().unwrap_or_default().to_owned()))
            .collect();
        insta::assert_debug_snapshot!(errors, @r#"
        [
            (
                "colour",
                "unknown field",
            ),
            (
                "chargeGroupCategoryId",
                "must be an integer",
            ),
            (
                "startDate",
                "must be a date as yyyy-MM-dd (a day that exists)",
            ),
            (
                "name",
                "must be 1 to 255 characters long (got 0)",
            ),
        ]
        "#);
        // In nested parts too, each named by its path.
        let reply = app.post("/v1/contract-owners", serde_json::json!({ "name": 5, "subBrands": [{ "name": "" }, { "name": true }, "x"] }));
        assert_eq!(reply.error_fields(), vec!["name", "subBrands[1].name", "subBrands[2]", "subBrands[0].name"]);
    }

    fn control_characters_and_broken_escapes_in_filters_and_sign_in_are_refused_cleanly(app) {
        let reply = app.get(&format!("{PATH}?page=1&pageSize=10&name=a%00b"));
        reply.assert_problem(400);
        assert_eq!(reply.error_fields(), vec!["name"]);
        let reply = app.get(&format!("{PATH}?page=1&pageSize=10&name=in:a,b%00"));
        assert_eq!(reply.error_fields(), vec!["name"]);
        // Escapes that are not UTF-8 are not read as U+FFFD (an empty page), on every route.
        let reply = app.get(&format!("{PATH}?page=1&pageSize=10&name=like:%FF%FE"));
        reply.assert_problem(400);
        assert_eq!(reply.error_fields(), vec!["name"]);
        app.get("/v1/sites?page=1&pageSize=1&siteName=%C3").assert_problem(400);
        let sign_in = app.send(
            "POST",
            "/v1/authenticate",
            None,
            &[],
            Some(("application/json", serde_json::json!({ "username": "ad\u{0}min", "password": "whatever-password" }).to_string())),
        );
        // Text as every member's (the free-text kind): 400 naming the username, never 500.
        sign_in.assert_problem(400);
        assert_eq!(sign_in.error_fields(), vec!["username"]);
    }
}

api_test! {
    fn a_patch_that_changes_nothing_writes_nothing(app) {
        app.create(PATH, json!({ "name": "Calls", "chargingUnitType": "DURATION", "startDate": "2026-01-01" }));
        let item = format!("{PATH}/1");
        let etag = app.get(&item).header("etag").expect("etag").to_owned();
        let events = |app: &TestApp| app.head("/v1/audit-events?resource=charge-group-categories&recordId=1").header("x-total-count").map(str::to_owned);
        let before = events(&app);
        for operations in [
            json!([]),
            json!([{ "op": "test", "path": "/name", "value": "Calls" }]),
            json!([{ "op": "replace", "path": "/name", "value": "Calls" }]),
            json!([{ "op": "replace", "path": "/name", "value": "X" }, { "op": "replace", "path": "/name", "value": "Calls" }]),
        ] {
            let patched = app.send("PATCH", &item, Some(&app.admin_token), &[("If-Match", &etag)], Some(("application/json-patch+json", operations.to_string())));
            assert_eq!(patched.status, 200, "{operations}: {}", patched.text);
            assert_eq!(patched.header("etag"), Some(etag.as_str()), "{operations}: the version stays");
            assert_eq!(patched.json()["name"], "Calls");
        }
        assert_eq!(events(&app), before, "no audit event for what changed nothing");
        // A record with an updatedDate keeps it, and its version, too.
        app.user_with_roles("unchanged", &["READ_ONLY"]);
        let user = app.get("/v1/users?page=1&pageSize=1&username=unchanged").json()[0].clone();
        let path = format!("/v1/users/{}", user["id"]);
        let tag = app.get(&path).header("etag").expect("etag").to_owned();
        let same = app.patch(&path, json!([{ "op": "replace", "path": "/roles", "value": ["READ_ONLY"] }]));
        assert_eq!((same.status, same.header("etag")), (200, Some(tag.as_str())), "{}", same.text);
        assert_eq!(same.json()["updatedDate"], user["updatedDate"]);
        // It is still checked as a write: a stale ETag is 412, a broken value 400.
        app.send("PATCH", &item, Some(&app.admin_token), &[("If-Match", "\"99\"")], Some(("application/json-patch+json", "[]".to_owned()))).assert_problem(412);
        let changed = app.patch(&item, json!([{ "op": "replace", "path": "/name", "value": "Voice" }]));
        assert_ne!(changed.header("etag"), Some(etag.as_str()), "a change moves the version");
        assert_ne!(events(&app), before);
    }
}
