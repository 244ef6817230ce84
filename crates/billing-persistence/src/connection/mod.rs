//! Choosing the backend, pooling connections, migrating, and running transactions.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::time::Duration;

use diesel::connection::{AnsiTransactionManager, SimpleConnection, TransactionManager};
use diesel::prelude::*;
use diesel::r2d2::Pool;
use diesel_migrations::{EmbeddedMigrations, MigrationHarness, embed_migrations};

use crate::error::{PersistenceError, PersistenceResult, StorageError, StorageFault};

mod config;
#[cfg(test)]
mod file_tests;
#[cfg(test)]
mod idle_tests;
mod pool;
mod transactions;

pub use config::{DatabaseConfig, describe_location};
pub use pool::{CHECKED_AFTER_IDLE, CHECKOUT_BUCKETS, PoolStatus, Pooled};
use pool::{
    ConnectionSetup, Manager, PoolEvents, SQLITE_BUSY_TIMEOUT, SQLITE_SETTINGS,
    SQLITE_WRITE_PATIENCE, SharedEvents,
};
use transactions::{Isolation, retry_pause, run_noting_loss, write_transaction};
pub use transactions::{WRITE_ATTEMPTS, run_undone_unless};

const SQLITE_MIGRATIONS: EmbeddedMigrations = embed_migrations!("../../migrations/sqlite");
const POSTGRES_MIGRATIONS: EmbeddedMigrations = embed_migrations!("../../migrations/postgres");

/// One connection to whichever backend the service runs on.
#[derive(diesel::MultiConnection)]
pub enum DbConnection {
    Postgres(diesel::PgConnection),
    Sqlite(diesel::SqliteConnection),
}

/// Runs `$body` with `$c` bound to the concrete connection behind a [`DbConnection`], for
/// queries on the hot paths (a record by id). Two costs of the multi-backend connection go:
/// it writes the SQL text of every query again on every execution, even when the prepared
/// statement is cached; and a query whose SQL is fixed at compile time is found in the
/// concrete connection's statement cache by its type, with no SQL written at all.
///
/// Queries run this way should also avoid `LIMIT ?` (`.first()`) on SQLite: SQLite marks a
/// statement whose limit is a bound parameter to be compiled again at every execution (its
/// planner may use the value), which costs more than the query itself. A lookup by a unique
/// key needs no limit: use `.get_result()`.
#[macro_export]
macro_rules! on_backend {
    ($connection:expr, |$c:ident| $body:expr) => {
        match $connection {
            $crate::DbConnection::Postgres($c) => $body,
            $crate::DbConnection::Sqlite($c) => $body,
        }
    };
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Backend {
    Sqlite,
    Postgres,
}

/// What opening the database did: where it is, in words that carry no password, and the
/// migrations it applied (empty: the schema was up to date).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Opened {
    pub location: String,
    pub applied_migrations: Vec<String>,
}

/// The key of the PostgreSQL advisory lock every instance holds while it migrates and does
/// its first-start work (an arbitrary constant: "billing" in ASCII).
pub const START_LOCK_KEY: i64 = 0x0062_696c_6c69_6e67;

/// How long, in milliseconds, a start on SQLite waits for another process's migrations.
pub const SQLITE_START_BUSY_MS: u32 = 120_000;

/// The key of the PostgreSQL advisory lock a feed import holds while it runs, so that two
/// imports take turns: an import sets the dialstrings' indexes and foreign key aside, and one
/// that read the catalog while another made them again would find them gone.
pub const IMPORT_LOCK_KEY: i64 = START_LOCK_KEY + 1;

/// A PostgreSQL advisory lock held by a session of its own, outside any transaction,
/// unlocked when this is dropped; on SQLite (whose writers take turns anyway), nothing.
pub struct SessionLock {
    connection: Option<diesel::PgConnection>,
    key: i64,
}

/// The start-up lock of [`Database::open_for_start`] ([`START_LOCK_KEY`]).
pub type StartLock = SessionLock;

impl SessionLock {
    /// Waits for the advisory lock `key` on a new session of the server at `url`.
    fn take(url: &str, key: i64) -> PersistenceResult<Self> {
        let mut connection = diesel::PgConnection::establish(url)
            .map_err(|e| PersistenceError::Connection(e.to_string()))?;
        connection.batch_execute(&format!("SELECT pg_advisory_lock({key})"))?;
        Ok(Self {
            connection: Some(connection),
            key,
        })
    }

    /// Unlocks now (as dropping does).
    pub fn release(self) {}
}

