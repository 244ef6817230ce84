//! The contract owners a user is limited to (served only inside the user, as
//! `contractOwnerIds`).

billing_domain::user_contract_owners!(crate::api_child);
