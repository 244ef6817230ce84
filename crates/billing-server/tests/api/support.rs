//! The test harness: each test starts the real server on port 0 against its own fresh
//! database (a SQLite file in a temporary directory, or a new PostgreSQL database when
//! TEST_DATABASE_URL is set) and talks to it over HTTP.

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::Once;

use actix_web::dev::ServerHandle;
use billing_server::{
    DatabaseSettings, Listeners, LogFormat, LogSettings, Settings, build_state, serve_on,
};
use serde_json::{Value, json};

pub const ADMIN_PASSWORD: &str = "admin-password-for-tests";
pub const JWT_SECRET: &str = "test-signing-key-test-signing-key-0123456789";

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Backend {
    Sqlite,
    Postgres,
}

pub struct TestApp {
    pub base: String,
    /// Where `/metrics` is served apart from the API (`BILLING_METRICS_BIND`), when set.
    pub metrics_base: Option<String>,
    pub admin_token: String,
    handle: Option<ServerHandle>,
    thread: Option<std::thread::JoinHandle<()>>,
    data_dir: PathBuf,
    postgres: Option<(String, String)>,
    agent: ureq::Agent,
}

/// An HTTP answer, read completely.
#[derive(Debug)]
pub struct Reply {
    pub status: u16,
    pub headers: BTreeMap<String, String>,
    pub text: String,
}

impl Reply {
    pub fn json(&self) -> Value {
        serde_json::from_str(&self.text).unwrap_or_else(|e| panic!("not JSON ({e}): {}", self.text))
    }

    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .get(&name.to_ascii_lowercase())
            .map(String::as_str)
    }

    /// The `field` names of a problem+json body's `errors`.
    pub fn error_fields(&self) -> Vec<String> {
        self.json()["errors"]
            .as_array()
            .map_or_else(Vec::new, |errors| {
                errors
                    .iter()
                    .map(|e| e["field"].as_str().unwrap_or_default().to_owned())
                    .collect()
            })
    }

    /// Asserts the status and that the body is a problem document with that status.
    #[track_caller]
    pub fn assert_problem(&self, status: u16) -> Value {
        assert_eq!(self.status, status, "body: {}", self.text);
        assert_eq!(
            self.header("content-type"),
            Some("application/problem+json"),
            "body: {}",
            self.text
        );
        let body = self.json();
        assert_eq!(body["status"], status);
        assert!(body["requestId"].is_string());
        body
    }
}

static SKIP_NOTICE: Once = Once::new();

/// The settings of a test server on `database_url` (`None`: SQLite in `data_dir`).
pub fn settings_for(data_dir: PathBuf, database_url: Option<String>) -> Settings {
    Settings {
        database: DatabaseSettings {
            config: None,
            data_dir,
            database_url,
            db_pool_size: 4,
        },
        bind: "127.0.0.1:0".parse().expect("address"),
        metrics_bind: None,
        jwt_secret: Some(JWT_SECRET.to_owned()),
        jwt_issuer: "billing".into(),
        jwt_audience: "billing-api".into(),
        access_token_minutes: 15,
        refresh_token_days: 30,
        brand: Some("acme".into()),
        admin_password: Some(ADMIN_PASSWORD.into()),
        login_max_failures: 5,
        login_window_seconds: 900,
        trusted_proxies: None,
        cors_origins: None,
        body_limit_bytes: 64 * 1024,
        body_timeout_seconds: 30,
        list_memory_bytes: billing_http::machinery::list_budget::DEFAULT_BYTES,
        body_memory_bytes: billing_http::machinery::body_budget::DEFAULT_BYTES,
        workers: 2,
        max_connections: billing_http::transport::DEFAULT_MAX_CONNECTIONS,
        rating_word_limit: None,
        logging: LogSettings {
            log_format: LogFormat::Text,
            log: "warn".into(),
        },
    }
}

