//! `billing import reference-data` and `billing export reference-data` against a running
//! service's database, and `billing rate --database`: a generated tariff imports, the service
//! follows the import within a second, the export gives the same files back, rating from the
//! database equals rating from the exported files, and bad rows are all listed with nothing
//! written.

use std::path::Path;
use std::process::{Command, Output, Stdio};

use serde_json::json;

use crate::support::{TestApp, reference_chain};

fn billing(app: &TestApp, args: &[&str]) -> Output {
    let data_dir =
        std::env::temp_dir().join(format!("billing_cli_{}", uuid::Uuid::new_v4().simple()));
    Command::new(env!("CARGO_BIN_EXE_billing"))
        .args(args)
        .env("BILLING_DATA_DIR", &data_dir)
        .env("DATABASE_URL", app.database_url())
        .env("BILLING_LOG", "warn")
        .stdin(Stdio::null())
        .output()
        .expect("run billing")
}

fn path(p: &Path) -> &str {
    p.to_str().expect("path")
}

#[track_caller]
fn succeeded(output: &Output) -> String {
    let stderr = String::from_utf8_lossy(&output.stderr).into_owned();
    assert!(output.status.success(), "{stderr}");
    stderr
}

fn count(app: &TestApp, path: &str) -> String {
    app.get(path)
        .header("x-total-count")
        .unwrap_or_default()
        .to_owned()
}

