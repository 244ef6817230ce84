//! The elements of a site's `site_invoice_details` (served only inside the site).

billing_domain::site_invoice_details!(crate::api_child);