impl TestApp {
    /// The app on SQLite, or on PostgreSQL when TEST_DATABASE_URL is set (`None` and a notice
    /// otherwise: the PostgreSQL half is skipped, not failed).
    pub fn spawn(backend: Backend) -> Option<TestApp> {
        Self::spawn_with(backend, |_| {})
    }

    pub fn spawn_with(backend: Backend, adjust: impl FnOnce(&mut Settings)) -> Option<TestApp> {
        let unique = format!("billing_test_{}", uuid::Uuid::new_v4().simple());
        let data_dir = std::env::temp_dir().join(&unique);
        let (database_url, postgres) = match backend {
            Backend::Sqlite => (None, None),
            Backend::Postgres => {
                let Ok(server_url) = std::env::var("TEST_DATABASE_URL") else {
                    SKIP_NOTICE.call_once(|| {
                        // Written to the stderr handle itself: the test harness captures
                        // `eprintln!` of passing tests, and this line must be seen.
                        use std::io::Write;
                        let _ = writeln!(
                            std::io::stderr(),
                            "skipped: PostgreSQL tests (set TEST_DATABASE_URL to run them)"
                        );
                    });
                    return None;
                };
                let url =
                    billing_persistence::scratch::create_postgres_database(&server_url, &unique)
                        .expect("create a scratch PostgreSQL database");
                (Some(url), Some((server_url, unique.clone())))
            }
        };
        let mut settings = settings_for(data_dir.clone(), database_url);
        adjust(&mut settings);
        Some(Self::start(settings, data_dir, postgres))
    }

    /// Two instances started at the same moment on one fresh database (a new SQLite file, or a
    /// new PostgreSQL database): both migrate and look for the first administrator at once.
    /// The first owns the database (drops it when dropped).
    pub fn spawn_two_at_once(backend: Backend) -> Option<(TestApp, TestApp)> {
        let unique = format!("billing_test_{}", uuid::Uuid::new_v4().simple());
        let data_dir = std::env::temp_dir().join(&unique);
        let (database_url, postgres) = match backend {
            Backend::Sqlite => (
                data_dir.join("billing.db").to_string_lossy().into_owned(),
                None,
            ),
            Backend::Postgres => {
                let server_url = std::env::var("TEST_DATABASE_URL").ok()?;
                let url =
                    billing_persistence::scratch::create_postgres_database(&server_url, &unique)
                        .expect("create a scratch PostgreSQL database");
                (url, Some((server_url, unique.clone())))
            }
        };
        let second_dir =
            std::env::temp_dir().join(format!("billing_test_{}", uuid::Uuid::new_v4().simple()));
        let barrier = std::sync::Barrier::new(2);
        let (first, second) = std::thread::scope(|scope| {
            let start = |data_dir: PathBuf, postgres: Option<(String, String)>| {
                let settings = settings_for(data_dir.clone(), Some(database_url.clone()));
                let barrier = &barrier;
                scope.spawn(move || {
                    barrier.wait();
                    Self::start(settings, data_dir, postgres)
                })
            };
            let first = start(data_dir, postgres);
            let second = start(second_dir, None);
            (first.join(), second.join())
        });
        Some((
            first.expect("the first instance started"),
            second.expect("the second instance started"),
        ))
    }

    /// The `DATABASE_URL` of this app's database (a SQLite file path or a PostgreSQL URL), for
    /// the command line.
    pub fn database_url(&self) -> String {
        match &self.postgres {
            Some((server_url, name)) => {
                billing_persistence::scratch::with_database_name(server_url, name)
            }
            None => self
                .data_dir
                .join("billing.db")
                .to_string_lossy()
                .into_owned(),
        }
    }

    /// Another instance on this app's database (as a second server behind a load balancer):
    /// its own data directory, the same SQLite file or PostgreSQL database, which it leaves
    /// in place when dropped.
    pub fn second_instance(&self) -> TestApp {
        let database_url = Some(match &self.postgres {
            Some((server_url, name)) => {
                billing_persistence::scratch::with_database_name(server_url, name)
            }
            None => self
                .data_dir
                .join("billing.db")
                .to_string_lossy()
                .into_owned(),
        });
        let data_dir =
            std::env::temp_dir().join(format!("billing_test_{}", uuid::Uuid::new_v4().simple()));
        Self::start(settings_for(data_dir.clone(), database_url), data_dir, None)
    }

