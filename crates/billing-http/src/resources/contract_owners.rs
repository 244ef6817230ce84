//! `/v1/contract-owners` (decisions §4): who customers are contracted with, each with its
//! sub-brands (an owned list: written with the owner, in one transaction).

use billing_auth::AuthenticatedUser;
use billing_persistence::{DbConnection, customers, users};

use crate::machinery::declared::Hooks;
use crate::machinery::resource::{ApiResult, still_referenced};

pub struct ContractOwners;

billing_domain::contract_owners!(
    crate::api_resource,
    ContractOwners {
        path: "contract-owners",
        noun: "contract owner",
        read: ReadCustomers,
        write: WriteCustomers,
        storage: billing_persistence::contract_owners,
    }
);

impl Hooks for ContractOwners {
    fn check_delete(
        connection: &mut DbConnection,
        _: &AuthenticatedUser,
        current: &Record,
    ) -> ApiResult<()> {
        if users::references_contract_owner(connection, current.id)? {
            return Err(still_referenced(
                "contract owner",
                current.id,
                "users restricted to it",
            ));
        }
        if customers::with_contract_owner(connection, current.id)? {
            return Err(still_referenced("contract owner", current.id, "customers"));
        }
        Ok(())
    }
}
