//! The connection pool: how a connection is opened and set up, and what the pool counts.

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use diesel::connection::SimpleConnection;
use diesel::prelude::*;
use diesel::r2d2::{CustomizeConnection, ManageConnection};

use super::{Backend, DbConnection};

/// Settings every SQLite connection gets: wait for locks instead of failing
/// ([`SQLITE_BUSY_TIMEOUT`]), then [`SQLITE_SETTINGS`]: write-ahead log, durable commits (an
/// acknowledged write survives a crash), foreign keys enforced. Every SQLite connection also
/// gets a Unicode `lower` (`list::register_unicode_lower`).
pub(super) const SQLITE_PRAGMAS: [&str; 2] = [SQLITE_BUSY_TIMEOUT, SQLITE_SETTINGS];

/// How long a SQLite writer waits for its turn among this process's writers: the busy
/// timeout a pooled connection waits for other processes' (as in [`SQLITE_PRAGMAS`]).
pub(super) const SQLITE_WRITE_PATIENCE: Duration = Duration::from_secs(5);

/// The busy timeout of a pooled SQLite connection (as in [`SQLITE_PRAGMAS`]).
pub(super) const SQLITE_BUSY_TIMEOUT: &str = "PRAGMA busy_timeout = 5000";

/// [`SQLITE_PRAGMAS`] but the busy timeout: what the start's first connection runs once its own,
/// longer timeout is set (switching a new file to WAL waits for another process's lock).
pub(super) const SQLITE_SETTINGS: &str =
    "PRAGMA journal_mode = WAL; PRAGMA synchronous = FULL; PRAGMA foreign_keys = ON;";

#[derive(Debug)]
pub(super) struct ConnectionSetup;

impl CustomizeConnection<Pooled, diesel::r2d2::Error> for ConnectionSetup {
    fn on_acquire(&self, connection: &mut Pooled) -> Result<(), diesel::r2d2::Error> {
        if let DbConnection::Sqlite(sqlite) = &mut connection.connection {
            for pragmas in SQLITE_PRAGMAS {
                sqlite
                    .batch_execute(pragmas)
                    .map_err(diesel::r2d2::Error::QueryError)?;
            }
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
    pub(super) connection: DbConnection,
    pub(super) lost: bool,
    /// When a request last used it (or it was opened).
    pub(super) last_used: std::time::Instant,
}

/// How long a PostgreSQL connection may sit idle in the pool before it is checked with one
/// round trip as it is taken: the server may have closed it meanwhile (a killed session, a
/// restart, an idle timeout), and the request that took it would be the 503 that finds out. A
/// busy pool's connections are never idle that long, so the check costs them nothing.
pub const CHECKED_AFTER_IDLE: std::time::Duration = std::time::Duration::from_secs(5);

impl Pooled {
    /// Whether it may be used: checked first (`SELECT 1`) when it is a PostgreSQL connection
    /// idle for [`CHECKED_AFTER_IDLE`] or more; a dead one is marked lost, and the pool drops it.
    pub(super) fn alive(&mut self) -> bool {
        let idle = self.last_used.elapsed() >= CHECKED_AFTER_IDLE;
        if idle
            && matches!(self.connection, DbConnection::Postgres(_))
            && self.connection.batch_execute("SELECT 1").is_err()
        {
            self.lost = true;
        }
        !self.lost
    }
}

/// Opens connections with the backend the URL names (so a failure says why: "connection
/// refused", not diesel's "Invalid connection url for multiconnection"), and tells the pool
/// which ones to drop.
#[derive(Debug)]
pub(super) struct Manager {
    pub(super) backend: Backend,
    pub(super) url: String,
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
            last_used: std::time::Instant::now(),
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
pub(super) struct PoolEvents {
    /// Checkouts by the first bucket of [`CHECKOUT_BUCKETS`] they fit (the last: beyond).
    pub(super) buckets: [AtomicU64; CHECKOUT_BUCKETS.len() + 1],
    pub(super) wait_nanos: AtomicU64,
    pub(super) timeouts: AtomicU64,
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

/// The pool's event handler: the counters, shared with the [`Database`] that reads them.
#[derive(Debug)]
pub(super) struct SharedEvents(pub(super) Arc<PoolEvents>);

impl r2d2::HandleEvent for SharedEvents {
    fn handle_checkout(&self, event: r2d2::event::CheckoutEvent) {
        self.0.handle_checkout(event);
    }

    fn handle_timeout(&self, event: r2d2::event::TimeoutEvent) {
        self.0.handle_timeout(event);
    }
}
