//! `/v1/countries`, `/v1/currencies` and `/v1/locales`.

use serde_json::json;

use crate::support::currency_body;

api_test! {
    fn countries_are_the_iso_list(app) {
        let reply = app.get("/v1/countries?page=1&pageSize=2&code=in:GB,FR,XX");
        assert_eq!(reply.json(), json!([{ "code": "FR", "name": "France" }, { "code": "GB", "name": "United Kingdom" }]));
        assert_eq!(app.get("/v1/countries?page=1&pageSize=1").header("x-total-count"), Some("249"));
        assert_eq!(app.head("/v1/countries?name=like:kingdom").status, 200);
    }

    fn currencies_round_trip_and_name_every_broken_field(app) {
        let created = app.post("/v1/currencies", currency_body("GBP"));
        assert_eq!(created.status, 201, "{}", created.text);
        insta::assert_json_snapshot!(crate::support::plain(&created.json()), @r##"
        {
          "id": 1,
          "code": "GBP",
          "symbol": "£",
          "majorCurrencyName": "Pound",
          "minorCurrencyName": "Penny",
          "majorCurrencyFormat": "£#,##0.00",
          "minorCurrencyFormat": "#p",
          "salesTaxName": "VAT"
        }
        "##);
        let bad = app.post("/v1/currencies", json!({
            "code": "gbp", "symbol": "££", "majorCurrencyName": "Pound1", "minorCurrencyName": "Penny",
            "majorCurrencyFormat": "x", "minorCurrencyFormat": "y", "salesTaxName": "z".repeat(21)
        }));
        bad.assert_problem(400);
        let mut fields = bad.error_fields();
        fields.sort();
        assert_eq!(fields, vec!["code", "majorCurrencyName", "salesTaxName", "symbol"], "every broken rule in one answer");
        app.post("/v1/currencies", currency_body("GBP")).assert_problem(409);
        // A format is a text field: a sign the symbol takes but the text set does not is 400.
        let mut yen = currency_body("JPY");
        yen["symbol"] = json!("¥");
        yen["majorCurrencyFormat"] = json!("¥#,##0");
        assert_eq!(app.post("/v1/currencies", yen).error_fields(), vec!["majorCurrencyFormat"]);
    }

    fn currency_codes_must_be_iso_4217(app) {
        let unknown = app.post("/v1/currencies", currency_body("XYZ"));
        let problem = unknown.assert_problem(400);
        assert_eq!(unknown.error_fields(), vec!["code"]);
        assert_eq!(problem["errors"][0]["message"], "'XYZ' is not an ISO 4217 currency code");
        for code in ["USD", "JPY", "CHF", "XCG", "ZWG"] {
            assert_eq!(app.post("/v1/currencies", currency_body(code)).status, 201, "{code}");
        }
        let replaced = app.put("/v1/currencies/1", currency_body("XYZ"));
        assert_eq!(replaced.error_fields(), vec!["code"]);
        let patched = app.patch("/v1/currencies/1", json!([{ "op": "replace", "path": "/code", "value": "ABC" }]));
        assert_eq!(patched.error_fields(), vec!["code"]);
        assert_eq!(app.get("/v1/currencies?page=1&pageSize=10").header("x-total-count"), Some("5"));
    }

    fn locales_join_country_and_currency(app) {
        let currency = app.create("/v1/currencies", currency_body("EUR"));
        let locale = app.post("/v1/locales", json!({ "country": { "code": "IE" }, "currency": { "id": currency["id"] } }));
        assert_eq!(locale.status, 201, "{}", locale.text);
        let locale = locale.json();
        assert_eq!(locale["country"], json!({ "code": "IE", "name": "Ireland" }));
        assert_eq!(locale["currency"]["code"], "EUR");
        assert_eq!(app.post("/v1/locales", json!({ "country": { "code": "XX" }, "currency": { "id": 1 } })).error_fields(), vec!["country.code"]);
        assert_eq!(app.post("/v1/locales", json!({ "country": { "code": "IE" }, "currency": { "id": 99 } })).error_fields(), vec!["currency.id"]);
        app.post("/v1/locales", json!({ "country": { "code": "IE" }, "currency": { "id": 1 } })).assert_problem(409);
        // A locale can be sent back as it was read (descriptive members are ignored).
        let mut round_trip = locale.clone();
        round_trip.as_object_mut().expect("object").remove("id");
        round_trip["country"]["code"] = json!("FR");
        let replaced = app.put("/v1/locales/1", round_trip);
        assert_eq!(replaced.status, 200, "{}", replaced.text);
        assert_eq!(replaced.json()["country"]["name"], "France");
        assert_eq!(app.get("/v1/locales?page=1&pageSize=5&country=FR").header("x-total-count"), Some("1"));
        app.delete("/v1/currencies/1").assert_problem(409);
        // Filters and sort keys are named after the shown member.
        let filtered = app.get("/v1/locales?page=1&pageSize=5&currency=1&sort=currency:desc,country");
        assert_eq!(filtered.status, 200, "{}", filtered.text);
        assert_eq!(filtered.header("x-total-count"), Some("1"));
        app.get("/v1/locales?currencyId=1").assert_problem(400);
        assert_eq!(app.delete("/v1/locales/1").status, 204);
        assert_eq!(app.delete("/v1/currencies/1").status, 204);
    }
}

api_test! {
    fn an_etag_changes_when_an_embedded_record_changes(app) {
        let chain = crate::support::reference_chain(&app);
        let source_path = format!("/v1/reference-data-sources/{}", chain.open_source);
        let locale_path = format!("/v1/locales/{}", chain.locale);
        let source_tag = app.get(&source_path).header("etag").expect("etag").to_owned();
        let locale_tag = app.get(&locale_path).header("etag").expect("etag").to_owned();
        // Only the currency both embed changes: neither the source's nor the locale's row does.
        let renamed = app.patch("/v1/currencies/1", json!([{ "op": "replace", "path": "/salesTaxName", "value": "GST" }]));
        assert_eq!(renamed.status, 200, "{}", renamed.text);
        let source = app.get(&source_path);
        assert_eq!(source.json()["locale"]["currency"]["salesTaxName"], "GST");
        assert_ne!(source.header("etag"), Some(source_tag.as_str()), "the body changed, so the tag must");
        assert_ne!(app.get(&locale_path).header("etag"), Some(locale_tag.as_str()));
        // A client holding the old tag is told its copy is stale.
        let stale = app.send("PATCH", &source_path, Some(&app.admin_token), &[("If-Match", &source_tag)],
            Some(("application/json-patch+json", json!([{ "op": "replace", "path": "/name", "value": "Renamed" }]).to_string())));
        stale.assert_problem(412);
        let current = source.header("etag").expect("etag").to_owned();
        let fresh = app.send("PATCH", &source_path, Some(&app.admin_token), &[("If-Match", &current)],
            Some(("application/json-patch+json", json!([{ "op": "replace", "path": "/name", "value": "Renamed" }]).to_string())));
        assert_eq!(fresh.status, 200, "{}", fresh.text);
        assert_eq!(app.head(&source_path).header("etag"), fresh.header("etag"));
    }
}

api_test! {
    fn a_shown_record_is_named_by_its_key_alone(app) {
        let currency = app.create("/v1/currencies", currency_body("EUR"));
        let problems = |body: serde_json::Value| {
            let reply = app.post("/v1/locales", body);
            let problem = reply.assert_problem(400);
            problem["errors"].as_array().expect("errors").iter()
                .map(|error| format!("{}: {}", error["field"].as_str().unwrap_or(""), error["message"].as_str().unwrap_or("")))
                .collect::<Vec<_>>()
        };
        // Members the shown record does not have, a missing key, a key of the wrong type, and
        // the column's own name, each named by its path, in one answer.
        assert_eq!(
            problems(json!({ "country": { "code": "IE", "capital": "Dublin" }, "currency": {}, "currencyId": 1 })),
            vec!["country.capital: unknown field", "currencyId: unknown field", "currency.id: is required"]
        );
        assert_eq!(problems(json!({ "country": { "code": 7 }, "currency": { "id": "one" } })),
            vec!["country.code: must be a string", "currency.id: must be an integer"]);
        assert_eq!(problems(json!({ "country": "IE", "currency": { "id": currency["id"] } })),
            vec!["country: must be an object"]);
        assert_eq!(problems(json!({ "currency": { "id": currency["id"] } })), vec!["country: is required"]);
        assert_eq!(problems(json!({ "country": { "code": "IE" }, "currency": { "id": 42 } })),
            vec!["currency.id: currency 42 does not exist"]);
        assert_eq!(app.get("/v1/locales?page=1&pageSize=5").header("x-total-count"), Some("0"));
        // A patch changes the shown record by its key; its other members are read-only.
        let locale = app.create("/v1/locales", json!({ "country": { "code": "IE" }, "currency": { "id": currency["id"] } }));
        let path = format!("/v1/locales/{}", locale["id"]);
        let read_only = app.patch(&path, json!([{ "op": "replace", "path": "/country/name", "value": "Eire" }]));
        read_only.assert_problem(400);
        assert!(read_only.text.contains("'country.name' is read-only"), "{}", read_only.text);
        let moved = app.patch(&path, json!([{ "op": "replace", "path": "/country/code", "value": "FR" }]));
        assert_eq!(moved.status, 200, "{}", moved.text);
        assert_eq!(moved.json()["country"], json!({ "code": "FR", "name": "France" }));
        assert_eq!(app.get(&path).json()["country"]["name"], "France");
    }
}
