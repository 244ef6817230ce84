//! Choosing the backend, pooling connections, migrating, and running transactions.

use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use diesel::connection::{AnsiTransactionManager, SimpleConnection, TransactionManager};
use diesel::prelude::*;
use diesel::r2d2::{CustomizeConnection, ManageConnection, Pool, PooledConnection};
use diesel_migrations::{EmbeddedMigrations, MigrationHarness, embed_migrations};

use crate::error::{PersistenceError, PersistenceResult, StorageError, StorageFault};

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
const ACCEPTED_URLS: &str = "postgres://USER@HOST:PORT/DATABASE (or postgresql://…) for PostgreSQL, \
     sqlite://PATH or a file path (/…, ./…, ../… or ….db) for SQLite, or unset for billing.db in \
     the data directory";

impl DatabaseConfig {
    /// The backend and its connection string. Anything but the accepted forms is an error
    /// naming them ([`ACCEPTED_URLS`]), never a SQLite file of that name: another scheme
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
                if database.is_empty() {
                    return refused(
                        "DATABASE_URL names no PostgreSQL database (…/DATABASE at its end), and \
                         PostgreSQL would use the user's own"
                            .to_owned(),
                    );
                }
                Ok((Backend::Postgres, url.to_owned()))
            }
            Some(url) if url.starts_with("sqlite://") => Ok((
                Backend::Sqlite,
                url.trim_start_matches("sqlite://").to_owned(),
            )),
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

/// A `DATABASE_URL` without a scheme that names a SQLite file: a path from the root or the
/// working directory, or a name with a SQLite file's extension.
fn looks_like_a_file(url: &str) -> bool {
    url.starts_with('/')
        || url.starts_with("./")
        || url.starts_with("../")
        || [".db", ".sqlite", ".sqlite3"]
            .iter()
            .any(|extension| url.ends_with(extension))
}

macro_rules! sqlite_settings {
    () => {
        "PRAGMA journal_mode = WAL; PRAGMA synchronous = FULL; PRAGMA foreign_keys = ON;"
    };
}

/// Settings every SQLite connection gets: wait for locks instead of failing, write-ahead log,
/// durable commits (an acknowledged write survives a crash), foreign keys enforced. Every
/// SQLite connection also gets a Unicode `lower` (`list::register_unicode_lower`).
const SQLITE_PRAGMAS: &str = concat!("PRAGMA busy_timeout = 5000; ", sqlite_settings!());

/// How long a SQLite writer waits for its turn among this process's writers: the busy
/// timeout a pooled connection waits for other processes' (as in [`SQLITE_PRAGMAS`]).
const SQLITE_WRITE_PATIENCE: Duration = Duration::from_secs(5);

/// The busy timeout of a pooled SQLite connection (as in [`SQLITE_PRAGMAS`]).
const SQLITE_BUSY_TIMEOUT: &str = "PRAGMA busy_timeout = 5000";

/// [`SQLITE_PRAGMAS`] but the busy timeout: what the start's first connection runs once its own,
/// longer timeout is set (switching a new file to WAL waits for another process's lock).
const SQLITE_SETTINGS: &str = sqlite_settings!();

#[derive(Debug)]
struct ConnectionSetup;

impl CustomizeConnection<Pooled, diesel::r2d2::Error> for ConnectionSetup {
    fn on_acquire(&self, connection: &mut Pooled) -> Result<(), diesel::r2d2::Error> {
        if let DbConnection::Sqlite(sqlite) = &mut connection.connection {
            sqlite
                .batch_execute(SQLITE_PRAGMAS)
                .map_err(diesel::r2d2::Error::QueryError)?;
            crate::list::register_unicode_lower(sqlite).map_err(diesel::r2d2::Error::QueryError)?;
            crate::counts::register_connection_id(sqlite)
                .map_err(diesel::r2d2::Error::QueryError)?;
        }
        Ok(())
    }
}

/// A pooled connection, and whether it was lost: the server closed it, restarted or went
/// away. A lost connection is dropped by the pool instead of being handed out again.
pub struct Pooled {
    connection: DbConnection,
    lost: bool,
}

/// Opens connections with the backend the URL names (so a failure says why: "connection
/// refused", not diesel's "Invalid connection url for multiconnection"), and tells the pool
/// which ones to drop.
#[derive(Debug)]
struct Manager {
    backend: Backend,
    url: String,
}

impl ManageConnection for Manager {
    type Connection = Pooled;
    type Error = diesel::r2d2::Error;

    fn connect(&self) -> Result<Pooled, Self::Error> {
        let connection = match self.backend {
            Backend::Postgres => {
                diesel::PgConnection::establish(&self.url).map(DbConnection::Postgres)
            }
            Backend::Sqlite => {
                diesel::SqliteConnection::establish(&self.url).map(DbConnection::Sqlite)
            }
        }
        .map_err(diesel::r2d2::Error::ConnectionError)?;
        Ok(Pooled {
            connection,
            lost: false,
        })
    }

