//! `users`: API accounts. Roles are stored as comma-separated text (a fixed, short list); the
//! contract owners a user is restricted to are rows of `user_contract_owners`, so SQL can
//! filter by them, and a page of users reads them in one more query.

use chrono::NaiveDateTime;
use diesel::prelude::*;

use std::collections::HashMap;

use crate::schema::{user_contract_owners, users};

#[derive(Debug, Clone, PartialEq, Queryable)]
pub struct UserRow {
    pub id: i64,
    pub username: String,
    pub email: Option<String>,
    pub password_hash: String,
    pub active: bool,
    pub roles: String,
    pub created_date: NaiveDateTime,
    pub updated_date: NaiveDateTime,
    pub last_login_date: Option<NaiveDateTime>,
    pub version: i64,
}

impl UserRow {
    pub fn role_codes(&self) -> Vec<String> {
        split_list(&self.roles)
    }
}

fn split_list(value: &str) -> Vec<String> {
    value
        .split(',')
        .filter(|part| !part.is_empty())
        .map(str::to_owned)
        .collect()
}

/// Joins list values for storage.
pub fn join_list<T: ToString>(values: &[T]) -> String {
    values
        .iter()
        .map(ToString::to_string)
        .collect::<Vec<_>>()
        .join(",")
}

#[derive(Debug, Insertable)]
#[diesel(table_name = users)]
pub struct NewUser {
    pub username: String,
    pub email: Option<String>,
    pub password_hash: String,
    pub active: bool,
    pub roles: String,
    pub created_date: NaiveDateTime,
    pub updated_date: NaiveDateTime,
}

/// A full replacement of the changeable fields; `password_hash: None` keeps the old one.
#[derive(Debug, AsChangeset)]
#[diesel(table_name = users)]
pub struct UserChanges {
    pub username: String,
    #[diesel(treat_none_as_null = true)]
    pub email: Option<String>,
    pub password_hash: Option<String>,
    pub active: bool,
    pub roles: String,
    pub updated_date: NaiveDateTime,
}

crate::define_list! {
    source: users::table,
    select: users::all_columns,
    row: UserRow,
    id: users::id,
    filters: {
        "username" => text(users::username),
        "active" => boolean(users::active),
        "createdDate" => date_time(users::created_date),
        "updatedDate" => date_time(users::updated_date),
    },
    sort: {
        "id" => plain(users::id),
        "username" => plain(users::username),
        "active" => plain(users::active),
        "createdDate" => plain(users::created_date),
        "updatedDate" => plain(users::updated_date),
        "lastLoginDate" => nullable(users::last_login_date),
    },
}

pub fn find(
    connection: &mut crate::DbConnection,
    id: i64,
) -> crate::error::PersistenceResult<Option<UserRow>> {
    Ok(users::table
        .find(id)
        .first::<UserRow>(connection)
        .optional()?)
}

pub fn find_by_username(
    connection: &mut crate::DbConnection,
    username: &str,
) -> crate::error::PersistenceResult<Option<UserRow>> {
    Ok(users::table
        .filter(users::username.eq(username))
        .first::<UserRow>(connection)
        .optional()?)
}

pub fn insert(
    connection: &mut crate::DbConnection,
    user: &NewUser,
) -> crate::error::PersistenceResult<UserRow> {
    Ok(diesel::insert_into(users::table)
        .values(user)
        .returning(users::all_columns)
        .get_result(connection)?)
}

/// `None` when the user is gone or no longer at `expected_version`.
pub fn update(
    connection: &mut crate::DbConnection,
    id: i64,
    expected_version: i64,
    changes: &UserChanges,
) -> crate::error::PersistenceResult<Option<UserRow>> {
    Ok(diesel::update(
        users::table
            .find(id)
            .filter(users::version.eq(expected_version)),
    )
    .set((changes, users::version.eq(expected_version + 1)))
    .returning(users::all_columns)
    .get_result(connection)
    .optional()?)
}

