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
//!     field_name: required|optional Kind<params> [references(table, "noun")],
//! }
//! children {                                    // optional: owned child records
//!     /// Description of the list.
//!     field_name: list|non_empty_list child_table,  // declared like a table, without children
//! }
//! rules { rule_function(field, field) }          // billing_domain::rules
//! extra_filters { /// doc  filter_name: Kind }   // filters that are not fields
//! ```

mod customers;
mod reference_data;
