//! `rating_changes`: the change log of the data rating reads. A write of rating data records
//! one row in its own transaction (the record before and after, as the API shows it); every
//! instance applies the rows past the last one it applied to its in-memory index, in order.
//! A rolled-back write leaves no row, so it never reaches an index.
//!
//! Rows must become visible in id order, or a reader could pass over one that commits late.
//! SQLite runs one writer at a time; on PostgreSQL [`record`] first takes a transaction-level
//! advisory lock, so writers of rating data take turns from their first change-log row to
//! their commit and ids are handed out in commit order.

use chrono::NaiveDateTime;
use diesel::prelude::*;

use crate::DbConnection;
use crate::error::PersistenceResult;
use crate::schema::rating_changes;

/// The `resource` of a row that asks every instance to load everything again (a feed import).
pub const RELOAD: &str = "reload";

/// The advisory lock key writers of the change log take on PostgreSQL ("rating" in ASCII).
const CHANGE_LOG_LOCK: i64 = 0x7261_7469_6e67;

#[derive(Debug, Clone, PartialEq, Queryable)]
pub struct ChangeRow {
    pub id: i64,
    pub recorded_at: NaiveDateTime,
    pub resource: String,
    pub record_id: i64,
    pub before_state: Option<String>,
    pub after_state: Option<String>,
}

#[derive(Debug, Insertable)]
#[diesel(table_name = rating_changes)]
struct NewChange<'a> {
    recorded_at: NaiveDateTime,
    resource: &'a str,
    record_id: i64,
    before_state: Option<&'a str>,
    after_state: Option<&'a str>,
}

/// Records a change of record `record_id` of `resource` in the current transaction.
pub fn record(
    connection: &mut DbConnection,
    resource: &str,
    record_id: i64,
    before: Option<&str>,
    after: Option<&str>,
) -> PersistenceResult<()> {
    if let DbConnection::Postgres(postgres) = connection {
        diesel::sql_query("SELECT pg_advisory_xact_lock($1)")
            .bind::<diesel::sql_types::BigInt, _>(CHANGE_LOG_LOCK)
            .execute(postgres)?;
    }
    diesel::insert_into(rating_changes::table)
        .values(NewChange {
            recorded_at: crate::now(),
            resource,
            record_id,
            before_state: before,
            after_state: after,
        })
        .execute(connection)?;
    Ok(())
}

/// Up to `limit` changes after change `id`, oldest first.
pub fn after(
    connection: &mut DbConnection,
    id: i64,
    limit: i64,
) -> PersistenceResult<Vec<ChangeRow>> {
    Ok(rating_changes::table
        .filter(rating_changes::id.gt(id))
        .order(rating_changes::id)
        .limit(limit)
        .load(connection)?)
}

/// The id of the latest change (0 when there is none).
pub fn latest(connection: &mut DbConnection) -> PersistenceResult<i64> {
    Ok(rating_changes::table
        .select(diesel::dsl::max(rating_changes::id))
        .first::<Option<i64>>(connection)?
        .unwrap_or(0))
}

/// Removes changes recorded before `cutoff`; returns how many.
pub fn prune(connection: &mut DbConnection, cutoff: NaiveDateTime) -> PersistenceResult<usize> {
    Ok(
        diesel::delete(rating_changes::table.filter(rating_changes::recorded_at.lt(cutoff)))
            .execute(connection)?,
    )
}
