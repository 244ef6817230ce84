//! The conventions of docs/api.md "Everywhere", written once: every resource declares itself through
//! [`resource::Resource`] and these modules serve it.

pub mod audit;
pub mod body;
pub mod body_budget;
pub mod declared;
pub mod embedded;
pub mod fields;
pub mod handlers;
pub mod idempotency;
pub mod kinds;
pub mod list;
pub mod list_budget;
pub mod members;
pub mod operations;
pub mod page_body;
pub mod patch;
pub mod proxies;
pub mod query_string;
pub mod repeated_members;
pub mod request;
pub mod resource;
pub mod serde_dates;
pub mod shown;
