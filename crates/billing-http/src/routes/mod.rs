//! Routes that are not resources: sign-in, health, roles, the API documents and the console.

pub mod authentication;
pub mod console;
pub mod documentation;
pub mod health;
pub mod rating_lookup_answer;
pub mod rating_lookup_body;
pub mod rating_lookups;
pub mod reference_data_summary;
