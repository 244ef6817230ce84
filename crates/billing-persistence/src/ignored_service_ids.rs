//! `ignored_service_ids` (docs/api.md "Reference data").

billing_domain::ignored_service_ids!(crate::stored_resource);
