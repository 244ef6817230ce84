//! `sign_in_attempts`: the sign-in throttle's slots, one row per attempt under each of its keys
//! (`user:` and the SHA-256 of the name, `addr:IP`). Kept in the database so that every
//! instance on it counts the same attempts: behind a load balancer an attacker's guesses
//! spread over the instances still meet one limit.
//!
//! Every transaction that reads or changes the rows of a key first takes that key's lock
//! ([`lock_keys`]): on PostgreSQL a transaction-level advisory lock per key, taken in one
//! order so that two transactions never wait for each other; SQLite's `BEGIN IMMEDIATE`
//! already lets one writer in at a time.

use chrono::NaiveDateTime;
use diesel::prelude::*;

use crate::error::PersistenceResult;
use crate::schema::sign_in_attempts;

/// The advisory-lock class of throttle keys (PostgreSQL's two-key form, a key space apart
/// from the one-key locks of idempotency and the rating change log).
const LOCK_CLASS: i32 = 0x5349_474e; // "SIGN"

/// A stable 32-bit name for a throttle key (FNV-1a: the same in every build and instance).
fn lock_id(key: &str) -> i32 {
    let mut hash: u32 = 0x811c_9dc5;
    for byte in key.as_bytes() {
        hash ^= u32::from(*byte);
        hash = hash.wrapping_mul(0x0100_0193);
    }
    i32::from_ne_bytes(hash.to_ne_bytes())
}

/// Makes transactions touching any of `keys` take turns until the current transaction ends.
pub fn lock_keys(connection: &mut crate::DbConnection, keys: &[&str]) -> PersistenceResult<()> {
    if let crate::DbConnection::Postgres(postgres) = connection {
        let mut ids: Vec<i32> = keys.iter().map(|key| lock_id(key)).collect();
        ids.sort_unstable();
        ids.dedup();
        for id in ids {
            diesel::sql_query("SELECT pg_advisory_xact_lock($1, $2)")
                .bind::<diesel::sql_types::Integer, _>(LOCK_CLASS)
                .bind::<diesel::sql_types::Integer, _>(id)
                .execute(postgres)?;
        }
    }
    Ok(())
}

/// How many slots `key` holds taken after `since`, and when the oldest of them was taken.
pub fn held_since(
    connection: &mut crate::DbConnection,
    key: &str,
    since: NaiveDateTime,
) -> PersistenceResult<(i64, Option<NaiveDateTime>)> {
    Ok(sign_in_attempts::table
        .filter(sign_in_attempts::throttle_key.eq(key))
        .filter(sign_in_attempts::attempted_at.gt(since))
        .select((
            diesel::dsl::count_star(),
            diesel::dsl::min(sign_in_attempts::attempted_at),
        ))
        .get_result(connection)?)
}

/// Takes a slot under `key` at `at`; its id settles it later.
pub fn insert(
    connection: &mut crate::DbConnection,
    key: &str,
    at: NaiveDateTime,
) -> PersistenceResult<i64> {
    Ok(diesel::insert_into(sign_in_attempts::table)
        .values((
            sign_in_attempts::throttle_key.eq(key),
            sign_in_attempts::attempted_at.eq(at),
        ))
        .returning(sign_in_attempts::id)
        .get_result(connection)?)
}

/// Gives slots back.
pub fn delete(connection: &mut crate::DbConnection, ids: &[i64]) -> PersistenceResult<()> {
    diesel::delete(sign_in_attempts::table.filter(sign_in_attempts::id.eq_any(ids)))
        .execute(connection)?;
    Ok(())
}

/// Clears every slot of `key` (a successful sign-in clears its username).
pub fn clear(connection: &mut crate::DbConnection, key: &str) -> PersistenceResult<()> {
    diesel::delete(sign_in_attempts::table.filter(sign_in_attempts::throttle_key.eq(key)))
        .execute(connection)?;
    Ok(())
}

/// Removes the slots of `keys` taken at or before `before` (past the window: they count no
/// more).
pub fn prune_keys(
    connection: &mut crate::DbConnection,
    keys: &[&str],
    before: NaiveDateTime,
) -> PersistenceResult<()> {
    diesel::delete(
        sign_in_attempts::table
            .filter(sign_in_attempts::throttle_key.eq_any(keys))
            .filter(sign_in_attempts::attempted_at.le(before)),
    )
    .execute(connection)?;
    Ok(())
}

/// Removes every slot taken at or before `before`, whatever its key: keys nobody tries again
/// are not left behind. Returns how many went.
pub fn prune(
    connection: &mut crate::DbConnection,
    before: NaiveDateTime,
) -> PersistenceResult<usize> {
    Ok(
        diesel::delete(sign_in_attempts::table.filter(sign_in_attempts::attempted_at.le(before)))
            .execute(connection)?,
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lock_ids_are_stable_and_tell_keys_apart() {
        assert_eq!(lock_id("user:alice"), lock_id("user:alice"));
        assert_ne!(lock_id("user:alice"), lock_id("addr:alice"));
        insta::assert_snapshot!(lock_id("user:alice"), @"927278352");
    }
}
