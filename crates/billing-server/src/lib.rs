//! The `billing` binary's library: settings, start-up and the server loop. `main` stays thin;
//! integration tests start the same server on port 0. A start binds its addresses first
//! ([`Listeners`]), then opens the database and makes the first administrator and signing key
//! ([`build_state`]), then serves ([`serve_on`]).

pub mod batch;
pub mod bootstrap;
pub mod memory;
pub mod settings;

use std::net::{SocketAddr, TcpListener};
use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use actix_web::{HttpServer, web};
use billing_auth::throttle::ThrottlePolicy;
use billing_auth::{AuthConfig, AuthService};
use billing_http::machinery::proxies::TrustedProxies;
use billing_http::{AppState, HttpLimits, MetricsOn};
use billing_persistence::{Database, DatabaseConfig, PersistenceError};

pub use settings::{Cli, Command, DatabaseSettings, LogFormat, LogSettings, Settings};

#[derive(Debug, thiserror::Error)]
pub enum ServerError {
    #[error("configuration: {0}")]
    Config(String),
    #[error(transparent)]
    Storage(#[from] PersistenceError),
    #[error("server: {0}")]
    Io(#[from] std::io::Error),
    /// An address to listen on cannot be had (in use, not this machine's, no permission).
    #[error("cannot listen on {address} ({what}): {source}")]
    Listen {
        address: SocketAddr,
        what: &'static str,
        source: std::io::Error,
    },
    #[error("{0}")]
    Batch(String),
    /// A user the command line or first start would create breaks the API's rules.
    #[error("invalid user: {0}")]
    InvalidUser(String),
    #[error("cannot record the audit event: {0}")]
    Audit(String),
}

impl billing_persistence::StorageError for ServerError {
    fn storage_fault(&self) -> Option<billing_persistence::StorageFault> {
        match self {
            ServerError::Storage(storage) => storage.fault(),
            _ => None,
        }
    }
}

/// Opens (and migrates) the database, and logs where it is (never a password) and which
/// migrations ran.
pub fn open_database(settings: &DatabaseSettings) -> Result<Database, ServerError> {
    let (database, opened) = open_database_reporting(settings)?;
    log_opened(&opened);
    Ok(database)
}

fn log_opened(opened: &billing_persistence::Opened) {
    tracing::info!(database = %opened.location, "opened the database");
    if opened.applied_migrations.is_empty() {
        tracing::info!("database schema up to date: no migrations to run");
    } else {
        tracing::info!(
            migrations = %opened.applied_migrations.join(", "),
            count = opened.applied_migrations.len(),
            "applied migrations"
        );
    }
}

/// [`open_database`] for a batch job that reads what is there (`rate --database`, `export`):
/// a SQLite file that does not exist is an error naming it, not a new empty database that
/// the job would read as "no reference data" (a mistyped data directory).
pub fn open_existing_database(settings: &DatabaseSettings) -> Result<Database, ServerError> {
    let (backend, location) = database_config(settings).resolve()?;
    if backend == billing_persistence::Backend::Sqlite && !Path::new(&location).exists() {
        return Err(ServerError::Batch(format!(
            "there is no database at {location}: this command reads an existing one (check \
             --data-dir or DATABASE_URL; `billing migrate` or a first start creates one)"
        )));
    }
    open_database(settings)
}

/// [`open_database`] without the log lines: what it opened and ran, for the caller to say.
pub fn open_database_reporting(
    settings: &DatabaseSettings,
) -> Result<(Database, billing_persistence::Opened), ServerError> {
    Ok(Database::open_reporting(&database_config(settings))?)
}

/// Claims a SQLite database for this serving instance (a second one is refused; see
/// `billing_persistence::claim_for_serving`); held for as long as the claim lives.
pub fn claim_for_serving(
    settings: &DatabaseSettings,
) -> Result<billing_persistence::ServeClaim, ServerError> {
    Ok(billing_persistence::claim_for_serving(&database_config(
        settings,
    ))?)
}

fn database_config(settings: &DatabaseSettings) -> DatabaseConfig {
    DatabaseConfig {
        url: settings.database_url.clone(),
        data_dir: settings.data_dir.clone(),
        pool_size: settings.db_pool_size,
        connection_timeout: Duration::from_secs(5),
    }
}

/// [`open_database`] for a start: also returns the start-up lock, held (on PostgreSQL) from
/// before the migrations until it is dropped, so that instances starting together migrate and
/// create the first administrator one after the other.
fn open_database_for_start(
    settings: &DatabaseSettings,
) -> Result<(Database, billing_persistence::StartLock), ServerError> {
    let (database, opened, lock) = Database::open_for_start(&database_config(settings))?;
    log_opened(&opened);
    Ok((database, lock))
}

fn cores() -> usize {
    std::thread::available_parallelism().map_or(2, usize::from)
}

/// Everything the handlers share, built from settings: database (migrated), first
/// administrator, signing key, auth service, OpenAPI document. Take the [`Listeners`] first:
/// a start that cannot listen must fail before this creates anything.
pub fn build_state(settings: &Settings) -> Result<web::Data<AppState>, ServerError> {
    let trusted_proxies = TrustedProxies::parse(settings.trusted_proxies.as_deref().unwrap_or(""))
        .map_err(|why| {
            ServerError::Config(format!(
                "BILLING_TRUSTED_PROXIES (--trusted-proxies): {why}"
            ))
        })?;
    let cors =
        billing_http::cors::CorsOrigins::parse(settings.cors_origins.as_deref().unwrap_or(""))
            .map_err(|why| {
                ServerError::Config(format!("BILLING_CORS_ORIGINS (--cors-origins): {why}"))
            })?;
    // Before the database: a start refused for its settings creates nothing (no first
    // administrator whose one-time password is printed by a server that then never runs).
    if let Some(password) = settings.admin_password.as_deref() {
        billing_domain::users::check_password("password", password)
            .map_err(|why| ServerError::Config(format!("BILLING_ADMIN_PASSWORD: {why}")))?;
    }
    let signing_key =
        bootstrap::signing_key(settings.jwt_secret.as_deref(), &settings.database.data_dir)?;
    let (database, start_lock) = open_database_for_start(&settings.database)?;
    bootstrap::ensure_first_administrator(&database, settings.admin_password.as_deref())?;
    // The next instance to start may migrate and look for users now.
    start_lock.release();
    let auth = AuthService::new(
        database.clone(),
        AuthConfig {
            signing_key,
            issuer: settings.jwt_issuer.clone(),
            audience: settings.jwt_audience.clone(),
            access_token_lifetime: Duration::from_secs(settings.access_token_minutes * 60),
            refresh_token_lifetime: Duration::from_secs(settings.refresh_token_days * 86_400),
            brand: settings.brand.clone(),
            throttle: ThrottlePolicy {
                window: Duration::from_secs(settings.login_window_seconds),
                per_username: settings.login_max_failures.max(1),
                per_address: settings.login_max_failures.max(1).saturating_mul(4),
            },
            hashing_threads: cores(),
            hashing_queue: 64,
        },
    );
    let rating = billing_http::live_rating::LiveRating::load(&database, settings.rating_word_limit)
        .map_err(|e| ServerError::Config(format!("rating index: {e}")))?;
    Ok(web::Data::new(AppState {
        database,
        auth: Arc::new(auth),
        limits: HttpLimits {
            body_bytes: settings.body_limit_bytes,
            body_timeout: std::time::Duration::from_secs(settings.body_timeout_seconds.max(1)),
        },
        openapi: billing_http::routes::documentation::DocumentAnswer::new(
            &billing_http::openapi_document(),
        ),
        metrics: billing_http::metrics::Metrics::default(),
        rating,
        trusted_proxies,
        cors,
        list_budget: billing_http::machinery::list_budget::ListBudget::new(
            settings.list_memory_bytes,
        ),
        body_budget: billing_http::machinery::body_budget::BodyBudget::new(
            settings.body_memory_bytes,
        ),
    }))
}

/// The sockets the server will serve on, bound before anything else starts, so that an
/// address in use stops the start with its name before any file or user is created.
#[derive(Debug)]
pub struct Listeners {
    api: TcpListener,
    metrics: Option<TcpListener>,
}

impl Listeners {
    /// Binds `BILLING_BIND` and, when set, `BILLING_METRICS_BIND`.
    pub fn bind(settings: &Settings) -> Result<Self, ServerError> {
        let listen = |address: SocketAddr, what: &'static str| {
            TcpListener::bind(address).map_err(|source| ServerError::Listen {
                address,
                what,
                source,
            })
        };
        Ok(Self {
            api: listen(settings.bind, "BILLING_BIND")?,
            metrics: settings
                .metrics_bind
                .map(|address| listen(address, "BILLING_METRICS_BIND"))
                .transpose()?,
        })
    }

    /// The address the API listens on (the port chosen when the setting's port is 0).
    pub fn api_address(&self) -> std::io::Result<SocketAddr> {
        self.api.local_addr()
    }

    /// The address `/metrics` is served on apart from the API, if one was set.
    pub fn metrics_address(&self) -> std::io::Result<Option<SocketAddr>> {
        self.metrics
            .as_ref()
            .map(TcpListener::local_addr)
            .transpose()
    }
}

/// The server, bound and not yet running: the API, and `/metrics` on its own address when
/// `BILLING_METRICS_BIND` is set.
pub struct Serving {
    api: actix_web::dev::Server,
    metrics: Option<actix_web::dev::Server>,
    pub address: SocketAddr,
    pub metrics_address: Option<SocketAddr>,
}

impl Serving {
    /// Stops the whole server (the metrics address follows the API).
    pub fn handle(&self) -> actix_web::dev::ServerHandle {
        self.api.handle()
    }