impl Drop for SessionLock {
    fn drop(&mut self) {
        if let Some(mut connection) = self.connection.take()
            && let Err(error) =
                connection.batch_execute(&format!("SELECT pg_advisory_unlock({})", self.key))
        {
            // Closing the session (as dropping the connection does next) releases it anyway.
            tracing::warn!(%error, "could not release an advisory lock");
        }
    }
}

impl std::fmt::Debug for SessionLock {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SessionLock")
            .field("key", &self.key)
            .field("held", &self.connection.is_some())
            .finish()
    }
}

/// The connection pool; cheap to clone.
#[derive(Clone)]
pub struct Database {
    pool: Pool<Manager>,
    backend: Backend,
    /// Where the pool connects (for a session of its own: [`Database::lock_exclusively`]).
    url: Arc<str>,
    events: Arc<PoolEvents>,
    /// SQLite: the queue this process's writers take turns in (`write_turns`).
    turns: Arc<crate::write_turns::WriteTurns>,
}

impl std::fmt::Debug for Database {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Database")
            .field("backend", &self.backend)
            .finish_non_exhaustive()
    }
}

impl Database {
    /// Connects (creating the SQLite file and its directory when needed) and runs pending
    /// migrations. A failure names its real cause.
    pub fn open(config: &DatabaseConfig) -> PersistenceResult<Self> {
        Self::open_reporting(config).map(|(database, _)| database)
    }

    /// [`Database::open`], also saying where the database is and which migrations it applied.
    pub fn open_reporting(config: &DatabaseConfig) -> PersistenceResult<(Self, Opened)> {
        Self::open_for_start(config).map(|(database, opened, _lock)| (database, opened))
    }

    /// [`Database::open_reporting`], keeping the start-up lock taken around the migrations
    /// until the returned [`StartLock`] is dropped (or released), so that the caller's own
    /// first-start work (the first administrator) is serialised with other instances' too.
    ///
    /// On PostgreSQL the lock is a session-level advisory lock ([`START_LOCK_KEY`]) on a
    /// connection of its own: a second instance starting at the same moment waits in
    /// `pg_advisory_lock`, then finds the migrations applied and the first-start work done.
    /// On SQLite the migrations run in one `BEGIN IMMEDIATE` transaction (a second process
    /// waits on the database lock, up to [`SQLITE_START_BUSY_MS`]); the returned lock holds
    /// nothing, and first-start writes serialise on their own `BEGIN IMMEDIATE`.
    pub fn open_for_start(config: &DatabaseConfig) -> PersistenceResult<(Self, Opened, StartLock)> {
        let (backend, url) = config.resolve()?;
        let location = describe_location(backend, &url);
        let (applied_migrations, lock) = match backend {
            Backend::Postgres => {
                // From here on, dropping `lock` unlocks (and closes the connection).
                let mut lock = SessionLock::take(&url, START_LOCK_KEY)?;
                let connection = lock.connection.as_mut().expect("just set");
                let applied = run_pending(connection, POSTGRES_MIGRATIONS)?;
                (applied, lock)
            }
            Backend::Sqlite => {
                // Every failure here names the file: "database or disk is full" alone does
                // not say which disk.
                let applied = open_sqlite_for_start(&url).map_err(|error| {
                    PersistenceError::Connection(format!("SQLite database {url}: {error}"))
                })?;
                (
                    applied,
                    SessionLock {
                        connection: None,
                        key: START_LOCK_KEY,
                    },
                )
            }
        };
        let events = Arc::new(PoolEvents::default());
        let pool = Pool::builder()
            .max_size(config.pool_size.max(1))
            .connection_timeout(config.connection_timeout)
            .test_on_check_out(false)
            .connection_customizer(Box::new(ConnectionSetup))
            .event_handler(Box::new(SharedEvents(events.clone())))
            .build(Manager {
                backend,
                url: url.clone(),
            })
            .map_err(|e| PersistenceError::Connection(e.to_string()))?;
        Ok((
            Self {
                pool,
                backend,
                url: url.into(),
                events,
                turns: Arc::default(),
            },
            Opened {
                location,
                applied_migrations,
            },
            lock,
        ))
    }

    pub fn backend(&self) -> Backend {
        self.backend
    }

    /// Waits for the PostgreSQL advisory lock `key`, held by a session of its own (not one of
    /// the pool's) until the returned lock is dropped; nothing to wait for on SQLite.
    pub fn lock_exclusively(&self, key: i64) -> PersistenceResult<SessionLock> {
        match self.backend {
            Backend::Postgres => SessionLock::take(&self.url, key),
            Backend::Sqlite => Ok(SessionLock {
                connection: None,
                key,
            }),
        }
    }

