//! Every declared resource, once: its table, its fields with their kinds and docs, the rules
//! that span fields and any filter that is not a field.
//!
//! Each declaration is a macro that hands its tokens to a macro of the caller's choosing, so
//! each layer derives its own shapes from the same list: the persistence crate its row,
//! changes, queries and filters (`billing_persistence::stored_resource!`), the http crate its
//! record, input, field list and routes (`billing_http::api_resource!`). A field is one line
//! here (plus its migrations).
//!
//! The grammar, read by both consumers:
//!
//! ```text
//! /// Description of the resource.
//! table_name {
//!     /// Description of the field.
//!     field_name: access Kind<params> [references(table, "noun")] [[create_only]] [= default],
//! }
//! children {                                    // optional: owned child records
//!     /// Description of the member.
//!     field_name: list|non_empty_list|one|optional_one|values child_table,  // declared like a table,
//! }                                             // and may have children of its own
//! scope { column [in table.column]* }           // optional: contract-owner scope, directly or
//!                                               // through the records the column names
//! headers { /// doc  header_name: Bool }        // optional: request headers of replace/patch
//! rules { rule_function(field, field) }          // billing_domain::rules
//! extra_filters { /// doc  filter_name: Kind }   // filters that are not fields
//! ```
//!
//! Accesses: `required`, `optional` (null when unset), `defaulted` (left out of a body → the
//! declared `= default`; never null), `derived` (read-only, filled in by the server from other
//! records; null when there is nothing to show), `created` and `updated` (server stamps).

mod customers;
pub mod parsed;
mod reference_data;
mod sites;
mod users;
