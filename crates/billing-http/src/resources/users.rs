//! `/v1/users` (docs/api.md "Authentication and users"): API accounts, managed by administrators. `password` is
//! write-only, hashed on the hashing pool before the write's transaction; `POST` takes one
//! user or an array (all or nothing); `PATCH /v1/users` changes several.

use billing_auth::AuthenticatedUser;
use billing_domain::roles::Role;
use billing_persistence::{DbConnection, refresh_tokens, users};

use crate::error::ApiError;
use crate::machinery::resource::{ApiResult, Resource};

pub struct Users;

#[crate::declared_resource(
    billing_domain::users,
    path: "users",
    noun: "user",
    read: ManageUsers,
    write: ManageUsers,
    storage: billing_persistence::users,
    changes_callers: true,
    operations: Operations {
        get: true,
        create: true,
        bulk_create: true,
        replace: false,
        patch: true,
        delete: false,
        bulk_update: true,
    },
)]
impl Resource for Users {
    /// Each contract owner once, in ascending order; none for an ADMINISTRATOR.
    fn complete(
        _: &mut DbConnection,
        _: &AuthenticatedUser,
        _: Option<&Record>,
        input: &mut Input,
    ) -> ApiResult<()> {
        input.contract_owner_ids.sort_by_key(|id| id.0);
        input.contract_owner_ids.dedup_by_key(|id| id.0);
        billing_domain::users::check_contract_owner_limit(
            billing_domain::resources::users::names::contract_owner_ids,
            &input.roles,
            input.contract_owner_ids.len(),
        )?;
        Ok(())
    }

    /// A changed password or a deactivation signs the user out everywhere; at least one active
    /// administrator remains. A request made with an API key sets no password, neither a new
    /// user's nor an existing one's (403): with a password the key's holder could sign in and
    /// make keys that outlive the key, which a key itself may not (`api_keys.rs`).
    fn written(
        connection: &mut DbConnection,
        caller: &AuthenticatedUser,
        before: Option<&Record>,
        record: &Record,
        _: &Options,
    ) -> ApiResult<()> {
        if caller.api_key_id.is_some()
            && before.is_none_or(|before| record.password != before.password)
        {
            return Err(ApiError::forbidden(
                "a request made with an API key cannot set passwords (create a user or change a \
                 password): with one, the key's holder could sign in and outlive the key; sign in \
                 with a password to do it",
            ));
        }
        let Some(before) = before else {
            return Ok(());
        };
        if users::count_active_with_role(connection, Role::Administrator.code())? == 0 {
            return Err(ApiError::conflict(
                "at least one active ADMINISTRATOR must remain",
            ));
        }
        if record.password != before.password || !record.active {
            refresh_tokens::revoke_all_for_user(connection, record.id)?;
        }
        Ok(())
    }
}

/// The record a user is shown as (the audit trail's and the CLI's name for it).
pub type User = Record;
