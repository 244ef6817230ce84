//! `POST /v1/rating/lookups`: the live index answers, every write of rating data is rated at
//! once, bad input is 400 naming the member, a second instance follows within a second, a
//! full source is 507, and random writes then lookups agree with the naive reference.

use serde_json::{Value, json};

use crate::support::{Chain, TestApp, plain, reference_chain};

/// A source charge group of the open source, in the chain's charge group.
fn source_group(app: &TestApp, chain: &Chain, code: &str) -> i64 {
    app.create(
        "/v1/reference-data-source-charge-groups",
        json!({ "name": format!("Group {code}"), "code": code, "chargeGroupId": chain.charge_group,
                "referenceDataSourceId": chain.open_source, "startDate": "2026-01-01" }),
    )["id"]
        .as_i64()
        .expect("id")
}

fn dialstring(app: &TestApp, group: i64, digits: &str, start: &str) -> i64 {
    app.create(
        "/v1/dialstrings",
        json!({ "dialstring": digits, "referenceDataSourceChargeGroupId": group, "startDate": start }),
    )["id"]
        .as_i64()
        .expect("id")
}

fn lookup(app: &TestApp, source: i64, date: &str, items: Value) -> Value {
    let reply = app.post(
        "/v1/rating/lookups",
        json!({ "referenceDataSourceId": source, "date": date, "items": items }),
    );
    assert_eq!(reply.status, 200, "{}", reply.text);
    reply.json()
}

fn outcomes(answer: &Value) -> Vec<String> {
    answer["results"]
        .as_array()
        .expect("results")
        .iter()
        .map(|r| {
            r["outcome"]
                .as_str()
                .map_or_else(|| "ERROR".to_owned(), str::to_owned)
        })
        .collect()
}

