//! `cargo xtask auth-matrix [--debug]`: every operation of the served OpenAPI document against
//! every way a caller can be wrong, on SQLite and PostgreSQL (docs/testing.md).
//!
//! The server runs with a `BILLING_JWT_SECRET` made for the run, so that the task can mint
//! tokens: expired, signed with another key, `alg: none`, another HMAC, another issuer or
//! audience, for a user that does not exist. With those, no token and malformed
//! `Authorization` headers every secured operation must answer 401; with a real token of a
//! role that lacks the operation's permission (the document's "Needs permission X", for an
//! item the collection's), 403; a user restricted to contract owner A asking for contract
//! owner B's customer, site or inventory item, or creating one for B, 403, and lists and
//! counts must leave B's records out. Never 2xx, never 5xx.

use std::collections::{BTreeMap, BTreeSet};
use std::net::SocketAddr;

use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use jsonwebtoken::{Algorithm, EncodingKey, Header};
use serde_json::{Value, json};

use crate::hostile::{self, ADMIN_PASSWORD, Backend, Common};
use crate::http_client::{Client, Response};
use crate::server::{sign_in, sign_in_as};

/// The password of every user the task creates (12+ characters).
const USER_PASSWORD: &str = "matrix-user-password-2026";
/// The resources whose records belong to a contract owner (through a customer).
const SCOPED: [&str; 3] = ["customers", "sites", "inventory-items"];

pub fn run(args: &[String]) -> Result<(), String> {
    let common = Common::parse(args, crate::USAGE)?;
    let binary = common.binary()?;
    let mut failures = Vec::new();
    for backend in Backend::available()? {
        let started = std::time::Instant::now();
        match matrix_backend(&binary, &backend) {
            Ok(report) => {
                eprintln!(
                    "auth-matrix {}: {} requests, {} failures, {:.0} s",
                    backend.name(),
                    report.requests,
                    report.failures.len(),
                    started.elapsed().as_secs_f64()
                );
                failures.extend(
                    report
                        .failures
                        .into_iter()
                        .map(|f| format!("{}: {f}", backend.name())),
                );
            }
            Err(message) => failures.push(format!("{}: {message}", backend.name())),
        }
    }
    if failures.is_empty() {
        Ok(())
    } else {
        Err(format!(
            "auth-matrix: {} failures:\n  {}",
            failures.len(),
            failures.join("\n  ")
        ))
    }
}

/// What one backend's run sent and what went wrong.
#[derive(Default)]
struct Report {
    requests: usize,
    failures: Vec<String>,
}

impl Report {
    /// Records `response` for `what`: a failure unless its status is `expected`; a leak (2xx)
    /// or a server error (5xx) says so.
    fn expect(&mut self, what: &str, response: Result<Response, String>, expected: u16) {
        self.requests += 1;
        match response {
            Err(message) => self.failures.push(format!("{what}: no answer: {message}")),
            Ok(response) if response.status == expected => {}
            Ok(response) => {
                let kind = match response.status {
                    200..=299 => "LEAK",
                    500..=599 => "SERVER ERROR",
                    _ => "unexpected status",
                };
                self.failures.push(format!(
                    "{what}: {kind}: {} instead of {expected}: {}",
                    response.status,
                    truncate(&response.body, 300)
                ));
            }
        }
    }

    fn fail(&mut self, message: String) {
        self.failures.push(message);
    }
}

fn truncate(text: &str, chars: usize) -> String {
    let mut out: String = text.chars().take(chars).collect();
    if text.chars().count() > chars {
        out.push('…');
    }
    out
}

/// One operation of the document.
#[derive(Debug, Clone)]
struct Operation {
    method: String,
    /// The path template, `/v1/customers/{id}`.
    template: String,
    /// False for the operations that need no token (`security: []`).
    secured: bool,
    permission: Option<String>,
    /// The first media type of the request body, when it has one.
    body_type: Option<String>,
    /// True when it takes `page` (lists).
    paged: bool,
}

impl Operation {
    fn label(&self) -> String {
        format!("{} {}", self.method, self.template)
    }

    /// The collection the operation works on: `customers` for `/v1/customers/{id}`.
    fn resource(&self) -> &str {
        self.template
            .strip_prefix("/v1/")
            .unwrap_or(&self.template)
            .split('/')
            .next()
            .unwrap_or_default()
    }

