//! Typed configuration, loaded once in `main` and passed down. Each setting comes from, in
//! order: the command line, the environment, the optional config file (`KEY=VALUE` lines
//! with the environment variable names), the built-in default. Each command takes only the
//! options it uses (`billing migrate --help`: the database's and the log's); `billing` alone
//! serves, with serve's options, and `billing --help` lists them all.

use std::net::SocketAddr;
use std::path::PathBuf;

use clap::{Args, Parser, Subcommand, ValueEnum};

mod config_file;
pub use config_file::{CONFIG_FILE_MAX_BYTES, load, parse_config_file};

#[derive(Debug, Clone, Parser)]
#[command(
    name = "billing",
    version,
    about = "Billing platform core service: reference data, customer sites, authentication.",
    long_about = "Billing platform core service: reference data, customer sites, authentication.\n\n\
        With no command, serves the API (as `billing serve`) with the options below. Each \
        command's --help lists the options it uses.",
    args_conflicts_with_subcommands = true
)]
pub struct Cli {
    /// Serve's settings, for `billing` with no command.
    #[command(flatten)]
    pub settings: Settings,
    #[command(subcommand)]
    pub command: Option<Command>,
}

impl Cli {
    /// The command to run: `serve` with the top-level settings when none was named.
    pub fn into_command(self) -> Command {
        self.command
            .unwrap_or_else(|| Command::Serve(Box::new(self.settings)))
    }

    /// The config file the chosen command names (`--config`/`BILLING_CONFIG`), if any.
    fn config_file(&self) -> Option<&PathBuf> {
        let database = match &self.command {
            None => Some(&self.settings.database),
            Some(Command::Serve(settings)) => Some(&settings.database),
            Some(Command::Migrate { database, .. })
            | Some(Command::CreateUser { database, .. })
            | Some(Command::Rate { database, .. })
            | Some(Command::Import {
                what: Import::ReferenceData { database, .. },
            })
            | Some(Command::Export {
                what: Export::ReferenceData { database, .. },
            }) => Some(database),
            Some(Command::Openapi | Command::Generate { .. }) => None,
        };
        database.and_then(|database| database.config.as_ref())
    }
}

#[derive(Debug, Clone, Subcommand)]
pub enum Command {
    /// Serve the API (the default when no command is given).
    Serve(Box<Settings>),
    /// Create or update the database schema, say which migrations ran, then exit.
    Migrate {
        #[command(flatten)]
        database: DatabaseSettings,
        #[command(flatten)]
        logging: LogSettings,
    },
    /// Print the OpenAPI 3.1 document of the API and exit.
    Openapi,
    /// Rate a usage CSV against a tariff directory, or the database's reference data
    /// (docs/rating.md), streaming. Build with --release for files of any size: the debug
    /// build is many times slower.
    Rate {
        /// Directory of tariff CSV files (no database needed).
        #[arg(
            long,
            required_unless_present = "use_database",
            conflicts_with = "use_database"
        )]
        tariff: Option<PathBuf>,
        /// Rate against the reference data in the database (the database options below),
        /// loaded once.
        #[arg(long = "database", id = "use_database")]
        use_database: bool,
        /// Usage CSV; `-` or absent for standard input.
        #[arg(long)]
        input: Option<PathBuf>,
        /// Rated CSV; `-` or absent for standard output.
        #[arg(long)]
        output: Option<PathBuf>,
        /// Rate with the plain prefix-map reference instead of the engine (slower): its output
        /// should be identical, which checks the engine on a whole file.
        #[arg(long)]
        reference: bool,
        #[command(flatten)]
        database: DatabaseSettings,
        #[command(flatten)]
        logging: LogSettings,
    },
    /// Load reference data into the database (the operator's feed), all or nothing.
    Import {
        #[command(subcommand)]
        what: Import,
    },
    /// Write the database's reference data to files that `import` (and `rate --tariff`) read.
    Export {
        #[command(subcommand)]
        what: Export,
    },
    /// Write a deterministic synthetic tariff directory (and optionally a usage CSV).
    Generate {
        /// The tariff directory to write (created if missing).
        #[arg(long)]
        tariff: PathBuf,
        /// How many dialstrings, spread over the sources (at most 20,000,000: they are held in
        /// memory while written).
        #[arg(long, default_value_t = 100_000, value_parser = count_from_0_to::<20_000_000>)]
        dialstrings: usize,
        /// How many reference data sources: 1 to 1,000 (dialstrings need a source to belong to).
        #[arg(long, default_value_t = 4, value_parser = clap::value_parser!(i64).range(1..=1000))]
        sources: i64,
        /// A usage CSV to write too, of calls to those dialstrings.
        #[arg(long)]
        usage: Option<PathBuf>,
        /// Rows of the usage CSV (at most 1,000,000,000, some 50 GB).
        #[arg(long, default_value_t = 1_000_000, value_parser = count_from_0_to::<1_000_000_000>)]
        rows: usize,
        /// The random seed: the same seed writes the same files.
        #[arg(long, default_value_t = 7)]
        seed: u64,
    },
    /// Create an API user. The password is read from BILLING_NEW_USER_PASSWORD or, if unset, from stdin.
    CreateUser {
        /// The new user's name (the API's username rules).
        #[arg(long)]
        username: String,
        /// Role codes, comma-separated (ADMINISTRATOR, BILLING_MANAGER, REFERENCE_DATA_MANAGER, CUSTOMER_MANAGER, READ_ONLY).
        #[arg(long, value_delimiter = ',', required = true)]
        roles: Vec<String>,
        /// The user's email address (optional).
        #[arg(long)]
        email: Option<String>,
        #[command(flatten)]
        database: DatabaseSettings,
        #[command(flatten)]
        logging: LogSettings,
    },
}

