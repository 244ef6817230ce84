//! `locales`: a country and a currency used together.

billing_domain::locales!(crate::stored_resource);
