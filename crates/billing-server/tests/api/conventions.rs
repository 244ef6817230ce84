//! The shared conventions (docs/api.md "Everywhere"), exercised through charge group categories: the same
//! machinery serves every resource.

use serde_json::{Value, json};

use crate::support::TestApp;

const PATH: &str = "/v1/charge-group-categories";

fn seed(app: &TestApp) {
    for (name, unit, start, end) in [
        ("Calls", "DURATION", "2026-01-01", Some("2026-06-30")),
        ("Data", "MB", "2026-02-01", None),
        ("Setup", "ONE_OFF", "2026-03-01", Some("2026-12-31")),
        ("calls abroad", "DURATION", "2026-01-01", None),
    ] {
        app.create(
            PATH,
            json!({ "name": name, "chargingUnitType": unit, "startDate": start, "endDate": end }),
        );
    }
}

/// `value` percent-encoded for a query string (every non-ASCII byte).
fn utf8_percent(value: &str) -> String {
    value
        .bytes()
        .map(|byte| {
            if byte.is_ascii_alphanumeric() {
                (byte as char).to_string()
            } else {
                format!("%{byte:02X}")
            }
        })
        .collect()
}

fn names(reply: &crate::support::Reply) -> Vec<String> {
    assert_eq!(reply.status, 200, "{}", reply.text);
    reply
        .json()
        .as_array()
        .expect("array")
        .iter()
        .map(|row| row["name"].as_str().unwrap_or_default().to_owned())
        .collect()
}

