//! The elements of a site's `site_assigned_custom_fields` (served only inside the site).

billing_domain::site_assigned_custom_fields!(crate::api_child);
