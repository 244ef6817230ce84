//! `/v1/reference-data-source-charge-groups`: all seven operations of 4.3.

use serde_json::{Value, json};

use crate::support::{Chain, TestApp, reference_chain};

const PATH: &str = "/v1/reference-data-source-charge-groups";

fn body(chain: &Chain, source: i64, code: &str) -> Value {
    json!({ "name": format!("Group {code}"), "code": code, "chargeGroupId": chain.charge_group, "referenceDataSourceId": source, "startDate": "2026-01-01" })
}

fn count(app: &TestApp) -> String {
    app.get(&format!("{PATH}?page=1&pageSize=1"))
        .header("x-total-count")
        .unwrap_or_default()
        .to_owned()
}

api_test! {
    fn create_read_replace_patch_delete(app) {
        let chain = reference_chain(&app);
        let created = app.post(PATH, json!({
            "name": "UK Mobile", "code": "UKM", "chargeGroupId": chain.charge_group,
            "referenceDataSourceId": chain.open_source, "startDate": "2026-01-01", "endDate": "2026-12-31"
        }));
        assert_eq!(created.status, 201, "{}", created.text);
        assert_eq!(created.header("location"), Some("/v1/reference-data-source-charge-groups/1"));
        assert_eq!(created.header("etag"), Some("\"1\""));
        insta::assert_json_snapshot!(crate::support::plain(&created.json()), @r#"
        {
          "id": 1,
          "name": "UK Mobile",
          "code": "UKM",
          "chargeGroupId": 1,
          "referenceDataSourceId": 1,
          "startDate": "2026-01-01",
          "endDate": "2026-12-31"
        }
        "#);
        assert_eq!(app.get(&format!("{PATH}/1")).json(), created.json());
        let replaced = app.put(&format!("{PATH}/1"), json!({
            "name": "UK Mobile 2", "code": "UKM", "chargeGroupId": chain.charge_group,
            "referenceDataSourceId": chain.open_source, "startDate": "2026-02-01"
        }));
        assert_eq!(replaced.status, 200, "{}", replaced.text);
        assert_eq!(replaced.json()["endDate"], Value::Null);
        let patched = app.patch(&format!("{PATH}/1"), json!([{ "op": "replace", "path": "/endDate", "value": "2027-01-31" }]));
        assert_eq!(patched.json()["endDate"], "2027-01-31");
        let deleted = app.delete(&format!("{PATH}/1"));
        assert_eq!((deleted.status, deleted.text.as_str()), (204, ""));
        app.get(&format!("{PATH}/1")).assert_problem(404);
        app.delete(&format!("{PATH}/1")).assert_problem(404);
    }

    fn operator_maintained_sources_are_refused_with_412(app) {
        let chain = reference_chain(&app);
        let refused = app.post(PATH, body(&chain, chain.operator_source, "OP1"));
        assert!(refused.assert_problem(412)["detail"].as_str().expect("detail").contains("siMaintained"));
        assert_eq!(count(&app), "0");
        app.create(PATH, body(&chain, chain.open_source, "OPEN"));
        // Moving an open record into an operator-maintained source is refused too.
        let moved = app.patch(&format!("{PATH}/1"), json!([{ "op": "replace", "path": "/referenceDataSourceId", "value": chain.operator_source }]));
        moved.assert_problem(412);
        // A source that becomes operator-maintained locks its records.
        let source_path = format!("/v1/reference-data-sources/{}", chain.open_source);
        assert_eq!(app.patch(&source_path, json!([{ "op": "replace", "path": "/siMaintained", "value": true }])).status, 200);
        app.put(&format!("{PATH}/1"), body(&chain, chain.open_source, "OPEN")).assert_problem(412);
        app.patch(&format!("{PATH}/1"), json!([{ "op": "replace", "path": "/name", "value": "x" }])).assert_problem(412);
        app.delete(&format!("{PATH}/1")).assert_problem(412);
        assert_eq!(app.get(&format!("{PATH}/1")).json()["name"], "Group OPEN");
        // Nor is the source itself changed through the API any more: not handed back (which
        // would open its records), renamed or removed; nothing changes.
        let before = app.get(&source_path).text;
        app.patch(&source_path, json!([{ "op": "replace", "path": "/siMaintained", "value": false }])).assert_problem(412);
        app.patch(&source_path, json!([{ "op": "replace", "path": "/name", "value": "Renamed" }])).assert_problem(412);
        app.delete(&source_path).assert_problem(412);
        assert_eq!(app.get(&source_path).text, before);
        app.patch(&format!("{PATH}/1"), json!([{ "op": "replace", "path": "/name", "value": "x" }])).assert_problem(412);
    }

    fn references_and_rules_are_checked(app) {
        let chain = reference_chain(&app);
        let mut missing = body(&chain, 77, "A");
        assert_eq!(app.post(PATH, missing.clone()).error_fields(), vec!["referenceDataSourceId"]);
        missing["referenceDataSourceId"] = json!(chain.open_source);
        missing["chargeGroupId"] = json!(88);
        assert_eq!(app.post(PATH, missing).error_fields(), vec!["chargeGroupId"]);
        let mut reversed = body(&chain, chain.open_source, "A");
        reversed["endDate"] = json!("2025-12-31");
        assert_eq!(app.post(PATH, reversed).error_fields(), vec!["endDate"]);
        let mut long = body(&chain, chain.open_source, "A");
        long["name"] = json!("n".repeat(256));
        assert_eq!(app.post(PATH, long).error_fields(), vec!["name"]);
        app.create(PATH, body(&chain, chain.open_source, "A"));
        let duplicate = app.post(PATH, body(&chain, chain.open_source, "A"));
        assert!(duplicate.assert_problem(409)["detail"].as_str().expect("detail").contains("code"));
        assert_eq!(count(&app), "1");
    }

    fn list_filters_and_head(app) {
        let chain = reference_chain(&app);
        app.create(PATH, body(&chain, chain.open_source, "A"));
        let mut ended = body(&chain, chain.open_source, "B");
        ended["endDate"] = json!("2026-03-31");
        app.create(PATH, ended);
        let codes = |query: &str| -> Vec<String> {
            let reply = app.get(&format!("{PATH}?page=1&pageSize=10&{query}"));
            assert_eq!(reply.status, 200, "{}", reply.text);
            reply.json().as_array().expect("array").iter().map(|r| r["code"].as_str().unwrap_or_default().to_owned()).collect()
        };
        assert_eq!(codes("name=Group A"), vec!["A"]);
        assert_eq!(codes(&format!("chargeGroupId={}&sort=code:desc", chain.charge_group)), vec!["B", "A"]);
        assert_eq!(codes(&format!("referenceDataSourceId={}", chain.operator_source)), Vec::<String>::new());
        assert_eq!(codes("startDate=2026-01-01&endDate=gtn:2026-06-01"), vec!["A"]);
        assert_eq!(codes("endDate=lt:2026-06-01"), vec!["B"]);
        assert_eq!(codes("siMaintained=false"), vec!["A", "B"]);
        assert!(codes("siMaintained=true").is_empty());
        let head = app.head(&format!("{PATH}?name=like:group&chargeGroupId={}&startDate=2026-01-01&endDate=gtn:2026-01-01", chain.charge_group));
        assert_eq!((head.status, head.header("x-total-count")), (200, Some("2")));
        let head = app.head(&format!("{PATH}?name=Nothing"));
        assert_eq!((head.status, head.header("x-total-count")), (404, Some("0")));
    }
}
