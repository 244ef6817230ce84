//! Where the data lives: `DATABASE_URL` read into a backend and a location.

use std::path::PathBuf;
use std::time::Duration;

use super::Backend;
use crate::error::{PersistenceError, PersistenceResult};

/// Where the data lives and how many connections to keep.
#[derive(Debug, Clone)]
pub struct DatabaseConfig {
    /// `postgres://…` or `postgresql://…` for PostgreSQL; `sqlite://PATH` or a plain path for
    /// SQLite. `None`: `billing.db` in `data_dir`.
    pub url: Option<String>,
    pub data_dir: PathBuf,
    pub pool_size: u32,
    pub connection_timeout: Duration,
}

/// The forms a database URL may take, for the error that names them.
pub(super) const ACCEPTED_URLS: &str = "postgres://USER@HOST:PORT/DATABASE (or postgresql://…) for PostgreSQL, \
     sqlite://PATH or a file path (/…, ./…, ../… or ….db) for SQLite, or unset for billing.db in \
     the data directory";

impl DatabaseConfig {
    /// The backend and its connection string. Anything but the accepted forms is an error
    /// naming them (`ACCEPTED_URLS`), never a SQLite file of that name: another scheme
    /// (`postgress://`, `mysql://`), a PostgreSQL URL that names no database (PostgreSQL would
    /// pick the user's own), or text without a scheme that is not a file path
    /// (`localhost:5432/billing`). A file path starts with `/`, `./` or `../`, or ends in
    /// `.db`, `.sqlite` or `.sqlite3`.
    pub fn resolve(&self) -> PersistenceResult<(Backend, String)> {
        let refused = |why: String| {
            Err(PersistenceError::Connection(format!(
                "{why}; accepted: {ACCEPTED_URLS}"
            )))
        };
        match self.url.as_deref() {
            Some(url) if url.starts_with("postgres://") || url.starts_with("postgresql://") => {
                let rest = url.split_once("://").map_or("", |(_, rest)| rest);
                let database = rest.split_once('/').map_or("", |(_, path)| {
                    path.split(['?', '#']).next().unwrap_or_default()
                });
                let named_in_query = url.split_once('?').is_some_and(|(_, query)| {
                    query
                        .split('&')
                        .any(|pair| pair.strip_prefix("dbname=").is_some_and(|d| !d.is_empty()))
                });
                if database.is_empty() && !named_in_query {
                    return refused(
                        "DATABASE_URL names no PostgreSQL database (…/DATABASE at its end), and \
                         PostgreSQL would use the user's own"
                            .to_owned(),
                    );
                }
                // Said without the URL: the part after a stray `@` is the password's.
                let authority = rest.split('/').next().unwrap_or_default();
                if authority.matches('@').count() > 1 {
                    return refused(
                        "DATABASE_URL has more than one '@' before its host: write an '@' in the \
                         user or password as %40"
                            .to_owned(),
                    );
                }
                if url.contains('#') {
                    return refused(
                        "DATABASE_URL has a '#', which a PostgreSQL URL cannot hold: write one in \
                         a password as %23"
                            .to_owned(),
                    );
                }
                Ok((Backend::Postgres, with_network_timeouts(url)))
            }
            Some(url) if url.starts_with("sqlite://") => {
                let path = url.trim_start_matches("sqlite://");
                if path.is_empty() || path.starts_with(":memory:") || path.contains("mode=memory") {
                    return refused(
                        "DATABASE_URL names no SQLite file (an in-memory database is one per \
                         connection and lost at exit)"
                            .to_owned(),
                    );
                }
                Ok((Backend::Sqlite, path.to_owned()))
            }
            Some(url) => match url.split_once("://") {
                Some((scheme, _)) => refused(format!(
                    "DATABASE_URL has the scheme '{scheme}', which this service does not know"
                )),
                None if url.trim().is_empty() => refused("DATABASE_URL is empty".to_owned()),
                None if looks_like_a_file(url) => Ok((Backend::Sqlite, url.to_owned())),
                None => refused(format!(
                    "DATABASE_URL '{url}' has no scheme and is not a file path"
                )),
            },
            None => Ok((
                Backend::Sqlite,
                self.data_dir
                    .join("billing.db")
                    .to_string_lossy()
                    .into_owned(),
            )),
        }
    }
}

/// The libpq parameters that bound how long a connection waits on a network that lost the
/// database, each added to a PostgreSQL URL that does not set it (docs/operations.md "When the
/// database fails"): a connection attempt gives up after 5 s; a query sent and not acknowledged for
/// 10 s fails (`tcp_user_timeout`, milliseconds); a connection waiting for an answer probes the
/// server after 5 s of silence and fails when 3 probes 2 s apart go unanswered. Without them a
/// request on a connection whose peer vanished (a host down, a network partition) waited for
/// the kernel's own retransmission timeout, about 15 minutes.
pub const NETWORK_TIMEOUTS: [(&str, &str); 6] = [
    ("connect_timeout", "5"),
    ("tcp_user_timeout", "10000"),
    ("keepalives", "1"),
    ("keepalives_idle", "5"),
    ("keepalives_interval", "2"),
    ("keepalives_count", "3"),
];

