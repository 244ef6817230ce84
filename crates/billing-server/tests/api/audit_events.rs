//! `/v1/audit-events`: every write leaves one event, in the same transaction.

use serde_json::json;

api_test! {
    fn writes_leave_an_audit_trail(app) {
        let path = "/v1/charge-group-categories";
        let body = json!({ "name": "Calls", "chargingUnitType": "DURATION", "startDate": "2026-01-01" }).to_string();
        let created = app.send("POST", path, Some(&app.admin_token), &[("X-Request-Id", "req-create")], Some(("application/json", body)));
        assert_eq!(created.status, 201);
        app.patch(&format!("{path}/1"), json!([{ "op": "replace", "path": "/name", "value": "Voice" }]));
        app.patch(&format!("{path}/1"), json!([{ "op": "replace", "path": "/endDate", "value": "2020-01-01" }])).assert_problem(400);
        assert_eq!(app.delete(&format!("{path}/1")).status, 204);
        let reply = app.get("/v1/audit-events?page=1&pageSize=10&resource=charge-group-categories&recordId=1&sort=id");
        assert_eq!(reply.status, 200, "{}", reply.text);
        // Event 1 is the first administrator's creation at start-up.
        insta::assert_json_snapshot!(crate::support::plain(&reply.json()), { "[].occurredAt" => "[time]", "[1].requestId" => "[id]", "[2].requestId" => "[id]" }, @r#"
        [
          {
            "id": 2,
            "occurredAt": "[time]",
            "userId": 1,
            "username": "admin",
            "action": "CREATE",
            "resource": "charge-group-categories",
            "recordId": 1,
            "before": null,
            "after": {
              "id": 1,
              "name": "Calls",
              "chargingUnitType": "DURATION",
              "startDate": "2026-01-01",
              "endDate": null
            },
            "requestId": "req-create"
          },
          {
            "id": 3,
            "occurredAt": "[time]",
            "userId": 1,
            "username": "admin",
            "action": "PATCH",
            "resource": "charge-group-categories",
            "recordId": 1,
            "before": {
              "id": 1,
              "name": "Calls",
              "chargingUnitType": "DURATION",
              "startDate": "2026-01-01",
              "endDate": null
            },
            "after": {
              "id": 1,
              "name": "Voice",
              "chargingUnitType": "DURATION",
              "startDate": "2026-01-01",
              "endDate": null
            },
            "requestId": "[id]"
          },
          {
            "id": 4,
            "occurredAt": "[time]",
            "userId": 1,
            "username": "admin",
            "action": "DELETE",
            "resource": "charge-group-categories",
            "recordId": 1,
            "before": {
              "id": 1,
              "name": "Voice",
              "chargingUnitType": "DURATION",
              "startDate": "2026-01-01",
              "endDate": null
            },
            "after": null,
            "requestId": "[id]"
          }
        ]
        "#);
    }

    fn the_first_administrator_is_created_with_an_audit_event(app) {
        let reply = app.get("/v1/audit-events?page=1&pageSize=10&resource=users");
        assert_eq!(reply.status, 200, "{}", reply.text);
        insta::assert_json_snapshot!(crate::support::plain(&reply.json()), {
            "[].occurredAt" => "[time]", "[].after.createdDate" => "[time]", "[].after.updatedDate" => "[time]"
        }, @r#"
        [
          {
            "id": 1,
            "occurredAt": "[time]",
            "userId": 1,
            "username": "admin",
            "action": "CREATE",
            "resource": "users",
            "recordId": 1,
            "before": null,
            "after": {
              "id": 1,
              "username": "admin",
              "email": null,
              "active": true,
              "roles": [
                "ADMINISTRATOR"
              ],
              "createdDate": "[time]",
              "updatedDate": "[time]",
              "lastLoginDate": null,
              "contractOwnerIds": []
            },
            "requestId": "first-start"
          }
        ]
        "#);
        assert!(!reply.text.contains("argon2"), "no password hash");
    }

    fn the_trail_never_holds_secrets_and_is_for_administrators(app) {
        let token = app.user_with_roles("manager", &["BILLING_MANAGER"]);
        let trail = app.get("/v1/audit-events?page=1&pageSize=10&resource=users");
        assert_eq!(trail.header("x-total-count"), Some("2"), "the first administrator and manager");
        assert!(!trail.text.contains("a-long-enough-password") && !trail.text.contains("argon2"));
        app.get_as(&token, "/v1/audit-events?page=1&pageSize=10").assert_problem(403);
        app.send("POST", "/v1/audit-events", Some(&app.admin_token), &[], Some(("application/json", "{}".into()))).assert_problem(405);
    }
}
