//! `/v1/dialstrings`, `/v1/call-classes` and `/v1/ignored-call-classes`: the records rating
//! reads. siMaintained sources are refused (412); one value in force once per source and date
//! (409), also under concurrent writers.

use serde_json::{Value, json};

use crate::support::{TestApp, reference_chain};

fn group(app: &TestApp, source: i64, charge_group: i64, code: &str) -> i64 {
    app.create(
        "/v1/reference-data-source-charge-groups",
        json!({
            "name": format!("Group {code}"), "code": code, "chargeGroupId": charge_group,
            "referenceDataSourceId": source, "startDate": "2026-01-01",
        }),
    )["id"]
        .as_i64()
        .expect("id")
}

fn dialstring(value: &str, group: i64, start: &str, end: Value) -> Value {
    json!({ "dialstring": value, "referenceDataSourceChargeGroupId": group, "startDate": start, "endDate": end })
}

api_test! {
    fn one_dialstring_in_force_per_source_and_date(app) {
        let chain = reference_chain(&app);
        let a = group(&app, chain.open_source, chain.charge_group, "A");
        let b = group(&app, chain.open_source, chain.charge_group, "B");
        let first = app.create("/v1/dialstrings", dialstring("4420", a, "2026-01-01", Value::Null));
        // The same prefix in the same source, on dates the first covers: refused, whichever group.
        let clash = app.post("/v1/dialstrings", dialstring("4420", b, "2026-06-01", json!("2026-06-30")));
        clash.assert_problem(409);
        assert!(clash.text.contains("4420"), "{}", clash.text);
        // A longer prefix, or the same one before the first starts, is fine.
        app.create("/v1/dialstrings", dialstring("44207", b, "2026-06-01", Value::Null));
        app.create("/v1/dialstrings", dialstring("4420", b, "2025-01-01", json!("2025-12-31")));
        // Once the first ends, the prefix may start again after it.
        let path = format!("/v1/dialstrings/{}", first["id"]);
        let ended = app.patch(&path, json!([{ "op": "replace", "path": "/endDate", "value": "2026-05-31" }]));
        assert_eq!(ended.status, 200, "{}", ended.text);
        app.create("/v1/dialstrings", dialstring("4420", b, "2026-06-01", Value::Null));
        // Moving a record onto another's dates is refused; a record never clashes with itself.
        app.patch(&path, json!([{ "op": "replace", "path": "/endDate", "value": null }])).assert_problem(409);
        assert_eq!(app.patch(&path, json!([{ "op": "replace", "path": "/startDate", "value": "2026-01-02" }])).status, 200);
        // Digits only, 2..15.
        for bad in ["4", "44a", "+4420", "4420123456789012"] {
            assert_eq!(app.post("/v1/dialstrings", dialstring(bad, a, "2027-01-01", Value::Null)).error_fields(), vec!["dialstring"], "{bad}");
        }
        assert_eq!(app.post("/v1/dialstrings", dialstring("33", 999, "2026-01-01", Value::Null)).error_fields(), vec!["referenceDataSourceChargeGroupId"]);
        // A group that rates dialstrings cannot be removed.
        app.delete(&format!("/v1/reference-data-source-charge-groups/{a}")).assert_problem(409);
        assert_eq!(app.head("/v1/dialstrings?dialstring=like:442").header("x-total-count"), Some("4"));
    }

    fn concurrent_writers_cannot_both_put_a_value_in_force(app) {
        let chain = reference_chain(&app);
        let groups: Vec<i64> = (0..4).map(|n| group(&app, chain.open_source, chain.charge_group, &format!("G{n}"))).collect();
        for round in 0..8 {
            let value = format!("7{round}00");
            let statuses: Vec<u16> = std::thread::scope(|scope| {
                let handles: Vec<_> = groups
                    .iter()
                    .map(|&group| {
                        let (app, value) = (&app, value.clone());
                        scope.spawn(move || app.post("/v1/call-classes", json!({
                            "callClass": value, "referenceDataSourceChargeGroupId": group, "startDate": "2026-01-01",
                        })).status)
                    })
                    .collect();
                handles.into_iter().map(|handle| handle.join().expect("writer")).collect()
            });
            assert_eq!(statuses.iter().filter(|status| **status == 201).count(), 1, "round {round}: {statuses:?}");
            assert!(statuses.iter().all(|status| matches!(status, 201 | 409)), "round {round}: {statuses:?}");
        }
        assert_eq!(app.head("/v1/call-classes").header("x-total-count"), Some("8"));
    }

    fn records_of_an_operator_maintained_source_are_refused(app) {
        let chain = reference_chain(&app);
        // Built while the source is open, then handed to the operator's feed.
        let source = app.create("/v1/reference-data-sources", json!({ "name": "Later feed", "locale": { "id": chain.locale }, "siMaintained": false }));
        let source_id = source["id"].as_i64().expect("id");
        let feed_group = group(&app, source_id, chain.charge_group, "F");
        let open_group = group(&app, chain.open_source, chain.charge_group, "O");
        let dial = app.create("/v1/dialstrings", dialstring("4470", feed_group, "2026-01-01", Value::Null));
        let class = app.create("/v1/call-classes", json!({ "callClass": "MOBILE", "referenceDataSourceChargeGroupId": feed_group, "startDate": "2026-01-01" }));
        let ignored = app.create("/v1/ignored-call-classes", json!({ "callClass": "FREE", "referenceDataSourceId": source_id, "startDate": "2026-01-01" }));
        let mut handed_over = source.clone();
        handed_over["siMaintained"] = json!(true);
        let locale = handed_over["locale"]["id"].clone();
        handed_over["locale"] = json!({ "id": locale });
        handed_over.as_object_mut().expect("object").remove("id");
        assert_eq!(app.put(&format!("/v1/reference-data-sources/{source_id}"), handed_over).status, 200);

        app.post("/v1/dialstrings", dialstring("4471", feed_group, "2026-01-01", Value::Null)).assert_problem(412);
        app.patch(&format!("/v1/dialstrings/{}", dial["id"]), json!([{ "op": "replace", "path": "/dialstring", "value": "4479" }])).assert_problem(412);
        app.delete(&format!("/v1/call-classes/{}", class["id"])).assert_problem(412);
        app.delete(&format!("/v1/ignored-call-classes/{}", ignored["id"])).assert_problem(412);
        app.post("/v1/ignored-call-classes", json!({ "callClass": "X", "referenceDataSourceId": chain.operator_source, "startDate": "2026-01-01" })).assert_problem(412);
        // Moving an open record into the feed's source is refused too.
        let open = app.create("/v1/dialstrings", dialstring("4480", open_group, "2026-01-01", Value::Null));
        app.patch(&format!("/v1/dialstrings/{}", open["id"]), json!([{ "op": "replace", "path": "/referenceDataSourceChargeGroupId", "value": feed_group }])).assert_problem(412);
        assert_eq!(app.get(&format!("/v1/dialstrings/{}", dial["id"])).json()["dialstring"], "4470");
    }
}

