//! The owned child tables: each written only with its parent (the `children` section of the
//! parent's declaration) and declared by its own declaration, named here with the column that
//! names its parent.

/// `adhoc_bill_run_sites`: the sites of an ad hoc bill run.
pub mod adhoc_bill_run_sites {
    billing_domain::adhoc_bill_run_sites!(crate::stored_child, parent: adhoc_bill_run_id);
}

/// `contract_owner_sub_brands`: the brands a contract owner trades under.
pub mod contract_owner_sub_brands {
    billing_domain::contract_owner_sub_brands!(crate::stored_child, parent: contract_owner_id);
}

/// `site_addresses`: a site's address.
pub mod site_addresses {
    billing_domain::site_addresses!(crate::stored_child, parent: site_id);
}

/// `site_assigned_custom_fields`: a site's custom field values.
pub mod site_assigned_custom_fields {
    billing_domain::site_assigned_custom_fields!(crate::stored_child, parent: site_id);
}

/// `site_contacts`: a site's contacts.
pub mod site_contacts {
    billing_domain::site_contacts!(crate::stored_child, parent: site_id);
}

/// `site_invoice_addresses`: the address a site's invoices go to.
pub mod site_invoice_addresses {
    billing_domain::site_invoice_addresses!(crate::stored_child, parent: site_invoice_details_id);
}

/// `site_invoice_details`: how a site is invoiced and pays.
pub mod site_invoice_details {
    billing_domain::site_invoice_details!(crate::stored_child, parent: site_id);
}

/// `user_contract_owners`: the contract owners a user is limited to, one row each (so SQL can filter by them and a page of users reads them in one query).
pub mod user_contract_owners {
    billing_domain::user_contract_owners!(crate::stored_child, parent: user_id);
}
