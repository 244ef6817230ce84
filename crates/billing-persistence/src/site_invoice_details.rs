//! `site_invoice_details`: owned records of a site (written only with it).

billing_domain::site_invoice_details!(crate::stored_child, parent: site_id);
