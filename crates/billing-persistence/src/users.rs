//! `users`: API accounts. Roles and contract owner ids are stored as comma-separated text so a
//! page of users is one query.

use chrono::NaiveDateTime;
use diesel::prelude::*;

use crate::schema::users;

#[derive(Debug, Clone, PartialEq, Queryable)]
pub struct UserRow {
    pub id: i64,
    pub username: String,
    pub email: Option<String>,
    pub password_hash: String,
    pub active: bool,
    pub roles: String,
    pub contract_owner_ids: String,
    pub created_date: NaiveDateTime,
    pub updated_date: NaiveDateTime,
    pub last_login_date: Option<NaiveDateTime>,
    pub version: i64,
}

impl UserRow {
    pub fn role_codes(&self) -> Vec<String> {
        split_list(&self.roles)
    }

    pub fn contract_owner_id_list(&self) -> Vec<i64> {
        split_list(&self.contract_owner_ids)
            .iter()
            .filter_map(|id| id.parse().ok())
            .collect()
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
    pub contract_owner_ids: String,
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
    pub contract_owner_ids: String,
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

/// Whether any user is restricted to contract owner `id` (a scan: the ids are still stored as
/// text, and users are few).
pub fn references_contract_owner(
    connection: &mut crate::DbConnection,
    id: i64,
) -> crate::error::PersistenceResult<bool> {
    let lists: Vec<String> = users::table
        .select(users::contract_owner_ids)
        .load(connection)?;
    let wanted = id.to_string();
    Ok(lists
        .iter()
        .any(|list| list.split(',').any(|part| part == wanted)))
}
