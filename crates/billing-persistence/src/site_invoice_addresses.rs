//! `site_invoice_addresses`: owned records of a site (written only with it).

billing_domain::site_invoice_addresses!(crate::stored_child, parent: site_invoice_details_id);