    fn is_item(&self) -> bool {
        self.template.ends_with("/{id}")
    }

    /// The path with every parameter filled in: `{id}` with `id`.
    fn path(&self, id: u64) -> String {
        // `{id}` is the id; the one other parameter (a summary's type) takes a valid value.
        let mut path = String::new();
        for (i, part) in self.template.split('{').enumerate() {
            match part.split_once('}') {
                Some(("id", rest)) if i > 0 => path.push_str(&format!("{id}{rest}")),
                Some((_, rest)) if i > 0 => path.push_str(&format!("DIALSTRING{rest}")),
                _ => path.push_str(part),
            }
        }
        if self.paged {
            path.push_str("?page=1&pageSize=10");
        }
        path
    }

    /// A body that parses (its content is not the point: the caller is refused first).
    fn placeholder_body(&self) -> Option<(&str, &'static str)> {
        self.body_type.as_deref().map(|media| {
            let body = if media.contains("json-patch") {
                "[]"
            } else {
                "{}"
            };
            (media, body)
        })
    }
}

/// The operations of the document, with each one's permission: its own "Needs permission X",
/// else its collection's (reads from the list, writes from the create or bulk update).
fn operations(document: &Value) -> Result<Vec<Operation>, String> {
    let paths = document["paths"]
        .as_object()
        .ok_or("the document has no paths")?;
    let global_secured = document["security"]
        .as_array()
        .is_some_and(|s| !s.is_empty());
    let mut found = Vec::new();
    for (template, item) in paths {
        let Some(item) = item.as_object() else {
            continue;
        };
        for (method, operation) in item {
            if !["get", "head", "post", "put", "patch", "delete"].contains(&method.as_str()) {
                continue;
            }
            let secured = match operation.get("security") {
                Some(security) => security.as_array().is_some_and(|s| !s.is_empty()),
                None => global_secured,
            };
            let permission = operation["description"]
                .as_str()
                .and_then(|d| d.split("Needs permission ").nth(1))
                .map(|rest| rest.trim_end_matches(|c: char| !c.is_ascii_uppercase()))
                .map(|p| p.split(['.', ' ']).next().unwrap_or_default().to_owned());
            let body_type = operation["requestBody"]["content"]
                .as_object()
                .and_then(|content| content.keys().next().cloned());
            let paged = operation["parameters"]
                .as_array()
                .is_some_and(|ps| ps.iter().any(|p| p["name"] == "page"));
            found.push(Operation {
                method: method.to_uppercase(),
                template: template.clone(),
                secured,
                permission,
                body_type,
                paged,
            });
        }
    }
    // Each collection's read and write permissions, for its operations that do not say.
    let mut read = BTreeMap::new();
    let mut write = BTreeMap::new();
    for op in found.iter().filter(|op| !op.is_item()) {
        if let Some(permission) = &op.permission {
            let table = if op.method == "GET" {
                &mut read
            } else {
                &mut write
            };
            table.insert(op.resource().to_owned(), permission.clone());
        }
    }
    for op in &mut found {
        if op.permission.is_none() && op.secured {
            let table = if matches!(op.method.as_str(), "GET" | "HEAD") {
                &read
            } else {
                &write
            };
            op.permission = table.get(op.resource()).cloned();
        }
    }
    Ok(found)
}

/// Tokens minted with the server's key (and others) for the token checks.
struct Minter {
    secret: String,
}

