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
//! it was taken (`DataState::quiet`). Where the counters cannot be read, only the state above keeps
//! a count.
//!
//! The tokens cost two small prepared statements. The key is the table, the filters, the
//! caller's scope and today's date (filters such as `activeSites` depend on it). At most
//! [`KEYS_KEPT`] keys are kept; a key longer than [`KEY_MAX_BYTES`] is never kept.

use std::collections::HashMap;
use std::sync::{LazyLock, Mutex, MutexGuard, PoisonError};

use billing_domain::query::{CountPreference, ESTIMATED_EXACT_UP_TO, PageRequest};

use crate::DbConnection;
use crate::error::PersistenceResult;

mod maintained;
mod planned;
mod tokens;

pub use maintained::{FOLD_FROM, fold_row_deltas, rows_not_ended, rows_of};
pub use planned::{Explain, planned_rows};
pub use tokens::register_connection_id;
use tokens::{DataState, data_state, table_changes};

/// At most this many queries' counts are remembered (when full, all are forgotten).
pub const KEYS_KEPT: usize = 1024;
/// A query whose key is longer than this is always counted.
pub const KEY_MAX_BYTES: usize = 2048;
/// At most this many tokens per key (one per pooled SQLite connection, up to the pool size).
const TOKENS_PER_KEY: usize = 32;

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

/// Whether `connection` is outside any explicit transaction.
fn outside_transactions(connection: &mut DbConnection) -> bool {
    use diesel::connection::{AnsiTransactionManager, TransactionManager};
    let depth = match connection {
        DbConnection::Sqlite(sqlite) => {
            AnsiTransactionManager::transaction_manager_status_mut(sqlite).transaction_depth()
        }
        DbConnection::Postgres(postgres) => {
            AnsiTransactionManager::transaction_manager_status_mut(postgres).transaction_depth()
        }
    };
    matches!(depth, Ok(None))
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
mod tests;
