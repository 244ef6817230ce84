//! What a user limited to contract owner A may see and do of contract owner B's records.

use serde_json::{Value, json};

use crate::http_client::Client;

use super::fixtures::{Fixtures, send, site_body};
use super::{Operation, Report, SCOPED};

pub(super) fn scope_checks(
    client: &mut Client,
    report: &mut Report,
    operations: &[Operation],
    fixtures: &Fixtures,
    admin: &str,
    restricted: &str,
) -> Result<(), String> {
    let authorization = format!("Bearer {restricted}");
    let admin_authorization = format!("Bearer {admin}");
    // Every item operation of a scoped resource on B's record.
    for op in operations
        .iter()
        .filter(|op| op.is_item() && SCOPED.contains(&op.resource()))
    {
        let Some(&id) = fixtures.of_b.get(op.resource()) else {
            continue;
        };
        let path = op.path(id);
        let body = match op.method.as_str() {
            "PUT" => {
                // The record as the admin reads it, without the members the server keeps.
                let mut record: Value = serde_json::from_str(
                    &send(client, "GET", &path, Some(&admin_authorization), None)?
                        .expect_status(200, &format!("GET {path}"))?
                        .body,
                )
                .map_err(|e| e.to_string())?;
                if let Some(members) = record.as_object_mut() {
                    for key in ["id", "createdDate", "updatedDate"] {
                        members.remove(key);
                    }
                }
                Some(record.to_string())
            }
            "PATCH" => Some(
                json!([{"op": "replace", "path": "/startDate", "value": "2026-01-02"}]).to_string(),
            ),
            _ => None,
        };
        let body_type = op.body_type.as_deref().unwrap_or("application/json");
        let response = send(
            client,
            &op.method,
            &path,
            Some(&authorization),
            body.as_deref().map(|b| (body_type, b)),
        );
        report.expect(
            &format!("{} on contract owner B's record as a user of A", op.label()),
            response,
            403,
        );
    }
    // Creates for B.
    let creates = [
        (
            "/v1/customers",
            json!({"customerName": "Sneaky", "customerReference": "S-1",
                "contractOwnerId": fixtures.owner_b, "billingCycleId": fixtures.billing_cycle,
                "startDate": "2026-01-01"}),
        ),
        (
            "/v1/sites",
            site_body(fixtures.customer_b, fixtures.template, "S-2"),
        ),
        (
            "/v1/inventory-items",
            json!({"siteId": fixtures.site_b, "productCode": "SNEAKY", "startDate": "2026-01-01"}),
        ),
        (
            "/v1/adhoc-bill-runs",
            json!({"name": "Sneaky run", "siteIds": [fixtures.site_b]}),
        ),
    ];
    for (path, body) in creates {
        let text = body.to_string();
        let response = send(
            client,
            "POST",
            path,
            Some(&authorization),
            Some(("application/json", &text)),
        );
        report.expect(
            &format!("POST {path} naming contract owner B's records as a user of A"),
            response,
            403,
        );
    }
    // Bulk updates of B's records, where a collection takes them.
    for op in operations
        .iter()
        .filter(|op| !op.is_item() && op.method == "PATCH" && SCOPED.contains(&op.resource()))
    {
        let Some(&id) = fixtures.of_b.get(op.resource()) else {
            continue;
        };
        let text = json!([{"id": id, "startDate": "2026-01-02"}]).to_string();
        let response = send(
            client,
            "PATCH",
            &op.template,
            Some(&authorization),
            Some(("application/json", &text)),
        );
        report.expect(
            &format!(
                "PATCH {} of contract owner B's record as a user of A",
                op.template
            ),
            response,
            403,
        );
    }
    // Lists and counts leave B out.
    for (resource, &id) in &fixtures.of_b {
        let list = format!("/v1/{resource}?page=1&pageSize=1000");
        report.requests += 1;
        match send(client, "GET", &list, Some(&authorization), None) {
            Ok(response) if response.status == 200 => {
                let rows: Value = serde_json::from_str(&response.body).unwrap_or(Value::Null);
                let leaked = rows
                    .as_array()
                    .is_some_and(|rows| rows.iter().any(|row| row["id"].as_u64() == Some(id)));
                if leaked {
                    report.fail(format!("GET {list} as a user of A: LEAK: lists B's {id}"));
                }
                if response.header("x-total-count") != Some("1") {
                    report.fail(format!(
                        "GET {list} as a user of A: X-Total-Count {:?}, expected 1 (A's only)",
                        response.header("x-total-count")
                    ));
                }
            }
            Ok(response) => report.fail(format!(
                "GET {list} as a user of A: {} instead of 200",
                response.status
            )),
            Err(message) => report.fail(format!("GET {list}: no answer: {message}")),
        }
        let count = format!("/v1/{resource}?id={id}");
        let response = send(client, "HEAD", &count, Some(&authorization), None);
        report.expect(
            &format!("HEAD {count} (B's record) as a user of A"),
            response,
            404,
        );
    }
    Ok(())
}
