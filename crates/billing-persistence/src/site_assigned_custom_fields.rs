//! `site_assigned_custom_fields`: owned records of a site (written only with it).

billing_domain::site_assigned_custom_fields!(crate::stored_child, parent: site_id);
