//! `contract_owner_sub_brands`: the brands a contract owner trades under, owned by it.

billing_domain::contract_owner_sub_brands!(crate::stored_child, parent: contract_owner_id);