#[derive(Debug, Clone, Subcommand)]
pub enum Import {
    /// The tariff CSV directory format of docs/rating.md: categories, charge groups, source
    /// charge groups, dialstrings, call classes, ignored call classes and ignored service ids.
    /// An import replaces the data of every source its files name (the only way data of
    /// siMaintained sources changes) and inserts or updates the shared records by id.
    ReferenceData {
        /// The directory of CSV files.
        directory: PathBuf,
        /// The user the audit event names (an active user).
        #[arg(long, default_value = "admin")]
        user: String,
        #[command(flatten)]
        database: DatabaseSettings,
        #[command(flatten)]
        logging: LogSettings,
    },
}

#[derive(Debug, Clone, Subcommand)]
pub enum Export {
    /// The tariff CSV directory format of docs/rating.md, as `import reference-data` reads it.
    ReferenceData {
        /// The directory to write the CSV files to (created if missing).
        directory: PathBuf,
        #[command(flatten)]
        database: DatabaseSettings,
        #[command(flatten)]
        logging: LogSettings,
    },
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum LogFormat {
    Text,
    Json,
}

/// Where the data is: what every command that opens the database takes.
#[derive(Debug, Clone, Args)]
#[command(next_help_heading = "Database")]
pub struct DatabaseSettings {
    /// Optional config file of KEY=VALUE lines using these options' environment variable names.
    #[arg(long, env = "BILLING_CONFIG", help_heading = "Configuration")]
    pub config: Option<PathBuf>,
    /// Directory for the SQLite database and the generated token signing key.
    #[arg(long, env = "BILLING_DATA_DIR", default_value = "data")]
    pub data_dir: PathBuf,
    /// postgres://USER@HOST:PORT/DATABASE for PostgreSQL; unset for SQLite in the data directory
    /// (sqlite://PATH, or a file path starting with / ./ ../ or ending in .db, for another file).
    #[arg(long, env = "DATABASE_URL", hide_env_values = true)]
    pub database_url: Option<String>,
    /// Database connections kept in the pool (default: twice the cores, 4 to 32). Each
    /// worker's blocking pool gets as many threads.
    #[arg(long, env = "BILLING_DB_POOL_SIZE", default_value_t = default_db_pool_size(), value_parser = clap::value_parser!(u32).range(1..=256))]
    pub db_pool_size: u32,
}

/// What the log looks like: every command that logs takes these.
#[derive(Debug, Clone, Args)]
#[command(next_help_heading = "Logging")]
pub struct LogSettings {
    /// Log format.
    #[arg(long, env = "BILLING_LOG_FORMAT", value_enum, default_value = "text")]
    pub log_format: LogFormat,
    /// Log filter: comma-separated levels (trace, debug, info, warn, error, off) and
    /// target=level pairs, e.g. info or info,billing_http=debug.
    #[arg(long, env = "BILLING_LOG", default_value = "info", value_parser = log_filter)]
    pub log: String,
}

impl Default for LogSettings {
    /// For the commands without log options: text at `info`.
    fn default() -> Self {
        Self {
            log_format: LogFormat::Text,
            log: "info".into(),
        }
    }
}

/// Everything `serve` uses: the listeners, tokens, sign-in, limits, the database, logging.
/// (The server's own options come first: a flattened group's heading holds for what follows
/// it.)
#[derive(Debug, Clone, Args)]
#[command(next_help_heading = "Server")]
pub struct Settings {
    /// Address and port to listen on.
    #[arg(long, env = "BILLING_BIND", default_value = "127.0.0.1:8080")]
    pub bind: SocketAddr,
    /// Address and port to serve Prometheus /metrics on, apart from the API; when set, the
    /// API's address does not serve /metrics.
    #[arg(long, env = "BILLING_METRICS_BIND")]
    pub metrics_bind: Option<SocketAddr>,
    /// HMAC key for access tokens (at least 32 characters). Unset: generated on first start into DATA_DIR/jwt-signing-key.
    #[arg(long, env = "BILLING_JWT_SECRET", hide_env_values = true)]
    pub jwt_secret: Option<String>,
    /// `iss` claim of access tokens.
    #[arg(long, env = "BILLING_JWT_ISSUER", default_value = "billing")]
    pub jwt_issuer: String,
    /// `aud` claim of access tokens.
    #[arg(long, env = "BILLING_JWT_AUDIENCE", default_value = "billing-api")]
    pub jwt_audience: String,
    /// Lifetime of access tokens, in minutes.
    #[arg(long, env = "BILLING_ACCESS_TOKEN_MINUTES", default_value_t = 15, value_parser = clap::value_parser!(u64).range(1..=1440))]
    pub access_token_minutes: u64,
    /// Lifetime of refresh tokens, in days.
    #[arg(long, env = "BILLING_REFRESH_TOKEN_DAYS", default_value_t = 30, value_parser = clap::value_parser!(u64).range(1..=365))]
    pub refresh_token_days: u64,
    /// When set, a sign-in that names a brand must name this one.
    #[arg(long, env = "BILLING_BRAND")]
    pub brand: Option<String>,
    /// Password of the `admin` user created on first start; unset: a random one, printed once.
    #[arg(long, env = "BILLING_ADMIN_PASSWORD", hide_env_values = true)]
    pub admin_password: Option<String>,
    /// Failed sign-ins allowed per username within the window before 429.
    #[arg(long, env = "BILLING_LOGIN_MAX_FAILURES", default_value_t = 5, value_parser = count_from_1_to::<1000>)]
    pub login_max_failures: usize,
    /// Reverse proxies and load balancers whose X-Forwarded-For is believed: comma-separated
    /// IP addresses and CIDR ranges (10.0.0.0/8, fd00::/8). A request from one of them is
    /// counted (sign-in throttle) under the rightmost X-Forwarded-For address that is not
    /// itself a trusted proxy. Unset: trust nobody, the client is the socket's peer.
    #[arg(long, env = "BILLING_TRUSTED_PROXIES", value_parser = checked_by(billing_http::machinery::proxies::TrustedProxies::parse))]
    pub trusted_proxies: Option<String>,
    /// Origins whose browser pages may call the API (CORS): comma-separated
    /// scheme://host or scheme://host:port, or * for any. Unset: none (browsers refuse cross-origin calls).
    #[arg(long, env = "BILLING_CORS_ORIGINS", value_parser = checked_by(billing_http::cors::CorsOrigins::parse))]
    pub cors_origins: Option<String>,
    /// The failed sign-in window, in seconds.
    #[arg(long, env = "BILLING_LOGIN_WINDOW_SECONDS", default_value_t = 900, value_parser = clap::value_parser!(u64).range(1..=604_800))]
    pub login_window_seconds: u64,
    /// Largest request body accepted, in bytes (1,024 to 1,073,741,824).
    #[arg(long, env = "BILLING_BODY_LIMIT_BYTES", default_value_t = 1024 * 1024, value_parser = body_limit)]
    pub body_limit_bytes: usize,
    /// The most seconds a request body may take to arrive, from its first byte awaited to its
    /// last (a body trickled slower is refused with 408 and the connection closed).
    #[arg(long, env = "BILLING_BODY_TIMEOUT_SECONDS", default_value_t = 30, value_parser = clap::value_parser!(u64).range(1..=3600))]
    pub body_timeout_seconds: u64,
    /// The most the list pages being built may hold at once, in bytes, each page counted at
    /// its worst case from the declaration; lists past it wait their turn.
    #[arg(long, env = "BILLING_LIST_MEMORY_BYTES", default_value_t = billing_http::machinery::list_budget::DEFAULT_BYTES)]
    pub list_memory_bytes: usize,
    /// The most the request bodies being read and handled may hold at once, in bytes (each
    /// counted at its `Content-Length`, or its route's limit when chunked); bodies past it
    /// wait their turn, within the body timeout (then 503).
    #[arg(long, env = "BILLING_BODY_MEMORY_BYTES", default_value_t = billing_http::machinery::body_budget::DEFAULT_BYTES)]
    pub body_memory_bytes: usize,
    /// HTTP worker threads (0: one per core; at most 512, the HTTP library's limit).
    #[arg(long, env = "BILLING_WORKERS", default_value_t = 0, value_parser = count_from_0_to::<512>)]
    pub workers: usize,
    /// The most client connections the instance holds at once (each may hold some 300 KB of
    /// a body read ahead); one past it waits until another closes.
    #[arg(long, env = "BILLING_MAX_CONNECTIONS", default_value_t = billing_http::transport::DEFAULT_MAX_CONNECTIONS, value_parser = clap::value_parser!(u32).range(1..))]
    pub max_connections: u32,
    /// The most 8-byte words one source's dialstrings may take in the rating index (unset: the
    /// engine's limit, about 134 million, some 25 million dialstrings). A source past it is
    /// left out and its lookups answer 507. For capacity planning and tests.
    #[arg(long, env = "BILLING_RATING_WORD_LIMIT")]
    pub rating_word_limit: Option<usize>,
    #[command(flatten)]
    pub database: DatabaseSettings,
    #[command(flatten)]
    pub logging: LogSettings,
}

/// A log filter of levels and `target=level` pairs. The filter library reads a bare word as
/// a target whose events are all shown, so a misspelt level (`warning`, `inof`) showed nothing
/// at all: a bare word must be a level.
fn log_filter(text: &str) -> Result<String, String> {
    const LEVELS: [&str; 6] = ["trace", "debug", "info", "warn", "error", "off"];
    for directive in text.split(',').map(str::trim).filter(|d| !d.is_empty()) {
        let level = directive
            .rsplit_once('=')
            .map_or(directive, |(_, level)| level);
        if !LEVELS.contains(&level.to_ascii_lowercase().as_str()) {
            return Err(format!(
                "'{directive}': a level ({}) or target=level is expected",
                LEVELS.join(", ")
            ));
        }
    }
    tracing_subscriber::EnvFilter::try_new(text)
        .map(|_| text.to_owned())
        .map_err(|e| e.to_string())
}

/// A value parser keeping the text that `parse` accepts (checked as read, so that a config
/// file's line is named; parsed again where it is used).
fn checked_by<T: 'static>(
    parse: fn(&str) -> Result<T, String>,
) -> impl Fn(&str) -> Result<String, String> + Clone + Send + Sync + 'static {
    move |text| parse(text).map(|_| text.to_owned())
}