    fn start(settings: Settings, data_dir: PathBuf, postgres: Option<(String, String)>) -> TestApp {
        let listeners = Listeners::bind(&settings).expect("listen");
        let state = build_state(&settings).expect("build the application state");
        let (sender, receiver) = std::sync::mpsc::channel();
        let thread = std::thread::spawn(move || {
            actix_web::rt::System::new().block_on(async move {
                let serving = serve_on(&settings, listeners, state).expect("serve");
                sender
                    .send((serving.handle(), serving.address, serving.metrics_address))
                    .expect("report the address");
                serving.run().await.expect("server ran");
            });
        });
        let (handle, address, metrics_address) = receiver.recv().expect("server started");
        let agent = ureq::AgentBuilder::new().build();
        let mut app = TestApp {
            base: format!("http://{address}"),
            metrics_base: metrics_address.map(|address| format!("http://{address}")),
            admin_token: String::new(),
            handle: Some(handle),
            thread: Some(thread),
            data_dir,
            postgres,
            agent,
        };
        app.admin_token = app.login("admin", ADMIN_PASSWORD);
        app
    }

    /// Sends a request; `body` is (content type, text).
    pub fn send(
        &self,
        method: &str,
        path: &str,
        token: Option<&str>,
        headers: &[(&str, &str)],
        body: Option<(&str, String)>,
    ) -> Reply {
        // A full URL goes where it says (the metrics address); a path, to the API.
        let url = if path.starts_with("http://") {
            path.to_owned()
        } else {
            format!("{}{}", self.base, path)
        };
        let mut request = self.agent.request(method, &url);
        if let Some(token) = token {
            request = request.set("Authorization", &format!("Bearer {token}"));
        }
        for (name, value) in headers {
            request = request.set(name, value);
        }
        let result = match body {
            Some((content_type, text)) => {
                request.set("Content-Type", content_type).send_string(&text)
            }
            None => request.call(),
        };
        let response = match result {
            Ok(response) => response,
            Err(ureq::Error::Status(_, response)) => response,
            Err(error) => panic!("{method} {path}: {error}"),
        };
        let status = response.status();
        let headers = response
            .headers_names()
            .into_iter()
            .filter_map(|name| {
                response
                    .header(&name)
                    .map(|value| (name.to_ascii_lowercase(), value.to_owned()))
            })
            .collect();
        let text = response.into_string().unwrap_or_default();
        Reply {
            status,
            headers,
            text,
        }
    }

    pub fn get(&self, path: &str) -> Reply {
        self.send("GET", path, Some(&self.admin_token), &[], None)
    }

    pub fn get_as(&self, token: &str, path: &str) -> Reply {
        self.send("GET", path, Some(token), &[], None)
    }

    pub fn head(&self, path: &str) -> Reply {
        self.send("HEAD", path, Some(&self.admin_token), &[], None)
    }

    pub fn post(&self, path: &str, body: Value) -> Reply {
        self.post_as(&self.admin_token, path, body)
    }

    pub fn post_as(&self, token: &str, path: &str, body: Value) -> Reply {
        self.send(
            "POST",
            path,
            Some(token),
            &[],
            Some(("application/json", body.to_string())),
        )
    }

    /// `method` with a JSON body (if any), as the user of `token`.
    pub fn json_as(&self, token: &str, method: &str, path: &str, body: Option<Value>) -> Reply {
        self.send(
            method,
            path,
            Some(token),
            &[],
            body.map(|body| ("application/json", body.to_string())),
        )
    }

    pub fn put(&self, path: &str, body: Value) -> Reply {
        self.send(
            "PUT",
            path,
            Some(&self.admin_token),
            &[],
            Some(("application/json", body.to_string())),
        )
    }

    pub fn patch(&self, path: &str, operations: Value) -> Reply {
        self.patch_as(&self.admin_token, path, operations)
    }

