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
//! The token costs one small prepared statement. The key is the table, the filters, the
//! caller's scope and today's date (filters such as `activeSites` depend on it). At most
//! [`KEYS_KEPT`] keys are kept; a key longer than [`KEY_MAX_BYTES`] is never kept.

use std::collections::HashMap;
use std::sync::atomic::{AtomicI64, Ordering};
use std::sync::{LazyLock, Mutex, MutexGuard, PoisonError};

use billing_domain::query::PageRequest;
use diesel::pg::Pg;
use diesel::query_builder::{AstPass, Query, QueryFragment, QueryId};
use diesel::sql_types::{BigInt, Text};
use diesel::sqlite::Sqlite;
use diesel::{QueryResult, RunQueryDsl};

use crate::DbConnection;
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
    Postgres(String),
}

impl DataState {
    /// Whether `other` replaces `self` in a key's list: the same SQLite connection, or any
    /// PostgreSQL snapshot (a later one makes an earlier one useless).
    fn same_source(&self, other: &DataState) -> bool {
        match (self, other) {
            (Self::Sqlite { connection, .. }, Self::Sqlite { connection: o, .. }) => {
                connection == o
            }
            (Self::Postgres(_), Self::Postgres(_)) => true,
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
    type SqlType = Text;
}

impl QueryFragment<Pg> for PostgresDataState {
    fn walk_ast<'b>(&'b self, mut out: AstPass<'_, 'b, Pg>) -> QueryResult<()> {
        out.push_sql(
            "SELECT pg_current_snapshot()::text || ' ' || current_database() || ' ' \
             || current_setting('port')",
        );
        Ok(())
    }
}

impl RunQueryDsl<diesel::PgConnection> for PostgresDataState {}

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
            .get_result::<String>(postgres)
            .ok()
            .map(DataState::Postgres),
    }
}

type Remembered = HashMap<String, Vec<(DataState, i64)>>;

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
    count: impl FnOnce(&mut DbConnection) -> PersistenceResult<i64>,
) -> PersistenceResult<i64> {
    let loaded = i64::try_from(loaded).unwrap_or(i64::MAX);
    let Some(page) = page else {
        return Ok(loaded);
    };
    if (loaded > 0 && loaded < page.limit()) || (loaded == 0 && page.offset() == 0) {
        return Ok(page.offset() + loaded);
    }
    let key = key();
    if key.len() > KEY_MAX_BYTES {
        return count(connection);
    }
    // Read before counting: a commit in between changes the next token, never this count's.
    let Some(state) = data_state(connection) else {
        return count(connection);
    };
    if let Some(total) = remembered().get(&key).and_then(|tokens| {
        tokens
            .iter()
            .find(|(token, _)| *token == state)
            .map(|(_, total)| *total)
    }) {
        return Ok(total);
    }
    let total = count(connection)?;
    let mut remembered = remembered();
    if remembered.len() >= KEYS_KEPT && !remembered.contains_key(&key) {
        remembered.clear();
    }
    let tokens = remembered.entry(key).or_default();
    tokens.retain(|(token, _)| !token.same_source(&state));
    if tokens.len() >= TOKENS_PER_KEY {
        tokens.remove(0);
    }
    tokens.push((state, total));
    Ok(total)
}

/// Forgets every remembered count (for tests that count the statements a page costs).
pub fn forget_all() {
    remembered().clear();
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

    fn never_counted(_: &mut DbConnection) -> PersistenceResult<i64> {
        panic!("the page said the total")
    }

    fn sqlite() -> DbConnection {
        let mut sqlite = diesel::SqliteConnection::establish(":memory:").expect("sqlite");
        register_connection_id(&mut sqlite).expect("registered");
        DbConnection::Sqlite(sqlite)
    }

    #[test]
    fn a_short_or_empty_first_page_gives_the_total_without_counting() {
        let mut connection = sqlite();
        let mut total = |page, loaded| {
            total(&mut connection, page, loaded, String::new, never_counted).expect("total")
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
            total(connection, page, loaded, key, |_| {
                counted.set(counted.get() + 1);
                Ok(40)
            })
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
                |_| {
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
            |connection| {
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
                |_| {
                    counted += 1;
                    Ok(12)
                },
            )
            .expect("total");
        }
        assert_eq!(counted, 2);
    }
}
