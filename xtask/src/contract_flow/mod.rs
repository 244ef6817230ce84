//! The request set of `cargo xtask contract`, sent through Prism's validating proxy: every
//! operation of the served document reached with seeded data, its documented example bodies
//! (what Swagger UI's "Try it out" sends) accepted, and the documented errors provoked. Prism
//! checks every response against the document and reports what contradicts it in
//! `sl-violations`; a request that breaks the document on purpose only has request violations.

use std::collections::BTreeSet;
use std::net::SocketAddr;

use serde_json::{Value, json};

use crate::http_client::{Client, Response};

mod document;
mod errors;

/// The methods of an operation in a path item.
const METHODS: [&str; 6] = ["get", "head", "post", "put", "patch", "delete"];
/// The password of the READ_ONLY user the flow creates (12+ characters).
const READER_PASSWORD: &str = "contract-reader-password-2026";

/// What the flow found: requests sent, responses that contradict the document, example
/// requests refused, operations never reached.
#[derive(Default)]
pub struct Report {
    pub requests: usize,
    pub failures: Vec<String>,
    reached: BTreeSet<(String, String)>,
    /// The collections in the order their create examples succeeded: on PostgreSQL a failed
    /// insert still uses up an id, so a later run creates in this order, each at the first try,
    /// and the ids the examples name (1) are the records'.
    pub creation_order: Vec<String>,
}

/// One operation of the document: method, path template, its item.
struct Operation {
    method: String,
    path: String,
    spec: Value,
}

pub struct Flow<'a> {
    client: Client,
    /// The server itself, for what Prism cannot proxy: `HEAD` (it parses the empty body of a
    /// JSON answer and fails) and the home page's redirect (which it follows).
    direct: Client,
    document: &'a Value,
    token: String,
    report: Report,
    /// The kinds whose seeds are made.
    seeded: BTreeSet<&'static str>,
}

impl<'a> Flow<'a> {
    /// Runs the whole request set through the proxy at `proxy`; the admin's password is the
    /// sign-in example's.
    pub fn run(
        proxy: SocketAddr,
        server: SocketAddr,
        document: &'a Value,
        order: &[String],
    ) -> Result<Report, String> {
        let mut flow = Flow {
            client: Client::new(proxy),
            direct: Client::new(server),
            document,
            token: String::new(),
            report: Report::default(),
            seeded: BTreeSet::new(),
        };
        flow.authentication()?;
        let created = flow.create_from_examples(order);
        flow.report.creation_order = created.iter().map(|(c, _)| c.clone()).collect();
        flow.read_and_change(&created);
        flow.everything_else();
        flow.errors(&created);
        flow.delete(&created);
        flow.check_every_operation_reached();
        Ok(flow.report)
    }

    /// Sends a request; records response violations and which operation it reached.
    pub(super) fn send(
        &mut self,
        method: &str,
        path: &str,
        headers: &[(&str, &str)],
        body: Option<(&str, String)>,
    ) -> Response {
        let bearer = format!("Bearer {}", self.token);
        let mut all: Vec<(&str, &str)> = Vec::new();
        if !self.token.is_empty() && !headers.iter().any(|(name, _)| *name == "Authorization") {
            all.push(("Authorization", &bearer));
        }
        all.extend_from_slice(headers);
        if let Some((content_type, _)) = &body {
            all.push(("Content-Type", content_type));
        }
        self.report.requests += 1;
        let unproxied = method == "head" || path == "/";
        let client = if unproxied {
            &mut self.direct
        } else {
            &mut self.client
        };
        let response = match client.send_raw(
            &method.to_uppercase(),
            path,
            &all,
            body.as_ref().map(|(_, text)| text.as_str()),
        ) {
            Ok(response) => response,
            Err(message) => {
                self.report
                    .failures
                    .push(format!("{method} {path}: {message}"));
                if unproxied {
                    self.direct = Client::new(self.direct.address());
                } else {
                    self.client = Client::new(self.client.address());
                }
                return Response {
                    status: 0,
                    headers: Vec::new(),
                    body: String::new(),
                };
            }
        };
        if let Some(template) = self.template_of(method, path) {
            self.report
                .reached
                .insert((method.to_lowercase(), template));
        }
        if let Some(violations) = response.header("sl-violations") {
            let violations: Vec<Value> = serde_json::from_str(violations).unwrap_or_default();
            for violation in violations {
                if violation["location"][0] == "response" {
                    self.report.failures.push(format!(
                        "{method} {path} answered {} against the document: {} ({})",
                        response.status,
                        violation["message"].as_str().unwrap_or(""),
                        violation["location"]
                    ));
                }
            }
        }
        response
    }

