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