pub fn record_login(
    connection: &mut crate::DbConnection,
    id: i64,
    at: NaiveDateTime,
) -> crate::error::PersistenceResult<()> {
    diesel::update(users::table.find(id))
        .set(users::last_login_date.eq(at))
        .execute(connection)?;
    Ok(())
}

pub fn count(connection: &mut crate::DbConnection) -> crate::error::PersistenceResult<i64> {
    Ok(users::table.count().get_result(connection)?)
}

/// Active users whose roles include `role_code`.
pub fn count_active_with_role(
    connection: &mut crate::DbConnection,
    role_code: &str,
) -> crate::error::PersistenceResult<i64> {
    let candidates: Vec<String> = users::table
        .filter(users::active.eq(true))
        .select(users::roles)
        .load(connection)?;
    Ok(candidates
        .iter()
        .filter(|roles| roles.split(',').any(|code| code == role_code))
        .count() as i64)
}

/// Whether any user is restricted to contract owner `id`.
pub fn references_contract_owner(
    connection: &mut crate::DbConnection,
    id: i64,
) -> crate::error::PersistenceResult<bool> {
    Ok(diesel::select(diesel::dsl::exists(
        user_contract_owners::table.filter(user_contract_owners::contract_owner_id.eq(id)),
    ))
    .get_result(connection)?)
}

/// A user and the contract owners it is restricted to (empty: all), in one statement.
pub fn find_with_contract_owners(
    connection: &mut crate::DbConnection,
    id: i64,
) -> crate::error::PersistenceResult<Option<(UserRow, Vec<i64>)>> {
    let rows: Vec<(UserRow, Option<i64>)> = users::table
        .left_join(user_contract_owners::table)
        .filter(users::id.eq(id))
        .select((
            users::all_columns,
            user_contract_owners::contract_owner_id.nullable(),
        ))
        .order(user_contract_owners::contract_owner_id)
        .load(connection)?;
    let mut rows = rows.into_iter();
    let Some((user, first)) = rows.next() else {
        return Ok(None);
    };
    let owners = first
        .into_iter()
        .chain(rows.filter_map(|(_, owner)| owner))
        .collect();
    Ok(Some((user, owners)))
}

/// The contract owners of each of `user_ids` (ascending; a user without any is absent): one
/// query, whatever the number of users.
pub fn contract_owners_of(
    connection: &mut crate::DbConnection,
    user_ids: &[i64],
) -> crate::error::PersistenceResult<HashMap<i64, Vec<i64>>> {
    let mut owners = HashMap::<i64, Vec<i64>>::new();
    if user_ids.is_empty() {
        return Ok(owners);
    }
    let links: Vec<(i64, i64)> = user_contract_owners::table
        .filter(user_contract_owners::user_id.eq_any(user_ids))
        .order((
            user_contract_owners::user_id,
            user_contract_owners::contract_owner_id,
        ))
        .load(connection)?;
    for (user_id, contract_owner_id) in links {
        owners.entry(user_id).or_default().push(contract_owner_id);
    }
    Ok(owners)
}

/// Makes the user's contract owners exactly `contract_owner_ids` (distinct ids).
pub fn set_contract_owners(
    connection: &mut crate::DbConnection,
    user_id: i64,
    contract_owner_ids: &[i64],
) -> crate::error::PersistenceResult<()> {
    diesel::delete(user_contract_owners::table.filter(user_contract_owners::user_id.eq(user_id)))
        .execute(connection)?;
    // One statement per link: a user has a handful, and MultiConnection has no batch insert.
    for &contract_owner_id in contract_owner_ids {
        diesel::insert_into(user_contract_owners::table)
            .values((
                user_contract_owners::user_id.eq(user_id),
                user_contract_owners::contract_owner_id.eq(contract_owner_id),
            ))
            .execute(connection)?;
    }
    Ok(())
}