    /// Serves until the API stops (SIGTERM, Ctrl-C or [`Serving::handle`]); the metrics
    /// address stops after it, so the last scrape sees the end of the drain.
    pub async fn run(self) -> std::io::Result<()> {
        let Some(metrics) = self.metrics else {
            return self.api.await;
        };
        let metrics_handle = metrics.handle();
        let metrics_task = actix_web::rt::spawn(metrics);
        let outcome = self.api.await;
        metrics_handle.stop(true).await;
        let _ = metrics_task.await;
        outcome
    }
}

/// Serves on `listeners`; starts the rating index's follower on the current actix system
/// (call it inside one).
pub fn serve_on(
    settings: &Settings,
    listeners: Listeners,
    state: web::Data<AppState>,
) -> Result<Serving, ServerError> {
    let workers = if settings.workers == 0 {
        cores()
    } else {
        settings.workers
    };
    let address = listeners.api.local_addr()?;
    let metrics_address = listeners.metrics_address()?;
    // Changes made through other instances (and feed imports) reach this one's index.
    billing_http::live_rating::follow(state.clone());
    billing_http::row_counts::follow(state.clone());
    let metrics_on = if listeners.metrics.is_some() {
        MetricsOn::OwnAddress
    } else {
        MetricsOn::Api
    };
    let api_state = state.clone();
    let api = billing_http::transport::serve_api(
        listeners.api,
        billing_http::transport::ServeOptions {
            workers,
            // Every blocking task holds a database connection: more threads than connections
            // only wait in the pool, and wake each other, instead of waiting in the queue.
            blocking_threads: settings.database.db_pool_size.max(1) as usize,
            shutdown_timeout_seconds: 30,
            max_connections: settings.max_connections,
        },
        api_state,
        metrics_on,
    )?;
    let metrics = match listeners.metrics {
        Some(listener) => Some(
            HttpServer::new(move || billing_http::metrics_application(state.clone()))
                .workers(1)
                .worker_max_blocking_threads(1)
                // Stopped by `Serving::run` once the API has stopped, not by the signals.
                .disable_signals()
                .shutdown_timeout(5)
                .listen(listener)?
                .run(),
        ),
        None => None,
    };
    Ok(Serving {
        api,
        metrics,
        address,
        metrics_address,
    })
}

/// Installs the log subscriber: text or JSON lines on stderr.
pub fn init_logging(settings: &LogSettings) {
    // actix's HTTP/1 parser logs every malformed request at ERROR, though it is a client's
    // doing (answered 400): any client could fill the log with them. They are left out unless
    // the filter names actix_http itself (docs/operations.md "The request log").
    let quiet_parser = ",actix_http::h1::dispatcher=off";
    let mut directives = settings.log.clone();
    if !directives.contains("actix_http") {
        directives.push_str(quiet_parser);
    }
    let filter = tracing_subscriber::EnvFilter::try_new(&directives)
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new(format!("info{quiet_parser}")));
    // Colours only for a person at a terminal: never escape codes in files and pipes.
    let builder = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_ansi(std::io::IsTerminal::is_terminal(&std::io::stderr()))
        .with_writer(std::io::stderr);
    let _ = match settings.log_format {
        LogFormat::Json => builder.json().flatten_event(true).try_init(),
        LogFormat::Text => builder.try_init(),
    };
}