    /// The pool's connections now and its checkouts so far (takes the pool's lock once: for
    /// `/metrics`, not for the request path).
    pub fn pool_status(&self) -> PoolStatus {
        let state = self.pool.state();
        let events = &self.events;
        let mut checkout_buckets = [0; CHECKOUT_BUCKETS.len() + 1];
        for (count, bucket) in checkout_buckets.iter_mut().zip(&events.buckets) {
            *count = bucket.load(Ordering::Relaxed);
        }
        PoolStatus {
            max_connections: self.pool.max_size(),
            connections: state.connections,
            idle_connections: state.idle_connections,
            checkout_buckets,
            checkout_wait_seconds: events.wait_nanos.load(Ordering::Relaxed) as f64 / 1e9,
            timeouts: events.timeouts.load(Ordering::Relaxed),
        }
    }

    /// Runs `work` on one pooled connection, outside any explicit transaction.
    pub fn read<T, E>(&self, work: impl FnOnce(&mut DbConnection) -> Result<T, E>) -> Result<T, E>
    where
        E: StorageError,
    {
        let mut pooled = self.live_connection()?;
        run_noting_loss(&mut pooled, work)
    }

    /// A pooled connection that is alive ([`Pooled::alive`]): one found dead is dropped and
    /// another taken, as many times as the pool has connections.
    fn live_connection(&self) -> PersistenceResult<diesel::r2d2::PooledConnection<Manager>> {
        for _ in 0..self.pool.max_size() {
            let mut pooled = self.pool.get().map_err(PersistenceError::from)?;
            if pooled.alive() {
                return Ok(pooled);
            }
        }
        self.pool.get().map_err(PersistenceError::from)
    }

    /// Runs `work` at once on an idle pooled connection, on the calling thread, outside any
    /// explicit transaction; gives `work` back when no connection is idle (nothing waits for
    /// one, and no connection is opened).
    pub fn read_if_idle<W, T, E>(&self, work: W) -> Result<Result<T, E>, W>
    where
        W: FnOnce(&mut DbConnection) -> Result<T, E>,
        E: StorageError,
    {
        match self.pool.try_get() {
            Some(mut pooled) => {
                if pooled.alive() {
                    Ok(run_noting_loss(&mut pooled, work))
                } else {
                    Err(work)
                }
            }
            None => Err(work),
        }
    }

    /// Runs `work` in one write transaction: all of it commits, or none of it. Every rule a
    /// write checks against other rows holds when writers race (docs/ARCHITECTURE.md,
    /// "Invariants"):
    ///
    /// - on SQLite the transaction is `BEGIN IMMEDIATE`: writers take turns, and a
    ///   read-then-write never fails halfway on a lock upgrade. The writers of this process
    ///   queue for their turn first (`write_turns`: first come, first served, each woken as
    ///   the one ahead finishes), so none sleeps in SQLite's busy handler behind another of
    ///   this process;
    /// - on PostgreSQL it is `SERIALIZABLE`: the database refuses to commit a transaction whose
    ///   reads another committed transaction changed. Such a loser (and a deadlock victim) is
    ///   rolled back and `work` runs again from the start on a fresh snapshot, up to
    ///   [`WRITE_ATTEMPTS`] times in all; after that the error is
    ///   [`PersistenceError::WriteConflict`]. So `work` must be repeatable: it may only change
    ///   the database and what it returns.
    pub fn write<T, E>(&self, work: impl FnMut(&mut DbConnection) -> Result<T, E>) -> Result<T, E>
    where
        E: StorageError,
    {
        self.write_at(Isolation::Serializable, work)
    }

    /// Runs `work` in one write transaction whose rules `work` guards itself, by the locks it
    /// takes before it reads (the sign-in throttle's advisory lock per key), or which has none
    /// (a sign-in noting its time and storing its refresh token). On PostgreSQL the
    /// transaction is `READ COMMITTED`: each statement sees what committed before it began, so
    /// a read made after taking a lock sees what the lock's previous holder wrote, and writers
    /// that meet wait for each other instead of failing as serialization conflicts (ten sign-ins
    /// from one address at once were 409 at `SERIALIZABLE`). SQLite: as [`Database::write`].
    pub fn write_guarded_by_locks<T, E>(
        &self,
        work: impl FnMut(&mut DbConnection) -> Result<T, E>,
    ) -> Result<T, E>
    where
        E: StorageError,
    {
        self.write_at(Isolation::ReadCommitted, work)
    }

