//! `X-Total-Count` without counting every time: a list's total is taken from its page when the
//! page says it (a page shorter than its size is the last one), and otherwise counted once per
//! query and state of the data, then remembered until the data changes.
//!
//! A count over a large table looks at every matching row (tens of milliseconds at 100,000
//! rows), while the page itself stops after its rows. A client paging through a list asks the
//! same count again on every page, so each count is remembered with a token of the data it
//! was counted on, read before the count; it is used again only while a fresh token is equal,
//! which means no transaction has committed since on any connection, in this process or
//! another. The remembered total is therefore exact, never a second late:
//!
//! - **SQLite**: the token is the connection's identity, `total_changes()` (this connection's
//!   own writes) and `PRAGMA data_version` (which changes on a connection when any other
//!   connection, of any process, commits). Tokens compare only on the same connection.
//! - **PostgreSQL**: the token is the current snapshot (`pg_current_snapshot()`: the highest
//!   finished transaction and the ones in progress), with the database's name and port. Equal
//!   snapshots see exactly the same committed transactions, and a count taken between two equal
//!   snapshots sees what both see. Any write on the server changes it.
//!
//! A count is also kept by the **change counts of the tables its list reads** (the resource's
//! own, those its scope goes through and those its filters reach: `TABLES_READ` of each stored
//! resource), read just before the state above: while they are unchanged, no write to those
//! tables has committed, so a commit elsewhere (an audit event, another resource, a sign-in)
//! does not cost the next list its count. Triggers keep the counts in the database, whoever
//! writes (migration `2026-11-27-000002_table_changes`): on SQLite a `table_changes` row per
//! table, moved in the writing transaction; on PostgreSQL a sequence per table
//! (`changes_of_<table>`), advanced by a statement trigger before the writer commits, which is
//! why a PostgreSQL count is kept by them only when no transaction held a transaction id as
//! it was taken ([`DataState::quiet`]). Where the counters cannot be read, only the state above keeps
//! a count.
//!
//! The tokens cost two small prepared statements. The key is the table, the filters, the
//! caller's scope and today's date (filters such as `activeSites` depend on it). At most
//! [`KEYS_KEPT`] keys are kept; a key longer than [`KEY_MAX_BYTES`] is never kept.

use std::collections::HashMap;
use std::sync::atomic::{AtomicI64, Ordering};
use std::sync::{LazyLock, Mutex, MutexGuard, PoisonError};

use billing_domain::query::{CountPreference, ESTIMATED_EXACT_UP_TO, PageRequest};
use diesel::pg::Pg;
use diesel::query_builder::{AstPass, Query, QueryFragment, QueryId};
use diesel::sql_types::{BigInt, Text};
use diesel::sqlite::Sqlite;
use diesel::{QueryResult, RunQueryDsl};

use crate::DbConnection;
use crate::connection::MultiBackend;
use crate::error::PersistenceResult;

/// At most this many queries' counts are remembered (when full, all are forgotten).
pub const KEYS_KEPT: usize = 1024;
/// A query whose key is longer than this is always counted.
pub const KEY_MAX_BYTES: usize = 2048;
/// At most this many tokens per key (one per pooled SQLite connection, up to the pool size).
const TOKENS_PER_KEY: usize = 32;

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
enum DataState {
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
    fn quiet(&self) -> bool {
        match self {
            Self::Sqlite { .. } => true,
            Self::Postgres { quiet, .. } => *quiet,
        }
    }

