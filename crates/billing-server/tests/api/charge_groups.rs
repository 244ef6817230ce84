//! `/v1/charge-group-categories` and `/v1/charge-groups`.

use serde_json::json;

use crate::support::reference_chain;

api_test! {
    fn categories_take_only_known_unit_types(app) {
        let reply = app.post("/v1/charge-group-categories", json!({ "name": "Calls", "chargingUnitType": "SECONDS", "startDate": "2026-01-01" }));
        assert_eq!(reply.error_fields(), vec!["chargingUnitType"]);
        let reply = app.post("/v1/charge-group-categories", json!({ "name": "Calls", "chargingUnitType": "MB", "startDate": "2026-02-01", "endDate": "2026-01-01" }));
        assert_eq!(reply.error_fields(), vec!["endDate"]);
    }

    fn charge_groups_reference_an_existing_category(app) {
        let reply = app.post("/v1/charge-groups", json!({ "name": "UK", "chargeGroupCategoryId": 5, "startDate": "2026-01-01" }));
        assert_eq!(reply.error_fields(), vec!["chargeGroupCategoryId"]);
        let reply = app.post("/v1/charge-groups", json!({ "name": "UK", "chargeGroupCategoryId": 0, "startDate": "2026-01-01" }));
        assert_eq!(reply.error_fields(), vec!["chargeGroupCategoryId"]);
        let chain = reference_chain(&app);
        let listed = app.get(&format!("/v1/charge-groups?page=1&pageSize=10&chargeGroupCategoryId={}", chain.category));
        assert_eq!(listed.header("x-total-count"), Some("1"));
        app.delete(&format!("/v1/charge-group-categories/{}", chain.category)).assert_problem(409);
    }

    fn a_charge_group_in_use_cannot_be_deleted(app) {
        let chain = reference_chain(&app);
        app.create("/v1/reference-data-source-charge-groups", json!({
            "name": "Mobile", "code": "MOB", "chargeGroupId": chain.charge_group, "referenceDataSourceId": chain.open_source, "startDate": "2026-01-01"
        }));
        app.delete(&format!("/v1/charge-groups/{}", chain.charge_group)).assert_problem(409);
    }

    fn read_only_users_cannot_write_reference_data(app) {
        let reader = app.user_with_roles("reader", &["READ_ONLY"]);
        let customers = app.user_with_roles("customers", &["CUSTOMER_MANAGER"]);
        for token in [&reader, &customers] {
            app.post_as(token, "/v1/charge-group-categories", json!({ "name": "X", "chargingUnitType": "MB", "startDate": "2026-01-01" })).assert_problem(403);
            assert_eq!(app.get_as(token, "/v1/charge-groups?page=1&pageSize=10").status, 200);
        }
    }
}

