//! `ignored_call_classes`: call classes a source does not rate.

billing_domain::ignored_call_classes!(crate::stored_resource);
