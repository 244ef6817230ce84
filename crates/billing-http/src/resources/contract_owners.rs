//! `/v1/contract-owners` (docs/api.md "Sites"): who customers are contracted with, each with its
//! sub-brands (an owned list: written with the owner, in one transaction).

use billing_auth::AuthenticatedUser;
use billing_persistence::DbConnection;
use billing_persistence::contract_owners::Changes;

use crate::error::ApiError;
use crate::machinery::resource::{ApiResult, Resource};

pub struct ContractOwners;

#[crate::declared_resource(
    billing_domain::contract_owners,
    path: "contract-owners",
    noun: "contract owner",
    read: ReadCustomers,
    write: WriteCustomers,
    storage: billing_persistence::contract_owners,
)]
impl Resource for ContractOwners {
    /// A user restricted to contract owners may change or delete only those (403): every
    /// owner can be read, but another owner's record is that owner's data.
    fn check_change(
        _: &mut DbConnection,
        caller: &AuthenticatedUser,
        current: &Record,
    ) -> ApiResult<()> {
        if caller.contract_owners.allows(current.id) {
            return Ok(());
        }
        Err(ApiError::forbidden(format!(
            "contract owner {} is not one of your contract owners: you may read it, not change it",
            current.id
        )))
    }

    /// A user restricted to contract owners cannot create one (403): it would be outside
    /// their scope the moment it exists.
    fn check_write(
        _: &mut DbConnection,
        caller: &AuthenticatedUser,
        current: Option<&Record>,
        _: &Changes,
    ) -> ApiResult<()> {
        if current.is_none() && !caller.contract_owners.is_all() {
            return Err(ApiError::forbidden(
                "a user limited to contract owners cannot create contract owners",
            ));
        }
        Ok(())
    }
}
