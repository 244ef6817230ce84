//! The one parser of the service's resource declarations.
//!
//! `billing_domain` writes each resource once, in `declare! { … }`:
//!
//! ```text
//! /// Description of the resource.
//! table_name {
//!     /// Description of the member.
//!     member_name: access Kind<params> [references(table, "noun")] [shown_as(member, table)]
//!                  [[create_only] | [echoed]] [= default],
//! }
//! children { /// doc  member_name: list|non_empty_list|one|optional_one|values child_table }
//! scope { column [in table.column]* }
//! headers { /// doc  header_name: Bool }
//! rules { rule_function(member, member) }
//! extra_filters { /// doc  filter_name: Kind }
//! /// Description of another table with the same members and sections.
//! other_table = table_name;
//! ```
//!
//! The sections are optional and may come in any order. From each declaration `declare!`
//! makes, in the invoking module:
//!
//! - a module named after the table with the domain's typed documents: `Draft` (each member
//!   as given), `Parsed` (once every rule holds; `billing_domain::resources::Document`
//!   parses drafts and JSON, naming every broken rule by its JSON path) and `DECLARATION`, the
//!   plain-data description of the resource;
//! - a `#[macro_export]` macro named after the table that hands the declaration, in a fixed
//!   order with every section present, to a macro of the caller's choosing (how the
//!   persistence and http crates derive their shapes).
//!
//! Mistakes are errors at the declaration's line: an unknown access, multiplicity or section
//! here; an unknown kind, or a kind a filter cannot serve, from the compiler at the kind's
//! name (the generated code names each kind with its own span).

mod api;
mod api_child;
mod api_impl;
mod api_members;
mod api_parts;
mod documents;
mod grammar;
mod handed_on;
mod stored;
mod stored_child;
mod stored_table;

use proc_macro::TokenStream;

/// Declares resources (see the crate documentation).
#[proc_macro]
pub fn declare(input: TokenStream) -> TokenStream {
    let declarations = syn::parse_macro_input!(input as grammar::Declarations);
    let mut output = proc_macro2::TokenStream::new();
    for declaration in &declarations.items {
        output.extend(documents::module(declaration));
        output.extend(handed_on::macro_of(declaration));
    }
    output.into()
}

/// The storage of a declared table (re-exported as `billing_persistence::stored_resource`):
/// invoked by a handed-on macro, `billing_domain::charge_groups!(crate::stored_resource)`, with
/// optional `extra_filters { name => kind(columns…) }` for the filters that are not members.
#[proc_macro]
pub fn stored_resource(input: TokenStream) -> TokenStream {
    let handed = syn::parse_macro_input!(input as stored::Handed<stored::StoredWith>);
    stored::stored_resource(handed)
        .unwrap_or_else(syn::Error::into_compile_error)
        .into()
}

/// The storage of an owned child table (re-exported as `billing_persistence::stored_child`):
/// `billing_domain::site_contacts!(crate::stored_child, parent: site_id)`.
#[proc_macro]
pub fn stored_child(input: TokenStream) -> TokenStream {
    let handed = syn::parse_macro_input!(input as stored::Handed<stored::ChildWith>);
    stored_child::stored_child(handed)
        .unwrap_or_else(syn::Error::into_compile_error)
        .into()
}

/// The sort arms of a parent's list for the members of an owned object (used by the code
/// `stored_resource` writes).
#[doc(hidden)]
#[proc_macro]
pub fn nested_sort_arms(input: TokenStream) -> TokenStream {
    let handed = syn::parse_macro_input!(input as stored::Handed<stored::NestedWith>);
    stored_child::nested_sort_arms(handed)
        .unwrap_or_else(syn::Error::into_compile_error)
        .into()
}

/// A declared resource served over HTTP (re-exported as `billing_http::api_resource`):
/// `billing_domain::charge_groups!(crate::api_resource, ChargeGroups { path: "charge-groups",
/// noun: "charge group", read: ReadReferenceData, write: WriteReferenceData, storage:
/// billing_persistence::charge_groups })`.
#[proc_macro]
pub fn api_resource(input: TokenStream) -> TokenStream {
    let handed = syn::parse_macro_input!(input as stored::Handed<api_impl::ApiWith>);
    api::api_resource(handed)
        .unwrap_or_else(syn::Error::into_compile_error)
        .into()
}

/// A declared resource's one implementation of `billing_http::machinery::resource::Resource`,
/// written as an ordinary `impl` block holding only what the declaration cannot say (checks
/// that need other stored data); everything else is filled in from the declaration:
///
/// ```ignore
/// #[crate::declared_resource(billing_domain::charge_groups, path: "charge-groups",
///     noun: "charge group", read: ReadReferenceData, write: WriteReferenceData,
///     storage: billing_persistence::charge_groups)]
/// impl Resource for ChargeGroups {}
/// ```
///
/// The first argument is the declaration's handed-on macro; the rest are [`api_resource`]'s
/// settings. The block goes, with the declaration, to [`api_resource`].
#[proc_macro_attribute]
pub fn declared_resource(settings: TokenStream, item: TokenStream) -> TokenStream {
    let settings = syn::parse_macro_input!(settings as api_impl::DeclaredSettings);
    let item = syn::parse_macro_input!(item as syn::ItemImpl);
    api_impl::declared_resource(settings, item)
        .unwrap_or_else(syn::Error::into_compile_error)
        .into()
}

/// An owned child table served as the elements of its parent (re-exported as
/// `billing_http::api_child`): `billing_domain::site_contacts!(crate::api_child)`.
#[proc_macro]
pub fn api_child(input: TokenStream) -> TokenStream {
    let handed = syn::parse_macro_input!(input as stored::Handed<api_child::NoWith>);
    api_child::api_child(handed)
        .unwrap_or_else(syn::Error::into_compile_error)
        .into()
}
