//! `site_addresses`: owned records of a site (written only with it).

billing_domain::site_addresses!(crate::stored_child, parent: site_id);
