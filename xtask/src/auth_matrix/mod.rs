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

mod fixtures;
mod scope;
mod tokens;

use std::collections::{BTreeMap, BTreeSet};

use serde_json::{Value, json};

use crate::hostile::{self, ADMIN_PASSWORD, Backend, Common};
use crate::http_client::{Client, Response};
use crate::server::sign_in;

use fixtures::{admin_json, make_fixtures, send, user};
use scope::scope_checks;
use tokens::Minter;

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
