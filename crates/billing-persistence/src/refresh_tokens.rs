//! `refresh_tokens`: hashes of issued refresh tokens, grouped in rotation families.

use chrono::NaiveDateTime;
use diesel::prelude::*;

use crate::schema::refresh_tokens;

#[derive(Debug, Clone, PartialEq, Queryable)]
pub struct RefreshTokenRow {
    pub id: i64,
    pub user_id: i64,
    pub family_id: String,
    pub token_hash: String,
    pub expires_at: NaiveDateTime,
    pub used: bool,
    pub revoked: bool,
    pub created_date: NaiveDateTime,
}

#[derive(Debug, Insertable)]
#[diesel(table_name = refresh_tokens)]
pub struct NewRefreshToken {
    pub user_id: i64,
    pub family_id: String,
    pub token_hash: String,
    pub expires_at: NaiveDateTime,
    pub created_date: NaiveDateTime,
}

pub fn insert(
    connection: &mut crate::DbConnection,
    token: &NewRefreshToken,
) -> crate::error::PersistenceResult<()> {
    diesel::insert_into(refresh_tokens::table)
        .values(token)
        .execute(connection)?;
    Ok(())
}

pub fn find_by_hash(
    connection: &mut crate::DbConnection,
    token_hash: &str,
) -> crate::error::PersistenceResult<Option<RefreshTokenRow>> {
    Ok(refresh_tokens::table
        .filter(refresh_tokens::token_hash.eq(token_hash))
        .first::<RefreshTokenRow>(connection)
        .optional()?)
}

/// Marks a token used, only if it was still unused: false when another request used it first.
pub fn mark_used(
    connection: &mut crate::DbConnection,
    id: i64,
) -> crate::error::PersistenceResult<bool> {
    let changed = diesel::update(
        refresh_tokens::table
            .find(id)
            .filter(refresh_tokens::used.eq(false)),
    )
    .set(refresh_tokens::used.eq(true))
    .execute(connection)?;
    Ok(changed == 1)
}

pub fn revoke_family(
    connection: &mut crate::DbConnection,
    family_id: &str,
) -> crate::error::PersistenceResult<()> {
    diesel::update(refresh_tokens::table.filter(refresh_tokens::family_id.eq(family_id)))
        .set(refresh_tokens::revoked.eq(true))
        .execute(connection)?;
    Ok(())
}

pub fn revoke_all_for_user(
    connection: &mut crate::DbConnection,
    user_id: i64,
) -> crate::error::PersistenceResult<()> {
    diesel::update(refresh_tokens::table.filter(refresh_tokens::user_id.eq(user_id)))
        .set(refresh_tokens::revoked.eq(true))
        .execute(connection)?;
    Ok(())
}
