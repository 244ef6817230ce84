//! The shared conventions for reads (docs/api.md "Everywhere"): paging, sorting, `fields`,
//! filters, totals and HEAD, exercised through charge group categories; the same machinery
//! serves every resource. Writes are in `conventions_writes`.

use serde_json::json;

use crate::support::TestApp;

pub(crate) const PATH: &str = "/v1/charge-group-categories";

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
        // A repetition is told once per name, however often it repeats.
        let reply = app.get(&format!("{PATH}?page=1&pageSize=10{}", "&name=a&nmae=b".repeat(50)));
        assert_eq!(reply.error_fields(), vec!["nmae", "name", "nmae"]);
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
        // differs (PostgreSQL's and Rust's on `İ`): both sides go through the same backend's
        // `lower`. A capital sigma lower-cases to `σ` wherever it stands, so a value that ends
        // in one finds it in the middle of a word.
        for name in ["İstanbul Hub", "ΣΟΦΟΣ Ltd", "Οδός", "ΟΔΥΣΣΕΑΣ"] {
            app.create(PATH, json!({ "name": name, "chargingUnitType": "DURATION", "startDate": "2026-01-01" }));
        }
        assert_eq!(like("İstanbul"), vec!["İstanbul Hub"]);
        assert_eq!(like("ΣΟΦΟΣ"), vec!["ΣΟΦΟΣ Ltd"]);
        assert_eq!(like("δός"), vec!["Οδός"]);
        assert_eq!(like("ΟΔΥΣ"), vec!["ΟΔΥΣΣΕΑΣ"]);
        assert_eq!(like("ΔΥΣΣ"), vec!["ΟΔΥΣΣΕΑΣ"]);
        assert_eq!(like("ΥΣ"), vec!["ΟΔΥΣΣΕΑΣ"]);
    }

    fn names_in_scripts_written_with_marks_and_joiners_are_stored_and_found(app) {
        // A virama, a Thai tone mark, a Tamil pulli: marks, not letters on their own
        // (docs/api.md "Everywhere"). Found through the search indexes (three or more
        // characters) and by reading the table.
        for name in ["हिन्दी कॉल्स", "ที่ทำการ", "தமிழ் அழைப்புகள்"] {
            let created = app.post(PATH, json!({ "name": name, "chargingUnitType": "DURATION", "startDate": "2026-01-01" }));
            assert_eq!(created.status, 201, "{name}: {}", created.text);
        }
        let like = |value: &str| names(&app.get(&format!("{PATH}?page=1&pageSize=10&name=like:{}", utf8_percent(value))));
        assert_eq!(like("न्दी"), vec!["हिन्दी कॉल्स"]);
        assert_eq!(like("्"), vec!["हिन्दी कॉल्स"]);
        assert_eq!(like("ที่"), vec!["ที่ทำการ"]);
        assert_eq!(like("ழைப்பு"), vec!["தமிழ் அழைப்புகள்"]);
        // Accents with no composed letter (Yoruba), a joiner between letters (Persian).
        for name in ["Ọlọ́run", "خیابان\u{200C}ها"] {
            let created = app.post(PATH, json!({ "name": name, "chargingUnitType": "DURATION", "startDate": "2026-01-01" }));
            assert_eq!(created.status, 201, "{name}: {}", created.text);
        }
        assert_eq!(like("lọ́r"), vec!["Ọlọ́run"]);
        assert_eq!(like("ان\u{200C}ه"), vec!["خیابان\u{200C}ها"]);
        // Decomposed text and a stray joiner are still refused, naming the character.
        for (name, named) in [("Cafe\u{301}", "U+0301"), ("Calls\u{200C}", "U+200C")] {
            let refused = app.post(PATH, json!({ "name": name, "chargingUnitType": "DURATION", "startDate": "2026-01-01" }));
            assert_eq!(refused.status, 400, "{}", refused.text);
            assert!(refused.text.contains(named), "{}", refused.text);
        }
        // An invisible variation selector is still refused, named by its code point.
        let refused = app.post(PATH, json!({ "name": "Calls\u{FE0F}", "chargingUnitType": "DURATION", "startDate": "2026-01-01" }));
        assert_eq!(refused.status, 400, "{}", refused.text);
        assert!(refused.text.contains("U+FE0F"), "{}", refused.text);
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
        // A preference stated twice: the first counts (RFC 7240 §2).
        assert_eq!(list("count=exact, count=planned").1.as_deref(), Some("count=exact"));
        assert_eq!(list("count=planned, count=exact").1.as_deref(), Some(applied_planned));
        // A second count is ignored, even one that would be refused first.
        assert_eq!(list("count=exact, count=bogus").1.as_deref(), Some("count=exact"));
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
}
