//! Every declared resource, once: its table, its members with their kinds and docs, the rules
//! that span members and any filter that is not a member, written in `billing_declare::declare!`
//! (whose documentation gives the grammar).
//!
//! From each declaration come, in this module: a module named after the table with the typed
//! documents batch jobs and the service parse ([`documents::Document`]: `Draft`, `Parsed`,
//! every broken rule with its JSON path) and `DECLARATION`, the plain-data description
//! ([`declaration::Declaration`]); and a macro named after the table that hands the
//! declaration to the persistence crate (`billing_persistence::stored_resource!`: its row,
//! changes, queries and filters) and the http crate (`billing_http::api_resource!`: its
//! record, input, field list and routes). A member is one line here (plus its migrations).
//!
//! Accesses: `required`, `optional` (null when unset), `defaulted` (left out of a body → the
//! declared `= default`; never null), `derived` (read-only, filled in by the server from other
//! records; null when there is nothing to show), `created` and `updated` (server stamps),
//! `write_only` (written, never shown: a password) and `kept` (read-only, kept by every write).

mod customer_tables;
pub mod declaration;
pub mod documents;
mod reference_data_tables;
mod site_tables;
#[cfg(test)]
mod tests;
mod user_tables;

/// Declares resources (the grammar is `billing_declare`'s documentation).
pub use billing_declare::declare;
pub use customer_tables::*;
pub use documents::Document;
pub use reference_data_tables::*;
pub use site_tables::*;
pub use user_tables::*;
