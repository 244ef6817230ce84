//! `customers`: who is contracted with a contract owner (scoped by `contract_owner_id`).

billing_domain::customers!(crate::stored_resource);