/// `url` with each of [`NETWORK_TIMEOUTS`] it does not set added to its query (a URL with a
/// `#` is refused before this).
fn with_network_timeouts(url: &str) -> String {
    let query = url.split_once('?').map_or("", |(_, query)| query);
    let set: Vec<&str> = query
        .split('&')
        .filter_map(|pair| pair.split('=').next())
        .collect();
    let mut resolved = url.to_owned();
    for (name, value) in NETWORK_TIMEOUTS {
        if !set.contains(&name) {
            resolved.push(if resolved.contains('?') { '&' } else { '?' });
            resolved.push_str(&format!("{name}={value}"));
        }
    }
    resolved
}

/// A `DATABASE_URL` without a scheme that names a SQLite file: a path from the root or the
/// working directory, or a name with a SQLite file's extension.
pub(super) fn looks_like_a_file(url: &str) -> bool {
    url.starts_with('/')
        || url.starts_with("./")
        || url.starts_with("../")
        || [".db", ".sqlite", ".sqlite3"]
            .iter()
            .any(|extension| url.ends_with(extension))
}

/// Where the database is, for the start-up log: the SQLite file's path, or PostgreSQL's
/// host, port, database and user. Never the password, nor the URL's parameters (which may
/// hold one).
pub fn describe_location(backend: Backend, url: &str) -> String {
    match backend {
        Backend::Sqlite => {
            let path = std::path::Path::new(url);
            let path = std::path::absolute(path).unwrap_or_else(|_| path.to_owned());
            format!("SQLite database {}", path.display())
        }
        Backend::Postgres => {
            let rest = url.split_once("://").map_or(url, |(_, rest)| rest);
            let (rest, query) = rest.split_once('?').unwrap_or((rest, ""));
            let (authority, database) = rest.split_once('/').unwrap_or((rest, ""));
            let (user, host) = match authority.rsplit_once('@') {
                Some((credentials, host)) => {
                    (credentials.split(':').next().unwrap_or_default(), host)
                }
                None => ("", authority),
            };
            let (mut host, mut database, mut user) = (
                percent_decoded(host),
                percent_decoded(database),
                percent_decoded(user),
            );
            // libpq's parameters in the query take the place of the URL's parts.
            for (name, value) in query.split('&').filter_map(|pair| pair.split_once('=')) {
                let value = percent_decoded(value);
                match name {
                    "host" => host = value,
                    "port" => host = format!("{}:{value}", without_port(&host)),
                    "dbname" => database = value,
                    "user" => user = value,
                    _ => {}
                }
            }
            let host = if host.is_empty() || host.starts_with(':') {
                format!("the local socket{host}")
            } else if host.starts_with('/') {
                format!("the socket in {host}")
            } else {
                host
            };
            let database = if database.is_empty() {
                "(the user's default)".to_owned()
            } else {
                database
            };
            match user.as_str() {
                "" => format!("PostgreSQL database {database} on {host}"),
                user => format!("PostgreSQL database {database} on {host} as user {user}"),
            }
        }
    }
}

/// A URL's `host[:port]` without its port (`[::1]:5432` → `[::1]`).
fn without_port(host: &str) -> &str {
    match host.rfind(']') {
        Some(end) => &host[..=end],
        None => host.split(':').next().unwrap_or_default(),
    }
}

/// `text` with its `%XX` escapes decoded (as it was when they make no UTF-8), for showing a
/// URL's parts.
fn percent_decoded(text: &str) -> String {
    percent_encoding::percent_decode_str(text)
        .decode_utf8()
        .map_or_else(|_| text.to_owned(), std::borrow::Cow::into_owned)
}

#[cfg(test)]
mod url_tests {
    use super::*;

    fn resolve(url: Option<&str>) -> Result<Backend, String> {
        DatabaseConfig {
            url: url.map(str::to_owned),
            data_dir: PathBuf::from("data"),
            pool_size: 1,
            connection_timeout: Duration::from_secs(1),
        }
        .resolve()
        .map(|(backend, _)| backend)
        .map_err(|error| error.to_string())
    }

    #[test]
    fn the_location_never_shows_a_password() {
        insta::assert_snapshot!(
            describe_location(Backend::Postgres, "postgres://billing:s3cret@db.internal:5432/billing?sslmode=require&password=x"),
            @"PostgreSQL database billing on db.internal:5432 as user billing"
        );
        insta::assert_snapshot!(
            describe_location(Backend::Postgres, "postgresql://db.internal"),
            @"PostgreSQL database (the user's default) on db.internal"
        );
        // libpq's query parameters stand for the URL's parts; a host from the root is a socket.
        insta::assert_snapshot!(
            describe_location(Backend::Postgres, "postgres:///billing?host=/run/postgresql&user=ops&password=x"),
            @"PostgreSQL database billing on the socket in /run/postgresql as user ops"
        );
        insta::assert_snapshot!(
            describe_location(Backend::Postgres, "postgres://%2Fvar%2Frun%2Fpostgresql:5433/d?dbname=billing"),
            @"PostgreSQL database billing on the socket in /var/run/postgresql:5433"
        );
        insta::assert_snapshot!(
            describe_location(Backend::Postgres, "postgres://[::1]:5432/db?port=5433"),
            @"PostgreSQL database db on [::1]:5433"
        );
        insta::assert_snapshot!(
            describe_location(Backend::Postgres, "postgres://u@/billing?port=5433"),
            @"PostgreSQL database billing on the local socket:5433 as user u"
        );
        insta::assert_snapshot!(
            describe_location(Backend::Sqlite, "/var/lib/billing/billing.db"),
            @"SQLite database /var/lib/billing/billing.db"
        );
    }

