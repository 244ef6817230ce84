//! Write transactions: their isolation, the retry of a lost race, savepoints, and noting a
//! connection the database dropped.

use std::time::Duration;

use diesel::connection::{AnsiTransactionManager, SimpleConnection, TransactionManager};
use diesel::prelude::*;
use diesel::r2d2::PooledConnection;

use super::DbConnection;
use super::pool::Manager;
use crate::error::{PersistenceError, StorageError, StorageFault};

/// How many times [`Database::write`](super::Database::write) runs a transaction that lost a race on PostgreSQL
/// before answering [`PersistenceError::WriteConflict`].
pub const WRITE_ATTEMPTS: u32 = 6;

/// The isolation of a PostgreSQL write transaction (SQLite's writers take turns either way).
#[derive(Debug, Clone, Copy)]
pub(super) enum Isolation {
    Serializable,
    ReadCommitted,
}

/// One write transaction on `connection`: `BEGIN IMMEDIATE` on SQLite, `isolation` on
/// PostgreSQL; committed when `work` succeeds, rolled back otherwise.
pub(super) fn write_transaction<T, E>(
    connection: &mut DbConnection,
    isolation: Isolation,
    work: &mut impl FnMut(&mut DbConnection) -> Result<T, E>,
) -> Result<T, E>
where
    E: StorageError,
{
    match connection {
        DbConnection::Sqlite(sqlite) => {
            AnsiTransactionManager::begin_transaction_sql(sqlite, "BEGIN IMMEDIATE")
        }
        DbConnection::Postgres(postgres) => AnsiTransactionManager::begin_transaction_sql(
            postgres,
            match isolation {
                Isolation::Serializable => "BEGIN ISOLATION LEVEL SERIALIZABLE",
                Isolation::ReadCommitted => "BEGIN ISOLATION LEVEL READ COMMITTED",
            },
        ),
    }
    .map_err(PersistenceError::from)?;
    match work(connection) {
        Ok(value) => {
            <DbConnection as Connection>::TransactionManager::commit_transaction(connection)
                .map_err(PersistenceError::from)?;
            Ok(value)
        }
        Err(error) => {
            if let Err(rollback) =
                <DbConnection as Connection>::TransactionManager::rollback_transaction(connection)
            {
                tracing::error!(error = %rollback, "rollback failed");
            }
            Err(error)
        }
    }
}

/// Runs `work` inside a savepoint of the write transaction `connection` is in, and keeps what
/// it wrote only when `keep` says so of its result: otherwise the savepoint is rolled back and
/// the transaction is as it was before `work` (`Ok(None)`). A failed `work` is rolled back too
/// and its error returned. A patch that changes nothing is checked as a write is, then undone
/// (docs/api.md, "Concurrency").
pub fn run_undone_unless<T, E>(
    connection: &mut DbConnection,
    work: impl FnOnce(&mut DbConnection) -> Result<T, E>,
    keep: impl FnOnce(&T) -> bool,
) -> Result<Option<T>, E>
where
    E: StorageError,
{
    type Manager = <DbConnection as Connection>::TransactionManager;
    Manager::begin_transaction(connection).map_err(PersistenceError::from)?;
    match work(connection) {
        Ok(value) if keep(&value) => {
            Manager::commit_transaction(connection).map_err(PersistenceError::from)?;
            Ok(Some(value))
        }
        Ok(_) => {
            Manager::rollback_transaction(connection).map_err(PersistenceError::from)?;
            Ok(None)
        }
        Err(error) => {
            // The enclosing transaction fails with `error` and is rolled back whole; a failed
            // savepoint rollback must not hide what went wrong (a retryable conflict).
            if let Err(rollback) = Manager::rollback_transaction(connection) {
                tracing::error!(error = %rollback, "savepoint rollback failed");
            }
            Err(error)
        }
    }
}

/// Runs `work` on a pooled connection and marks the connection lost when the error says the
/// database went away, so that the pool opens a new one instead of handing it out again.
pub(super) fn run_noting_loss<T, E: StorageError>(
    pooled: &mut PooledConnection<Manager>,
    work: impl FnOnce(&mut DbConnection) -> Result<T, E>,
) -> Result<T, E> {
    let outcome = work(&mut pooled.connection);
    pooled.last_used = std::time::Instant::now();
    if let Err(error) = &outcome
        && error.storage_fault() == Some(StorageFault::Unavailable)
        && pooled.connection.batch_execute("SELECT 1").is_err()
    {
        pooled.lost = true;
    }
    outcome
}

/// A pause before running a conflicting transaction again: 5 ms, doubling with each attempt
/// (so the six attempts span about a quarter of a second, long enough for the transaction it
/// met to finish on a loaded machine), plus up to as much again, from the clock's
/// nanoseconds, so that racing writers do not meet again in step.
pub(super) fn retry_pause(attempt: u32) -> Duration {
    let base = 5_000_u64 << attempt.saturating_sub(1).min(6);
    let spread = u64::from(
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |now| now.subsec_nanos()),
    ) % 1000;
    Duration::from_micros(base + base * spread / 1000)
}