    fn is_valid(&self, pooled: &mut Pooled) -> Result<(), Self::Error> {
        pooled
            .connection
            .batch_execute("SELECT 1")
            .map_err(diesel::r2d2::Error::QueryError)
    }

    fn has_broken(&self, pooled: &mut Pooled) -> bool {
        pooled.lost
            || std::thread::panicking()
            || diesel::r2d2::R2D2Connection::is_broken(&mut pooled.connection)
    }
}

/// The upper bounds, in seconds, of the buckets of [`PoolStatus::checkout_buckets`]. A
/// checkout that finds an idle connection takes a few microseconds; one in a bucket past the
/// first waited for a connection to come back (or to be made).
pub const CHECKOUT_BUCKETS: [f64; 6] = [0.0001, 0.001, 0.01, 0.1, 1.0, 5.0];

/// What the pool reports of its checkouts, counted with relaxed atomics only: no lock and no
/// allocation per checkout.
#[derive(Debug, Default)]
struct PoolEvents {
    /// Checkouts by the first bucket of [`CHECKOUT_BUCKETS`] they fit (the last: beyond).
    buckets: [AtomicU64; CHECKOUT_BUCKETS.len() + 1],
    wait_nanos: AtomicU64,
    timeouts: AtomicU64,
}

impl r2d2::HandleEvent for PoolEvents {
    fn handle_checkout(&self, event: r2d2::event::CheckoutEvent) {
        let waited = event.duration();
        let seconds = waited.as_secs_f64();
        let bucket = CHECKOUT_BUCKETS
            .iter()
            .position(|bound| seconds <= *bound)
            .unwrap_or(CHECKOUT_BUCKETS.len());
        self.buckets[bucket].fetch_add(1, Ordering::Relaxed);
        self.wait_nanos.fetch_add(
            u64::try_from(waited.as_nanos()).unwrap_or(u64::MAX),
            Ordering::Relaxed,
        );
    }

    fn handle_timeout(&self, _event: r2d2::event::TimeoutEvent) {
        self.timeouts.fetch_add(1, Ordering::Relaxed);
    }
}

/// The pool as `/metrics` shows it.
#[derive(Debug, Clone, PartialEq)]
pub struct PoolStatus {
    /// The most connections the pool keeps.
    pub max_connections: u32,
    /// Connections open now, busy or idle.
    pub connections: u32,
    /// Open connections no one holds.
    pub idle_connections: u32,
    /// Checkouts so far whose wait fits each bucket of [`CHECKOUT_BUCKETS`] (not cumulative),
    /// then those beyond the last.
    pub checkout_buckets: [u64; CHECKOUT_BUCKETS.len() + 1],
    /// Time spent waiting for connections, over all checkouts, in seconds.
    pub checkout_wait_seconds: f64,
    /// Checkouts that gave up after the connection timeout.
    pub timeouts: u64,
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

/// The start-up lock of [`Database::open_for_start`]: on PostgreSQL, the session holding the
/// advisory lock, unlocked when this is dropped; on SQLite, nothing.
pub struct StartLock {
    connection: Option<diesel::PgConnection>,
}

impl StartLock {
    /// Unlocks now (as dropping does).
    pub fn release(self) {}
}

impl Drop for StartLock {
    fn drop(&mut self) {
        if let Some(mut connection) = self.connection.take()
            && let Err(error) =
                connection.batch_execute(&format!("SELECT pg_advisory_unlock({START_LOCK_KEY})"))
        {
            // Closing the session (as dropping the connection does next) releases it anyway.
            tracing::warn!(%error, "could not release the start-up lock");
        }
    }
}

impl std::fmt::Debug for StartLock {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("StartLock")
            .field("held", &self.connection.is_some())
            .finish()
    }
}

