//! Typed configuration, loaded once in `main` and passed down. Each setting comes from, in
//! order: the command line, the environment, the optional config file (`KEY=VALUE` lines
//! with the environment variable names), the built-in default. `billing --help` lists them all.

use std::net::SocketAddr;
use std::path::PathBuf;

use clap::{Args, CommandFactory, FromArgMatches, Parser, Subcommand, ValueEnum};

#[derive(Debug, Clone, Parser)]
#[command(
    name = "billing",
    version,
    about = "Billing platform core service: reference data, customer sites, authentication."
)]
pub struct Cli {
    #[command(flatten)]
    pub settings: Settings,
    #[command(subcommand)]
    pub command: Option<Command>,
}

#[derive(Debug, Clone, Subcommand)]
pub enum Command {
    /// Serve the API (the default when no command is given).
    Serve,
    /// Create or update the database schema, then exit.
    Migrate,
    /// Print the OpenAPI 3.1 document of the API and exit.
    Openapi,
    /// Rate a usage CSV against a tariff directory, or the database's reference data
    /// (docs/rating.md), streaming.
    Rate {
        /// Directory of tariff CSV files (no database needed).
        #[arg(
            long,
            required_unless_present = "database",
            conflicts_with = "database"
        )]
        tariff: Option<PathBuf>,
        /// Rate against the reference data in the database (DATABASE_URL), loaded once.
        #[arg(long)]
        database: bool,
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
    },
    /// Load reference data into the database (the operator's feed), all or nothing.
    Import {
        #[command(subcommand)]
        what: ImportExport,
    },
    /// Write the database's reference data to files that `import` (and `rate --tariff`) read.
    Export {
        #[command(subcommand)]
        what: ImportExport,
    },
    /// Write a deterministic synthetic tariff directory (and optionally a usage CSV).
    Generate {
        #[arg(long)]
        tariff: PathBuf,
        #[arg(long, default_value_t = 100_000)]
        dialstrings: usize,
        #[arg(long, default_value_t = 4)]
        sources: i64,
        #[arg(long)]
        usage: Option<PathBuf>,
        #[arg(long, default_value_t = 1_000_000)]
        rows: usize,
        #[arg(long, default_value_t = 7)]
        seed: u64,
    },
    /// Create an API user. The password is read from BILLING_NEW_USER_PASSWORD or, if unset, from stdin.
    CreateUser {
        #[arg(long)]
        username: String,
        /// Role codes, comma-separated (ADMINISTRATOR, BILLING_MANAGER, REFERENCE_DATA_MANAGER, CUSTOMER_MANAGER, READ_ONLY).
        #[arg(long, value_delimiter = ',', required = true)]
        roles: Vec<String>,
        #[arg(long)]
        email: Option<String>,
    },
}