    /// A request the document says succeeds: anything but 2xx is a failure.
    pub(super) fn expect_success(&mut self, what: &str, response: &Response) -> bool {
        let ok = (200..300).contains(&response.status);
        if !ok {
            self.report.failures.push(format!(
                "{what} answered {}: {}",
                response.status,
                truncate(&response.body)
            ));
        }
        ok
    }

    pub(super) fn expect_status(&mut self, what: &str, response: &Response, expected: &[u16]) {
        if !expected.contains(&response.status) {
            self.report.failures.push(format!(
                "{what} answered {} instead of {expected:?}: {}",
                response.status,
                truncate(&response.body)
            ));
        }
    }

    /// Sign-in with its example body (its user made first), refresh with
    /// the token it gave, sign-out with the refresh example.
    fn authentication(&mut self) -> Result<(), String> {
        let example = self.request_example("post", "/v1/authenticate")?;
        // The example names a user of its own, not the administrator (a fuzzer replaying it
        // with a wrong password would lock the administrator out): made here by the
        // administrator, whose password is the example's.
        let admin = self.send(
            "post",
            "/v1/authenticate",
            &[],
            Some((
                "application/json",
                json!({ "username": "admin", "password": example["password"] }).to_string(),
            )),
        );
        if !self.expect_success("the administrator's sign-in", &admin) {
            return Err("cannot sign in as the administrator".to_owned());
        }
        let admin: Value = serde_json::from_str(&admin.body).map_err(|e| e.to_string())?;
        let bearer = format!("Bearer {}", admin["token"].as_str().unwrap_or_default());
        let user = json!({ "username": example["username"], "password": example["password"],
            "roles": ["ADMINISTRATOR"] });
        let made = self.send(
            "post",
            "/v1/users",
            &[("Authorization", &bearer)],
            Some(("application/json", user.to_string())),
        );
        self.expect_success("the sign-in example's user, made", &made);
        let signed_in = self.send(
            "post",
            "/v1/authenticate",
            &[],
            Some(("application/json", example.to_string())),
        );
        if !self.expect_success("the sign-in example", &signed_in) {
            return Err("cannot sign in with the sign-in example".to_owned());
        }
        let tokens: Value = serde_json::from_str(&signed_in.body).map_err(|e| e.to_string())?;
        let refreshed = self.send(
            "post",
            "/v1/authenticate/refresh",
            &[],
            Some((
                "application/json",
                json!({ "refreshToken": tokens["refreshToken"] }).to_string(),
            )),
        );
        self.expect_success("a refresh", &refreshed);
        let tokens: Value = serde_json::from_str(&refreshed.body).unwrap_or(tokens);
        self.token = tokens["token"].as_str().unwrap_or_default().to_owned();
        let revoke = self.request_example("post", "/v1/authenticate/revoke")?;
        let revoked = self.send(
            "post",
            "/v1/authenticate/revoke",
            &[],
            Some(("application/json", revoke.to_string())),
        );
        self.expect_success("the sign-out example", &revoked);
        Ok(())
    }