/// A request body limit: at least 1 KiB (a site's body is larger), at most 1 GiB.
fn body_limit(text: &str) -> Result<usize, String> {
    match count_from_0_to::<{ 1 << 30 }>(text)? {
        ..1024 => Err("must be at least 1024".to_owned()),
        bytes => Ok(bytes),
    }
}

/// A count from 1 to `MOST` (a setting whose larger values overflow or mean nothing).
fn count_from_1_to<const MOST: usize>(text: &str) -> Result<usize, String> {
    match count_from_0_to::<MOST>(text)? {
        0 => Err("must be at least 1".to_owned()),
        count => Ok(count),
    }
}

/// A count from 0 to `MOST`.
fn count_from_0_to<const MOST: usize>(text: &str) -> Result<usize, String> {
    let count: usize = text
        .trim()
        .parse()
        .map_err(|_| format!("'{text}' is not a whole number"))?;
    if count > MOST {
        return Err(format!("must be at most {MOST}"));
    }
    Ok(count)
}

/// Twice the cores, from 4 to 32: PostgreSQL served small transactions fastest with about
/// twice as many clients as cores on the project machine (more were slower), and SQLite readers
/// in WAL mode run side by side while its writers take turns anyway.
pub fn default_db_pool_size() -> u32 {
    let cores = std::thread::available_parallelism().map_or(2, usize::from);
    (cores * 2).clamp(4, 32) as u32
}

