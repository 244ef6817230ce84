//! `ignored_service_ids` (decisions §3).

billing_domain::ignored_service_ids!(crate::stored_resource);