    /// Creates one record of every resource from its create example, in as many rounds as
    /// their references need (a record can name only records made before it). Returns the
    /// created records' paths, in creation order.
    fn create_from_examples(&mut self, order: &[String]) -> Vec<(String, String)> {
        let mut waiting: Vec<String> = self
            .operations()
            .into_iter()
            .filter(|op| op.method == "post" && self.is_resource(&op.path))
            .map(|op| op.path)
            .collect();
        waiting.sort_by_key(|path| {
            order
                .iter()
                .position(|known| known == path)
                .unwrap_or(usize::MAX)
        });
        let mut created = Vec::new();
        while !waiting.is_empty() {
            let before = waiting.len();
            let mut refused = Vec::new();
            let mut refusals = Vec::new();
            for collection in std::mem::take(&mut waiting) {
                let Ok(example) = self.request_example("post", &collection) else {
                    refusals.push(format!("{collection}: no create example"));
                    refused.push(collection);
                    continue;
                };
                let response = self.send(
                    "post",
                    &collection,
                    &[],
                    Some(("application/json", example.to_string())),
                );
                match response.header("location") {
                    Some(location) if (200..300).contains(&response.status) => {
                        let location = location.to_owned();
                        // Changed at once, while nothing refers to it yet: a replace may
                        // replace its children, which a later record could refer to.
                        self.change(&collection, &location);
                        created.push((collection.clone(), location));
                        self.seed_what_examples_name(&created);
                    }
                    _ => {
                        refusals.push(format!(
                            "the create example of {collection} answered {}: {}",
                            response.status,
                            truncate(&response.body)
                        ));
                        refused.push(collection);
                    }
                }
            }
            if refused.len() == before {
                // No progress this round: what is left is refused for good.
                self.report.failures.append(&mut refusals);
                break;
            }
            waiting = refused;
        }
        created
    }

    /// The records the examples name that no example creates, made from the examples once
    /// their own kind exists: a second currency (2, for a currency rate's toCurrencyId) and
    /// an INVOICE_SUMMARY (2) and an ELECTRONIC_SUMMARY (3) invoice template (for a site).
    fn seed_what_examples_name(&mut self, created: &[(String, String)]) {
        let made = |collection: &str| created.iter().filter(|(c, _)| c == collection).count();
        let mut seeds = Vec::new();
        if made("/v1/currencies") == 1
            && self.seeded.insert("/v1/currencies")
            && let Ok(mut currency) = self.request_example("post", "/v1/currencies")
        {
            let other = if currency["code"] == "EUR" {
                "USD"
            } else {
                "EUR"
            };
            currency["code"] = json!(other);
            seeds.push(("/v1/currencies", currency));
        }
        if made("/v1/invoice-templates") == 1
            && self.seeded.insert("/v1/invoice-templates")
            && let Ok(template) = self.request_example("post", "/v1/invoice-templates")
        {
            for kind in ["INVOICE_SUMMARY", "ELECTRONIC_SUMMARY"] {
                let mut seed = single(template.clone());
                seed["type"] = json!(kind);
                seed["name"] = json!(format!("{kind} template"));
                seeds.push(("/v1/invoice-templates", seed));
            }
        }
        for (collection, body) in seeds {
            let response = self.send(
                "post",
                collection,
                &[],
                Some(("application/json", body.to_string())),
            );
            self.expect_success(&format!("seeding {collection}"), &response);
        }
    }

    /// Every read and change of the created records: list, count, get, check, replace (with
    /// If-Match), patch and bulk change with their examples.
    fn read_and_change(&mut self, created: &[(String, String)]) {
        for (collection, record) in created {
            let listed = self.send(
                "get",
                &format!("{collection}?page=1&pageSize=10"),
                &[],
                None,
            );
            self.expect_success(&format!("GET {collection}"), &listed);
            let counted = self.send("head", collection, &[], None);
            self.expect_success(&format!("HEAD {collection}"), &counted);
            let got = self.send("get", record, &[], None);
            self.expect_success(&format!("GET {record}"), &got);
            let checked = self.send("head", record, &[], None);
            self.expect_success(&format!("HEAD {record}"), &checked);
        }
        self.read_what_nobody_creates(created);
    }

    /// The replace, patch and bulk change examples on a record just created.
    fn change(&mut self, collection: &str, record: &str) {
        let template = format!("{collection}/{{id}}");
        if self.has_operation("put", &template)
            && let Ok(example) = self.request_example("put", &template)
        {
            let got = self.send("get", record, &[], None);
            let etag = got.header("etag").unwrap_or("*").to_owned();
            let replaced = self.send(
                "put",
                record,
                &[("If-Match", &etag)],
                Some(("application/json", example.to_string())),
            );
            self.expect_success(&format!("the replace example of {record}"), &replaced);
        }
        if self.has_operation("patch", &template)
            && let Ok(example) = self.request_example("patch", &template)
        {
            let patched = self.send(
                "patch",
                record,
                &[],
                Some(("application/json-patch+json", example.to_string())),
            );
            self.expect_success(&format!("the patch example of {record}"), &patched);
        }
        if self.has_operation("patch", collection)
            && let Ok(mut example) = self.request_example("patch", collection)
        {
            let id: u64 = record
                .rsplit('/')
                .next()
                .and_then(|id| id.parse().ok())
                .unwrap_or(1);
            example[0]["id"] = json!(id);
            let changed = self.send(
                "patch",
                collection,
                &[],
                Some(("application/json", example.to_string())),
            );
            self.expect_success(
                &format!("the bulk change example of {collection}"),
                &changed,
            );
        }
    }

