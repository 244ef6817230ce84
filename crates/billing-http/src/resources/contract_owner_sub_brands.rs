//! The elements of a contract owner's `subBrands` (served only inside the owner).

billing_domain::contract_owner_sub_brands!(crate::api_child);
