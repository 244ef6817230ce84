//! `/v1/contract-owners` (decisions §4): who customers are contracted with, each with its
//! sub-brands (an owned list: written with the owner, in one transaction).

use crate::machinery::declared::Hooks;

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

impl Hooks for ContractOwners {}
