//! The tokens of the data a count was taken on (see the module documentation of `counts`):
//! the state a connection sees, and the change counts of tables.

use std::sync::atomic::{AtomicI64, Ordering};

use diesel::pg::Pg;
use diesel::query_builder::{AstPass, Query, QueryFragment, QueryId};
use diesel::sql_types::{BigInt, Text};
use diesel::sqlite::Sqlite;
use diesel::{QueryResult, RunQueryDsl};

use crate::DbConnection;

diesel::define_sql_function! {
    /// A number of this process naming one SQLite connection, registered on every pooled
    /// connection by [`register_connection_id`].
    fn billing_connection_id() -> BigInt;
}

/// Gives a pooled SQLite connection its own `billing_connection_id()`.
pub fn register_connection_id(connection: &mut diesel::SqliteConnection) -> QueryResult<()> {
    static NEXT: AtomicI64 = AtomicI64::new(1);
    let id = NEXT.fetch_add(1, Ordering::Relaxed);
    billing_connection_id_utils::register_impl(connection, move || id)
}

/// The state of the data a connection sees (see the module documentation).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum DataState {
    Sqlite {
        connection: i64,
        changes: i64,
        version: i64,
    },
    Postgres {
        snapshot: String,
        /// No transaction of the server held a transaction id (see [`DataState::quiet`]).
        quiet: bool,
    },
}

impl DataState {
    /// Whether a count taken right after this state was read may be kept by the change
    /// counts of its tables, read just before: on SQLite always (the counters are written in
    /// the writing transaction, so a commit that a count sees and the counters read before it
    /// do not is one the next reading of the counters shows); on PostgreSQL only when no
    /// transaction of the server held a transaction id as the state was read: a writer
    /// advances its table's sequence before it commits, so one in progress could have advanced
    /// it before the counters were read and commit after the count. (The snapshot's `xip`
    /// cannot say so: it lists only transactions below its `xmax`, the latest completed one
    /// plus one, and a writer that started after that is in progress without being listed;
    /// every transaction holding an id holds a lock on it, which `pg_locks` shows.)
    pub(super) fn quiet(&self) -> bool {
        match self {
            Self::Sqlite { .. } => true,
            Self::Postgres { quiet, .. } => *quiet,
        }
    }

    /// Whether `other` replaces `self` in a key's list: the same SQLite connection, or any
    /// PostgreSQL snapshot (a later one makes an earlier one useless).
    pub(super) fn same_source(&self, other: &DataState) -> bool {
        match (self, other) {
            (Self::Sqlite { connection, .. }, Self::Sqlite { connection: o, .. }) => {
                connection == o
            }
            (Self::Postgres { .. }, Self::Postgres { .. }) => true,
            _ => false,
        }
    }
}

/// The SQLite token query. Its SQL is fixed, so the connection keeps it prepared.
#[derive(Debug, Clone, Copy, QueryId)]
struct SqliteDataState;

impl Query for SqliteDataState {
    type SqlType = (BigInt, BigInt, BigInt);
}

impl QueryFragment<Sqlite> for SqliteDataState {
    fn walk_ast<'b>(&'b self, mut out: AstPass<'_, 'b, Sqlite>) -> QueryResult<()> {
        out.push_sql(
            "SELECT billing_connection_id(), total_changes(), data_version \
             FROM pragma_data_version()",
        );
        Ok(())
    }
}

impl RunQueryDsl<diesel::SqliteConnection> for SqliteDataState {}

/// The PostgreSQL token query. Its SQL is fixed, so the connection keeps it prepared.
#[derive(Debug, Clone, Copy, QueryId)]
struct PostgresDataState;

impl Query for PostgresDataState {
    type SqlType = (Text, diesel::sql_types::Bool);
}

impl QueryFragment<Pg> for PostgresDataState {
    fn walk_ast<'b>(&'b self, mut out: AstPass<'_, 'b, Pg>) -> QueryResult<()> {
        out.push_sql(
            "SELECT pg_current_snapshot()::text || ' ' || current_database() || ' ' \
             || current_setting('port'), \
             NOT EXISTS (SELECT 1 FROM pg_locks WHERE locktype = 'transactionid')",
        );
        Ok(())
    }
}

impl RunQueryDsl<diesel::PgConnection> for PostgresDataState {}

/// The SQLite query of the change counts of some tables (`table_changes`, kept by triggers):
/// the database file, then `name:changes,…`, or NULL unless every table named has its row.
/// The file tells apart the databases of one process (the remembered counts are the
/// process's; tests run many services in one).
#[derive(Debug, Clone, Copy)]
struct SqliteTableChanges<'a> {
    names: &'a str,
    how_many: i64,
}