#[cfg(test)]
mod tests {
    use clap::CommandFactory;

    use super::*;

    /// Settings whose large values overflowed or panicked later (a review's findings) are
    /// refused as they are read, naming their range.
    #[test]
    fn settings_out_of_their_range_are_refused_when_read() {
        let refused = |args: &[&str]| {
            let mut line = vec!["billing"];
            line.extend_from_slice(args);
            Cli::try_parse_from(line)
                .err()
                .map(|error| error.to_string())
        };
        for (args, said) in [
            (&["--workers", "513"][..], "must be at most 512"),
            (
                &["--login-max-failures", "18446744073709551615"],
                "must be at most 1000",
            ),
            (&["--login-max-failures", "0"], "must be at least 1"),
            (&["--body-timeout-seconds", "9223372036854775807"], "3600"),
            (&["--body-timeout-seconds", "0"], "1..=3600"),
            (
                &["--login-window-seconds", "18446744073709551615"],
                "604800",
            ),
            (&["--log", "warning"], "'warning': a level"),
            (&["--log", "info,billing=verbose"], "'billing=verbose'"),
            (&["--body-limit-bytes", "1023"], "must be at least 1024"),
            (
                &["--trusted-proxies", "0.0.0.0/0"],
                "trusts a /0 of the internet",
            ),
            (
                &["--cors-origins", "https://*.example.com"],
                "is not an origin",
            ),
            (
                &["--body-limit-bytes", "1073741825"],
                "must be at most 1073741824",
            ),
            (&["migrate", "--db-pool-size", "0"], "1..=256"),
            (&["migrate", "--db-pool-size", "257"], "1..=256"),
            (
                &["generate", "--tariff", "t", "--rows", "1000000001"],
                "must be at most 1000000000",
            ),
        ] {
            let message = refused(args).unwrap_or_else(|| panic!("{args:?} accepted"));
            assert!(message.contains(said), "{args:?}: {message}");
        }
        for args in [
            &["--workers", "512"][..],
            &["--workers", "0"],
            &["--login-max-failures", "1000"],
            &["--body-timeout-seconds", "3600"],
            &["--log", "info,billing_http=debug,actix_http=OFF"],
        ] {
            assert_eq!(refused(args), None, "{args:?}");
        }
    }

