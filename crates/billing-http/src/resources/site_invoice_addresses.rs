//! The elements of a site's `site_invoice_addresses` (served only inside the site).

billing_domain::site_invoice_addresses!(crate::api_child);
