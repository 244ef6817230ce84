//! `api_keys`: long-lived credentials of machine clients. Only a key's SHA-256 is stored (and
//! its first characters, to tell keys apart in a listing); the key itself is shown once, to
//! whoever created it.

use chrono::NaiveDateTime;
use diesel::prelude::*;

use crate::error::PersistenceResult;
use crate::schema::{api_keys, user_contract_owners, users};
use crate::users::UserRow;

#[derive(Debug, Clone, PartialEq, Queryable)]
pub struct ApiKeyRow {
    pub id: i64,
    pub user_id: i64,
    pub name: String,
    pub key_prefix: String,
    pub key_hash: String,
    pub roles: String,
    pub created_date: NaiveDateTime,
    pub last_used_at: Option<NaiveDateTime>,
    pub version: i64,
}

impl ApiKeyRow {
    pub fn role_codes(&self) -> Vec<String> {
        self.roles
            .split(',')
            .filter(|part| !part.is_empty())
            .map(str::to_owned)
            .collect()
    }
}

#[derive(Debug, Insertable)]
#[diesel(table_name = api_keys)]
pub struct NewApiKey {
    pub user_id: i64,
    pub name: String,
    pub key_prefix: String,
    pub key_hash: String,
    pub roles: String,
    pub created_date: NaiveDateTime,
}

crate::define_list! {
    source: api_keys::table,
    select: api_keys::all_columns,
    row: ApiKeyRow,
    id: api_keys::id,
    filters: {
        "userId" => id(api_keys::user_id),
        "name" => text(api_keys::name),
        "createdDate" => date_time(api_keys::created_date),
    },
    sort: {
        "id" => plain(api_keys::id),
        "userId" => plain(api_keys::user_id),
        "name" => plain(api_keys::name),
        "createdDate" => plain(api_keys::created_date),
        "lastUsedAt" => nullable(api_keys::last_used_at),
    },
}

pub fn find(connection: &mut crate::DbConnection, id: i64) -> PersistenceResult<Option<ApiKeyRow>> {
    Ok(api_keys::table
        .find(id)
        .first::<ApiKeyRow>(connection)
        .optional()?)
}

pub fn insert(
    connection: &mut crate::DbConnection,
    key: &NewApiKey,
) -> PersistenceResult<ApiKeyRow> {
    Ok(diesel::insert_into(api_keys::table)
        .values(key)
        .returning(api_keys::all_columns)
        .get_result(connection)?)
}

/// Removes a key (revocation); false when it was already gone.
pub fn delete(connection: &mut crate::DbConnection, id: i64) -> PersistenceResult<bool> {
    Ok(diesel::delete(api_keys::table.find(id)).execute(connection)? == 1)
}

/// The key whose hash is `key_hash`, its user and the user's contract owners, in one statement.
pub fn find_for_caller(
    connection: &mut crate::DbConnection,
    key_hash: &str,
) -> PersistenceResult<Option<(ApiKeyRow, UserRow, Vec<i64>)>> {
    let rows: Vec<(ApiKeyRow, UserRow, Option<i64>)> = api_keys::table
        .inner_join(users::table.left_join(user_contract_owners::table))
        .filter(api_keys::key_hash.eq(key_hash))
        .select((
            api_keys::all_columns,
            users::all_columns,
            user_contract_owners::contract_owner_id.nullable(),
        ))
        .order(user_contract_owners::contract_owner_id)
        .load(connection)?;
    let mut rows = rows.into_iter();
    let Some((key, user, first)) = rows.next() else {
        return Ok(None);
    };
    let owners = first
        .into_iter()
        .chain(rows.filter_map(|(_, _, owner)| owner))
        .collect();
    Ok(Some((key, user, owners)))
}

/// Notes that key `id` was used at `at`, unless it was already noted after `not_before`: one
/// write a key per interval, however busy the key. True when this call wrote.
pub fn touch(
    connection: &mut crate::DbConnection,
    id: i64,
    at: NaiveDateTime,
    not_before: NaiveDateTime,
) -> PersistenceResult<bool> {
    let changed = diesel::update(
        api_keys::table.find(id).filter(
            api_keys::last_used_at
                .is_null()
                .or(api_keys::last_used_at.lt(not_before)),
        ),
    )
    .set((
        api_keys::last_used_at.eq(at),
        api_keys::version.eq(api_keys::version + 1),
    ))
    .execute(connection)?;
    Ok(changed == 1)
}