impl Minter {
    fn claims(&self, sub: &str, exp_from_now: i64) -> Value {
        let now = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_secs() as i64);
        json!({
            "iss": "billing", "aud": "billing-api", "sub": sub,
            "exp": now + exp_from_now, "iat": now.min(now + exp_from_now - 900),
            "nbf": now.min(now + exp_from_now - 900), "jti": format!("matrix-{now}-{sub}"),
        })
    }

    fn sign(&self, algorithm: Algorithm, key: &[u8], claims: &Value) -> Result<String, String> {
        jsonwebtoken::encode(
            &Header::new(algorithm),
            claims,
            &EncodingKey::from_secret(key),
        )
        .map_err(|e| format!("cannot mint a token: {e}"))
    }

    /// `(what, Authorization header value or None)`: every one must be refused with 401.
    fn bad_credentials(
        &self,
        valid_admin: &str,
        deactivated_user: &str,
    ) -> Result<Vec<(String, Option<String>)>, String> {
        let key = self.secret.as_bytes();
        let fresh = self.claims("1", 900);
        let bearer = |token: &str| Some(format!("Bearer {token}"));
        let with = |claims: Value| self.sign(Algorithm::HS256, key, &claims);
        let expired = with(self.claims("1", -3600))?;
        let unknown_user = with(self.claims("999999", 900))?;
        let mut other_issuer = fresh.clone();
        other_issuer["iss"] = json!("someone-else");
        let other_issuer = with(other_issuer)?;
        let mut other_audience = fresh.clone();
        other_audience["aud"] = json!("another-api");
        let other_audience = with(other_audience)?;
        let mut no_sub = fresh.clone();
        no_sub
            .as_object_mut()
            .map(|claims| claims.remove("sub"))
            .ok_or("claims are an object")?;
        let no_sub = with(no_sub)?;
        let not_yet = with(self.claims("1", 7200).as_object().cloned().map_or(
            Value::Null,
            |mut c| {
                c.insert("nbf".into(), json!(c["exp"].as_i64().unwrap_or(0) - 60));
                Value::Object(c)
            },
        ))?;
        let other_key = self.sign(
            Algorithm::HS256,
            b"not-the-server-key-not-the-server-key",
            &fresh,
        )?;
        let hs384 = self.sign(Algorithm::HS384, key, &fresh)?;
        let hs512 = self.sign(Algorithm::HS512, key, &fresh)?;
        let encode = |v: &Value| URL_SAFE_NO_PAD.encode(v.to_string().as_bytes());
        let payload = encode(&fresh);
        let alg_none = format!(
            "{}.{payload}.",
            encode(&json!({"alg": "none", "typ": "JWT"}))
        );
        let alg_none_upper = format!(
            "{}.{payload}.",
            encode(&json!({"alg": "NONE", "typ": "JWT"}))
        );
        // The admin's real token with its signature's last characters changed.
        let mut tampered = valid_admin.to_owned();
        let cut = tampered.len().saturating_sub(4);
        tampered.truncate(cut);
        tampered.push_str(if valid_admin.ends_with("AAAA") {
            "BBBB"
        } else {
            "AAAA"
        });
        // The admin's real signature on a payload that says user 2.
        let parts: Vec<&str> = valid_admin.split('.').collect();
        let mut swapped_claims = fresh.clone();
        swapped_claims["sub"] = json!("2");
        let swapped = format!(
            "{}.{}.{}",
            parts.first().copied().unwrap_or_default(),
            encode(&swapped_claims),
            parts.get(2).copied().unwrap_or_default()
        );
        Ok(vec![
            ("no Authorization header".into(), None),
            ("empty Authorization".into(), Some(String::new())),
            ("scheme only".into(), Some("Bearer".into())),
            ("scheme and a space".into(), Some("Bearer ".into())),
            (
                "Basic credentials".into(),
                Some(format!("Basic {}", "YWRtaW46eA==")),
            ),
            (
                "another scheme with a valid token".into(),
                Some(format!("Token {valid_admin}")),
            ),
            (
                "the token without a scheme".into(),
                Some(valid_admin.to_owned()),
            ),
            (
                "two tokens".into(),
                Some(format!("Bearer {valid_admin} {valid_admin}")),
            ),
            ("not a JWT".into(), bearer("not-a-jwt")),
            ("three empty parts".into(), bearer("..")),
            ("garbage base64".into(), bearer("a.b.c")),
            (
                "a very long token".into(),
                bearer(&"A".repeat(6000).to_string()),
            ),
            ("expired".into(), bearer(&expired)),
            ("not valid yet".into(), bearer(&not_yet)),
            ("signed with another key".into(), bearer(&other_key)),
            ("tampered signature".into(), bearer(&tampered)),
            (
                "payload swapped under a real signature".into(),
                bearer(&swapped),
            ),
            ("alg none".into(), bearer(&alg_none)),
            ("alg NONE".into(), bearer(&alg_none_upper)),
            ("HS384 with the server key".into(), bearer(&hs384)),
            ("HS512 with the server key".into(), bearer(&hs512)),
            ("another issuer".into(), bearer(&other_issuer)),
            ("another audience".into(), bearer(&other_audience)),
            ("no sub claim".into(), bearer(&no_sub)),
            ("a user that does not exist".into(), bearer(&unknown_user)),
            ("a deactivated user".into(), bearer(deactivated_user)),
        ])
    }
}

