//! `idempotency_keys`: the first response to a POST carrying an `Idempotency-Key`.

use chrono::NaiveDateTime;
use diesel::prelude::*;

use crate::schema::idempotency_keys;

#[derive(Debug, Clone, PartialEq, Queryable)]
pub struct IdempotencyRow {
    pub id: i64,
    pub user_id: i64,
    pub idempotency_key: String,
    pub request_fingerprint: String,
    pub response_status: i32,
    pub response_body: String,
    pub location: Option<String>,
    pub created_date: NaiveDateTime,
    /// The `ETag` the first response carried, if any.
    pub etag: Option<String>,
}

#[derive(Debug, Insertable)]
#[diesel(table_name = idempotency_keys)]
pub struct NewIdempotencyRecord {
    pub user_id: i64,
    pub idempotency_key: String,
    pub request_fingerprint: String,
    pub response_status: i32,
    pub response_body: String,
    pub location: Option<String>,
    pub created_date: NaiveDateTime,
    /// The `ETag` the first response carried, if any.
    pub etag: Option<String>,
}

/// A stable 64-bit name for `(user_id, key)` (FNV-1a: the same in every build and instance).
fn lock_id(user_id: i64, key: &str) -> i64 {
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
    for byte in user_id.to_be_bytes().iter().chain(key.as_bytes()) {
        hash ^= u64::from(*byte);
        hash = hash.wrapping_mul(0x0000_0100_0000_01b3);
    }
    i64::from_ne_bytes(hash.to_ne_bytes())
}

/// Makes requests with the same `(user_id, key)` take turns until the current transaction
/// ends, so the second one finds the first one's record instead of racing it to the insert.
/// On PostgreSQL a transaction-level advisory lock; SQLite's `BEGIN IMMEDIATE` already lets
/// one writer in at a time.
pub fn lock(
    connection: &mut crate::DbConnection,
    user_id: i64,
    key: &str,
) -> crate::error::PersistenceResult<()> {
    if let crate::DbConnection::Postgres(postgres) = connection {
        diesel::sql_query("SELECT pg_advisory_xact_lock($1)")
            .bind::<diesel::sql_types::BigInt, _>(lock_id(user_id, key))
            .execute(postgres)?;
    }
    Ok(())
}

/// The record for `(user_id, key)` created after `not_before`, if any.
pub fn find(
    connection: &mut crate::DbConnection,
    user_id: i64,
    key: &str,
    not_before: NaiveDateTime,
) -> crate::error::PersistenceResult<Option<IdempotencyRow>> {
    Ok(idempotency_keys::table
        .filter(idempotency_keys::user_id.eq(user_id))
        .filter(idempotency_keys::idempotency_key.eq(key))
        .filter(idempotency_keys::created_date.ge(not_before))
        .first::<IdempotencyRow>(connection)
        .optional()?)
}

/// Stores a record, first removing an expired one under the same key.
pub fn insert(
    connection: &mut crate::DbConnection,
    record: &NewIdempotencyRecord,
    not_before: NaiveDateTime,
) -> crate::error::PersistenceResult<()> {
    diesel::delete(
        idempotency_keys::table
            .filter(idempotency_keys::user_id.eq(record.user_id))
            .filter(idempotency_keys::idempotency_key.eq(&record.idempotency_key))
            .filter(idempotency_keys::created_date.lt(not_before)),
    )
    .execute(connection)?;
    diesel::insert_into(idempotency_keys::table)
        .values(record)
        .execute(connection)?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lock_ids_are_stable_and_tell_users_and_keys_apart() {
        assert_eq!(lock_id(1, "key-1"), lock_id(1, "key-1"));
        assert_ne!(lock_id(1, "key-1"), lock_id(2, "key-1"));
        assert_ne!(lock_id(1, "key-1"), lock_id(1, "key-2"));
        insta::assert_snapshot!(lock_id(1, "key-1"), @"1162991655056398039");
    }
}