    pub fn patch_as(&self, token: &str, path: &str, operations: Value) -> Reply {
        self.send(
            "PATCH",
            path,
            Some(token),
            &[],
            Some(("application/json-patch+json", operations.to_string())),
        )
    }

    pub fn delete(&self, path: &str) -> Reply {
        self.send("DELETE", path, Some(&self.admin_token), &[], None)
    }

    /// Exchanges the refresh token `token` (a JSON string, as a sign-in answers it).
    pub fn refresh(&self, token: &Value) -> Reply {
        self.send(
            "POST",
            "/v1/authenticate/refresh",
            None,
            &[],
            Some((
                "application/json",
                json!({ "refreshToken": token }).to_string(),
            )),
        )
    }

    /// Signs in and returns the access token.
    #[track_caller]
    pub fn login(&self, username: &str, password: &str) -> String {
        let reply = self.send(
            "POST",
            "/v1/authenticate",
            None,
            &[],
            Some((
                "application/json",
                json!({ "username": username, "password": password }).to_string(),
            )),
        );
        assert_eq!(reply.status, 200, "login of {username}: {}", reply.text);
        reply.json()["token"].as_str().expect("token").to_owned()
    }

    /// Creates a user with `roles` and returns a token for them.
    #[track_caller]
    pub fn user_with_roles(&self, username: &str, roles: &[&str]) -> String {
        let password = "a-long-enough-password";
        let reply = self.post(
            "/v1/users",
            json!({ "username": username, "password": password, "roles": roles }),
        );
        assert_eq!(reply.status, 201, "{}", reply.text);
        self.login(username, password)
    }

    /// A second connection pool on this app's database, as another instance (or an operator's
    /// tool) would have: for changes the running server does not hear about.
    pub fn open_database(&self) -> billing_persistence::Database {
        let url = self.postgres.as_ref().map(|(server_url, name)| {
            billing_persistence::scratch::with_database_name(server_url, name)
        });
        billing_persistence::Database::open(&billing_persistence::DatabaseConfig {
            url,
            data_dir: self.data_dir.clone(),
            pool_size: 1,
            connection_timeout: std::time::Duration::from_secs(10),
        })
        .expect("open the app's database")
    }

    /// Creates a record and returns its JSON.
    #[track_caller]
    pub fn create(&self, path: &str, body: Value) -> Value {
        let reply = self.post(path, body);
        assert_eq!(reply.status, 201, "POST {path}: {}", reply.text);
        reply.json()
    }
}

impl Drop for TestApp {
    fn drop(&mut self) {
        if let Some(handle) = self.handle.take() {
            actix_web::rt::System::new().block_on(handle.stop(false));
        }
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
        let _ = std::fs::remove_dir_all(&self.data_dir);
        if let Some((server_url, name)) = &self.postgres {
            let _ = billing_persistence::scratch::drop_postgres_database(server_url, name);
        }
    }
}

/// A JSON value insta can snapshot. The service parses JSON with arbitrary precision (exact
/// decimals), and such numbers serialize specially outside serde_json; this copy holds plain
/// integers and floats instead.
#[derive(Debug, serde::Serialize)]
#[serde(untagged)]
pub enum Plain {
    Null,
    Bool(bool),
    Integer(i64),
    Number(f64),
    Text(String),
    List(Vec<Plain>),
    Object(Members),
}

/// An object's members, in their order.
#[derive(Debug)]
pub struct Members(Vec<(String, Plain)>);

impl serde::Serialize for Members {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeMap;
        let mut map = serializer.serialize_map(Some(self.0.len()))?;
        for (key, value) in &self.0 {
            map.serialize_entry(key, value)?;
        }
        map.end()
    }
}