/// Sends one request with the given `Authorization` value (none when `None`).
fn send(
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
fn admin_json(
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

fn id_of(value: &Value) -> Result<u64, String> {
    value["id"]
        .as_u64()
        .ok_or_else(|| format!("no id in {value}"))
}

/// The records the checks need, made by the admin: two contract owners, each with a customer,
/// a site and an inventory item.
struct Fixtures {
    owner_a: u64,
    owner_b: u64,
    /// B's records by resource.
    of_b: BTreeMap<&'static str, u64>,
    /// A site of B's, for creates that name one.
    site_b: u64,
    customer_b: u64,
    billing_cycle: u64,
    template: u64,
}

fn make_fixtures(client: &mut Client, token: &str) -> Result<Fixtures, String> {
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

fn site_body(customer: u64, template: u64, reference: &str) -> Value {
    json!({"customerId": customer, "siteName": format!("Site {reference}"),
        "siteReference": reference, "startDate": "2026-01-01",
        "siteAddress": {"address1": "1 High Street", "town": "Leeds", "postcode": "LS1 1AA", "country": "GB"},
        "siteInvoiceDetails": {"invoiceTemplateId": template, "paymentMethod": "CHEQUE", "paymentTermsInDays": 30},
        "siteContacts": [{"contactName": "Ann", "contactRole": "ACCOUNTS", "contactEmailAddress": "ann@example.com"}]})
}

/// Creates a user (returns its id) and signs it in (returns its token).
fn user(
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

fn matrix_backend(binary: &std::path::Path, backend: &Backend) -> Result<Report, String> {
    eprintln!("== auth-matrix: {}", backend.name());
    hostile::fresh_log("auth-matrix", backend)?;
    let secret = hostile::random_secret()?;
    let database = backend.scratch_database("auth_matrix")?;
    let server = hostile::start_server(
        binary,
        "auth-matrix",
        backend,
        database.as_ref(),
        None,
        &[("BILLING_JWT_SECRET", &secret)],
    )?;
    let address = server.address;
    let admin = sign_in(address, ADMIN_PASSWORD)?;
    let mut client = Client::new(address);
    let document: Value = serde_json::from_str(
        &client
            .send("GET", "/v1/openapi.json", None, None)?
            .expect_status(200, "GET /v1/openapi.json")?
            .body,
    )
    .map_err(|e| format!("the OpenAPI document: {e}"))?;
    let operations = operations(&document)?;
    let fixtures = make_fixtures(&mut client, &admin)?;

    // Roles and what they grant, as the server says.
    let roles = admin_json(
        &mut client,
        &admin,
        "GET",
        "/v1/user-roles?page=1&pageSize=100",
        &Value::Null,
        200,
    )?;
    let mut grants: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for role in roles.as_array().ok_or("user-roles is not an array")? {
        let code = role["code"].as_str().ok_or("a role without code")?;
        let permissions = role["permissions"]
            .as_array()
            .map(|ps| {
                ps.iter()
                    .filter_map(|p| p.as_str().map(str::to_owned))
                    .collect()
            })
            .unwrap_or_default();
        grants.insert(code.to_owned(), permissions);
    }
    let mut role_tokens = BTreeMap::new();
    for code in grants.keys() {
        let username = format!("role-{}", code.to_lowercase().replace('_', "-"));
        let (_, token) = user(&mut client, address, &admin, &username, &[code], &[])?;
        role_tokens.insert(code.clone(), token);
    }
    let (deactivated_id, deactivated) = user(
        &mut client,
        address,
        &admin,
        "deactivated",
        &["ADMINISTRATOR"],
        &[],
    )?;
    admin_json(
        &mut client,
        &admin,
        "PATCH",
        &format!("/v1/users/{deactivated_id}"),
        &json!([{"op": "replace", "path": "/active", "value": false}]),
        200,
    )?;
    let (_, restricted) = user(
        &mut client,
        address,
        &admin,
        "restricted-to-a",
        &["BILLING_MANAGER"],
        &[fixtures.owner_a],
    )?;

    let minter = Minter { secret };
    let credentials = minter.bad_credentials(&admin, &deactivated)?;
    let mut report = Report::default();

    // 1. Token problems: 401 on every secured operation.
    for op in operations.iter().filter(|op| op.secured) {
        let path = op.path(1);
        for (what, authorization) in &credentials {
            let response = send(
                &mut client,
                &op.method,
                &path,
                authorization.as_deref(),
                op.placeholder_body(),
            );
            report.expect(&format!("{} with {what}", op.label()), response, 401);
        }
    }
    // Operations that are public are still asked once with a bad token: no 5xx.
    for op in operations.iter().filter(|op| !op.secured) {
        report.requests += 1;
        let path = op.path(1);
        if let Ok(response) = send(
            &mut client,
            &op.method,
            &path,
            Some("Bearer a.b.c"),
            op.placeholder_body(),
        ) && response.status >= 500
        {
            report.fail(format!(
                "{} (public) with a bad token: SERVER ERROR {}",
                op.label(),
                response.status
            ));
        }
    }

    // 2. Roles without the permission: 403.
    let mut unchecked = Vec::new();
    for op in operations.iter().filter(|op| op.secured) {
        let Some(permission) = &op.permission else {
            unchecked.push(op.label());
            continue;
        };
        let path = op.path(1);
        let mut lacking = 0;
        for (code, granted) in &grants {
            if granted.contains(permission) {
                continue;
            }
            lacking += 1;
            let authorization = format!("Bearer {}", role_tokens[code]);
            let response = send(
                &mut client,
                &op.method,
                &path,
                Some(&authorization),
                op.placeholder_body(),
            );
            report.expect(
                &format!("{} as {code} (lacks {permission})", op.label()),
                response,
                403,
            );
        }
        if lacking == 0 {
            unchecked.push(format!("{} (every role has {permission})", op.label()));
        }
    }
    eprintln!(
        "role checks: {} operations have no permission that some role lacks (reads every \
         role may do, or none named)",
        unchecked.len()
    );
    let before_scope = report.requests;

    // 3. Contract-owner scope: restricted to A, asking for B's records.
    scope_checks(
        &mut client,
        &mut report,
        &operations,
        &fixtures,
        &admin,
        &restricted,
    )?;
    eprintln!(
        "{} token checks on {} secured operations, {} scope checks",
        credentials.len() * operations.iter().filter(|op| op.secured).count(),
        operations.iter().filter(|op| op.secured).count(),
        report.requests - before_scope
    );

    if !server_alive(server) {
        report.fail("the server exited during the run".to_owned());
    }
    Ok(report)
}

fn server_alive(mut server: crate::server::Server) -> bool {
    server.is_running()
}

fn scope_checks(
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_operations_and_their_permissions() {
        let document = json!({
            "security": [{"bearer": []}],
            "paths": {
                "/v1/things": {
                    "get": {"description": "Things. Needs permission THINGS_READ.",
                        "parameters": [{"name": "page", "in": "query"}]},
                    "post": {"description": "Create. Needs permission THINGS_WRITE.",
                        "requestBody": {"content": {"application/json": {}}}}
                },
                "/v1/things/{id}": {
                    "parameters": [{"name": "id", "in": "path"}],
                    "get": {}, "delete": {},
                    "patch": {"requestBody": {"content": {"application/json-patch+json": {}}}}
                },
                "/v1/authenticate": {"post": {"security": []}}
            }
        });
        let ops = operations(&document).expect("operations");
        let find = |label: &str| {
            ops.iter()
                .find(|op| op.label() == label)
                .unwrap_or_else(|| panic!("{label}"))
        };
        assert_eq!(
            find("GET /v1/things").permission.as_deref(),
            Some("THINGS_READ")
        );
        assert_eq!(
            find("GET /v1/things").path(3),
            "/v1/things?page=1&pageSize=10"
        );
        assert_eq!(
            find("GET /v1/things/{id}").permission.as_deref(),
            Some("THINGS_READ")
        );
        assert_eq!(
            find("DELETE /v1/things/{id}").permission.as_deref(),
            Some("THINGS_WRITE")
        );
        assert_eq!(find("DELETE /v1/things/{id}").path(3), "/v1/things/3");
        let summary = Operation {
            template: "/v1/summary/{kind}/{id}".to_owned(),
            ..find("DELETE /v1/things/{id}").clone()
        };
        assert_eq!(summary.path(4), "/v1/summary/DIALSTRING/4");
        assert_eq!(
            find("PATCH /v1/things/{id}").placeholder_body(),
            Some(("application/json-patch+json", "[]"))
        );
        assert!(!find("POST /v1/authenticate").secured);
        assert!(find("POST /v1/things").secured);
    }
}
