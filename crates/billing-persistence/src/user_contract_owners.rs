//! `user_contract_owners`: the contract owners a user is limited to, one row each, so SQL can
//! filter by them (a restricted caller's scope) and a page of users reads them in one query.

billing_domain::user_contract_owners!(crate::stored_child, parent: user_id);
