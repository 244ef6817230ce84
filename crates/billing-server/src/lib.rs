//! The `billing` binary's library: settings, start-up and the server loop. `main` stays thin;
//! integration tests start the same server on port 0.

pub mod batch;
pub mod bootstrap;
pub mod settings;

use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use actix_web::{HttpServer, web};
use billing_auth::throttle::ThrottlePolicy;
use billing_auth::{AuthConfig, AuthService};
use billing_http::{AppState, HttpLimits};
use billing_persistence::{Database, DatabaseConfig, PersistenceError};

pub use settings::{Cli, Command, LogFormat, Settings};

#[derive(Debug, thiserror::Error)]
pub enum ServerError {
    #[error("configuration: {0}")]
    Config(String),
    #[error(transparent)]
    Storage(#[from] PersistenceError),
    #[error("server: {0}")]
    Io(#[from] std::io::Error),
    #[error("{0}")]
    Batch(String),
    /// A user the command line or first start would create breaks the API's rules.
    #[error("invalid user: {0}")]
    InvalidUser(String),
    #[error("cannot record the audit event: {0}")]
    Audit(String),
}

pub fn open_database(settings: &Settings) -> Result<Database, ServerError> {
    Ok(Database::open(&DatabaseConfig {
        url: settings.database_url.clone(),
        data_dir: settings.data_dir.clone(),
        pool_size: settings.db_pool_size,
        connection_timeout: Duration::from_secs(5),
    })?)
}

fn cores() -> usize {
    std::thread::available_parallelism().map_or(2, usize::from)
}

/// Everything the handlers share, built from settings: database (migrated), first
/// administrator, signing key, auth service, OpenAPI document.
pub fn build_state(settings: &Settings) -> Result<web::Data<AppState>, ServerError> {
    let database = open_database(settings)?;
    bootstrap::ensure_first_administrator(&database, settings.admin_password.as_deref())?;
    let signing_key = bootstrap::signing_key(settings.jwt_secret.as_deref(), &settings.data_dir)?;
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
                per_address: settings.login_max_failures.max(1) * 4,
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
        },
        openapi: billing_http::openapi_document(),
        metrics: billing_http::metrics::Metrics::default(),
        rating,
    }))
}

/// Binds and returns the server (not yet running) and the address it listens on; starts the
/// rating index's follower on the current actix system (call it inside one).
pub fn bind(
    settings: &Settings,
    state: web::Data<AppState>,
) -> Result<(actix_web::dev::Server, SocketAddr), ServerError> {
    let workers = if settings.workers == 0 {
        cores()
    } else {
        settings.workers
    };
    // Changes made through other instances (and feed imports) reach this one's index.
    billing_http::live_rating::follow(state.clone());
    let server = HttpServer::new(move || billing_http::application(state.clone()))
        .workers(workers)
        // Every blocking task holds a database connection: more threads than connections only
        // wait in the pool, and wake each other, instead of waiting in the queue.
        .worker_max_blocking_threads(settings.db_pool_size.max(1) as usize)
        .shutdown_timeout(30)
        .bind(settings.bind)?;
    let address = server
        .addrs()
        .first()
        .copied()
        .ok_or_else(|| ServerError::Config("bound to no address".into()))?;
    Ok((server.run(), address))
}

/// Installs the log subscriber: text or JSON lines on stderr.
pub fn init_logging(settings: &Settings) {
    let filter = tracing_subscriber::EnvFilter::try_new(&settings.log)
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("info"));
    let builder = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(std::io::stderr);
    let _ = match settings.log_format {
        LogFormat::Json => builder.json().flatten_event(true).try_init(),
        LogFormat::Text => builder.try_init(),
    };
}
