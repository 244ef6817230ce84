//! `contract_owners`: who customers are contracted with (their sub-brands are owned children).

billing_domain::contract_owners!(crate::stored_resource);
