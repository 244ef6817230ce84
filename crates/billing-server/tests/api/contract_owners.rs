//! `/v1/contract-owners`: the machinery's owned children (`subBrands`), member checks at every
//! depth, nested JSON Patch and versions that move when only a child changes.

use serde_json::{Value, json};

fn ids(owner: &Value) -> Vec<i64> {
    owner["subBrands"]
        .as_array()
        .expect("subBrands")
        .iter()
        .map(|brand| brand["id"].as_i64().expect("id"))
        .collect()
}

fn patch_with(
    app: &crate::support::TestApp,
    path: &str,
    if_match: &str,
    operations: Value,
) -> crate::support::Reply {
    app.send(
        "PATCH",
        path,
        Some(&app.admin_token),
        &[("If-Match", if_match)],
        Some(("application/json-patch+json", operations.to_string())),
    )
}

api_test! {
    fn owned_children_are_written_and_read_with_their_parent(app) {
        let created = app.post("/v1/contract-owners", json!({ "name": "Acme", "subBrands": [{ "name": "Acme Mobile" }, { "name": "Acme Home" }] }));
        assert_eq!(created.status, 201, "{}", created.text);
        insta::assert_json_snapshot!(crate::support::plain(&created.json()), @r#"
        {
          "id": 1,
          "name": "Acme",
          "subBrands": [
            {
              "id": 1,
              "name": "Acme Mobile"
            },
            {
              "id": 2,
              "name": "Acme Home"
            }
          ]
        }
        "#);
        assert_eq!(app.get("/v1/contract-owners/1").json(), created.json());
        // The list is optional on create (empty), never null.
        assert_eq!(app.create("/v1/contract-owners", json!({ "name": "Bare" }))["subBrands"], json!([]));
        assert_eq!(app.post("/v1/contract-owners", json!({ "name": "Null", "subBrands": null })).error_fields(), vec!["subBrands"]);
        // A page carries every record's children, in order.
        let page = app.get("/v1/contract-owners?page=1&pageSize=10&sort=name");
        assert_eq!(page.json()[0]["subBrands"][1]["name"], "Acme Home");
        assert_eq!(page.json()[1]["subBrands"], json!([]));
        // PUT replaces the list whole: the elements are new.
        let replaced = app.put("/v1/contract-owners/1", json!({ "name": "Acme", "subBrands": [{ "name": "Acme Only" }] }));
        assert_eq!(replaced.status, 200, "{}", replaced.text);
        assert_eq!(ids(&replaced.json()), vec![3]);
        // Deleting the owner removes its children in the same transaction.
        assert_eq!(app.delete("/v1/contract-owners/1").status, 204);
        app.get("/v1/contract-owners/1").assert_problem(404);
        let again = app.create("/v1/contract-owners", json!({ "name": "Acme", "subBrands": [{ "name": "Acme Only" }] }));
        assert_eq!(again["subBrands"][0]["name"], "Acme Only");
    }

    fn members_are_refused_at_every_depth_with_their_full_path(app) {
        let reply = app.post("/v1/contract-owners", json!({
            "name": "Acme",
            "subBrands": [{ "name": "ok" }, { "id": 9, "name": "ok", "colour": "red" }, {}]
        }));
        reply.assert_problem(400);
        assert_eq!(reply.error_fields(), vec!["subBrands[1].id", "subBrands[1].colour", "subBrands[2].name"]);
        // Rules of the element's kinds, named the same way.
        let long = app.post("/v1/contract-owners", json!({ "name": "Acme", "subBrands": [{ "name": "ok" }, { "name": "x".repeat(256) }] }));
        assert_eq!(long.error_fields(), vec!["subBrands[1].name"]);
        let wrong_type = app.post("/v1/contract-owners", json!({ "name": "Acme", "subBrands": [{ "name": 5 }] }));
        assert_eq!(wrong_type.error_fields(), vec!["subBrands[0].name"]);
        // Nothing was written by any of them.
        assert_eq!(app.get("/v1/contract-owners?page=1&pageSize=1").header("x-total-count"), Some("0"));
        // A bulk-style or PUT body is held to the same rules.
        let put = app.create("/v1/contract-owners", json!({ "name": "Acme" }));
        let replaced = app.put(&format!("/v1/contract-owners/{}", put["id"]), json!({ "name": "Acme", "subBrands": [{ "id": 1, "name": "x" }] }));
        assert_eq!(replaced.error_fields(), vec!["subBrands[0].id"]);
    }

    fn nested_patches_keep_element_ids_and_move_the_parent_version(app) {
        let owner = app.create("/v1/contract-owners", json!({ "name": "Acme", "subBrands": [{ "name": "A" }, { "name": "B" }, { "name": "C" }] }));
        let path = format!("/v1/contract-owners/{}", owner["id"]);
        let before = app.get(&path);
        let tag = before.header("etag").expect("etag").to_owned();
        // Only a child changes: the element keeps its id, the owner's version moves.
        let renamed = patch_with(&app, &path, &tag, json!([{ "op": "replace", "path": "/subBrands/1/name", "value": "Bee" }]));
        assert_eq!(renamed.status, 200, "{}", renamed.text);
        assert_eq!(ids(&renamed.json()), ids(&owner));
        assert_eq!(renamed.json()["subBrands"][1]["name"], "Bee");
        let new_tag = renamed.header("etag").expect("etag").to_owned();
        assert_ne!(new_tag, tag);
        // The old tag is stale now, although the owner's own columns did not change.
        patch_with(&app, &path, &tag, json!([{ "op": "replace", "path": "/subBrands/0/name", "value": "Ay" }])).assert_problem(412);
        // Add, remove and move: survivors keep their ids, a new element gets one, order follows.
        let reshaped = patch_with(&app, &path, &new_tag, json!([
            { "op": "remove", "path": "/subBrands/0" },
            { "op": "add", "path": "/subBrands/-", "value": { "name": "D" } },
            { "op": "move", "from": "/subBrands/2", "path": "/subBrands/0" }
        ]));
        assert_eq!(reshaped.status, 200, "{}", reshaped.text);
        let body = reshaped.json();
        let names: Vec<&str> = body["subBrands"].as_array().expect("array").iter().map(|b| b["name"].as_str().unwrap_or_default()).collect();
        assert_eq!(names, ["D", "Bee", "C"]);
        let old = ids(&owner);
        let now = ids(&reshaped.json());
        assert_eq!(&now[1..], &old[1..], "survivors keep their ids");
        assert!(!old.contains(&now[0]), "a new element gets a new id");
        assert_eq!(app.get(&path).json(), reshaped.json());
    }

    fn nested_patches_are_checked_at_every_depth_and_as_a_whole(app) {
        let owner = app.create("/v1/contract-owners", json!({ "name": "Acme", "subBrands": [{ "name": "A" }, { "name": "B" }] }));
        let path = format!("/v1/contract-owners/{}", owner["id"]);
        let patched = |operations: Value| app.patch(&path, operations);
        // An element's id is the service's.
        let id_change = patched(json!([{ "op": "replace", "path": "/subBrands/1/id", "value": 7 }]));
        id_change.assert_problem(400);
        assert_eq!(id_change.error_fields(), vec!["[0].path"]);
        assert!(id_change.text.contains("subBrands[1].id"), "{}", id_change.text);
        assert_eq!(patched(json!([{ "op": "add", "path": "/subBrands/-", "value": { "id": 1, "name": "X" } }])).error_fields(), vec!["subBrands[-].id"]);
        assert_eq!(patched(json!([{ "op": "replace", "path": "/subBrands", "value": [{ "name": "X" }, { "id": 2, "name": "Y" }] }])).error_fields(), vec!["subBrands[1].id"]);
        // The result is validated whole: a broken element, an unknown member, a missing one.
        assert_eq!(patched(json!([{ "op": "replace", "path": "/subBrands/0/name", "value": "" }])).error_fields(), vec!["subBrands[0].name"]);
        assert_eq!(patched(json!([{ "op": "add", "path": "/subBrands/0/colour", "value": "red" }])).error_fields(), vec!["subBrands[0].colour"]);
        assert_eq!(patched(json!([{ "op": "remove", "path": "/subBrands/1/name" }])).error_fields(), vec!["subBrands[1].name"]);
        assert_eq!(patched(json!([{ "op": "replace", "path": "/subBrands/5/name", "value": "X" }])).error_fields(), vec!["[0].path"]);
        // A test on a nested member works like any other.
        patched(json!([{ "op": "test", "path": "/subBrands/0/name", "value": "Z" }])).assert_problem(409);
        // None of them changed anything.
        assert_eq!(app.get(&path).json(), owner);
        // A copied element is a new element (its id is not shared).
        let copied = patched(json!([{ "op": "copy", "from": "/subBrands/0", "path": "/subBrands/-" }]));
        assert_eq!(copied.status, 200, "{}", copied.text);
        let now = ids(&copied.json());
        assert_eq!(now.len(), 3);
        assert_eq!(&now[..2], &ids(&owner)[..]);
        assert!(now[2] > now[1]);
        assert_eq!(copied.json()["subBrands"][2]["name"], "A");
    }

    fn children_changes_are_audited_with_the_parent(app) {
        let owner = app.create("/v1/contract-owners", json!({ "name": "Acme", "subBrands": [{ "name": "A" }] }));
        let path = format!("/v1/contract-owners/{}", owner["id"]);
        assert_eq!(app.patch(&path, json!([{ "op": "replace", "path": "/subBrands/0/name", "value": "B" }])).status, 200);
        let events = app.get("/v1/audit-events?page=1&pageSize=10&resource=contract-owners&sort=id").json();
        assert_eq!(events[1]["before"]["subBrands"][0]["name"], "A", "{events}");
        assert_eq!(events[1]["after"]["subBrands"][0]["name"], "B");
    }

    fn a_sub_brand_a_customer_uses_is_kept_and_named(app) {
        let owner = app.create("/v1/contract-owners", json!({ "name": "Acme", "subBrands": [{ "name": "A" }, { "name": "B" }] }));
        let path = format!("/v1/contract-owners/{}", owner["id"]);
        let brand = owner["subBrands"][1]["id"].as_i64().expect("brand");
        let cycle = app.create("/v1/billing-cycles", json!({ "name": "Monthly" }));
        app.create("/v1/customers", json!({ "customerName": "Bob", "customerReference": "R", "contractOwnerId": owner["id"],
            "contractOwnerSubBrandId": brand, "billingCycleId": cycle["id"], "startDate": "2026-01-01" }));
        // Removing it, or a PUT that leaves it out, is 409 naming who uses it; nothing changes.
        let removed = app.patch(&path, json!([{ "op": "remove", "path": "/subBrands/1" }]));
        let problem = removed.assert_problem(409);
        assert_eq!(problem["detail"], format!("contract owner sub brand {brand} is still used by: customers"));
        app.put(&path, json!({ "name": "Acme", "subBrands": [{ "name": "A" }] })).assert_problem(409);
        assert_eq!(app.get(&path).json()["subBrands"], owner["subBrands"]);
        // A copy is a new element with a new id, even when the original is removed in the same
        // patch: so copying the used brand and removing it is still removing it.
        let copied_then_removed = app.patch(&path, json!([{ "op": "copy", "from": "/subBrands/1", "path": "/subBrands/-" },
            { "op": "remove", "path": "/subBrands/1" }]));
        assert_eq!(copied_then_removed.assert_problem(409)["detail"], format!("contract owner sub brand {brand} is still used by: customers"));
        assert_eq!(app.get(&path).json()["subBrands"], owner["subBrands"]);
        let copied = app.patch(&path, json!([{ "op": "copy", "from": "/subBrands/1", "path": "/subBrands/-" }]));
        assert_eq!(copied.status, 200, "{}", copied.text);
        let brands = copied.json()["subBrands"].clone();
        assert_eq!(brands[2]["name"], "B");
        assert!(brands[2]["id"].as_i64().is_some_and(|id| id != brand && id != owner["subBrands"][0]["id"]), "{brands}");
        assert_eq!(app.patch(&path, json!([{ "op": "remove", "path": "/subBrands/2" }])).status, 200);
        // The brand nobody uses goes.
        let kept = app.patch(&path, json!([{ "op": "remove", "path": "/subBrands/0" }]));
        assert_eq!(kept.status, 200, "{}", kept.text);
        assert_eq!(kept.json()["subBrands"][0]["id"], brand);
    }
}
