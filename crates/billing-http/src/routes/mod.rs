//! Routes that are not resources: sign-in, health, roles and the API documents.

pub mod authentication;
pub mod documentation;
pub mod health;
pub mod rating_lookup_body;
pub mod rating_lookups;
pub mod reference_data_summary;