impl Query for SqliteTableChanges<'_> {
    type SqlType = diesel::sql_types::Nullable<Text>;
}

impl QueryId for SqliteTableChanges<'_> {
    type QueryId = SqliteTableChanges<'static>;
    const HAS_STATIC_QUERY_ID: bool = true;
}

impl QueryFragment<Sqlite> for SqliteTableChanges<'_> {
    fn walk_ast<'b>(&'b self, mut out: AstPass<'_, 'b, Sqlite>) -> QueryResult<()> {
        out.push_sql("SELECT CASE WHEN count(*) = ");
        out.push_bind_param::<BigInt, _>(&self.how_many)?;
        out.push_sql(
            " THEN (SELECT file FROM pragma_database_list WHERE name = 'main') || ' ' \
             || group_concat(name || ':' || changes) END FROM (SELECT name, changes \
             FROM table_changes WHERE instr(',' || ",
        );
        out.push_bind_param::<Text, _>(&self.names)?;
        out.push_sql(" || ',', ',' || name || ',') > 0 ORDER BY name)");
        Ok(())
    }
}

impl RunQueryDsl<diesel::SqliteConnection> for SqliteTableChanges<'_> {}

/// The PostgreSQL query of the change counts of some tables (the `changes_of_<table>`
/// sequences, advanced by triggers): the server's address, port and database, then
/// `name:value,…`, or NULL unless every table named has its sequence.
#[derive(Debug, Clone, Copy)]
struct PostgresTableChanges<'a> {
    names: &'a str,
}

impl Query for PostgresTableChanges<'_> {
    type SqlType = diesel::sql_types::Nullable<Text>;
}

impl QueryId for PostgresTableChanges<'_> {
    type QueryId = PostgresTableChanges<'static>;
    const HAS_STATIC_QUERY_ID: bool = true;
}

impl QueryFragment<Pg> for PostgresTableChanges<'_> {
    fn walk_ast<'b>(&'b self, mut out: AstPass<'_, 'b, Pg>) -> QueryResult<()> {
        out.push_sql(
            "SELECT CASE WHEN bool_and(to_regclass('changes_of_' || t) IS NOT NULL) THEN \
             COALESCE(host(inet_server_addr()), 'local') || ' ' || current_setting('port') || ' ' \
             || current_database() || ' ' || string_agg(t || ':' \
             || COALESCE(pg_sequence_last_value(to_regclass('changes_of_' || t)), 0), \
             ',' ORDER BY t) END FROM unnest(string_to_array(",
        );
        out.push_bind_param::<Text, _>(&self.names)?;
        out.push_sql(", ',')) AS t");
        Ok(())
    }
}

impl RunQueryDsl<diesel::PgConnection> for PostgresTableChanges<'_> {}

/// The change counts of `tables` (comma-separated names) as `connection` reads them now;
/// `None` when they cannot be read (a database without the counters).
pub(super) fn table_changes(connection: &mut DbConnection, tables: &str) -> Option<String> {
    match connection {
        DbConnection::Sqlite(sqlite) => SqliteTableChanges {
            names: tables,
            how_many: i64::try_from(tables.split(',').count()).unwrap_or(i64::MAX),
        }
        .get_result::<Option<String>>(sqlite)
        .ok()
        .flatten(),
        DbConnection::Postgres(postgres) => PostgresTableChanges { names: tables }
            .get_result::<Option<String>>(postgres)
            .ok()
            .flatten(),
    }
}

/// The token of what `connection` sees now; `None` when it cannot be read (a connection not
/// set up by the pool has no `billing_connection_id`): the count is then not remembered.
///
/// Also `None` inside a transaction: its count sees its own uncommitted writes, which neither
/// token shows (on SQLite a rollback leaves `total_changes()` and `data_version` as they were;
/// on PostgreSQL the snapshot does not list the transaction itself), so such a count must not
/// be given to the same connection after a rollback, nor to another connection.
pub(super) fn data_state(connection: &mut DbConnection) -> Option<DataState> {
    if !super::outside_transactions(connection) {
        return None;
    }
    match connection {
        DbConnection::Sqlite(sqlite) => SqliteDataState
            .get_result::<(i64, i64, i64)>(sqlite)
            .ok()
            .map(|(connection, changes, version)| DataState::Sqlite {
                connection,
                changes,
                version,
            }),
        DbConnection::Postgres(postgres) => PostgresDataState
            .get_result::<(String, bool)>(postgres)
            .ok()
            .map(|(snapshot, quiet)| DataState::Postgres { snapshot, quiet }),
    }
}
