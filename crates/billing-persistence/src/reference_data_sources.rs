//! `reference_data_sources`: where reference data comes from.

billing_domain::reference_data_sources!(crate::stored_resource);
