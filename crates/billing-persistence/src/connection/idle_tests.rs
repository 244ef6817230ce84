//! A PostgreSQL connection that sat idle while the server ended it is checked and replaced
//! as it is taken from the pool (`Pooled::alive`), on a scratch database of
//! `TEST_DATABASE_URL` (skipped without it).

use std::time::{Duration, Instant};

use diesel::connection::SimpleConnection;
use diesel::prelude::*;

use super::{CHECKED_AFTER_IDLE, Database, DatabaseConfig, DbConnection};
use crate::PersistenceError;

fn on_scratch_postgres(check: impl FnOnce(&str) + std::panic::UnwindSafe) {
    let Ok(server) = std::env::var("TEST_DATABASE_URL") else {
        eprintln!("skipped: PostgreSQL (set TEST_DATABASE_URL)");
        return;
    };
    let name = format!("idle_{}", uuid::Uuid::new_v4().simple());
    let url = crate::scratch::create_postgres_database(&server, &name).expect("scratch");
    let outcome = std::panic::catch_unwind(|| check(&url));
    let _ = crate::scratch::drop_postgres_database(&server, &name);
    if let Err(panic) = outcome {
        std::panic::resume_unwind(panic);
    }
}

fn select_one(connection: &mut DbConnection) -> Result<(), PersistenceError> {
    connection.batch_execute("SELECT 1")?;
    Ok(())
}

/// Every connection of the pool, marked as last used `ago`, then put back.
fn age_every_connection(database: &Database, ago: Duration) {
    let held: Vec<_> = (0..database.pool.max_size())
        .map(|_| database.pool.get().expect("a connection"))
        .collect();
    for mut pooled in held {
        pooled.last_used = Instant::now() - ago;
    }
}

fn end_every_session(url: &str) {
    let mut connection = diesel::PgConnection::establish(url).expect("connect");
    connection
        .batch_execute(
            "SELECT pg_terminate_backend(pid) FROM pg_stat_activity \
             WHERE datname = current_database() AND pid <> pg_backend_pid()",
        )
        .expect("terminate");
}

#[test]
fn connections_ended_while_idle_are_replaced_before_use() {
    on_scratch_postgres(|url| {
        let config = DatabaseConfig {
            url: Some(url.to_owned()),
            data_dir: std::env::temp_dir(),
            pool_size: 3,
            connection_timeout: Duration::from_secs(5),
        };
        let database = Database::open(&config).expect("open");
        // Idle long enough to be checked: every read and write after the sessions ended works.
        age_every_connection(&database, CHECKED_AFTER_IDLE * 2);
        end_every_session(url);
        for _ in 0..3 {
            database
                .read(select_one)
                .expect("a read on a replaced connection");
        }
        age_every_connection(&database, CHECKED_AFTER_IDLE * 2);
        end_every_session(url);
        database
            .write(select_one)
            .expect("a write on a replaced connection");
        match database.read_if_idle(select_one) {
            Ok(outcome) => outcome.expect("an inline read on a replaced connection"),
            Err(_) => panic!("no idle connection"),
        }
        // Used a moment ago, a connection is taken unchecked: the request meets its end (503).
        age_every_connection(&database, Duration::ZERO);
        end_every_session(url);
        assert!(database.read(select_one).is_err(), "taken unchecked");
    });
}
