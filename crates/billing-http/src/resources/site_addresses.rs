//! The elements of a site's `site_addresses` (served only inside the site).

billing_domain::site_addresses!(crate::api_child);
