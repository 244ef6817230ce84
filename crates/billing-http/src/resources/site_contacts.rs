//! The elements of a site's `site_contacts` (served only inside the site).

billing_domain::site_contacts!(crate::api_child);