api_test! {
    fn page_and_page_size_are_required_and_bounded(app) {
        let reply = app.get(PATH);
        reply.assert_problem(400);
        assert_eq!(reply.error_fields(), vec!["page", "pageSize"]);
        for (query, field) in [("page=0&pageSize=10", "page"), ("page=1&pageSize=1001", "pageSize"), ("page=x&pageSize=1", "page"), ("page=1&pageSize=0", "pageSize")] {
            let reply = app.get(&format!("{PATH}?{query}"));
            reply.assert_problem(400);
            assert_eq!(reply.error_fields(), vec![field], "{query}");
        }
    }

    fn unknown_and_repeated_parameters_are_refused(app) {
        let reply = app.get(&format!("{PATH}?page=1&pageSize=10&nmae=Calls"));
        assert_eq!(reply.error_fields(), vec!["nmae"]);
        let reply = app.get(&format!("{PATH}?page=1&pageSize=10&name=a&name=b"));
        assert_eq!(reply.error_fields(), vec!["name"]);
    }

    fn lists_are_paged_with_total_and_links(app) {
        seed(&app);
        let reply = app.get(&format!("{PATH}?page=2&pageSize=1&sort=name"));
        assert_eq!(names(&reply), vec!["Data"]);
        assert_eq!(reply.header("x-total-count"), Some("4"));
        insta::assert_snapshot!(reply.header("link").expect("link"), @r#"</v1/charge-group-categories?page=1&pageSize=1&sort=name>; rel="first", </v1/charge-group-categories?page=1&pageSize=1&sort=name>; rel="prev", </v1/charge-group-categories?page=3&pageSize=1&sort=name>; rel="next", </v1/charge-group-categories?page=4&pageSize=1&sort=name>; rel="last""#);
        let past_the_end = app.get(&format!("{PATH}?page=9&pageSize=10"));
        assert_eq!(past_the_end.json(), json!([]));
        assert_eq!(past_the_end.header("x-total-count"), Some("4"));
    }

    fn sort_keys_directions_and_id_tie_break(app) {
        seed(&app);
        assert_eq!(names(&app.get(&format!("{PATH}?page=1&pageSize=10&sort=chargingUnitType:desc,name:asc"))), vec!["Setup", "Data", "Calls", "calls abroad"]);
        // Same start date: the id breaks the tie, so pages are stable.
        assert_eq!(names(&app.get(&format!("{PATH}?page=1&pageSize=10&sort=startDate"))), vec!["Calls", "calls abroad", "Data", "Setup"]);
        // Open-ended (null) end dates sort as the latest on both backends.
        assert_eq!(names(&app.get(&format!("{PATH}?page=1&pageSize=10&sort=endDate"))), vec!["Calls", "Setup", "Data", "calls abroad"]);
        assert_eq!(names(&app.get(&format!("{PATH}?page=1&pageSize=10&sort=endDate:desc"))), vec!["Data", "calls abroad", "Setup", "Calls"]);
        let reply = app.get(&format!("{PATH}?page=1&pageSize=10&sort=colour"));
        assert_eq!(reply.error_fields(), vec!["sort"]);
    }

    fn fields_selects_top_level_members(app) {
        seed(&app);
        let reply = app.get(&format!("{PATH}?page=1&pageSize=1&fields=name,id"));
        assert_eq!(reply.json(), json!([{ "id": 1, "name": "Calls" }]));
        assert_eq!(app.get(&format!("{PATH}?page=1&pageSize=1&fields=name,colour")).error_fields(), vec!["fields"]);
    }

    fn string_filters_exact_in_and_like(app) {
        seed(&app);
        assert_eq!(names(&app.get(&format!("{PATH}?page=1&pageSize=10&name=Calls"))), vec!["Calls"]);
        assert_eq!(names(&app.get(&format!("{PATH}?page=1&pageSize=10&name=in:Data,Setup,Nothing"))), vec!["Data", "Setup"]);
        assert_eq!(names(&app.get(&format!("{PATH}?page=1&pageSize=10&name=like:CALL"))), vec!["Calls", "calls abroad"]);
        // % and _ are literals inside like:
        assert!(names(&app.get(&format!("{PATH}?page=1&pageSize=10&name=like:%25"))).is_empty());
        assert!(names(&app.get(&format!("{PATH}?page=1&pageSize=10&name=like:C_lls"))).is_empty());
    }

    fn like_folds_case_for_every_unicode_letter(app) {
        for name in ["École", "Straße", "Ωmega", "Calls"] {
            app.create(PATH, json!({ "name": name, "chargingUnitType": "DURATION", "startDate": "2026-01-01" }));
        }
        let like = |value: &str| names(&app.get(&format!("{PATH}?page=1&pageSize=10&name=like:{}", utf8_percent(value))));
        assert_eq!(like("école"), vec!["École"]);
        assert_eq!(like("ÉCOLE"), vec!["École"]);
        assert_eq!(like("cOlE"), vec!["École"]);
        assert_eq!(like("STRASSE"), Vec::<String>::new(), "folding is lower-casing, not full case folding");
        assert_eq!(like("STRAßE"), vec!["Straße"]);
        assert_eq!(like("ωMEGA"), vec!["Ωmega"]);
        // A value always finds the name it is part of, even where the backends' lower-casing
        // differs (PostgreSQL's and Rust's on `İ` and a final `ς`): both sides go through the
        // same backend's `lower`.
        for name in ["İstanbul Hub", "ΣΟΦΟΣ Ltd", "Οδός"] {
            app.create(PATH, json!({ "name": name, "chargingUnitType": "DURATION", "startDate": "2026-01-01" }));
        }
        assert_eq!(like("İstanbul"), vec!["İstanbul Hub"]);
        assert_eq!(like("ΣΟΦΟΣ"), vec!["ΣΟΦΟΣ Ltd"]);
        assert_eq!(like("δός"), vec!["Οδός"]);
    }

    fn like_finds_the_same_rows_through_the_search_indexes(app) {
        // Category names are searched (search.rs): PostgreSQL's trigram index, SQLite's FTS5
        // table with its partial index of non-ASCII names. Both follow every write and find
        // exactly the rows of the comparison.
        let postgres = app.database_url().starts_with("postgres");
        let create = |name: &str| {
            app.create(PATH, json!({ "name": name, "chargingUnitType": "DURATION", "startDate": "2026-01-01" }))["id"]
                .as_i64()
                .expect("id")
        };
        let quoted = create("Alpha \"quoted\" calls");
        let beta = create("Beta CALLS");
        create("ᲐᲑᲒ tariff");
        create("Ωmega calls");
        let like = |value: &str| names(&app.get(&format!("{PATH}?page=1&pageSize=10&sort=id&name=like:{}", utf8_percent(value))));
        assert_eq!(like("calls"), vec!["Alpha \"quoted\" calls", "Beta CALLS", "Ωmega calls"]);
        assert_eq!(like("\"QUOTED\""), vec!["Alpha \"quoted\" calls"], "quotes inside a search");
        assert_eq!(like("ωmeg"), vec!["Ωmega calls"], "non-ASCII names are found through the partial index");
        assert_eq!(like("ls"), vec!["Alpha \"quoted\" calls", "Beta CALLS", "Ωmega calls"], "two characters: the table is read");
        if !postgres {
            // Georgian capitals (Unicode 11) lower-case in Rust, not in FTS5's tables.
            assert_eq!(like("აბგ"), vec!["ᲐᲑᲒ tariff"]);
        }
        // Renamed, then deleted: the indexes follow.
        let renamed = app.patch(&format!("{PATH}/{beta}"), json!([{ "op": "replace", "path": "/name", "value": "Gamma rates" }]));
        assert_eq!(renamed.status, 200, "{}", renamed.text);
        assert_eq!(like("calls"), vec!["Alpha \"quoted\" calls", "Ωmega calls"]);
        assert_eq!(like("GAMMA"), vec!["Gamma rates"]);
        assert_eq!(app.delete(&format!("{PATH}/{quoted}")).status, 204);
        assert_eq!(like("calls"), vec!["Ωmega calls"]);
        assert_eq!(like("quoted"), Vec::<String>::new());
    }

    fn like_without_letters_matches_as_with_folding(app) {
        // A value of digits and punctuation is compared without lower-casing every row
        // (docs/performance.md): the rows must be those that folding would find.
        for name in ["Zone 9", "ZONE 9-1", "İstanbul 9", "Straße 19", "Calls"] {
            app.create(PATH, json!({ "name": name, "chargingUnitType": "DURATION", "startDate": "2026-01-01" }));
        }
        let like = |value: &str| names(&app.get(&format!("{PATH}?page=1&pageSize=10&name=like:{}", utf8_percent(value))));
        assert_eq!(like("9"), vec!["Zone 9", "ZONE 9-1", "İstanbul 9", "Straße 19"]);
        assert_eq!(like(" 9"), vec!["Zone 9", "ZONE 9-1", "İstanbul 9"]);
        assert_eq!(like("9-1"), vec!["ZONE 9-1"]);
        assert_eq!(like("e 9"), vec!["Zone 9", "ZONE 9-1"], "with a letter: folded");
        assert_eq!(like("%"), Vec::<String>::new(), "still a literal");
    }

    fn the_total_of_a_full_page_follows_every_write(app) {
        // A full page's total is counted once per state of the data (docs/performance.md):
        // every write, through this instance or another, must show in the next total.
        seed(&app);
        let total = |app: &TestApp| {
            let reply = app.get(&format!("{PATH}?page=1&pageSize=2&sort=name&chargingUnitType=in:DURATION,MB,ONE_OFF"));
            assert_eq!(names(&reply).len(), 2, "a full page");
            reply.header("x-total-count").map(str::to_owned)
        };
        let exists = |app: &TestApp| app.head(&format!("{PATH}?chargingUnitType=DURATION")).header("x-total-count").map(str::to_owned);
        assert_eq!((total(&app).as_deref(), exists(&app).as_deref()), (Some("4"), Some("2")));
        assert_eq!((total(&app).as_deref(), exists(&app).as_deref()), (Some("4"), Some("2")), "asked again");
        let created = app.create(PATH, json!({ "name": "More", "chargingUnitType": "DURATION", "startDate": "2026-01-01" }));
        assert_eq!((total(&app).as_deref(), exists(&app).as_deref()), (Some("5"), Some("3")), "after a create");
        let path = format!("{PATH}/{}", created["id"]);
        let renamed = app.patch(&path, json!([{ "op": "replace", "path": "/chargingUnitType", "value": "MB" }]));
        assert_eq!(renamed.status, 200);
        assert_eq!((total(&app).as_deref(), exists(&app).as_deref()), (Some("5"), Some("2")), "after a patch");
        let second = app.second_instance();
        assert_eq!(second.delete(&path).status, 204);
        assert_eq!((total(&app).as_deref(), exists(&app).as_deref()), (Some("4"), Some("2")), "after another instance's delete");
        second.create(PATH, json!({ "name": "Other", "chargingUnitType": "DURATION", "startDate": "2026-01-01" }));
        assert_eq!((total(&app).as_deref(), exists(&app).as_deref()), (Some("5"), Some("3")), "after another instance's create");
    }

    fn date_filters_and_gtn_includes_open_ended(app) {
        seed(&app);
        assert_eq!(names(&app.get(&format!("{PATH}?page=1&pageSize=10&startDate=2026-01-01"))), vec!["Calls", "calls abroad"]);
        assert_eq!(names(&app.get(&format!("{PATH}?page=1&pageSize=10&startDate=gt:2026-01-01"))), vec!["Data", "Setup"]);
        assert_eq!(names(&app.get(&format!("{PATH}?page=1&pageSize=10&endDate=lt:2026-12-31"))), vec!["Calls"]);
        assert_eq!(names(&app.get(&format!("{PATH}?page=1&pageSize=10&endDate=gt:2026-07-01"))), vec!["Setup"]);
        assert_eq!(names(&app.get(&format!("{PATH}?page=1&pageSize=10&endDate=gtn:2026-07-01"))), vec!["Data", "Setup", "calls abroad"]);
        let reply = app.get(&format!("{PATH}?page=1&pageSize=10&endDate=ge:2026-07-01"));
        reply.assert_problem(400);
        assert_eq!(reply.error_fields(), vec!["endDate"]);
    }

    fn head_answers_200_or_404_with_a_count(app) {
        seed(&app);
        let found = app.head(&format!("{PATH}?chargingUnitType=DURATION"));
        assert_eq!((found.status, found.header("x-total-count")), (200, Some("2")));
        assert!(found.text.is_empty());
        assert_eq!(found.header("content-length"), None, "not the 0 that no GET would send");
        let none = app.head(&format!("{PATH}?name=Nothing"));
        assert_eq!((none.status, none.header("x-total-count")), (404, Some("0")));
        assert_eq!(app.head(&format!("{PATH}?colour=red")).status, 400);
        // The list's own URL, as documented for HEAD: paging, sort and fields change nothing
        // of the count, and are checked as the list checks them.
        let paged = app.head(&format!("{PATH}?page=2&pageSize=1&sort=name:desc&fields=name&chargingUnitType=DURATION"));
        assert_eq!((paged.status, paged.header("x-total-count")), (200, Some("2")));
        assert_eq!(app.head(&format!("{PATH}?page=0&pageSize=1")).status, 400);
    }

    fn prefer_count_says_how_the_total_is_found(app) {
        seed(&app);
        let postgres = app.database_url().starts_with("postgres");
        let list = |prefer: &str| {
            let reply = app.send("GET", &format!("{PATH}?page=1&pageSize=2"), Some(&app.admin_token),
                &[("Prefer", prefer)], None);
            assert_eq!(reply.status, 200, "{prefer}: {}", reply.text);
            let total: i64 = reply.header("x-total-count").expect("a total").parse().expect("a number");
            (total, reply.header("preference-applied").map(str::to_owned), reply.header("link").map(str::to_owned))
        };
        // Four rows, a full page of two: the total is counted, or planned.
        assert_eq!(list("count=exact"), (4, Some("count=exact".into()), list("count=exact").2));
        assert_eq!(list("count=estimated").0, 4, "a small estimate is counted exactly");
        let applied_estimated = if postgres { "count=estimated" } else { "count=exact" };
        assert_eq!(list("return=minimal, count=\"estimated\"; x=1").1.as_deref(), Some(applied_estimated));
        let (planned, applied, link) = list("count=planned");
        // What was applied: SQLite has no planner estimate and counts.
        let applied_planned = if postgres { "count=planned" } else { "count=exact" };
        assert_eq!(applied.as_deref(), Some(applied_planned));
        if postgres {
            // The planner's guess for a small table: never fewer than the page's rows, and
            // the last link follows it.
            assert!(planned >= 2, "{planned}");
            let last_page = (planned + 1) / 2;
            let link = link.expect("links");
            let last = link.split(", ").find(|l| l.ends_with("rel=\"last\"")).expect("a last link");
            assert!(last.contains(&format!("page={last_page}&")) || last.contains(&format!("page={last_page}>")), "{link}");
        } else {
            assert_eq!(planned, 4, "SQLite has no planner estimate: it counts");
        }
        // No preference stated, or others only: exact, and nothing said about it.
        let plain = app.get(&format!("{PATH}?page=1&pageSize=2"));
        assert_eq!((plain.header("x-total-count"), plain.header("preference-applied")), (Some("4"), None));
        let other = list("return=minimal");
        assert_eq!((other.0, other.1), (4, None));
        // HEAD takes it too; an unknown count is 400 naming the header.
        let head = app.send("HEAD", &format!("{PATH}?chargingUnitType=DURATION"), Some(&app.admin_token),
            &[("Prefer", "count=planned")], None);
        assert_eq!((head.status, head.header("preference-applied")), (200, Some(applied_planned)));
        let refused = app.send("GET", &format!("{PATH}?page=1&pageSize=2"), Some(&app.admin_token),
            &[("Prefer", "count=some")], None);
        refused.assert_problem(400);
        assert_eq!(refused.error_fields(), vec!["Prefer"]);
    }

    fn head_on_an_item_answers_like_get_without_a_body(app) {
        app.create(PATH, json!({ "name": "Calls", "chargingUnitType": "DURATION", "startDate": "2026-01-01" }));
        let get = app.get(&format!("{PATH}/1"));
        let head = app.head(&format!("{PATH}/1"));
        assert_eq!(head.status, 200);
        assert!(head.text.is_empty(), "no body: {}", head.text);
        assert_eq!(head.header("etag"), get.header("etag"));
        assert_eq!(head.header("content-type"), Some("application/json"));
        assert_eq!(head.header("content-length"), Some(get.text.len().to_string().as_str()));
        let missing = app.head(&format!("{PATH}/999"));
        assert_eq!(missing.status, 404);
        assert!(missing.text.is_empty());
        assert_eq!(app.head(&format!("{PATH}/abc")).status, 400);
        let refused = app.send("POST", &format!("{PATH}/1"), Some(&app.admin_token), &[], None);
        refused.assert_problem(405);
        assert_eq!(refused.header("allow"), Some("GET, HEAD, PUT, PATCH, DELETE"));
    }

    fn bodies_are_checked_before_anything_is_written(app) {
        let send = |content_type: &str, body: &str| app.send("POST", PATH, Some(&app.admin_token), &[], Some((content_type, body.to_owned())));
        send("text/plain", "{}").assert_problem(415);
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
        app.patch(&item, json!([{ "op": "replace", "path": "/nothing/deeper", "value": 1 }])).assert_problem(400);
        app.patch(&item, json!({ "op": "replace" })).assert_problem(400);
        let too_many: Vec<Value> = (0..1001).map(|_| json!({ "op": "test", "path": "/name", "value": "Calls" })).collect();
        app.patch(&item, Value::Array(too_many)).assert_problem(400);
        let plain_json = app.send("PATCH", &item, Some(&app.admin_token), &[], Some(("application/json", "[]".into())));
        plain_json.assert_problem(415);
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