api_test! {
    fn every_write_is_rated_at_once(app) {
        let chain = reference_chain(&app);
        let mobile = source_group(&app, &chain, "MOB");
        let premium = source_group(&app, &chain, "PRE");
        let number = json!([{ "dialledNumber": "+44 7712 345678" }]);
        let on = "2026-06-01";
        assert_eq!(outcomes(&lookup(&app, chain.open_source, on, number.clone())), ["UNRATED"]);
        let short = dialstring(&app, mobile, "447", "2026-01-01");
        let answer = lookup(&app, chain.open_source, on, number.clone());
        insta::assert_json_snapshot!(plain(&answer["results"][0]), {
            ".dialstringId" => "[id]", ".referenceDataSourceChargeGroupId" => "[id]",
            ".referenceDataSourceId" => "[id]", ".chargeGroupId" => "[id]", ".chargeGroupCategoryId" => "[id]",
        }, @r#"
        {
          "outcome": "DIALSTRING",
          "dialstringId": "[id]",
          "dialstring": "447",
          "dialstringStartDate": "2026-01-01",
          "dialstringEndDate": null,
          "referenceDataSourceChargeGroupId": "[id]",
          "referenceDataSourceChargeGroupName": "Group MOB",
          "referenceDataSourceChargeGroupStartDate": "2026-01-01",
          "referenceDataSourceChargeGroupEndDate": null,
          "referenceDataSourceId": "[id]",
          "referenceDataSourceName": "Internal",
          "chargeGroupId": "[id]",
          "chargeGroupName": "UK Mobile",
          "chargeGroupStartDate": "2026-01-01",
          "chargeGroupEndDate": null,
          "chargeGroupCategoryId": "[id]",
          "chargeGroupCategoryName": "Calls",
          "chargeGroupCategoryChargingUnitType": "DURATION",
          "chargeGroupCategoryStartDate": "2026-01-01",
          "chargeGroupCategoryEndDate": null
        }
        "#);
        // A longer prefix wins as soon as it is created.
        let long = dialstring(&app, premium, "44771", "2026-01-01");
        let answer = lookup(&app, chain.open_source, on, number.clone());
        assert_eq!(answer["results"][0]["dialstringId"], long);
        assert_eq!(answer["results"][0]["referenceDataSourceChargeGroupName"], "Group PRE");
        // Ended before the date: the shorter one rates again.
        let reply = app.patch(
            &format!("/v1/dialstrings/{long}"),
            json!([{ "op": "replace", "path": "/startDate", "value": "2026-01-01" },
                   { "op": "add", "path": "/endDate", "value": "2026-05-31" }]),
        );
        assert_eq!(reply.status, 200, "{}", reply.text);
        let answer = lookup(&app, chain.open_source, on, number.clone());
        assert_eq!(answer["results"][0]["dialstringId"], short);
        assert_eq!(
            lookup(&app, chain.open_source, "2026-05-31", number.clone())["results"][0]["dialstringId"],
            long
        );
        // A renamed charge group shows its new name at once.
        let reply = app.patch(
            &format!("/v1/charge-groups/{}", chain.charge_group),
            json!([{ "op": "replace", "path": "/name", "value": "UK Mobiles" }]),
        );
        assert_eq!(reply.status, 200, "{}", reply.text);
        let answer = lookup(&app, chain.open_source, on, number.clone());
        assert_eq!(answer["results"][0]["chargeGroupName"], "UK Mobiles");
        // Deleted: nothing matches; a call class takes over.
        assert_eq!(app.delete(&format!("/v1/dialstrings/{short}")).status, 204);
        let with_class = json!([{ "dialledNumber": "447712345678", "callClass": "MOBILE" }]);
        assert_eq!(outcomes(&lookup(&app, chain.open_source, on, with_class.clone())), ["UNRATED"]);
        let class = app.create(
            "/v1/call-classes",
            json!({ "callClass": "MOBILE", "referenceDataSourceChargeGroupId": mobile, "startDate": "2026-01-01" }),
        );
        let answer = lookup(&app, chain.open_source, on, with_class.clone());
        assert_eq!(outcomes(&answer), ["CALL_CLASS"]);
        assert_eq!(answer["results"][0]["callClassId"], class["id"]);
        assert_eq!(answer["results"][0]["callClassEndDate"], Value::Null);
        // Ignored call classes and service ids come first.
        app.create(
            "/v1/ignored-call-classes",
            json!({ "callClass": "MOBILE", "referenceDataSourceId": chain.open_source, "startDate": "2026-01-01" }),
        );
        assert_eq!(outcomes(&lookup(&app, chain.open_source, on, with_class)), ["IGNORED"]);
        let ignored = app.create(
            "/v1/ignored-service-ids",
            json!({ "serviceId": "SVC-1", "startDate": "2026-01-01" }),
        );
        let answer = lookup(&app, chain.open_source, on, json!([{ "serviceId": "SVC-1", "dialledNumber": "44771" }]));
        assert_eq!(answer["results"][0]["ignoredRecordType"], "SERVICE_ID");
        assert_eq!(answer["results"][0]["ignoredRecordId"], ignored["id"]);
    }

    fn a_dialstring_rates_on_its_own_dates_whatever_its_groups(app) {
        // docs/rating.md: "in force" is the record's own dates; its group's dates do not narrow
        // them, and the answer carries the group's for the client to judge.
        let chain = reference_chain(&app);
        let group = app.create(
            "/v1/reference-data-source-charge-groups",
            json!({ "name": "Ended group", "code": "END", "chargeGroupId": chain.charge_group,
                    "referenceDataSourceId": chain.open_source, "startDate": "2026-01-01", "endDate": "2026-03-31" }),
        )["id"].as_i64().expect("id");
        dialstring(&app, group, "9911", "2025-06-01");
        for on in ["2025-07-01", "2026-02-01", "2027-06-01"] {
            let answer = lookup(&app, chain.open_source, on, json!([{ "dialledNumber": "99112" }]));
            assert_eq!(outcomes(&answer), ["DIALSTRING"], "{on}: {answer}");
            assert_eq!(answer["results"][0]["referenceDataSourceChargeGroupEndDate"], "2026-03-31", "{answer}");
        }
        let before = lookup(&app, chain.open_source, "2025-05-31", json!([{ "dialledNumber": "99112" }]));
        assert_eq!(outcomes(&before), ["UNRATED"], "{before}");
    }

    fn a_malformed_number_is_an_error_of_its_item_alone(app) {
        let chain = reference_chain(&app);
        let group = source_group(&app, &chain, "MOB");
        dialstring(&app, group, "44", "2026-01-01");
        let answer = lookup(
            &app,
            chain.open_source,
            "2026-06-01",
            json!([{ "dialledNumber": "44x1" }, { "dialledNumber": "441" }, {}, { "dialledNumber": null, "callClass": null }]),
        );
        insta::assert_json_snapshot!(outcomes(&answer), @r#"
        [
          "ERROR",
          "DIALSTRING",
          "UNRATED",
          "UNRATED"
        ]
        "#);
        insta::assert_json_snapshot!(plain(&answer["results"][0]), @r#"
        {
          "error": {
            "field": "dialledNumber",
            "message": "the dialled number contains 'x'; only digits, spaces and a leading + are allowed"
          }
        }
        "#);
        // Without a date, today (UTC) is used.
        let reply = app.post("/v1/rating/lookups", json!({ "referenceDataSourceId": chain.open_source, "items": [{}] }));
        assert_eq!(reply.status, 200, "{}", reply.text);
        assert_eq!(reply.json()["date"], chrono::Utc::now().date_naive().to_string());
        // Null is the same as left out.
        let reply = app.post("/v1/rating/lookups", json!({ "referenceDataSourceId": chain.open_source, "date": null, "items": [{}] }));
        assert_eq!(reply.status, 200, "{}", reply.text);
        assert_eq!(reply.json()["date"], chrono::Utc::now().date_naive().to_string());
    }

    fn bad_requests_are_400_naming_the_member(app) {
        let chain = reference_chain(&app);
        let source = chain.open_source;
        let cases = [
            (json!([]), vec!["body"]),
            (json!({ "items": [{}] }), vec!["referenceDataSourceId"]),
            (json!({ "referenceDataSourceId": "1", "items": [{}] }), vec!["referenceDataSourceId"]),
            (json!({ "referenceDataSourceId": 1.5, "items": [{}] }), vec!["referenceDataSourceId"]),
            (json!({ "referenceDataSourceId": 0, "items": [{}] }), vec!["referenceDataSourceId"]),
            (json!({ "referenceDataSourceId": 999, "items": [{}] }), vec!["referenceDataSourceId"]),
            (json!({ "referenceDataSourceId": source, "date": "2026-02-30", "items": [{}] }), vec!["date"]),
            (json!({ "referenceDataSourceId": source, "date": 20260101, "items": [{}] }), vec!["date"]),
            (json!({ "referenceDataSourceId": source }), vec!["items"]),
            (json!({ "referenceDataSourceId": source, "items": [] }), vec!["items"]),
            (json!({ "referenceDataSourceId": source, "items": {} }), vec!["items"]),
            (json!({ "referenceDataSourceId": source, "items": [{}], "extra": 1 }), vec!["extra"]),
            (json!({ "referenceDataSourceId": source, "items": [{}, 7] }), vec!["items[1]"]),
            (json!({ "referenceDataSourceId": source, "items": [{ "number": "44" }] }), vec!["items[0].number"]),
            (json!({ "referenceDataSourceId": source, "items": [{ "dialledNumber": 44 }] }), vec!["items[0].dialledNumber"]),
            (json!({ "referenceDataSourceId": source, "items": [{ "callClass": "x".repeat(256) }] }), vec!["items[0].callClass"]),
            (json!({ "referenceDataSourceId": source, "items": [{ "serviceId": ["a"] }, { "callClass": true }] }),
                vec!["items[0].serviceId", "items[1].callClass"]),
        ];
        for (body, fields) in cases {
            let reply = app.post("/v1/rating/lookups", body.clone());
            reply.assert_problem(400);
            assert_eq!(reply.error_fields(), fields, "{body}");
        }
        let too_many: Vec<Value> = (0..10_001).map(|_| json!({ "dialledNumber": "44" })).collect();
        let reply = app.post("/v1/rating/lookups", json!({ "referenceDataSourceId": source, "items": too_many }));
        reply.assert_problem(400);
        assert_eq!(reply.error_fields(), ["items"]);
        let reply = app.send("POST", "/v1/rating/lookups", None, &[], Some(("application/json", "{}".into())));
        reply.assert_problem(401);
        let reply = app.send("POST", "/v1/rating/lookups?x=1", Some(&app.admin_token), &[], Some(("application/json", "{}".into())));
        reply.assert_problem(400);
        let reply = app.send("POST", "/v1/rating/lookups", Some(&app.admin_token), &[], Some(("text/plain", "{}".into())));
        reply.assert_problem(415);
        assert_eq!(app.get("/v1/rating/lookups").status, 405);
        // Any signed-in role reads reference data.
        let reader = app.user_with_roles("reader", &["READ_ONLY"]);
        let reply = app.post_as(&reader, "/v1/rating/lookups", json!({ "referenceDataSourceId": source, "items": [{}] }));
        assert_eq!(reply.status, 200, "{}", reply.text);
    }

    fn ten_thousand_items_fit_the_body_limit(app) {
        // The test server's service-wide body limit is 64 KiB; this route has its own.
        let chain = reference_chain(&app);
        let group = source_group(&app, &chain, "MOB");
        dialstring(&app, group, "4477", "2026-01-01");
        let items: Vec<Value> = (0..10_000)
            .map(|i| json!({ "dialledNumber": format!("+44 77{i:08}"), "callClass": "c".repeat(200), "serviceId": "s".repeat(200) }))
            .collect();
        let answer = lookup(&app, chain.open_source, "2026-06-01", Value::Array(items));
        let outcomes = outcomes(&answer);
        assert_eq!(outcomes.len(), 10_000);
        assert!(outcomes.iter().all(|o| o == "DIALSTRING"));
    }

    fn a_refused_write_never_reaches_the_index(app) {
        let chain = reference_chain(&app);
        let group = source_group(&app, &chain, "MOB");
        dialstring(&app, group, "4477", "2026-01-01");
        // The same dialstring twice in force is 409: nothing is written, nothing is rated.
        let reply = app.post(
            "/v1/dialstrings",
            json!({ "dialstring": "4477", "referenceDataSourceChargeGroupId": group, "startDate": "2026-03-01" }),
        );
        reply.assert_problem(409);
        // Data of an operator-maintained source is 412: still nothing to rate there.
        let reply = app.post(
            "/v1/reference-data-source-charge-groups",
            json!({ "name": "Feed", "code": "F", "chargeGroupId": chain.charge_group,
                    "referenceDataSourceId": chain.operator_source, "startDate": "2026-01-01" }),
        );
        reply.assert_problem(412);
        let answer = lookup(&app, chain.operator_source, "2026-06-01", json!([{ "dialledNumber": "447712" }]));
        assert_eq!(outcomes(&answer), ["UNRATED"]);
        let answer = lookup(&app, chain.open_source, "2026-06-01", json!([{ "dialledNumber": "447712" }]));
        assert_eq!(outcomes(&answer), ["DIALSTRING"]);
        let changes = app.get("/v1/audit-events?page=1&pageSize=100&resource=dialstrings");
        assert_eq!(changes.header("x-total-count"), Some("1"));
    }

    fn a_second_instance_rates_a_change_within_a_second(app) {
        let chain = reference_chain(&app);
        let group = source_group(&app, &chain, "MOB");
        let second = app.second_instance();
        let number = json!([{ "dialledNumber": "447712" }]);
        assert_eq!(outcomes(&lookup(&second, chain.open_source, "2026-06-01", number.clone())), ["UNRATED"]);
        let id = dialstring(&app, group, "4477", "2026-01-01");
        let started = std::time::Instant::now();
        loop {
            let answer = lookup(&second, chain.open_source, "2026-06-01", number.clone());
            if answer["results"][0]["dialstringId"] == id {
                break;
            }
            assert!(started.elapsed() < std::time::Duration::from_secs(1), "not rated by the second instance within a second");
            std::thread::sleep(std::time::Duration::from_millis(20));
        }
        // And the other way round: a delete through the second reaches the first.
        assert_eq!(second.delete(&format!("/v1/dialstrings/{id}")).status, 204);
        let started = std::time::Instant::now();
        while outcomes(&lookup(&app, chain.open_source, "2026-06-01", number.clone())) != ["UNRATED"] {
            assert!(started.elapsed() < std::time::Duration::from_secs(1), "not followed within a second");
            std::thread::sleep(std::time::Duration::from_millis(20));
        }
    }

    fn moving_a_group_to_another_source_rates_there_at_once_without_a_reload(app) {
        let chain = reference_chain(&app);
        let target = app.create("/v1/reference-data-sources",
            json!({ "name": "Target", "locale": { "id": chain.locale }, "siMaintained": false }))["id"]
            .as_i64()
            .expect("id");
        let group = source_group(&app, &chain, "MOV");
        let kept = source_group(&app, &chain, "KEEP");
        dialstring(&app, group, "4420", "2026-01-01");
        dialstring(&app, kept, "4413", "2026-01-01");
        app.create("/v1/call-classes",
            json!({ "callClass": "LONDON", "referenceDataSourceChargeGroupId": group, "startDate": "2026-01-01" }));
        let items = json!([{ "dialledNumber": "442071234567" }, { "dialledNumber": "9", "callClass": "LONDON" },
                           { "dialledNumber": "441312345678" }]);
        let on = "2026-06-01";
        assert_eq!(outcomes(&lookup(&app, chain.open_source, on, items.clone())), ["DIALSTRING", "CALL_CLASS", "DIALSTRING"]);
        assert_eq!(outcomes(&lookup(&app, target, on, items.clone())), ["UNRATED", "UNRATED", "UNRATED"]);
        let before = rating_index_reloads(&app);
        let moved = app.patch(&format!("/v1/reference-data-source-charge-groups/{group}"),
            json!([{ "op": "replace", "path": "/referenceDataSourceId", "value": target }]));
        assert_eq!(moved.status, 200, "{}", moved.text);
        // The group's dialstring and call class rate in the new source, not in the old one,
        // whose other groups are untouched; the index moved them in place.
        assert_eq!(outcomes(&lookup(&app, target, on, items.clone())), ["DIALSTRING", "CALL_CLASS", "UNRATED"]);
        let answer = lookup(&app, chain.open_source, on, items);
        assert_eq!(outcomes(&answer), ["UNRATED", "UNRATED", "DIALSTRING"]);
        assert_eq!(answer["results"][2]["referenceDataSourceChargeGroupId"], kept);
        assert_eq!(rating_index_reloads(&app), before, "the index was loaded again whole");
    }
}

/// `billing_rating_index_reloads_total` from `/metrics`.
fn rating_index_reloads(app: &TestApp) -> u64 {
    let reply = app.send("GET", "/metrics", None, &[], None);
    assert_eq!(reply.status, 200);
    reply
        .text
        .lines()
        .find_map(|line| line.strip_prefix("billing_rating_index_reloads_total "))
        .and_then(|count| count.parse().ok())
        .expect("billing_rating_index_reloads_total in /metrics")
}

mod full_source {
    use super::*;
    use crate::support::Backend;

    fn run(backend: Backend) {
        let Some(app) = TestApp::spawn_with(backend, |settings| {
            settings.rating_word_limit = Some(600);
        }) else {
            return;
        };
        let chain = reference_chain(&app);
        let group = source_group(&app, &chain, "MOB");
        let number = json!([{ "dialledNumber": "447712" }]);
        let mut created = Vec::new();
        let refused = loop {
            created.push(dialstring(
                &app,
                group,
                &format!("{:015}", created.len() * 7_919),
                "2026-01-01",
            ));
            let reply = app.post(
                "/v1/rating/lookups",
                json!({ "referenceDataSourceId": chain.open_source, "items": number }),
            );
            if reply.status != 200 {
                break reply;
            }
            assert!(created.len() < 100, "the limit was never reached");
        };
        let body = refused.assert_problem(507);
        assert!(
            body["detail"].as_str().expect("detail").contains("is full"),
            "{body}"
        );
        // Other sources still rate.
        let reply = app.post(
            "/v1/rating/lookups",
            json!({ "referenceDataSourceId": chain.operator_source, "items": number }),
        );
        assert_eq!(reply.status, 200, "{}", reply.text);
        // Deleting enough brings the source back, by loading the index again whole (counted).
        let reloads = rating_index_reloads(&app);
        for id in created.iter().rev().take(5) {
            assert_eq!(app.delete(&format!("/v1/dialstrings/{id}")).status, 204);
        }
        let reply = app.post(
            "/v1/rating/lookups",
            json!({ "referenceDataSourceId": chain.open_source, "items": number }),
        );
        assert_eq!(reply.status, 200, "{}", reply.text);
        assert!(
            rating_index_reloads(&app) > reloads,
            "a reload that was not counted"
        );
    }

    #[test]
    fn sqlite() {
        run(Backend::Sqlite);
    }

    #[test]
    fn postgres() {
        run(Backend::Postgres);
    }
}

mod agrees_with_the_naive_reference;