    /// Lists no example creates (built-in roles, countries, the audit trail): a page, the
    /// count, and the first row by id.
    fn read_what_nobody_creates(&mut self, created: &[(String, String)]) {
        let lists: Vec<String> = self
            .operations()
            .into_iter()
            .filter(|op| op.method == "get" && self.has_operation("head", &op.path))
            .filter(|op| op.path.starts_with("/v1/") && !op.path.contains('{'))
            .filter(|op| self.is_list(&op.path))
            .filter(|op| !created.iter().any(|(collection, _)| *collection == op.path))
            .map(|op| op.path)
            .collect();
        for collection in lists {
            let listed = self.send("get", &format!("{collection}?page=1&pageSize=5"), &[], None);
            self.expect_success(&format!("GET {collection}"), &listed);
            let counted = self.send("head", &collection, &[], None);
            self.expect_status(&format!("HEAD {collection}"), &counted, &[200, 404]);
            if !self.is_resource(&collection) {
                continue;
            }
            let rows: Vec<Value> = serde_json::from_str(&listed.body).unwrap_or_default();
            let Some(id) = rows.first().and_then(|row| row["id"].as_u64()) else {
                self.report
                    .failures
                    .push(format!("{collection} has no row to read"));
                continue;
            };
            let record = format!("{collection}/{id}");
            let got = self.send("get", &record, &[], None);
            self.expect_success(&format!("GET {record}"), &got);
            let checked = self.send("head", &record, &[], None);
            self.expect_success(&format!("HEAD {record}"), &checked);
        }
    }

    /// The operations that are not a declared resource's: rating, the summary, operations.
    fn everything_else(&mut self) {
        if let Ok(example) = self.request_example("post", "/v1/rating/lookups") {
            let rated = self.send(
                "post",
                "/v1/rating/lookups",
                &[],
                Some(("application/json", example.to_string())),
            );
            self.expect_success("the rating lookup example", &rated);
        }
        let summary = "/v1/reference-data-summary/{referenceDataSummaryType}/{id}";
        let kinds: Vec<String> = self.document["paths"][summary]["get"]["parameters"][0]["schema"]
            ["enum"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(|kind| kind.as_str().map(str::to_owned))
            .collect();
        for kind in kinds {
            let path = format!("/v1/reference-data-summary/{kind}/1?page=1&pageSize=10");
            let response = self.send("get", &path, &[], None);
            self.expect_status(&path, &response, &[200, 404]);
            let checked = self.send("head", &path, &[], None);
            self.expect_status(&format!("HEAD {path}"), &checked, &[200, 404]);
        }
        for path in [
            "/health/live",
            "/health/ready",
            "/metrics",
            "/v1/openapi.json",
            "/",
        ] {
            let response = self.send("get", path, &[], None);
            self.expect_status(path, &response, &[200, 307]);
            let checked = self.send("head", path, &[], None);
            self.expect_status(&format!("HEAD {path}"), &checked, &[200, 307]);
        }
    }

    fn check_every_operation_reached(&mut self) {
        for op in self.operations() {
            if !self
                .report
                .reached
                .contains(&(op.method.clone(), op.path.clone()))
            {
                self.report
                    .failures
                    .push(format!("{} {} was never reached", op.method, op.path));
            }
        }
    }
}

/// A create example that may be a bulk one: its single form, for a replace.
fn single(example: Value) -> Value {
    match example {
        Value::Array(mut items) if !items.is_empty() => items.swap_remove(0),
        other => other,
    }
}

fn truncate(text: &str) -> String {
    text.chars().take(300).collect()
}
