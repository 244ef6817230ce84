//! `/v1/reference-data-sources` (docs/api.md "Reference data").

use serde_json::json;

use crate::support::reference_chain;

api_test! {
    fn sources_are_read_with_their_locale(app) {
        let chain = reference_chain(&app);
        let reply = app.get(&format!("/v1/reference-data-sources/{}", chain.open_source));
        assert_eq!(reply.status, 200);
        insta::assert_json_snapshot!(crate::support::plain(&reply.json()), @r##"
        {
          "id": 1,
          "name": "Internal",
          "locale": {
            "id": 1,
            "country": {
              "code": "GB",
              "name": "United Kingdom"
            },
            "currency": {
              "id": 1,
              "code": "GBP",
              "symbol": "£",
              "majorCurrencyName": "Pound",
              "minorCurrencyName": "Penny",
              "majorCurrencyFormat": "£#,##0.00",
              "minorCurrencyFormat": "#p",
              "salesTaxName": "VAT"
            }
          },
          "siMaintained": false
        }
        "##);
        app.get("/v1/reference-data-sources/99").assert_problem(404);
    }

    fn sources_filter_by_name_locale_and_si_maintained(app) {
        let chain = reference_chain(&app);
        let names = |query: &str| -> Vec<String> {
            let reply = app.get(&format!("/v1/reference-data-sources?page=1&pageSize=10&{query}"));
            assert_eq!(reply.status, 200, "{}", reply.text);
            reply.json().as_array().expect("array").iter().map(|s| s["name"].as_str().unwrap_or_default().to_owned()).collect()
        };
        assert_eq!(names("siMaintained=true"), vec!["Operator feed"]);
        assert_eq!(names("siMaintained=false"), vec!["Internal"]);
        assert_eq!(names(&format!("locale={}&sort=name:desc", chain.locale)), vec!["Operator feed", "Internal"]);
        assert_eq!(names("name=like:feed"), vec!["Operator feed"]);
        assert!(names("locale=99").is_empty());
        assert_eq!(app.get("/v1/reference-data-sources?page=1&pageSize=10&siMaintained=yes").error_fields(), vec!["siMaintained"]);
    }

    fn only_administrators_manage_sources(app) {
        let chain = reference_chain(&app);
        let manager = app.user_with_roles("refdata", &["REFERENCE_DATA_MANAGER"]);
        let body = json!({ "name": "Another", "locale": { "id": chain.locale }, "siMaintained": false });
        app.post_as(&manager, "/v1/reference-data-sources", body.clone()).assert_problem(403);
        assert_eq!(app.get_as(&manager, "/v1/reference-data-sources?page=1&pageSize=10").status, 200);
        assert_eq!(app.post("/v1/reference-data-sources", body.clone()).status, 201);
        app.post("/v1/reference-data-sources", body).assert_problem(409);
        let missing_locale = app.post("/v1/reference-data-sources", json!({ "name": "X", "locale": { "id": 42 }, "siMaintained": false }));
        assert_eq!(missing_locale.error_fields(), vec!["locale.id"]);
        let renamed = app.patch(&format!("/v1/reference-data-sources/{}", chain.open_source), json!([{ "op": "replace", "path": "/name", "value": "Internal data" }]));
        assert_eq!(renamed.status, 200, "{}", renamed.text);
        assert_eq!(renamed.json()["locale"]["country"]["code"], "GB");
        // Nor may the manager change or delete one: 403, nothing changed.
        let path = format!("/v1/reference-data-sources/{}", chain.open_source);
        let before = app.get(&path).text;
        app.patch_as(&manager, &path, json!([{ "op": "replace", "path": "/name", "value": "Mine now" }])).assert_problem(403);
        app.json_as(&manager, "PUT", &path, Some(json!({ "name": "Mine now", "locale": { "id": chain.locale }, "siMaintained": false }))).assert_problem(403);
        app.json_as(&manager, "DELETE", &path, None).assert_problem(403);
        assert_eq!(app.get(&path).text, before);
    }

    fn a_source_with_charge_groups_cannot_be_deleted(app) {
        let chain = reference_chain(&app);
        app.create("/v1/reference-data-source-charge-groups", json!({
            "name": "Mobile", "code": "MOB", "chargeGroupId": chain.charge_group, "referenceDataSourceId": chain.open_source, "startDate": "2026-01-01"
        }));
        app.delete(&format!("/v1/reference-data-sources/{}", chain.open_source)).assert_problem(409);
        // One that nothing uses goes; one the feed maintains is not removed through the API.
        let unused = app.create("/v1/reference-data-sources", json!({ "name": "Unused", "locale": { "id": chain.locale }, "siMaintained": false }));
        assert_eq!(app.delete(&format!("/v1/reference-data-sources/{}", unused["id"])).status, 204);
        app.delete(&format!("/v1/reference-data-sources/{}", chain.operator_source)).assert_problem(412);
    }

    fn a_refused_delete_names_what_still_uses_the_source(app) {
        // No hand-written check covers ignored call classes: the foreign key refuses the
        // delete, and the answer names the records that still refer to the source.
        let chain = reference_chain(&app);
        app.create("/v1/ignored-call-classes", json!({ "callClass": "FREE", "referenceDataSourceId": chain.open_source, "startDate": "2026-01-01" }));
        let refused = app.delete(&format!("/v1/reference-data-sources/{}", chain.open_source));
        assert_eq!(
            refused.assert_problem(409)["detail"],
            format!("reference data source {} is still used by: ignoredCallClasses", chain.open_source)
        );
        // The refused delete changed nothing, and the source still answers.
        assert_eq!(app.get(&format!("/v1/reference-data-sources/{}", chain.open_source)).status, 200);
        assert_eq!(app.head("/v1/ignored-call-classes").header("x-total-count"), Some("1"));
    }
}