#[derive(Debug, Clone, Subcommand)]
pub enum ImportExport {
    /// The tariff CSV directory format of docs/rating.md: categories, charge groups, source
    /// charge groups, dialstrings, call classes, ignored call classes and ignored service ids.
    /// An import replaces the data of every source its files name (the only way data of
    /// siMaintained sources changes) and inserts or updates the shared records by id.
    ReferenceData {
        /// The directory of CSV files.
        directory: PathBuf,
        /// Import: the user the audit event names (an active user).
        #[arg(long, default_value = "admin")]
        user: String,
    },
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum LogFormat {
    Text,
    Json,
}

#[derive(Debug, Clone, Args)]
pub struct Settings {
    /// Optional config file of KEY=VALUE lines using the environment variable names below.
    #[arg(long, env = "BILLING_CONFIG", global = true)]
    pub config: Option<PathBuf>,
    /// Address and port to listen on.
    #[arg(
        long,
        env = "BILLING_BIND",
        default_value = "127.0.0.1:8080",
        global = true
    )]
    pub bind: SocketAddr,
    /// Directory for the SQLite database and the generated token signing key.
    #[arg(long, env = "BILLING_DATA_DIR", default_value = "data", global = true)]
    pub data_dir: PathBuf,
    /// postgres://… to use PostgreSQL; unset for SQLite in the data directory (sqlite://PATH for another file).
    #[arg(long, env = "DATABASE_URL", global = true, hide_env_values = true)]
    pub database_url: Option<String>,
    /// Database connections kept in the pool (default: twice the cores, 4 to 32). Each
    /// worker's blocking pool gets as many threads.
    #[arg(long, env = "BILLING_DB_POOL_SIZE", default_value_t = default_db_pool_size(), global = true)]
    pub db_pool_size: u32,
    /// HMAC key for access tokens (at least 32 characters). Unset: generated on first start into DATA_DIR/jwt-signing-key.
    #[arg(
        long,
        env = "BILLING_JWT_SECRET",
        global = true,
        hide_env_values = true
    )]
    pub jwt_secret: Option<String>,
    /// `iss` claim of access tokens.
    #[arg(
        long,
        env = "BILLING_JWT_ISSUER",
        default_value = "billing",
        global = true
    )]
    pub jwt_issuer: String,
    /// `aud` claim of access tokens.
    #[arg(
        long,
        env = "BILLING_JWT_AUDIENCE",
        default_value = "billing-api",
        global = true
    )]
    pub jwt_audience: String,
    /// Lifetime of access tokens, in minutes.
    #[arg(long, env = "BILLING_ACCESS_TOKEN_MINUTES", default_value_t = 15, value_parser = clap::value_parser!(u64).range(1..=1440), global = true)]
    pub access_token_minutes: u64,
    /// Lifetime of refresh tokens, in days.
    #[arg(long, env = "BILLING_REFRESH_TOKEN_DAYS", default_value_t = 30, value_parser = clap::value_parser!(u64).range(1..=365), global = true)]
    pub refresh_token_days: u64,
    /// When set, a sign-in that names a brand must name this one.
    #[arg(long, env = "BILLING_BRAND", global = true)]
    pub brand: Option<String>,
    /// Password of the `admin` user created on first start; unset: a random one, printed once.
    #[arg(
        long,
        env = "BILLING_ADMIN_PASSWORD",
        global = true,
        hide_env_values = true
    )]
    pub admin_password: Option<String>,
    /// Failed sign-ins allowed per username within the window before 429.
    #[arg(
        long,
        env = "BILLING_LOGIN_MAX_FAILURES",
        default_value_t = 5,
        global = true
    )]
    pub login_max_failures: usize,
    /// The failed sign-in window, in seconds.
    #[arg(
        long,
        env = "BILLING_LOGIN_WINDOW_SECONDS",
        default_value_t = 900,
        global = true
    )]
    pub login_window_seconds: u64,
    /// Largest request body accepted, in bytes.
    #[arg(long, env = "BILLING_BODY_LIMIT_BYTES", default_value_t = 1024 * 1024, global = true)]
    pub body_limit_bytes: usize,
    /// HTTP worker threads (0: one per core).
    #[arg(long, env = "BILLING_WORKERS", default_value_t = 0, global = true)]
    pub workers: usize,
    /// The most 8-byte words one source's dialstrings may take in the rating index (unset: the
    /// engine's limit, about 134 million, some 25 million dialstrings). A source past it is
    /// left out and its lookups answer 507. For capacity planning and tests.
    #[arg(long, env = "BILLING_RATING_WORD_LIMIT", global = true)]
    pub rating_word_limit: Option<usize>,
    /// Log format.
    #[arg(
        long,
        env = "BILLING_LOG_FORMAT",
        value_enum,
        default_value = "text",
        global = true
    )]
    pub log_format: LogFormat,
    /// Log filter, e.g. info or billing_http=debug.
    #[arg(long, env = "BILLING_LOG", default_value = "info", global = true)]
    pub log: String,
}

/// `KEY=VALUE` lines; blank lines and `#` comments are skipped; values may be quoted.
pub fn parse_config_file(text: &str) -> Result<Vec<(String, String)>, String> {
    let mut pairs = Vec::new();
    for (number, line) in text.lines().enumerate() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let (key, value) = line
            .split_once('=')
            .ok_or_else(|| format!("line {}: expected KEY=VALUE", number + 1))?;
        let value = value.trim();
        let value = value
            .strip_prefix('"')
            .and_then(|v| v.strip_suffix('"'))
            .unwrap_or(value);
        pairs.push((key.trim().to_owned(), value.to_owned()));
    }
    Ok(pairs)
}

/// Parses the command line with the environment, folding in the config file's values as defaults.
pub fn load() -> Result<Cli, String> {
    // Help, version and usage errors are clap's to print (and to exit with the right code).
    let first = Cli::try_parse().unwrap_or_else(|error| error.exit());
    let Some(path) = first.settings.config.clone() else {
        return Ok(first);
    };
    let text = std::fs::read_to_string(&path)
        .map_err(|e| format!("cannot read config file {}: {e}", path.display()))?;
    let pairs =
        parse_config_file(&text).map_err(|e| format!("config file {}: {e}", path.display()))?;
    let mut command = Cli::command();
    for (key, value) in pairs {
        let id = command
            .get_arguments()
            .find(|arg| arg.get_env().is_some_and(|env| env == key.as_str()))
            .map(|arg| arg.get_id().clone())
            .ok_or_else(|| format!("config file {}: unknown setting {key}", path.display()))?;
        command = command.mut_arg(id, |arg| arg.default_value(value));
    }
    let matches = command
        .try_get_matches()
        .unwrap_or_else(|error| error.exit());
    Cli::from_arg_matches(&matches).map_err(|e| e.to_string())
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
    use super::*;

    #[test]
    fn config_file_lines() {
        let pairs =
            parse_config_file("# comment\nBILLING_BIND=0.0.0.0:9000\n\nBILLING_BRAND=\"Acme\"\n")
                .expect("parses");
        insta::assert_debug_snapshot!(pairs, @r#"
        [
            (
                "BILLING_BIND",
                "0.0.0.0:9000",
            ),
            (
                "BILLING_BRAND",
                "Acme",
            ),
        ]
        "#);
        assert!(parse_config_file("nonsense").is_err());
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