    /// Whether `other` replaces `self` in a key's list: the same SQLite connection, or any
    /// PostgreSQL snapshot (a later one makes an earlier one useless).
    fn same_source(&self, other: &DataState) -> bool {
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
fn table_changes(connection: &mut DbConnection, tables: &str) -> Option<String> {
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
fn data_state(connection: &mut DbConnection) -> Option<DataState> {
    use diesel::connection::{AnsiTransactionManager, TransactionManager};
    let outside_transactions = match connection {
        DbConnection::Sqlite(sqlite) => {
            AnsiTransactionManager::transaction_manager_status_mut(sqlite).transaction_depth()
        }
        DbConnection::Postgres(postgres) => {
            AnsiTransactionManager::transaction_manager_status_mut(postgres).transaction_depth()
        }
    };
    if !matches!(outside_transactions, Ok(None)) {
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

/// A remembered count: the state it was counted in, the change counts of its tables when
/// they may vouch for it (see [`DataState::quiet`]), and the total.
struct Counted {
    state: DataState,
    tables: Option<String>,
    total: i64,
}

type Remembered = HashMap<String, Vec<Counted>>;

static REMEMBERED: LazyLock<Mutex<Remembered>> = LazyLock::new(Mutex::default);

fn remembered() -> MutexGuard<'static, Remembered> {
    // The map holds no invariant a panic could break halfway.
    REMEMBERED.lock().unwrap_or_else(PoisonError::into_inner)
}

/// How many rows match a list query, given the page already loaded for it (`loaded` rows of
/// `page`; every matching row when `page` is `None`).
///
/// - No page: the rows loaded are all of them.
/// - A page with some rows but fewer than its size is the last: `offset + loaded`.
/// - An empty first page: none match.
/// - Otherwise: the count remembered for `key()` on the same data, or `count` (remembered).
pub fn total(
    connection: &mut DbConnection,
    page: Option<PageRequest>,
    loaded: usize,
    key: impl FnOnce() -> String,
    tables: &str,
    preference: CountPreference,
    mut count: impl FnMut(&mut DbConnection, Counting) -> PersistenceResult<i64>,
) -> PersistenceResult<i64> {
    let loaded = i64::try_from(loaded).unwrap_or(i64::MAX);
    let Some(page) = page else {
        return Ok(loaded);
    };
    if (loaded > 0 && loaded < page.limit()) || (loaded == 0 && page.offset() == 0) {
        return Ok(page.offset() + loaded);
    }
    if preference != CountPreference::Exact && matches!(connection, DbConnection::Postgres(_)) {
        // The pages up to this one hold `offset + loaded` rows: an estimate is never fewer.
        let planned = count(connection, Counting::Plan)?.max(page.offset() + loaded);
        if preference == CountPreference::Planned || planned > ESTIMATED_EXACT_UP_TO {
            return Ok(planned);
        }
    }
    let mut count = |connection: &mut DbConnection| count(connection, Counting::Rows);
    let key = key();
    if key.len() > KEY_MAX_BYTES {
        return count(connection);
    }
    // Read before counting, the tables' counters first: a commit in between changes the next
    // reading, never this count's.
    let changes = table_changes(connection, tables);
    let Some(state) = data_state(connection) else {
        return count(connection);
    };
    if let Some(total) = remembered().get(&key).and_then(|counted| {
        counted
            .iter()
            .find(|c| c.state == state || (c.tables.is_some() && c.tables == changes))
            .map(|c| c.total)
    }) {
        return Ok(total);
    }
    let total = count(connection)?;
    let mut remembered = remembered();
    if remembered.len() >= KEYS_KEPT && !remembered.contains_key(&key) {
        remembered.clear();
    }
    let counted = remembered.entry(key).or_default();
    counted.retain(|c| !c.state.same_source(&state));
    if counted.len() >= TOKENS_PER_KEY {
        counted.remove(0);
    }
    counted.push(Counted {
        tables: changes.filter(|_| state.quiet()),
        state,
        total,
    });
    Ok(total)
}

/// What a list's count closure is asked for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Counting {
    /// Count the rows.
    Rows,
    /// The PostgreSQL planner's estimate of the rows ([`planned_rows`]).
    Plan,
}

/// `EXPLAIN (FORMAT JSON)` of a query, which PostgreSQL answers with its plan as one JSON text.
#[derive(Debug, Clone)]
pub struct Explain<Q>(pub Q);

impl<Q> QueryId for Explain<Q> {
    type QueryId = ();
    const HAS_STATIC_QUERY_ID: bool = false;
}

impl<Q> Query for Explain<Q> {
    type SqlType = Text;
}

impl<Q: QueryFragment<MultiBackend>> QueryFragment<MultiBackend> for Explain<Q> {
    fn walk_ast<'b>(&'b self, mut out: AstPass<'_, 'b, MultiBackend>) -> QueryResult<()> {
        out.push_sql("EXPLAIN (FORMAT JSON) ");
        self.0.walk_ast(out.reborrow())
    }
}

impl<Q> RunQueryDsl<DbConnection> for Explain<Q> {}

/// The PostgreSQL planner's estimate of the rows `count_query` (a `SELECT COUNT(*)`) counts,
/// without running it: the estimate of the plan under the aggregate, times the workers'
/// share when the scan is parallel (the planner's own divisor: the workers, plus the leader's
/// part, 1 − 0.3 a worker).
pub fn planned_rows<Q>(connection: &mut DbConnection, count_query: Q) -> PersistenceResult<i64>
where
    Explain<Q>:
        QueryFragment<MultiBackend> + diesel::query_dsl::LoadQuery<'static, DbConnection, String>,
{
    let text: String = Explain(count_query).get_result(connection)?;
    Ok(rows_of_plan(&text).unwrap_or(0))
}

/// The rows under the aggregate of an `EXPLAIN (FORMAT JSON)` plan (see [`planned_rows`]).
fn rows_of_plan(text: &str) -> Option<i64> {
    let plans: serde_json::Value = serde_json::from_str(text).ok()?;
    let mut node = plans.get(0)?.get("Plan")?;
    let mut workers = 0.0;
    while let "Aggregate" | "Gather" | "Gather Merge" = node.get("Node Type")?.as_str()? {
        if let Some(planned) = node.get("Workers Planned").and_then(|w| w.as_f64()) {
            workers = planned;
        }
        node = node.get("Plans")?.get(0)?;
    }
    let mut rows = node.get("Plan Rows")?.as_f64()?;
    if workers > 0.0 && node.get("Parallel Aware").and_then(|p| p.as_bool()) == Some(true) {
        rows *= workers + (1.0 - 0.3 * workers).max(0.0);
    }
    Some(rows.round() as i64)
}

/// Forgets every remembered count (for tests that count the statements a page costs).
pub fn forget_all() {
    remembered().clear();
}

/// The table of a list's source as `stringify!` writes it (`countries :: table`).
pub fn table_of(source: &str) -> &str {
    source.split("::").next().unwrap_or(source).trim()
}

/// The key of a list query's count: the table, the filters, the scope and today's date.
pub fn key(table: &str, filters: &impl std::fmt::Debug, scope: &impl std::fmt::Debug) -> String {
    format!(
        "{table} {filters:?} {scope:?} {}",
        chrono::Utc::now().date_naive()
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use diesel::Connection;

    fn page(page: u32, page_size: u32) -> Option<PageRequest> {
        Some(PageRequest { page, page_size })
    }

    fn never_counted(_: &mut DbConnection, _: Counting) -> PersistenceResult<i64> {
        panic!("the page said the total")
    }

    fn sqlite() -> DbConnection {
        let mut sqlite = diesel::SqliteConnection::establish(":memory:").expect("sqlite");
        register_connection_id(&mut sqlite).expect("registered");
        DbConnection::Sqlite(sqlite)
    }

    #[test]
    fn a_plan_gives_the_rows_under_its_aggregate() {
        let plain = r#"[{"Plan": {"Node Type": "Aggregate", "Plan Rows": 1, "Plans": [
            {"Node Type": "Bitmap Heap Scan", "Parallel Aware": false, "Plan Rows": 1969}]}}]"#;
        assert_eq!(rows_of_plan(plain), Some(1969));
        // Finalize Aggregate → Gather (2 workers) → Partial Aggregate → Parallel Seq Scan
        // of 416,667 rows a participant: 2 workers and the leader's 0.4.
        let parallel = r#"[{"Plan": {"Node Type": "Aggregate", "Plan Rows": 1, "Plans": [
            {"Node Type": "Gather", "Workers Planned": 2, "Plan Rows": 2, "Plans": [
            {"Node Type": "Aggregate", "Plan Rows": 1, "Plans": [
            {"Node Type": "Seq Scan", "Parallel Aware": true, "Plan Rows": 416667}]}]}]}}]"#;
        assert_eq!(rows_of_plan(parallel), Some(1_000_001));
        assert_eq!(rows_of_plan("not json"), None);
    }

    #[test]
    fn a_short_or_empty_first_page_gives_the_total_without_counting() {
        let mut connection = sqlite();
        let mut total = |page, loaded| {
            total(
                &mut connection,
                page,
                loaded,
                String::new,
                "t",
                CountPreference::Exact,
                never_counted,
            )
            .expect("total")
        };
        assert_eq!(total(None, 7), 7);
        assert_eq!(total(page(1, 10), 0), 0);
        assert_eq!(total(page(1, 10), 9), 9);
        assert_eq!(total(page(3, 10), 4), 24);
    }

    #[test]
    fn a_full_page_or_a_page_past_the_end_is_counted_once_per_state_of_the_data() {
        use diesel::connection::SimpleConnection;
        let mut connection = sqlite();
        let key = || key("counts_test", &"a full page", &"everyone");
        let counted = std::cell::Cell::new(0);
        let count = |connection: &mut DbConnection, page, loaded| {
            total(
                connection,
                page,
                loaded,
                key,
                "t",
                CountPreference::Exact,
                |_, _| {
                    counted.set(counted.get() + 1);
                    Ok(40)
                },
            )
            .expect("total")
        };
        assert_eq!(count(&mut connection, page(1, 10), 10), 40);
        assert_eq!(count(&mut connection, page(2, 10), 10), 40);
        assert_eq!(count(&mut connection, page(9, 10), 0), 40, "past the end");
        assert_eq!(counted.get(), 1, "the same data: remembered");
        if let DbConnection::Sqlite(sqlite) = &mut connection {
            sqlite
                .batch_execute("CREATE TABLE t (x INTEGER); INSERT INTO t VALUES (1);")
                .expect("write");
        }
        assert_eq!(count(&mut connection, page(1, 10), 10), 40);
        assert_eq!(counted.get(), 2, "this connection wrote: counted again");
        let mut other = sqlite();
        assert_eq!(count(&mut other, page(1, 10), 10), 40);
        assert_eq!(counted.get(), 3, "another connection: its own token");
    }

    #[test]
    fn a_commit_on_another_connection_to_the_same_file_is_seen() {
        use diesel::connection::SimpleConnection;
        let path = std::env::temp_dir().join(format!(
            "billing_counts_{}.db",
            uuid::Uuid::new_v4().simple()
        ));
        let open = || {
            let mut sqlite =
                diesel::SqliteConnection::establish(path.to_str().expect("utf-8")).expect("sqlite");
            register_connection_id(&mut sqlite).expect("registered");
            sqlite
                .batch_execute(
                    "PRAGMA journal_mode = WAL; CREATE TABLE IF NOT EXISTS t (x INTEGER);",
                )
                .expect("set up");
            sqlite
        };
        let (mut reader, mut writer) = (DbConnection::Sqlite(open()), open());
        let mut counted = 0;
        let mut count = |connection: &mut DbConnection| {
            total(
                connection,
                page(1, 1),
                1,
                || key("counts_test_file", &"", &""),
                "t",
                CountPreference::Exact,
                |_, _| {
                    counted += 1;
                    Ok(counted)
                },
            )
            .expect("total")
        };
        assert_eq!(count(&mut reader), 1);
        assert_eq!(count(&mut reader), 1, "nothing committed");
        writer
            .batch_execute("INSERT INTO t VALUES (1)")
            .expect("write");
        assert_eq!(count(&mut reader), 2, "another connection committed");
        assert_eq!(count(&mut reader), 2);
        drop((reader, writer));
        for suffix in ["", "-wal", "-shm"] {
            let _ = std::fs::remove_file(format!("{}{suffix}", path.display()));
        }
    }

    /// `SELECT count(*) FROM t` as the count of a full page of key `key`.
    fn count_of_t(connection: &mut DbConnection, key: &'static str) -> i64 {
        total(
            connection,
            page(1, 1),
            1,
            || super::key(key, &"", &""),
            "t",
            CountPreference::Exact,
            |connection, _| {
                Ok(diesel::dsl::sql::<BigInt>("SELECT count(*) FROM t").get_result(connection)?)
            },
        )
        .expect("total")
    }

    #[test]
    fn a_count_taken_in_a_transaction_that_rolls_back_is_not_used_again() {
        use diesel::connection::{AnsiTransactionManager, SimpleConnection, TransactionManager};
        let mut connection = sqlite();
        if let DbConnection::Sqlite(sqlite) = &mut connection {
            sqlite
                .batch_execute("CREATE TABLE t (x INTEGER)")
                .expect("table");
        }
        let key = "counts_test_rolled_back";
        assert_eq!(count_of_t(&mut connection, key), 0);
        let DbConnection::Sqlite(sqlite) = &mut connection else {
            unreachable!()
        };
        AnsiTransactionManager::begin_transaction(sqlite).expect("begin");
        sqlite
            .batch_execute("INSERT INTO t VALUES (1)")
            .expect("write");
        assert_eq!(
            count_of_t(&mut connection, key),
            1,
            "its own uncommitted row"
        );
        let DbConnection::Sqlite(sqlite) = &mut connection else {
            unreachable!()
        };
        AnsiTransactionManager::rollback_transaction(sqlite).expect("rollback");
        assert_eq!(
            count_of_t(&mut connection, key),
            0,
            "the row was rolled back"
        );
    }

    #[test]
    fn a_count_taken_in_an_open_postgres_transaction_is_not_given_to_others() {
        use diesel::connection::{AnsiTransactionManager, SimpleConnection, TransactionManager};
        let Ok(server) = std::env::var("TEST_DATABASE_URL") else {
            return;
        };
        let name = format!("billing_counts_{}", uuid::Uuid::new_v4().simple());
        let url = crate::scratch::create_postgres_database(&server, &name).expect("database");
        let open = || DbConnection::Postgres(diesel::PgConnection::establish(&url).expect("pg"));
        let (mut writer, mut reader) = (open(), open());
        if let DbConnection::Postgres(pg) = &mut writer {
            pg.batch_execute("CREATE TABLE t (x INTEGER)")
                .expect("table");
            AnsiTransactionManager::begin_transaction(pg).expect("begin");
            pg.batch_execute("INSERT INTO t VALUES (1)").expect("write");
        }
        let key = "counts_test_uncommitted";
        assert_eq!(count_of_t(&mut writer, key), 1, "its own uncommitted row");
        let seen = count_of_t(&mut reader, key);
        drop((writer, reader));
        let _ = crate::scratch::drop_postgres_database(&server, &name);
        assert_eq!(seen, 0, "another connection sees no uncommitted row");
    }

    #[test]
    fn a_connection_without_an_identity_is_always_counted() {
        let mut connection =
            DbConnection::Sqlite(diesel::SqliteConnection::establish(":memory:").expect("sqlite"));
        let mut counted = 0;
        for _ in 0..2 {
            total(
                &mut connection,
                page(1, 10),
                10,
                || key("counts_test_unnamed", &"", &""),
                "t",
                CountPreference::Exact,
                |_, _| {
                    counted += 1;
                    Ok(12)
                },
            )
            .expect("total");
        }
        assert_eq!(counted, 2);
    }
}
