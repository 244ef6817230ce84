//! Throw-away PostgreSQL databases for tests: each test gets its own, created empty and
//! dropped afterwards, so tests run in parallel without sharing rows.

use diesel::connection::SimpleConnection;
use diesel::prelude::*;

use crate::error::{PersistenceError, PersistenceResult};

/// `url` with its database name replaced by `name`.
pub fn with_database_name(url: &str, name: &str) -> String {
    let (base, query) = match url.split_once('?') {
        Some((base, query)) => (base, Some(query)),
        None => (url, None),
    };
    let scheme_end = base.find("://").map_or(0, |i| i + 3);
    let server = match base[scheme_end..].find('/') {
        Some(slash) => &base[..scheme_end + slash],
        None => base,
    };
    match query {
        Some(query) => format!("{server}/{name}?{query}"),
        None => format!("{server}/{name}"),
    }
}

/// Creates database `name` on the server `server_url` points at; returns the new URL.
///
/// The database is UTF-8 with the `C.UTF-8` locale whatever the server's default, so `lower()`
/// folds every Unicode letter (as the service needs for `like:`) and text sorts by code point
/// (as on SQLite). A server without that locale gets its default database instead.
pub fn create_postgres_database(server_url: &str, name: &str) -> PersistenceResult<String> {
    if !name
        .chars()
        .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_')
    {
        return Err(PersistenceError::Connection(format!(
            "unsafe database name {name}"
        )));
    }
    let mut connection = PgConnection::establish(server_url)
        .map_err(|e| PersistenceError::Connection(e.to_string()))?;
    let unicode = format!(
        "CREATE DATABASE {name} TEMPLATE template0 ENCODING 'UTF8' \
         LC_CTYPE 'C.UTF-8' LC_COLLATE 'C.UTF-8'"
    );
    if let Err(error) = connection.batch_execute(&unicode) {
        tracing::warn!(%error, "no C.UTF-8 locale: the scratch database gets the server's default");
        connection.batch_execute(&format!("CREATE DATABASE {name}"))?;
    }
    Ok(with_database_name(server_url, name))
}

/// Drops database `name`, disconnecting anyone still on it.
pub fn drop_postgres_database(server_url: &str, name: &str) -> PersistenceResult<()> {
    let mut connection = PgConnection::establish(server_url)
        .map_err(|e| PersistenceError::Connection(e.to_string()))?;
    connection.batch_execute(&format!("DROP DATABASE IF EXISTS {name} WITH (FORCE)"))?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn database_names_are_replaced() {
        insta::assert_snapshot!(with_database_name("postgres://root@127.0.0.1:5432/test", "t1"), @"postgres://root@127.0.0.1:5432/t1");
        insta::assert_snapshot!(with_database_name("postgres://root@localhost/test?sslmode=disable", "t1"), @"postgres://root@localhost/t1?sslmode=disable");
        insta::assert_snapshot!(with_database_name("postgres://root@localhost", "t1"), @"postgres://root@localhost/t1");
    }
}