    fn write_at<T, E>(
        &self,
        isolation: Isolation,
        mut work: impl FnMut(&mut DbConnection) -> Result<T, E>,
    ) -> Result<T, E>
    where
        E: StorageError,
    {
        let mut pooled = self.live_connection()?;
        let _turn = match self.backend {
            Backend::Sqlite => Some(self.turns.wait(SQLITE_WRITE_PATIENCE)?),
            Backend::Postgres => None,
        };
        let mut attempt = 1;
        loop {
            let outcome = run_noting_loss(&mut pooled, |connection| {
                write_transaction(connection, isolation, &mut work)
            });
            match outcome {
                Err(error)
                    if attempt < WRITE_ATTEMPTS
                        && error.storage_fault() == Some(StorageFault::WriteConflict) =>
                {
                    tracing::debug!(
                        attempt,
                        "write conflicted with a concurrent one; running it again"
                    );
                    std::thread::sleep(retry_pause(attempt));
                    attempt += 1;
                }
                outcome => return outcome,
            }
        }
    }

    /// Whether the database takes writes now, answered within about `within`: a connection
    /// is had (or not) in that time, and one row (`readiness_probe`) is rewritten and
    /// committed with the waits bounded by it. A refused or lost connection, a full disk, a
    /// read-only file and a database in recovery are all "no", with the cause.
    pub fn check_writable(&self, within: Duration) -> PersistenceResult<()> {
        let mut pooled = self
            .pool
            .get_timeout(within)
            .map_err(PersistenceError::from)?;
        if !pooled.alive() {
            drop(pooled);
            pooled = self
                .pool
                .get_timeout(within)
                .map_err(PersistenceError::from)?;
        }
        let millis = within.as_millis().max(1);
        run_noting_loss(&mut pooled, |connection| {
            let setup = match connection {
                DbConnection::Sqlite(sqlite) => {
                    sqlite.batch_execute(&format!("PRAGMA busy_timeout = {millis}"))?;
                    AnsiTransactionManager::begin_transaction_sql(sqlite, "BEGIN IMMEDIATE")
                }
                DbConnection::Postgres(postgres) => {
                    AnsiTransactionManager::begin_transaction(postgres).and_then(|()| {
                        postgres.batch_execute(&format!(
                        "SET LOCAL statement_timeout = {millis}; SET LOCAL lock_timeout = {millis}"
                    ))
                    })
                }
            };
            let written = setup.and_then(|()| {
                connection.batch_execute(
                    "UPDATE readiness_probe SET probed_at = CURRENT_TIMESTAMP WHERE id = 1",
                )
            });
            let outcome = match written {
                Ok(()) => {
                    <DbConnection as Connection>::TransactionManager::commit_transaction(connection)
                }
                Err(error) => {
                    let _ = <DbConnection as Connection>::TransactionManager::rollback_transaction(
                        connection,
                    );
                    Err(error)
                }
            };
            if let DbConnection::Sqlite(sqlite) = connection {
                sqlite.batch_execute(SQLITE_BUSY_TIMEOUT)?;
            }
            outcome.map_err(|error| match PersistenceError::from(error) {
                PersistenceError::Query(error) => PersistenceError::Unavailable(error.to_string()),
                other => other,
            })
        })
    }
}

/// Creates the SQLite file (and its directory) if needed, switches it to WAL and runs the
/// pending migrations in one `BEGIN IMMEDIATE` transaction (see [`Database::open_for_start`]).
fn open_sqlite_for_start(url: &str) -> PersistenceResult<Vec<String>> {
    if let Some(parent) = PathBuf::from(url)
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
    {
        create_database_directory(parent)?;
    }
    create_owner_only_file(Path::new(url))?;
    let mut first = diesel::SqliteConnection::establish(url)
        .map_err(|e| PersistenceError::Connection(e.to_string()))?;
    // Another process starting on the same file holds its lock while it switches the file to
    // WAL and for as long as its migrations take: wait longer than a request would, from the
    // first statement on.
    first.batch_execute(&format!("PRAGMA busy_timeout = {SQLITE_START_BUSY_MS}"))?;
    switch_to_wal(&mut first)?;
    crate::list::register_unicode_lower(&mut first)?;
    first.immediate_transaction(|connection| run_pending(connection, SQLITE_MIGRATIONS))
}

/// Creates `directory` (and its parents) readable by its owner only, where it does not exist:
/// the data directory holds the database (password hashes, hashes of tokens and keys) and the
/// token signing key. One that exists keeps the permissions it has.
pub fn create_owner_only_directory(directory: &Path) -> std::io::Result<()> {
    let mut builder = std::fs::DirBuilder::new();
    builder.recursive(true);
    #[cfg(unix)]
    std::os::unix::fs::DirBuilderExt::mode(&mut builder, 0o700);
    builder.create(directory)
}