    #[test]
    fn a_postgresql_url_gains_the_network_timeouts_it_does_not_set() {
        let resolved = |url: &str| {
            DatabaseConfig {
                url: Some(url.to_owned()),
                data_dir: PathBuf::from("data"),
                pool_size: 1,
                connection_timeout: Duration::from_secs(1),
            }
            .resolve()
            .map(|(_, url)| url)
            .expect("accepted")
        };
        insta::assert_snapshot!(resolved("postgres://u@h/d"), @"postgres://u@h/d?connect_timeout=5&tcp_user_timeout=10000&keepalives=1&keepalives_idle=5&keepalives_interval=2&keepalives_count=3");
        insta::assert_snapshot!(resolved("postgresql://u@h:5432/d?sslmode=require&keepalives_idle=60&connect_timeout=2"), @"postgresql://u@h:5432/d?sslmode=require&keepalives_idle=60&connect_timeout=2&tcp_user_timeout=10000&keepalives=1&keepalives_interval=2&keepalives_count=3");
    }

    #[test]
    fn only_known_schemes_are_accepted() {
        assert_eq!(resolve(None), Ok(Backend::Sqlite));
        assert_eq!(resolve(Some("postgres://u@h/d")), Ok(Backend::Postgres));
        assert_eq!(resolve(Some("postgresql://u@h/d")), Ok(Backend::Postgres));
        assert_eq!(
            resolve(Some("sqlite:///var/lib/billing.db")),
            Ok(Backend::Sqlite)
        );
        assert_eq!(resolve(Some("/var/lib/billing.db")), Ok(Backend::Sqlite));
        insta::assert_snapshot!(resolve(Some("postgress://u@h/d")).unwrap_err(), @"cannot connect to the database: DATABASE_URL has the scheme 'postgress', which this service does not know; accepted: postgres://USER@HOST:PORT/DATABASE (or postgresql://…) for PostgreSQL, sqlite://PATH or a file path (/…, ./…, ../… or ….db) for SQLite, or unset for billing.db in the data directory");
        assert!(resolve(Some("mysql://u@h/d")).is_err());
        assert!(resolve(Some(" ")).is_err());
        // No scheme and not a file path; a PostgreSQL URL without its database.
        insta::assert_snapshot!(resolve(Some("localhost:5432/billing")).unwrap_err(), @"cannot connect to the database: DATABASE_URL 'localhost:5432/billing' has no scheme and is not a file path; accepted: postgres://USER@HOST:PORT/DATABASE (or postgresql://…) for PostgreSQL, sqlite://PATH or a file path (/…, ./…, ../… or ….db) for SQLite, or unset for billing.db in the data directory");
        insta::assert_snapshot!(resolve(Some("postgres://u@db.internal:5432")).unwrap_err(), @"cannot connect to the database: DATABASE_URL names no PostgreSQL database (…/DATABASE at its end), and PostgreSQL would use the user's own; accepted: postgres://USER@HOST:PORT/DATABASE (or postgresql://…) for PostgreSQL, sqlite://PATH or a file path (/…, ./…, ../… or ….db) for SQLite, or unset for billing.db in the data directory");
        assert!(resolve(Some("postgresql://u@h/?sslmode=require")).is_err());
        // libpq's own parameter names the database as well (with a socket directory).
        assert_eq!(
            resolve(Some("postgres:///?host=/run/postgresql&dbname=billing")),
            Ok(Backend::Postgres)
        );
        // A stray '@' or '#' (in a password) is refused without showing the password.
        for url in [
            "postgres://u:p@ss@h/d",
            "postgres://u:p#ss@h/d",
            "postgres://u@h/d#x",
        ] {
            let refused = resolve(Some(url)).unwrap_err();
            assert!(
                !refused.contains("ss@h") && !refused.contains("p#ss"),
                "{refused}"
            );
        }
        assert_eq!(
            resolve(Some("postgres://u:p%40ss@h/d")),
            Ok(Backend::Postgres)
        );
        for url in [
            "sqlite://",
            "sqlite://:memory:",
            "sqlite://file:x?mode=memory",
        ] {
            assert!(
                resolve(Some(url))
                    .unwrap_err()
                    .contains("names no SQLite file"),
                "{url}"
            );
        }
        assert_eq!(resolve(Some("./data/billing.db")), Ok(Backend::Sqlite));
        assert_eq!(resolve(Some("billing.sqlite3")), Ok(Backend::Sqlite));
    }
}
