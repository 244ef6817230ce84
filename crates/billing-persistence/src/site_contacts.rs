//! `site_contacts`: owned records of a site (written only with it).

billing_domain::site_contacts!(crate::stored_child, parent: site_id);
