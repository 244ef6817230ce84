//! The rows of every table, kept by triggers as they are written (migration
//! `2026-11-28-000001_table_rows`), so that the total of a list without filters is read
//! instead of counted: at 1,000,000 rows a count is tens of milliseconds on either backend,
//! reading this is well under one.
//!
//! - **SQLite**: the `rows` column of the table's `table_changes` row, moved by the triggers
//!   that count its changes, in the writing transaction.
//! - **PostgreSQL**: the sum of the table's rows in `table_row_deltas`, one added by each
//!   statement that inserts or deletes rows (statement triggers with transition tables), so
//!   that writers never wait for one counter row nor conflict on it. The sum is what the
//!   reading snapshot sees, so it is exact for it. The deltas are folded into one row per
//!   table when a reader finds more than [`FOLD_FROM`] of them, and every minute by the
//!   service ([`fold_row_deltas`]).

use diesel::QueryableByName;
use diesel::RunQueryDsl;
use diesel::sql_types::{BigInt, Date, Nullable, Text};

use crate::DbConnection;
use crate::error::PersistenceResult;

/// A reader that finds more deltas than this for a table folds them (outside a transaction).
pub const FOLD_FROM: i64 = 256;

#[derive(QueryableByName)]
struct SqliteRows {
    #[diesel(sql_type = BigInt)]
    rows: i64,
}

#[derive(QueryableByName)]
struct PostgresRows {
    #[diesel(sql_type = Nullable<BigInt>)]
    rows: Option<i64>,
    #[diesel(sql_type = BigInt)]
    deltas: i64,
}

/// The rows of `table` as `connection` sees them now, read from what the triggers keep;
/// `None` for a table they do not count.
pub fn rows_of(connection: &mut DbConnection, table: &str) -> PersistenceResult<Option<i64>> {
    match connection {
        DbConnection::Sqlite(sqlite) => {
            let rows: Vec<SqliteRows> =
                diesel::sql_query("SELECT rows FROM table_changes WHERE name = ?")
                    .bind::<Text, _>(table)
                    .load(sqlite)?;
            Ok(rows.first().map(|r| r.rows))
        }
        DbConnection::Postgres(postgres) => {
            let rows: PostgresRows = diesel::sql_query(
                "SELECT sum(delta)::bigint AS rows, count(*) AS deltas \
                 FROM table_row_deltas WHERE name = $1",
            )
            .bind::<Text, _>(table)
            .get_result(postgres)?;
            if rows.deltas > FOLD_FROM && super::outside_transactions(connection) {
                // Best effort: a reader that loses a race with another folder leaves the
                // deltas as they were, which are still exact.
                let _ = fold_row_deltas_of(connection, Some(table));
            }
            Ok(rows.rows)
        }
    }
}

/// The rows of `table` whose date `column` is today (UTC) or later, or none (what
/// `activeSites=true` keeps): its rows less those that ended before today, in one statement
/// (one snapshot). `None` for a table the triggers do not count. `table` and `column` are
/// names from a declaration, never from a request.
pub fn rows_not_ended(
    connection: &mut DbConnection,
    table: &str,
    column: &str,
) -> PersistenceResult<Option<i64>> {
    debug_assert!(
        [table, column]
            .iter()
            .all(|name| name.bytes().all(|b| b.is_ascii_lowercase() || b == b'_'))
    );
    let today = chrono::Utc::now().date_naive();
    let rows: Vec<PostgresRows> = match connection {
        DbConnection::Sqlite(sqlite) => diesel::sql_query(format!(
            "SELECT rows - (SELECT count(*) FROM {table} WHERE {column} < ?) AS rows, 0 AS deltas \
             FROM table_changes WHERE name = ?"
        ))
        .bind::<Date, _>(today)
        .bind::<Text, _>(table)
        .load(sqlite)?,
        DbConnection::Postgres(postgres) => diesel::sql_query(format!(
            "SELECT sum(delta)::bigint - (SELECT count(*) FROM {table} WHERE {column} < $1) \
             AS rows, count(*) AS deltas FROM table_row_deltas WHERE name = $2"
        ))
        .bind::<Date, _>(today)
        .bind::<Text, _>(table)
        .load(postgres)?,
    };
    Ok(rows.first().and_then(|r| r.rows))
}

/// Folds every table's deltas into one row per table (PostgreSQL; nothing to do on SQLite).
/// One statement: a reader sees the deltas before or after it, never half of it.
pub fn fold_row_deltas(connection: &mut DbConnection) -> PersistenceResult<()> {
    fold_row_deltas_of(connection, None)
}

fn fold_row_deltas_of(connection: &mut DbConnection, table: Option<&str>) -> PersistenceResult<()> {
    let DbConnection::Postgres(postgres) = connection else {
        return Ok(());
    };
    match table {
        Some(table) => diesel::sql_query(
            "WITH gone AS (DELETE FROM table_row_deltas WHERE name = $1 RETURNING delta) \
             INSERT INTO table_row_deltas (name, delta) \
             SELECT $1, sum(delta) FROM gone HAVING count(*) > 0",
        )
        .bind::<Text, _>(table)
        .execute(postgres)?,
        None => diesel::sql_query(
            "WITH gone AS (DELETE FROM table_row_deltas RETURNING name, delta) \
             INSERT INTO table_row_deltas (name, delta) \
             SELECT name, sum(delta) FROM gone GROUP BY name",
        )
        .execute(postgres)?,
    };
    Ok(())
}