    #[test]
    fn every_option_and_argument_of_every_command_is_described() {
        fn check(command: &clap::Command, path: &str, missing: &mut Vec<String>) {
            for arg in command.get_arguments() {
                let id = arg.get_id().as_str();
                if id != "help" && id != "version" && arg.get_help().is_none() {
                    missing.push(format!("{path} {id}"));
                }
            }
            for sub in command.get_subcommands() {
                if sub.get_about().is_none() {
                    missing.push(format!("{path} {}", sub.get_name()));
                }
                check(sub, &format!("{path} {}", sub.get_name()), missing);
            }
        }
        let mut missing = Vec::new();
        check(&Cli::command(), "billing", &mut missing);
        assert!(missing.is_empty(), "undescribed: {missing:?}");
    }

    /// The documented defaults (decisions §1 and §2, docs/operations.md): the integration tests
    /// set most of these explicitly, so this is what would notice one changing.
    #[test]
    fn the_documented_defaults() {
        let command = Cli::command();
        let defaults: Vec<(&str, String)> = [
            "BILLING_ACCESS_TOKEN_MINUTES",
            "BILLING_REFRESH_TOKEN_DAYS",
            "BILLING_LOGIN_MAX_FAILURES",
            "BILLING_LOGIN_WINDOW_SECONDS",
            "BILLING_BODY_LIMIT_BYTES",
            "BILLING_BODY_TIMEOUT_SECONDS",
            "BILLING_BIND",
        ]
        .into_iter()
        .map(|variable| {
            let arg = command
                .get_arguments()
                .find(|arg| arg.get_env().is_some_and(|env| env == variable))
                .unwrap_or_else(|| panic!("{variable} is not a setting"));
            let values: Vec<String> = arg
                .get_default_values()
                .iter()
                .map(|value| value.to_string_lossy().into_owned())
                .collect();
            (variable, values.join(","))
        })
        .collect();
        assert_eq!(
            defaults,
            [
                ("BILLING_ACCESS_TOKEN_MINUTES", "15".to_owned()),
                ("BILLING_REFRESH_TOKEN_DAYS", "30".to_owned()),
                ("BILLING_LOGIN_MAX_FAILURES", "5".to_owned()),
                ("BILLING_LOGIN_WINDOW_SECONDS", "900".to_owned()),
                ("BILLING_BODY_LIMIT_BYTES", "1048576".to_owned()),
                ("BILLING_BODY_TIMEOUT_SECONDS", "30".to_owned()),
                ("BILLING_BIND", "127.0.0.1:8080".to_owned()),
            ]
        );
    }

    #[test]
    fn help_lists_every_setting() {
        let help = Cli::command().render_long_help().to_string();
        for variable in [
            "BILLING_BIND",
            "DATABASE_URL",
            "BILLING_JWT_SECRET",
            "BILLING_ADMIN_PASSWORD",
            "BILLING_LOG_FORMAT",
            "BILLING_CONFIG",
        ] {
            assert!(help.contains(variable), "{variable} missing from --help");
        }
    }
}
