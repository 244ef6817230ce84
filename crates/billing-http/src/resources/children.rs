//! The elements of the owned child tables, served only inside their parents (the `children`
//! section of each parent's declaration).

/// The site ids of an ad hoc bill run (served inside the run, as `siteIds`).
pub mod adhoc_bill_run_sites {
    billing_domain::adhoc_bill_run_sites!(crate::api_child);
}

/// The elements of a contract owner's `subBrands`.
pub mod contract_owner_sub_brands {
    billing_domain::contract_owner_sub_brands!(crate::api_child);
}

/// A site's `siteAddress`.
pub mod site_addresses {
    billing_domain::site_addresses!(crate::api_child);
}

/// A site's `assignedCustomFields`.
pub mod site_assigned_custom_fields {
    billing_domain::site_assigned_custom_fields!(crate::api_child);
}

/// A site's `siteContacts`.
pub mod site_contacts {
    billing_domain::site_contacts!(crate::api_child);
}

/// The `siteInvoiceAddress` of a site's invoice details.
pub mod site_invoice_addresses {
    billing_domain::site_invoice_addresses!(crate::api_child);
}

/// A site's `siteInvoiceDetails`.
pub mod site_invoice_details {
    billing_domain::site_invoice_details!(crate::api_child);
}

/// The contract owners a user is limited to (served inside the user, as `contractOwnerIds`).
pub mod user_contract_owners {
    billing_domain::user_contract_owners!(crate::api_child);
}
