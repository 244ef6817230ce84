//! A JSON Patch's work is bounded whatever its operations do (issue 19): the document may not
//! grow past the body limit nor nest deeper than a body may, and the work of all its operations
//! together is bounded (docs/api.md "Writes").

use std::time::{Duration, Instant};

use serde_json::{Value, json};

use crate::support::reference_chain;

api_test! {
    fn a_patch_cannot_nest_a_document_deeper_than_a_body(app) {
        let chain = reference_chain(&app);
        let path = format!("/v1/charge-groups/{}", chain.charge_group);
        let before = app.get(&path);
        // A copy into the copied value's own depths doubles its nesting: from 100 levels,
        // seven copies make 6,400, which overflowed the stack of the thread that walked it and
        // took the whole process down (a review's finding).
        let nested = |levels: usize| -> Value { serde_json::from_str(&format!("{}{}", "[".repeat(levels), "]".repeat(levels))).expect("nested") };
        let mut operations = vec![json!({ "op": "add", "path": "/zz", "value": nested(100) })];
        let mut levels = 100;
        while levels < 6400 {
            operations.push(json!({ "op": "copy", "from": "/zz", "path": format!("/zz{}", "/0".repeat(levels - 1)) }));
            levels *= 2;
        }
        let refused = app.patch(&path, Value::Array(operations));
        let body = refused.assert_problem(400);
        assert_eq!(refused.error_fields(), vec!["[1]"], "{body}");
        assert!(body["detail"].as_str().expect("detail").contains("at most 128 are accepted"), "{body}");
        // The same by `move` and by `add` of a value that is deep enough only where it lands.
        let deep_move = app.patch(&path, json!([
            { "op": "add", "path": "/zz", "value": nested(100) },
            { "op": "add", "path": "/yy", "value": nested(100) },
            { "op": "move", "from": "/yy", "path": format!("/zz{}", "/0".repeat(99)) }]));
        assert_eq!(deep_move.error_fields(), vec!["[2]"], "{}", deep_move.text);
        let deep_add = app.patch(&path, json!([
            { "op": "add", "path": "/zz", "value": nested(100) },
            { "op": "add", "path": format!("/zz{}", "/0".repeat(99)), "value": nested(100) }]));
        assert_eq!(deep_add.error_fields(), vec!["[1]"], "{}", deep_add.text);
        assert_eq!(app.get(&path).header("etag"), before.header("etag"));
        // Within the bound, nesting is the patch's own business.
        let fine = app.patch(&path, json!([
            { "op": "add", "path": "/zz", "value": nested(60) },
            { "op": "copy", "from": "/zz", "path": format!("/zz{}", "/0".repeat(59)) },
            { "op": "remove", "path": "/zz" }]));
        assert_eq!(fine.status, 200, "{}", fine.text);
        assert_eq!(app.get("/health/live").status, 200);
    }

    fn a_patch_cannot_grow_a_document_past_the_body_limit(app) {
        let chain = reference_chain(&app);
        let path = format!("/v1/charge-groups/{}", chain.charge_group);
        let before = app.get(&path);
        // Each copy doubles the document: 24 of them would make gigabytes.
        let mut operations = vec![json!({ "op": "add", "path": "/zz", "value": ["x".repeat(1000)] })];
        operations.extend((0..24).map(|_| json!({ "op": "copy", "from": "/zz", "path": "/zz/-" })));
        operations.push(json!({ "op": "remove", "path": "/zz" }));
        let started = Instant::now();
        let refused = app.patch(&path, Value::Array(operations));
        let body = refused.assert_problem(400);
        // The tests' body limit is 64 KiB: the 7th copy would pass it.
        assert_eq!(refused.error_fields(), vec!["[7]"], "{body}");
        assert!(body["detail"].as_str().expect("detail").contains("larger than 65536 bytes"), "{body}");
        assert!(started.elapsed() < Duration::from_secs(5));
        // Nothing changed; a patch that stays within the bound still works.
        let after = app.get(&path);
        assert_eq!(after.header("etag"), before.header("etag"));
        let fine = app.patch(&path, json!([
            { "op": "add", "path": "/zz", "value": ["x"] },
            { "op": "copy", "from": "/zz", "path": "/zz/-" },
            { "op": "remove", "path": "/zz" },
            { "op": "replace", "path": "/name", "value": "Renamed" }
        ]));
        assert_eq!(fine.status, 200, "{}", fine.text);
        // What an operation takes out counts too: copying 2 KB in and removing it again, 30
        // times over (60 KB put in, never more than 4 KB at once), is not too large.
        let churn = |times: usize| {
            let mut operations = vec![json!({ "op": "add", "path": "/zz", "value": ["x".repeat(2000)] })];
            for _ in 0..times {
                operations.push(json!({ "op": "copy", "from": "/zz/0", "path": "/zz/-" }));
                operations.push(json!({ "op": "remove", "path": "/zz/1" }));
            }
            operations.push(json!({ "op": "remove", "path": "/zz" }));
            operations.push(json!({ "op": "replace", "path": "/name", "value": format!("Churned {times}") }));
            app.patch(&path, Value::Array(operations))
        };
        let churned = churn(30);
        assert_eq!(churned.status, 200, "{}", churned.text);
        // But the work of a patch is bounded whatever its size does: the same churn 300 times
        // (1.2 MB copied and removed) passes 4 × the 64 KiB bound and is refused, naming the
        // operation, before it has done more; nothing is written.
        let before = app.get(&path);
        let refused = churn(300);
        let body = refused.assert_problem(400);
        let field = refused.error_fields().pop().expect("a field");
        assert!(field.starts_with('[') && field != "[0]", "{body}");
        assert!(body["detail"].as_str().expect("detail").contains("split it into smaller patches"), "{body}");
        assert_eq!(app.get(&path).header("etag"), before.header("etag"));
        // A test compares both sides, each number read as a decimal: the document's side
        // counts too, so testing a large member again and again with a small value is bounded.
        let long_number = format!("1.{}", "0".repeat(28));
        let numbers = Value::Array((0..1000).map(|_| serde_json::from_str::<Value>(&long_number).expect("a number")).collect());
        let mut operations = vec![json!({ "op": "add", "path": "/zz", "value": numbers })];
        let ones = Value::Array((0..1000).map(|_| json!(1)).collect());
        operations.extend((0..12).map(|_| json!({ "op": "test", "path": "/zz", "value": ones.clone() })));
        let tested = app.patch(&path, Value::Array(operations));
        let body = tested.assert_problem(400);
        assert!(body["detail"].as_str().expect("detail").contains("split it into smaller patches"), "{body}");
    }
}