/// See [`Plain`].
pub fn plain(value: &Value) -> Plain {
    match value {
        Value::Null => Plain::Null,
        Value::Bool(b) => Plain::Bool(*b),
        Value::Number(n) => match n.as_i64() {
            Some(i) => Plain::Integer(i),
            None => Plain::Number(n.as_f64().unwrap_or(f64::NAN)),
        },
        Value::String(text) => Plain::Text(text.clone()),
        Value::Array(items) => Plain::List(items.iter().map(plain).collect()),
        Value::Object(map) => Plain::Object(Members(
            map.iter().map(|(k, v)| (k.clone(), plain(v))).collect(),
        )),
    }
}

/// Declares each test twice: on SQLite, and on PostgreSQL when TEST_DATABASE_URL is set.
/// `fn name(app, settings => expression)` changes the server's [`Settings`] first.
#[macro_export]
macro_rules! api_test {
    ($(fn $name:ident($app:ident $(, $settings:ident => $adjust:expr)?) $body:block)*) => {
        $(
            mod $name {
                #[allow(unused_imports)]
                use super::*;

                #[allow(unused_variables)]
                fn adjust(settings: &mut billing_server::Settings) {
                    $(let $settings = settings; $adjust;)?
                }

                #[test]
                fn sqlite() {
                    let $app = $crate::support::TestApp::spawn_with($crate::support::Backend::Sqlite, adjust).expect("app");
                    $body
                }

                #[test]
                fn postgres() {
                    let Some($app) = $crate::support::TestApp::spawn_with($crate::support::Backend::Postgres, adjust) else { return };
                    $body
                }
            }
        )*
    };
}

/// A minimal reference data chain: a currency, a locale, one source per siMaintained value,
/// a category and a charge group.
pub struct Chain {
    pub locale: i64,
    pub open_source: i64,
    pub operator_source: i64,
    pub category: i64,
    pub charge_group: i64,
}

pub fn reference_chain(app: &TestApp) -> Chain {
    let id = |value: &Value| value["id"].as_i64().expect("id");
    let currency = app.create("/v1/currencies", currency_body("GBP"));
    let locale = id(&app.create(
        "/v1/locales",
        json!({ "country": { "code": "GB" }, "currency": { "id": currency["id"] } }),
    ));
    let source = |name: &str, si: bool| {
        id(&app.create(
            "/v1/reference-data-sources",
            json!({ "name": name, "locale": { "id": locale }, "siMaintained": si }),
        ))
    };
    let open_source = source("Internal", false);
    let operator_source = source("Operator feed", true);
    let category = id(&app.create(
        "/v1/charge-group-categories",
        json!({ "name": "Calls", "chargingUnitType": "DURATION", "startDate": "2026-01-01" }),
    ));
    let charge_group = id(&app.create(
        "/v1/charge-groups",
        json!({ "name": "UK Mobile", "chargeGroupCategoryId": category, "startDate": "2026-01-01" }),
    ));
    Chain {
        locale,
        open_source,
        operator_source,
        category,
        charge_group,
    }
}

pub fn currency_body(code: &str) -> Value {
    json!({
        "code": code, "symbol": "£", "majorCurrencyName": "Pound", "minorCurrencyName": "Penny",
        "majorCurrencyFormat": "£#,##0.00", "minorCurrencyFormat": "#p", "salesTaxName": "VAT"
    })
}

/// Runs `check` with the URL and the name of a scratch PostgreSQL database of
/// `TEST_DATABASE_URL` named `<prefix>_<uuid>`, dropped afterwards whether `check` passes or
/// panics; `None`, nothing run, without `TEST_DATABASE_URL`.
pub fn on_scratch_postgres<T>(prefix: &str, check: impl FnOnce(&str, &str) -> T) -> Option<T> {
    let server = std::env::var("TEST_DATABASE_URL").ok()?;
    let name = format!("{prefix}_{}", uuid::Uuid::new_v4().simple());
    let url =
        billing_persistence::scratch::create_postgres_database(&server, &name).expect("scratch");
    let outcome = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| check(&url, &name)));
    let _ = billing_persistence::scratch::drop_postgres_database(&server, &name);
    Some(outcome.unwrap_or_else(|panic| std::panic::resume_unwind(panic)))
}