/// [`create_owner_only_directory`], its error naming the directory.
fn create_database_directory(directory: &Path) -> PersistenceResult<()> {
    create_owner_only_directory(directory).map_err(|e| {
        PersistenceError::Connection(format!("cannot create {}: {e}", directory.display()))
    })
}

/// Creates the SQLite file readable and writable by its owner only (0600), where it does not
/// exist, before SQLite opens it: its `-wal` and `-shm` files take the same permissions. One
/// that exists keeps the permissions it has.
fn create_owner_only_file(path: &Path) -> PersistenceResult<()> {
    let mut options = std::fs::OpenOptions::new();
    options.write(true).create_new(true);
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::mode(&mut options, 0o600);
    match options.open(path) {
        Ok(_) => Ok(()),
        Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => Ok(()),
        Err(e) => Err(PersistenceError::Connection(format!(
            "cannot create {}: {e}",
            path.display()
        ))),
    }
}

/// Runs [`SQLITE_SETTINGS`] (the switch of a new file to WAL first). Two processes switching
/// one new file at once can each hold the lock the other waits for: SQLite then answers
/// "database is locked" at once instead of waiting, so the switch is tried again, for as long
/// as the start may wait.
fn switch_to_wal(connection: &mut diesel::SqliteConnection) -> diesel::QueryResult<()> {
    let deadline =
        std::time::Instant::now() + std::time::Duration::from_millis(SQLITE_START_BUSY_MS.into());
    loop {
        match connection.batch_execute(SQLITE_SETTINGS) {
            Err(diesel::result::Error::DatabaseError(_, info))
                if info.message().contains("database is locked")
                    && std::time::Instant::now() < deadline =>
            {
                std::thread::sleep(std::time::Duration::from_millis(20));
            }
            done => return done,
        }
    }
}

/// The claim of the one instance that serves a SQLite database: an exclusive lock on
/// `<database>.serve-lock`, held until this is dropped (or the process ends, however it ends).
#[derive(Debug)]
pub struct ServeClaim {
    _file: Option<std::fs::File>,
}

/// Claims a SQLite database for one serving instance (docs/operations.md: SQLite is for one
/// instance; several share a PostgreSQL database). A second instance on the same file is
/// refused with a message that says so; the command line's batch jobs do not claim, so they
/// still run beside the server. On PostgreSQL there is nothing to claim.
pub fn claim_for_serving(config: &DatabaseConfig) -> PersistenceResult<ServeClaim> {
    let (backend, url) = config.resolve()?;
    if backend == Backend::Postgres {
        return Ok(ServeClaim { _file: None });
    }
    let path = PathBuf::from(format!("{url}.serve-lock"));
    if let Some(parent) = path.parent().filter(|p| !p.as_os_str().is_empty()) {
        create_database_directory(parent)?;
    }
    let file = std::fs::OpenOptions::new()
        .create(true)
        .truncate(false)
        .write(true)
        .open(&path)
        .map_err(|e| {
            PersistenceError::Connection(format!("cannot open {}: {e}", path.display()))
        })?;
    match file.try_lock() {
        Ok(()) => Ok(ServeClaim { _file: Some(file) }),
        Err(std::fs::TryLockError::WouldBlock) => Err(PersistenceError::Connection(format!(
            "another billing instance is serving the SQLite database {url} (it holds {}); \
             SQLite serves one instance: stop the other one, or use PostgreSQL (DATABASE_URL) \
             to run several",
            path.display()
        ))),
        Err(std::fs::TryLockError::Error(e)) => Err(PersistenceError::Connection(format!(
            "cannot lock {}: {e}",
            path.display()
        ))),
    }
}

/// Runs the migrations `connection` has not run yet and returns their names
/// (`2026-11-24-000001_rating_changes`), oldest first.
fn run_pending<C>(connection: &mut C, source: EmbeddedMigrations) -> PersistenceResult<Vec<String>>
where
    C: MigrationHarness<C::Backend> + Connection,
{
    let pending = connection
        .pending_migrations(source)
        .map_err(|e| PersistenceError::Migration(e.to_string()))?;
    let names = pending.iter().map(|m| m.name().to_string()).collect();
    connection
        .run_migrations(&pending)
        .map_err(|e| PersistenceError::Migration(e.to_string()))?;
    Ok(names)
}
