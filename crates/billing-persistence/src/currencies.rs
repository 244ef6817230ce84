//! `currencies` (ISO 4217 codes with display names and formats).

billing_domain::currencies!(crate::stored_resource);
