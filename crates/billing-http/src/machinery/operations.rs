//! The operations of a declared resource, written once as generic functions: the order of
//! the work of a list, a read, a create, a replace (and so a patch) and a delete, with the
//! steps a declaration gives ([`Declared`]) and the checks a resource adds in its own
//! `impl Resource` block ([`Resource::check_write`] and its kin). A request
//! reaches them from the handlers (`handlers/`) through the resource's [`Resource`] methods,
//! inside the transaction `Database::write` opens.

use billing_auth::AuthenticatedUser;
use billing_domain::query::ListQuery;
use billing_persistence::DbConnection;

use super::declared::Declared;
use super::resource::{
    ApiResult, Resource, Versioned, WriteRequest, check_scope, check_scope_of_write,
};
use crate::error::ApiError;
use crate::live_rating::{LiveRating, record_change};
use crate::state::AppState;

/// A page of records the caller may see, and how many match.
pub fn list<R: Declared>(
    connection: &mut DbConnection,
    caller: &AuthenticatedUser,
    query: &ListQuery,
) -> ApiResult<(Vec<R::Record>, i64)> {
    let (rows, total) = R::list_rows(connection, query, &caller.contract_owners)?;
    Ok((R::complete_page(connection, rows)?, total))
}

/// One record; 403 for a record outside the caller's scope (lists leave those out).
pub fn find<R: Declared>(
    connection: &mut DbConnection,
    caller: &AuthenticatedUser,
    id: i64,
) -> ApiResult<Option<R::Record>> {
    let Some(row) = R::find_row(connection, id)? else {
        return Ok(None);
    };
    if !caller.contract_owners.is_all()
        && let Some(owner) = R::owner_of_row(connection, &row)?
    {
        check_scope(caller, R::NOUN, R::row_id(&row), owner)?;
    }
    assemble::<R>(connection, row).map(Some)
}

/// Creates a record from a checked body.
pub fn create<R: Declared>(
    connection: &mut DbConnection,
    caller: &AuthenticatedUser,
    mut input: R::Input,
) -> ApiResult<R::Record> {
    R::complete(connection, caller, None, &mut input)?;
    let (changes, children) = R::changes(connection, &input, None)?;
    check_owner_of_write::<R>(connection, caller, &changes)?;
    R::check_write(connection, caller, None, &changes)?;
    let row = R::insert(connection, &changes)?;
    R::write_children(connection, &children, R::row_id(&row))?;
    let record = assemble::<R>(connection, row)?;
    R::written(connection, caller, None, &record, &R::Options::default())?;
    record_rating_change::<R>(connection, record.id(), None, Some(&record))?;
    Ok(record)
}

/// Replaces `current` (a replace, or a patch's result); `None` when it changed meanwhile.
pub fn replace<R: Declared>(
    connection: &mut DbConnection,
    caller: &AuthenticatedUser,
    current: &R::Record,
    mut input: R::Input,
    request: &WriteRequest,
) -> ApiResult<Option<R::Record>> {
    R::check_change(connection, caller, current)?;
    R::complete(connection, caller, Some(current), &mut input)?;
    let (changes, children) = R::changes(connection, &input, Some(current))?;
    check_owner_of_write::<R>(connection, caller, &changes)?;
    R::check_write(connection, caller, Some(current), &changes)?;
    // The record's row is rewritten even when only its children change, so its version (and
    // ETag) moves and a concurrent writer of the same version loses.
    let Some(row) = R::update(connection, current.id(), current.version(), &changes)? else {
        return Ok(None);
    };
    R::write_children(connection, &children, R::row_id(&row))?;
    let record = assemble::<R>(connection, row)?;
    R::written(
        connection,
        caller,
        Some(current),
        &record,
        &R::options(request),
    )?;
    record_rating_change::<R>(connection, record.id(), Some(current), Some(&record))?;
    Ok(Some(record))
}

/// Deletes `current`; false when it changed meanwhile (the caller rolls back).
pub fn delete<R: Declared>(
    connection: &mut DbConnection,
    caller: &AuthenticatedUser,
    current: &R::Record,
) -> ApiResult<bool> {
    R::check_change(connection, caller, current)?;
    R::check_delete(connection, caller, current)?;
    // If the record changed meanwhile the delete finds nothing and the caller rolls the whole
    // transaction back.
    let deleted = R::delete_row(connection, current.id(), current.version())?;
    if deleted {
        R::deleted(connection, caller, current)?;
        record_rating_change::<R>(connection, current.id(), Some(current), None)?;
    }
    Ok(deleted)
}

/// After a write committed: the rating index catches up with a rated resource's change.
pub fn after_commit<R: Declared>(state: &AppState) {
    if R::RATED {
        LiveRating::after_commit(state);
    }
}

/// One stored row as a record, children and all.
fn assemble<R: Declared>(connection: &mut DbConnection, row: R::Row) -> ApiResult<R::Record> {
    R::complete_page(connection, vec![row])?
        .pop()
        .ok_or_else(|| ApiError::internal("a record vanished while read"))
}

/// 403 unless the values to write belong to one of the caller's contract owners.
fn check_owner_of_write<R: Declared>(
    connection: &mut DbConnection,
    caller: &AuthenticatedUser,
    changes: &R::Changes,
) -> ApiResult<()> {
    if let Some(member) = R::scope_member()
        && !caller.contract_owners.is_all()
        && let Some(owner) = R::owner_of_changes(connection, changes)?
    {
        check_scope_of_write(caller, member, owner)?;
    }
    Ok(())
}

/// Records a rated resource's change in the write's transaction (`live_rating`).
fn record_rating_change<R: Declared>(
    connection: &mut DbConnection,
    id: i64,
    before: Option<&R::Record>,
    after: Option<&R::Record>,
) -> ApiResult<()> {
    if R::RATED {
        record_change(connection, <R as Resource>::PATH, id, before, after)?;
    }
    Ok(())
}
