//! `users`: API accounts, stored as declared (`billing_domain::users!`); the queries sign-in
//! and the caller check need besides. Roles are comma-separated text (a fixed, short list);
//! the contract owners a user is limited to are rows of `user_contract_owners`.

use chrono::NaiveDateTime;
use diesel::prelude::*;

use std::collections::HashMap;

use crate::schema::user_contract_owners;

billing_domain::users!(crate::stored_resource);

/// A stored user (the name sign-in and the caller check use).
pub type UserRow = Row;

impl Row {
    pub fn role_codes(&self) -> Vec<String> {
        billing_domain::users::RoleCodes::split(&self.roles)
    }
}

pub fn find_by_username(
    connection: &mut crate::DbConnection,
    username: &str,
) -> crate::error::PersistenceResult<Option<Row>> {
    Ok(users::table
        .filter(users::username.eq(username))
        .select(Row::as_select())
        .first::<Row>(connection)
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

/// Users, active or not, whose roles include `role_code`.
pub fn count_with_role(
    connection: &mut crate::DbConnection,
    role_code: &str,
) -> crate::error::PersistenceResult<i64> {
    let roles: Vec<String> = users::table.select(users::roles).load(connection)?;
    Ok(holding(&roles, role_code))
}

/// Active users whose roles include `role_code`.
pub fn count_active_with_role(
    connection: &mut crate::DbConnection,
    role_code: &str,
) -> crate::error::PersistenceResult<i64> {
    let roles: Vec<String> = users::table
        .filter(users::active.eq(true))
        .select(users::roles)
        .load(connection)?;
    Ok(holding(&roles, role_code))
}

/// How many of the users' `roles` (each comma-separated codes) include `role_code`.
fn holding(roles: &[String], role_code: &str) -> i64 {
    roles
        .iter()
        .filter(|roles| roles.split(',').any(|code| code == role_code))
        .count() as i64
}

/// A user and the contract owners it is restricted to (empty: all), in one statement.
pub fn find_with_contract_owners(
    connection: &mut crate::DbConnection,
    id: i64,
) -> crate::error::PersistenceResult<Option<(Row, Vec<i64>)>> {
    let rows: Vec<(Row, Option<i64>)> = users::table
        .left_join(user_contract_owners::table)
        .filter(users::id.eq(id))
        .select((
            Row::as_select(),
            user_contract_owners::contract_owner_id.nullable(),
        ))
        .order(user_contract_owners::ordinal)
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

/// The contract owners of each of `user_ids` (in list order; a user without any is absent):
/// one query, whatever the number of users.
pub fn contract_owners_of(
    connection: &mut crate::DbConnection,
    user_ids: &[i64],
) -> crate::error::PersistenceResult<HashMap<i64, Vec<i64>>> {
    let mut owners = HashMap::<i64, Vec<i64>>::new();
    if user_ids.is_empty() {
        return Ok(owners);
    }
    let links: Vec<(i64, i64)> = crate::in_chunks(user_ids, |chunk| {
        Ok(user_contract_owners::table
            .filter(user_contract_owners::user_id.eq_any(chunk))
            .order((user_contract_owners::user_id, user_contract_owners::ordinal))
            .select((
                user_contract_owners::user_id,
                user_contract_owners::contract_owner_id,
            ))
            .load(connection)?)
    })?;
    for (user_id, contract_owner_id) in links {
        owners.entry(user_id).or_default().push(contract_owner_id);
    }
    Ok(owners)
}
