//! What the tests that need a migrated database share: one on SQLite in a fresh directory,
//! and one on a scratch PostgreSQL database of `TEST_DATABASE_URL` (skipped without it),
//! each removed afterwards whatever the check did.

#![allow(dead_code)] // each test binary uses its part

use billing_persistence::{Database, DatabaseConfig};
use diesel::QueryableByName;
use diesel::sql_types::{BigInt, Text};

/// A row of one text column `name`, for catalog queries.
#[derive(QueryableByName)]
pub struct Name {
    #[diesel(sql_type = Text)]
    pub name: String,
}

/// A row of one number column `n`, for counts.
#[derive(QueryableByName)]
pub struct Number {
    #[diesel(sql_type = BigInt)]
    pub n: i64,
}

fn config(url: Option<String>, data_dir: std::path::PathBuf, pool_size: u32) -> DatabaseConfig {
    DatabaseConfig {
        url,
        data_dir,
        pool_size,
        connection_timeout: std::time::Duration::from_secs(5),
    }
}

/// Runs `check` on a migrated SQLite database with `pool_size` connections.
pub fn on_sqlite(pool_size: u32, check: impl FnOnce(&Database)) {
    let dir = std::env::temp_dir().join(format!("persistence_{}", uuid::Uuid::new_v4().simple()));
    let database = Database::open(&config(None, dir.clone(), pool_size)).expect("open");
    check(&database);
    drop(database);
    let _ = std::fs::remove_dir_all(dir);
}

/// Runs `check` with the URL of a scratch PostgreSQL database (empty: not migrated), dropped
/// afterwards (also when `check` panics); says so and does nothing without
/// `TEST_DATABASE_URL`.
pub fn on_scratch_postgres(check: impl FnOnce(&str) + std::panic::UnwindSafe) {
    let Ok(server) = std::env::var("TEST_DATABASE_URL") else {
        use std::io::Write;
        let _ = writeln!(
            std::io::stderr(),
            "skipped: PostgreSQL (set TEST_DATABASE_URL)"
        );
        return;
    };
    let name = format!("persistence_{}", uuid::Uuid::new_v4().simple());
    let url =
        billing_persistence::scratch::create_postgres_database(&server, &name).expect("scratch");
    let outcome = std::panic::catch_unwind(|| check(&url));
    let _ = billing_persistence::scratch::drop_postgres_database(&server, &name);
    if let Err(panic) = outcome {
        std::panic::resume_unwind(panic);
    }
}

/// Runs `check` on a migrated scratch PostgreSQL database (see [`on_scratch_postgres`]).
pub fn on_postgres(pool_size: u32, check: impl FnOnce(&Database) + std::panic::UnwindSafe) {
    on_scratch_postgres(|url| {
        let database = Database::open(&config(
            Some(url.to_owned()),
            std::env::temp_dir(),
            pool_size,
        ))
        .expect("open");
        check(&database);
    });
}