api_test! {
    fn a_generated_tariff_imports_exports_and_rates_the_same(app) {
        // Sources 1 (open) and 2 (siMaintained), as the generated tariff names them.
        let chain = reference_chain(&app);
        assert_eq!((chain.open_source, chain.operator_source), (1, 2));
        let dir = std::env::temp_dir().join(format!("billing_feed_{}", uuid::Uuid::new_v4().simple()));
        let (tariff, exported, usage) = (dir.join("tariff"), dir.join("exported"), dir.join("usage.csv"));
        succeeded(&billing(&app, &["generate", "--tariff", path(&tariff), "--dialstrings", "3000", "--sources", "2",
            "--usage", path(&usage), "--rows", "3000"]));
        let report = succeeded(&billing(&app, &["import", "reference-data", path(&tariff)]));
        assert!(report.contains("3000 dialstrings"), "{report}");
        assert_eq!(count(&app, "/v1/dialstrings?page=1&pageSize=1"), "3000");
        // One audit event for the run, naming the user and the counts.
        let events = app.get("/v1/audit-events?page=1&pageSize=10&action=IMPORT&resource=reference-data").json();
        assert_eq!(events.as_array().expect("events").len(), 1, "{events}");
        assert_eq!(events[0]["username"], "admin");
        assert_eq!(events[0]["after"]["dialstrings"], 3000);
        // The running service follows the import within a second.
        let number = {
            let dialstrings = app.get("/v1/dialstrings?page=1&pageSize=1&sort=id").json();
            format!("{}123", dialstrings[0]["dialstring"].as_str().expect("dialstring"))
        };
        let started = std::time::Instant::now();
        loop {
            let reply = app.post("/v1/rating/lookups", json!({ "referenceDataSourceId": 1, "date": "2026-06-01",
                "items": [{ "dialledNumber": number }] }));
            assert_eq!(reply.status, 200, "{}", reply.text);
            let reply2 = app.post("/v1/rating/lookups", json!({ "referenceDataSourceId": 2, "date": "2026-06-01",
                "items": [{ "dialledNumber": number }] }));
            let outcomes = [reply.json()["results"][0]["outcome"].clone(), reply2.json()["results"][0]["outcome"].clone()];
            if outcomes.contains(&json!("DIALSTRING")) {
                break;
            }
            assert!(started.elapsed() < std::time::Duration::from_secs(1), "the import was not followed: {outcomes:?}");
            std::thread::sleep(std::time::Duration::from_millis(20));
        }
        // The API still refuses changes to the siMaintained source's data.
        let group = app.get("/v1/reference-data-source-charge-groups?page=1&pageSize=1&referenceDataSourceId=2").json();
        let reply = app.patch(&format!("/v1/reference-data-source-charge-groups/{}", group[0]["id"]),
            json!([{ "op": "replace", "path": "/name", "value": "Renamed" }]));
        reply.assert_problem(412);
        // Export: the same files (ids, values and dates) as imported.
        succeeded(&billing(&app, &["export", "reference-data", path(&exported)]));
        for file in ["source_charge_groups.csv", "dialstrings.csv", "call_classes.csv", "ignored_call_classes.csv", "ignored_service_ids.csv"] {
            let original = std::fs::read_to_string(tariff.join(file)).expect("original");
            let again = std::fs::read_to_string(exported.join(file)).expect("exported");
            assert!(original == again, "{file} differs after export");
        }
        // Rating from the database equals rating from the exported files, byte for byte.
        let (from_database, from_files) = (dir.join("database.csv"), dir.join("files.csv"));
        succeeded(&billing(&app, &["rate", "--database", "--input", path(&usage), "--output", path(&from_database)]));
        succeeded(&billing(&app, &["rate", "--tariff", path(&exported), "--input", path(&usage), "--output", path(&from_files)]));
        let (a, b) = (std::fs::read(&from_database).expect("rated"), std::fs::read(&from_files).expect("rated"));
        assert_eq!(a.len(), b.len());
        assert!(a == b, "rate --database differs from rate --tariff on the export");
        // Importing the export again changes nothing but the audit trail and the change log.
        succeeded(&billing(&app, &["import", "reference-data", path(&exported)]));
        assert_eq!(count(&app, "/v1/dialstrings?page=1&pageSize=1"), "3000");
        // An API create after an import gets a fresh id (the sequences moved past the feed's).
        let created = app.create("/v1/dialstrings", json!({ "dialstring": "99887766",
            "referenceDataSourceChargeGroupId": app.get("/v1/reference-data-source-charge-groups?page=1&pageSize=1&referenceDataSourceId=1").json()[0]["id"],
            "startDate": "2026-01-01" }));
        assert!(created["id"].as_i64().expect("id") > 3000, "{created}");
        let _ = std::fs::remove_dir_all(dir);
    }

    fn imports_run_at_once_take_turns(app) {
        reference_chain(&app);
        let dir = std::env::temp_dir().join(format!("billing_feed_{}", uuid::Uuid::new_v4().simple()));
        let tariff = dir.join("tariff");
        succeeded(&billing(&app, &["generate", "--tariff", path(&tariff), "--dialstrings", "2000", "--sources", "2"]));
        // Three imports of the same feed released together, twice: each one succeeds (one at a
        // time, whatever the backend), and the data is the feed's, counted exactly.
        for round in 0..2 {
            let outputs: Vec<Output> = std::thread::scope(|scope| {
                let runs: Vec<_> = (0..3)
                    .map(|_| scope.spawn(|| billing(&app, &["import", "reference-data", path(&tariff)])))
                    .collect();
                runs.into_iter().map(|run| run.join().expect("import")).collect()
            });
            for output in &outputs {
                let report = succeeded(output);
                assert!(report.contains("2000 dialstrings"), "round {round}: {report}");
            }
            assert_eq!(count(&app, "/v1/dialstrings?page=1&pageSize=1"), "2000", "round {round}");
            let dialstrings = app.get("/v1/dialstrings?page=1&pageSize=1000").json();
            assert_eq!(dialstrings.as_array().expect("page").len(), 1000);
        }
        let events = app.get("/v1/audit-events?page=1&pageSize=10&action=IMPORT");
        assert_eq!(events.header("x-total-count"), Some("6"));
        let _ = std::fs::remove_dir_all(dir);
    }

    fn every_bad_row_is_listed_and_nothing_is_written(app) {
        reference_chain(&app);
        let dir = std::env::temp_dir().join(format!("billing_feed_{}", uuid::Uuid::new_v4().simple()));
        succeeded(&billing(&app, &["generate", "--tariff", path(&dir), "--dialstrings", "50", "--sources", "2", "--rows", "1"]));
        let file = dir.join("dialstrings.csv");
        let generated = std::fs::read_to_string(&file).expect("dialstrings");
        let mut text = generated.clone();
        text.push_str("9001,44x,1,2026-01-01,\n9002,44,1,2026-02-01,2026-01-01\n9003,44,777,2026-01-01,\n1,4455,1,2026-01-01,\n9004,44\n9223372036854775807,4466,1,2026-01-01,\n");
        std::fs::write(&file, text).expect("write");
        let groups = dir.join("source_charge_groups.csv");
        let generated_groups = std::fs::read_to_string(&groups).expect("groups");
        let mut text = generated_groups.clone();
        text.push_str("9005,Unknown source,U,1,99,2026-01-01,\n");
        std::fs::write(&groups, text).expect("write");
        let output = billing(&app, &["import", "reference-data", path(&dir)]);
        assert!(!output.status.success());
        let stderr = String::from_utf8_lossy(&output.stderr);
        for expected in [
            "dialstrings.csv line 52: dialstring: must be 2 to 15 digits 0-9",
            "dialstrings.csv line 53: end_date: must not be before start_date",
            "dialstrings.csv line 54: reference_data_source_charge_group_id: source charge group 777 is not in source_charge_groups.csv",
            "dialstrings.csv line 55: id: id 1 is already on line 2",
            "dialstrings.csv line 56: row: expected 5 fields, found 2",
            // No id so large that the records created after it have none left.
            "dialstrings.csv line 57: id: expected an integer from 1 to 9007199254740991",
            "reference_data_source_id: reference data source 99 does not exist",
            "nothing was imported",
        ] {
            assert!(stderr.contains(expected), "{expected:?} missing from:\n{stderr}");
        }
        assert_eq!(count(&app, "/v1/dialstrings?page=1&pageSize=1"), "0");
        assert_eq!(count(&app, "/v1/audit-events?page=1&pageSize=1&action=IMPORT"), "0");
        let output = billing(&app, &["import", "reference-data", path(&dir.join("missing"))]);
        assert!(!output.status.success());
        // A file with no line breaks is refused at its first megabyte, not held whole (the
        // other files as generated: the long line is the only fault).
        std::fs::write(&file, generated).expect("write");
        std::fs::write(&groups, generated_groups).expect("write");
        let call_classes = dir.join("call_classes.csv");
        let generated_classes = std::fs::read_to_string(&call_classes).expect("call classes");
        std::fs::write(&call_classes, format!("{generated_classes}{}", "9".repeat(3 << 20))).expect("write");
        let output = billing(&app, &["import", "reference-data", path(&dir)]);
        let stderr = String::from_utf8_lossy(&output.stderr);
        let long_line = generated_classes.lines().count() + 1;
        assert!(stderr.contains(&format!("call_classes.csv line {long_line}: a line longer than 1048576 bytes")), "{stderr}");
        assert_eq!(count(&app, "/v1/dialstrings?page=1&pageSize=1"), "0");
        std::fs::write(&call_classes, generated_classes).expect("write");
        succeeded(&billing(&app, &["import", "reference-data", path(&dir)]));
        assert_ne!(count(&app, "/v1/dialstrings?page=1&pageSize=1"), "0", "the same files import without the long line");
        let _ = std::fs::remove_dir_all(dir);
    }
}