api_test! {
    fn tax_band_rates_are_exact_decimals(app) {
        let band = |rate: serde_json::Value| serde_json::json!({ "name": "Standard", "rate": rate, "startDate": "2026-01-01" });
        let created = app.post("/v1/tax-bands", band(serde_json::json!(17.5)));
        assert_eq!(created.status, 201, "{}", created.text);
        // The number comes back exactly as sent (no float on the way), in the body text too.
        assert!(created.text.contains("\"rate\":17.5"), "{}", created.text);
        let precise = app.create("/v1/tax-bands", band(serde_json::json!(0.0001)));
        let precise_text = app.get(&format!("/v1/tax-bands/{}", precise["id"])).text;
        assert!(precise_text.contains("\"rate\":0.0001"), "{precise_text}");
        let whole = app.post("/v1/tax-bands", serde_json::json!({ "name": "Zero", "rate": 0, "startDate": "2026-01-01" }));
        assert!(whole.text.contains("\"rate\":0"), "{}", whole.text);
        // Bounds and places, each naming the field; a string is not a number.
        let raw = |body: &str| app.send("POST", "/v1/tax-bands", Some(&app.admin_token), &[], Some(("application/json", body.to_owned())));
        for body in [
            r#"{"name":"x","rate":100.00001,"startDate":"2026-01-01"}"#,
            r#"{"name":"x","rate":100.0001,"startDate":"2026-01-01"}"#,
            r#"{"name":"x","rate":-0.5,"startDate":"2026-01-01"}"#,
            r#"{"name":"x","rate":"17.5","startDate":"2026-01-01"}"#,
            r#"{"name":"x","rate":1e999999999,"startDate":"2026-01-01"}"#,
            r#"{"name":"x","rate":17.50000000000000000001,"startDate":"2026-01-01"}"#,
        ] {
            let reply = raw(body);
            assert_eq!(reply.status, 400, "{body}: {}", reply.text);
            assert_eq!(reply.error_fields(), vec!["rate"], "{body}");
        }
        assert_eq!(raw(r#"{"name":"x","rate":100.0000,"startDate":"2026-01-01"}"#).status, 201);
        // Filters compare exactly.
        assert_eq!(app.head("/v1/tax-bands?rate=17.5").header("x-total-count"), Some("1"));
        assert_eq!(app.head("/v1/tax-bands?rate=lt:17.5").header("x-total-count"), Some("2"));
        assert_eq!(app.head("/v1/tax-bands?rate=gt:0.0001").header("x-total-count"), Some("2"));
        let bad = app.get("/v1/tax-bands?page=1&pageSize=5&rate=gt:0.00001");
        assert_eq!(bad.error_fields(), vec!["rate"]);
        // A patch keeps the exact value.
        let patched = app.patch(&format!("/v1/tax-bands/{}", created.json()["id"]), serde_json::json!([{ "op": "replace", "path": "/rate", "value": 20 }]));
        assert!(patched.text.contains("\"rate\":20"), "{}", patched.text);
        let sorted = app.get("/v1/tax-bands?page=1&pageSize=5&sort=rate:desc").json();
        assert_eq!(sorted[0]["rate"], serde_json::json!(100));
    }
}

api_test! {
    fn currency_rates_are_exact_positive_and_one_per_pair_and_date(app) {
        let pound = app.create("/v1/currencies", crate::support::currency_body("GBP"))["id"].as_i64().expect("id");
        let euro = app.create("/v1/currencies", crate::support::currency_body("EUR"))["id"].as_i64().expect("id");
        let rate = |from: i64, to: i64, rate: serde_json::Value, date: &str| serde_json::json!({
            "fromCurrencyId": from, "toCurrencyId": to, "rate": rate, "effectiveDate": date,
        });
        let created = app.post("/v1/currency-rates", rate(pound, euro, serde_json::json!(1.172345), "2026-11-01"));
        assert_eq!(created.status, 201, "{}", created.text);
        assert!(created.text.contains("\"rate\":1.172345"), "{}", created.text);
        let again = app.post("/v1/currency-rates", rate(pound, euro, serde_json::json!(1.2), "2026-11-01"));
        again.assert_problem(409);
        assert!(again.text.contains("fromCurrencyId, toCurrencyId and effectiveDate"), "{}", again.text);
        app.create("/v1/currency-rates", rate(pound, euro, serde_json::json!(1.2), "2026-11-02"));
        assert_eq!(app.post("/v1/currency-rates", rate(pound, euro, serde_json::json!(0), "2026-11-03")).error_fields(), vec!["rate"]);
        assert_eq!(app.post("/v1/currency-rates", rate(pound, pound, serde_json::json!(1), "2026-11-03")).error_fields(), vec!["toCurrencyId"]);
        assert_eq!(app.post("/v1/currency-rates", rate(pound, 999, serde_json::json!(1), "2026-11-03")).error_fields(), vec!["toCurrencyId"]);
        assert_eq!(app.post("/v1/currency-rates", rate(pound, euro, serde_json::json!(1.0000001), "2026-11-03")).error_fields(), vec!["rate"]);
        assert_eq!(app.head("/v1/currency-rates?rate=gt:1.172345").header("x-total-count"), Some("1"));
        // A currency with rates cannot be removed.
        app.delete(&format!("/v1/currencies/{euro}")).assert_problem(409);
    }

    fn ignored_service_ids_follow_the_conventions(app) {
        let created = app.create("/v1/ignored-service-ids", serde_json::json!({ "serviceId": "SVC-1", "startDate": "2026-01-01" }));
        assert_eq!(created["description"], serde_json::Value::Null);
        app.create("/v1/ignored-service-ids", serde_json::json!({ "serviceId": "SVC-2", "description": "Test line", "startDate": "2026-01-01", "endDate": "2026-06-30" }));
        assert_eq!(app.post("/v1/ignored-service-ids", serde_json::json!({ "serviceId": "", "startDate": "2026-01-01" })).error_fields(), vec!["serviceId"]);
        assert_eq!(app.post("/v1/ignored-service-ids", serde_json::json!({ "serviceId": "S", "startDate": "2026-02-01", "endDate": "2026-01-01" })).error_fields(), vec!["endDate"]);
        assert_eq!(app.head("/v1/ignored-service-ids?endDate=gtn:2026-07-01").header("x-total-count"), Some("1"));
        assert_eq!(app.head("/v1/ignored-service-ids?description=like:test").header("x-total-count"), Some("1"));
    }
}