api_test! {
    fn summaries_show_the_rating_rows_of_a_record(app) {
        let chain = reference_chain(&app);
        let rated = group(&app, chain.open_source, chain.charge_group, "RATED");
        let bare = group(&app, chain.open_source, chain.charge_group, "BARE");
        let other_group = app.create("/v1/charge-groups", json!({ "name": "Other", "chargeGroupCategoryId": chain.category, "startDate": "2026-01-01" }));
        group(&app, chain.open_source, other_group["id"].as_i64().expect("id"), "ELSEWHERE");
        let d1 = app.create("/v1/dialstrings", dialstring("4420", rated, "2026-01-01", Value::Null));
        app.create("/v1/dialstrings", dialstring("4421", rated, "2026-01-01", json!("2026-12-31")));
        let class = app.create("/v1/call-classes", json!({ "callClass": "MOBILE", "referenceDataSourceChargeGroupId": rated, "startDate": "2026-01-01" }));

        let one = app.get(&format!("/v1/reference-data-summary/DIALSTRING/{}?page=1&pageSize=10", d1["id"]));
        assert_eq!(one.status, 200, "{}", one.text);
        assert_eq!(one.header("x-total-count"), Some("1"));
        insta::assert_json_snapshot!(crate::support::plain(&one.json()), @r#"
        [
          {
            "chargeGroupId": 1,
            "chargeGroupName": "UK Mobile",
            "chargeGroupStartDate": "2026-01-01",
            "chargeGroupEndDate": null,
            "chargeGroupCategoryId": 1,
            "chargeGroupCategoryName": "Calls",
            "chargeGroupCategoryChargingUnitType": "DURATION",
            "chargeGroupCategoryStartDate": "2026-01-01",
            "chargeGroupCategoryEndDate": null,
            "referenceDataSourceId": 1,
            "referenceDataSourceName": "Internal",
            "referenceDataSourceChargeGroupId": 1,
            "referenceDataSourceChargeGroupName": "Group RATED",
            "referenceDataSourceChargeGroupStartDate": "2026-01-01",
            "referenceDataSourceChargeGroupEndDate": null,
            "callClassId": null,
            "callClass": null,
            "callClassStartDate": null,
            "callClassEndDate": null,
            "dialstringId": 1,
            "dialstring": "4420",
            "dialstringStartDate": "2026-01-01",
            "dialstringEndDate": null
          }
        ]
        "#);

        let path = format!("/v1/reference-data-summary/CHARGE_GROUP/{}?page=1&pageSize=10&sort=dialstring:desc", chain.charge_group);
        let rows = app.get(&path);
        assert_eq!(rows.status, 200, "{}", rows.text);
        assert_eq!(rows.header("x-total-count"), Some("4"));
        let described: Vec<String> = rows.json().as_array().expect("rows").iter().map(|row| {
            // Every member is present, null when the row's kind has none.
            format!("{} {} {}", row["referenceDataSourceChargeGroupName"], row.get("dialstring").expect("dialstring"), row.get("callClass").expect("callClass"))
        }).collect();
        // Descending puts rows without a dialstring first (null sorts as the largest value).
        insta::assert_snapshot!(described.join("\n"), @r#"
        "Group RATED" null "MOBILE"
        "Group BARE" null null
        "Group RATED" "4421" null
        "Group RATED" "4420" null
        "#);
        let _ = bare;
        let class_row = app.get(&format!("/v1/reference-data-summary/CALL_CLASS/{}?page=1&pageSize=1&fields=callClass,referenceDataSourceName", class["id"])).json();
        assert_eq!(class_row, json!([{ "callClass": "MOBILE", "referenceDataSourceName": "Internal" }]));
        let second_page = app.get(&format!("/v1/reference-data-summary/CHARGE_GROUP/{}?page=2&pageSize=3", chain.charge_group));
        assert_eq!(second_page.json().as_array().map(Vec::len), Some(1));

        // Without a sort, ties are ordered by source charge group, then call class, then dialstring.
        let unsorted = app.get(&format!("/v1/reference-data-summary/CHARGE_GROUP/{}?page=1&pageSize=10", chain.charge_group)).json();
        // (A missing id sorts last, as null does.)
        let order: Vec<(i64, i64, i64)> = unsorted.as_array().expect("rows").iter()
            .map(|row| {
                let key = |member: &str| row[member].as_i64().unwrap_or(i64::MAX);
                (key("referenceDataSourceChargeGroupId"), key("callClassId"), key("dialstringId"))
            })
            .collect();
        let mut expected = order.clone();
        expected.sort();
        assert_eq!(order, expected);
        assert_eq!(order.len(), 4);
        assert_ne!(order[0].0, order[3].0, "rows of two source charge groups");
        // Unknown ids of every type are 404; an id that is not one is 400.
        for kind in ["CHARGE_GROUP", "DIALSTRING", "CALL_CLASS"] {
            app.get(&format!("/v1/reference-data-summary/{kind}/999?page=1&pageSize=10")).assert_problem(404);
            assert_eq!(app.get(&format!("/v1/reference-data-summary/{kind}/0?page=1&pageSize=10")).status, 400, "{kind}/0");
            assert_eq!(app.get(&format!("/v1/reference-data-summary/{kind}/x?page=1&pageSize=10")).status, 400, "{kind}/x");
        }
        assert_eq!(app.get("/v1/reference-data-summary/SITE/1?page=1&pageSize=10").error_fields(), vec!["referenceDataSummaryType"]);
        assert_eq!(app.get(&format!("/v1/reference-data-summary/DIALSTRING/{}", d1["id"])).error_fields(), vec!["page", "pageSize"]);
        assert_eq!(app.get(&format!("/v1/reference-data-summary/DIALSTRING/{}?page=1&pageSize=1&sort=colour", d1["id"])).error_fields(), vec!["sort"]);
        assert_eq!(app.get(&format!("/v1/reference-data-summary/DIALSTRING/{}?page=1&pageSize=1&colour=red", d1["id"])).error_fields(), vec!["colour"]);
    }
}