/// The connection pool; cheap to clone.
#[derive(Clone)]
pub struct Database {
    pool: Pool<Manager>,
    backend: Backend,
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
                let mut first = diesel::PgConnection::establish(&url)
                    .map_err(|e| PersistenceError::Connection(e.to_string()))?;
                first.batch_execute(&format!("SELECT pg_advisory_lock({START_LOCK_KEY})"))?;
                // From here on, dropping `lock` unlocks (and closes the connection).
                let mut lock = StartLock {
                    connection: Some(first),
                };
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
                (applied, StartLock { connection: None })
            }
        };
        let events = Arc::new(PoolEvents::default());
        let pool = Pool::builder()
            .max_size(config.pool_size.max(1))
            .connection_timeout(config.connection_timeout)
            .test_on_check_out(false)
            .connection_customizer(Box::new(ConnectionSetup))
            .event_handler(Box::new(SharedEvents(events.clone())))
            .build(Manager { backend, url })
            .map_err(|e| PersistenceError::Connection(e.to_string()))?;
        Ok((
            Self {
                pool,
                backend,
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
        let mut pooled = self.pool.get().map_err(PersistenceError::from)?;
        run_noting_loss(&mut pooled, work)
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
            Some(mut pooled) => Ok(run_noting_loss(&mut pooled, work)),
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
    pub fn write<T, E>(
        &self,
        mut work: impl FnMut(&mut DbConnection) -> Result<T, E>,
    ) -> Result<T, E>
    where
        E: StorageError,
    {
        let mut pooled = self.pool.get().map_err(PersistenceError::from)?;
        let _turn = match self.backend {
            Backend::Sqlite => Some(self.turns.wait(SQLITE_WRITE_PATIENCE)?),
            Backend::Postgres => None,
        };
        let mut attempt = 1;
        loop {
            let outcome = run_noting_loss(&mut pooled, |connection| {
                write_transaction(connection, &mut work)
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
        std::fs::create_dir_all(parent).map_err(|e| {
            PersistenceError::Connection(format!("cannot create {}: {e}", parent.display()))
        })?;
    }
    let mut first = diesel::SqliteConnection::establish(url)
        .map_err(|e| PersistenceError::Connection(e.to_string()))?;
    // Another process starting on the same file holds its lock while it switches the file to
    // WAL and for as long as its migrations take: wait longer than a request would, from the
    // first statement on.
    first.batch_execute(&format!("PRAGMA busy_timeout = {SQLITE_START_BUSY_MS}"))?;
    first.batch_execute(SQLITE_SETTINGS)?;
    crate::list::register_unicode_lower(&mut first)?;
    first.immediate_transaction(|connection| run_pending(connection, SQLITE_MIGRATIONS))
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
        std::fs::create_dir_all(parent).map_err(|e| {
            PersistenceError::Connection(format!("cannot create {}: {e}", parent.display()))
        })?;
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

/// The pool's event handler: the counters, shared with the [`Database`] that reads them.
#[derive(Debug)]
struct SharedEvents(Arc<PoolEvents>);

impl r2d2::HandleEvent for SharedEvents {
    fn handle_checkout(&self, event: r2d2::event::CheckoutEvent) {
        self.0.handle_checkout(event);
    }

    fn handle_timeout(&self, event: r2d2::event::TimeoutEvent) {
        self.0.handle_timeout(event);
    }
}

/// How many times [`Database::write`] runs a transaction that lost a race on PostgreSQL
/// before answering [`PersistenceError::WriteConflict`].
pub const WRITE_ATTEMPTS: u32 = 5;

/// One write transaction on `connection`: `BEGIN IMMEDIATE` on SQLite, `SERIALIZABLE` on
/// PostgreSQL; committed when `work` succeeds, rolled back otherwise.
fn write_transaction<T, E>(
    connection: &mut DbConnection,
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
            "BEGIN ISOLATION LEVEL SERIALIZABLE",
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

/// Runs `work` on a pooled connection and marks the connection lost when the error says the
/// database went away, so that the pool opens a new one instead of handing it out again.
fn run_noting_loss<T, E: StorageError>(
    pooled: &mut PooledConnection<Manager>,
    work: impl FnOnce(&mut DbConnection) -> Result<T, E>,
) -> Result<T, E> {
    let outcome = work(&mut pooled.connection);
    if let Err(error) = &outcome
        && error.storage_fault() == Some(StorageFault::Unavailable)
        && pooled.connection.batch_execute("SELECT 1").is_err()
    {
        pooled.lost = true;
    }
    outcome
}

/// A short pause before running a conflicting transaction again, growing with each attempt
/// and spread by the clock's nanoseconds so that racing writers do not meet again in step.
fn retry_pause(attempt: u32) -> Duration {
    let spread = u64::from(
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |now| now.subsec_nanos()),
    ) % 1000;
    Duration::from_micros(u64::from(attempt) * 2000 + spread * u64::from(attempt))
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
            let rest = rest.split(['?', '#']).next().unwrap_or_default();
            let (authority, database) = rest.split_once('/').unwrap_or((rest, ""));
            let (user, host) = match authority.rsplit_once('@') {
                Some((credentials, host)) => (
                    credentials.split(':').next().filter(|u| !u.is_empty()),
                    host,
                ),
                None => (None, authority),
            };
            let host = if host.is_empty() { "localhost" } else { host };
            let database = if database.is_empty() {
                "(the user's default)"
            } else {
                database
            };
            match user {
                Some(user) => {
                    format!("PostgreSQL database {database} on {host} as user {user}")
                }
                None => format!("PostgreSQL database {database} on {host}"),
            }
        }
    }
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
        insta::assert_snapshot!(
            describe_location(Backend::Sqlite, "/var/lib/billing/billing.db"),
            @"SQLite database /var/lib/billing/billing.db"
        );
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
        assert_eq!(resolve(Some("./data/billing.db")), Ok(Backend::Sqlite));
        assert_eq!(resolve(Some("billing.sqlite3")), Ok(Backend::Sqlite));
    }
}
