//! The records and users the matrix needs: one of each scoped kind per contract owner.

use std::collections::BTreeMap;
use std::net::SocketAddr;

use serde_json::{Value, json};

use crate::http_client::{Client, Response};
use crate::server::sign_in_as;

use super::USER_PASSWORD;

/// Sends one request with the given `Authorization` value (none when `None`).
pub(super) fn send(
    client: &mut Client,
    method: &str,
    path: &str,
    authorization: Option<&str>,
    body: Option<(&str, &str)>,
) -> Result<Response, String> {
    let mut headers = Vec::new();
    if let Some(value) = authorization {
        headers.push(("Authorization", value));
    }
    if let Some((media, _)) = body {
        headers.push(("Content-Type", media));
    }
    client.send_raw(method, path, &headers, body.map(|(_, text)| text))
}

/// An admin helper: sends JSON, expects `status`, returns the parsed body.
pub(super) fn admin_json(
    client: &mut Client,
    token: &str,
    method: &str,
    path: &str,
    body: &Value,
    status: u16,
) -> Result<Value, String> {
    let media = if method == "PATCH" && body.is_array() {
        "application/json-patch+json"
    } else {
        "application/json"
    };
    let text = body.to_string();
    let authorization = format!("Bearer {token}");
    let body = (!body.is_null()).then_some((media, text.as_str()));
    let response = send(client, method, path, Some(&authorization), body)?
        .expect_status(status, &format!("{method} {path}"))?;
    serde_json::from_str(&response.body).map_err(|e| format!("{method} {path}: {e}"))
}

pub(super) fn id_of(value: &Value) -> Result<u64, String> {
    value["id"]
        .as_u64()
        .ok_or_else(|| format!("no id in {value}"))
}

/// The records the checks need, made by the admin: two contract owners, each with a customer,
/// a site and an inventory item.
pub(super) struct Fixtures {
    pub(super) owner_a: u64,
    pub(super) owner_b: u64,
    /// B's records by resource.
    pub(super) of_b: BTreeMap<&'static str, u64>,
    /// A site of B's, for creates that name one.
    pub(super) site_b: u64,
    pub(super) customer_b: u64,
    pub(super) billing_cycle: u64,
    pub(super) template: u64,
}

pub(super) fn make_fixtures(client: &mut Client, token: &str) -> Result<Fixtures, String> {
    let owner_a = id_of(&admin_json(
        client,
        token,
        "POST",
        "/v1/contract-owners",
        &json!({"name": "Owner A"}),
        201,
    )?)?;
    let owner_b = id_of(&admin_json(
        client,
        token,
        "POST",
        "/v1/contract-owners",
        &json!({"name": "Owner B"}),
        201,
    )?)?;
    let billing_cycle = id_of(&admin_json(
        client,
        token,
        "POST",
        "/v1/billing-cycles",
        &json!({"name": "Monthly"}),
        201,
    )?)?;
    let template = id_of(&admin_json(
        client,
        token,
        "POST",
        "/v1/invoice-templates",
        &json!({"name": "Standard", "type": "INVOICE"}),
        201,
    )?)?;
    let mut made = Vec::new();
    for (owner, reference) in [(owner_a, "A-1"), (owner_b, "B-1")] {
        let customer = id_of(&admin_json(
            client,
            token,
            "POST",
            "/v1/customers",
            &json!({"customerName": format!("Customer {reference}"), "customerReference": reference,
                "contractOwnerId": owner, "billingCycleId": billing_cycle, "startDate": "2026-01-01"}),
            201,
        )?)?;
        let site = id_of(&admin_json(
            client,
            token,
            "POST",
            "/v1/sites",
            &site_body(customer, template, reference),
            200,
        )?)?;
        let item = id_of(&admin_json(
            client,
            token,
            "POST",
            "/v1/inventory-items",
            &json!({"siteId": site, "productCode": "BROADBAND", "startDate": "2026-01-01"}),
            201,
        )?)?;
        made.push((customer, site, item));
    }
    let (customer_b, site_b, item_b) = made[1];
    Ok(Fixtures {
        owner_a,
        owner_b,
        of_b: BTreeMap::from([
            ("customers", customer_b),
            ("sites", site_b),
            ("inventory-items", item_b),
        ]),
        site_b,
        customer_b,
        billing_cycle,
        template,
    })
}

pub(super) fn site_body(customer: u64, template: u64, reference: &str) -> Value {
    json!({"customerId": customer, "siteName": format!("Site {reference}"),
        "siteReference": reference, "startDate": "2026-01-01",
        "siteAddress": {"address1": "1 High Street", "town": "Leeds", "postcode": "LS1 1AA", "country": "GB"},
        "siteInvoiceDetails": {"invoiceTemplateId": template, "paymentMethod": "CHEQUE", "paymentTermsInDays": 30},
        "siteContacts": [{"contactName": "Ann", "contactRole": "ACCOUNTS", "contactEmailAddress": "ann@example.com"}]})
}

/// Creates a user (returns its id) and signs it in (returns its token).
pub(super) fn user(
    client: &mut Client,
    address: SocketAddr,
    admin: &str,
    username: &str,
    roles: &[&str],
    owners: &[u64],
) -> Result<(u64, String), String> {
    let id = id_of(&admin_json(
        client,
        admin,
        "POST",
        "/v1/users",
        &json!({"username": username, "password": USER_PASSWORD, "roles": roles,
            "contractOwnerIds": owners}),
        201,
    )?)?;
    Ok((id, sign_in_as(address, username, USER_PASSWORD)?))
}
