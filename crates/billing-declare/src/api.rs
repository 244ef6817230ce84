//! The http crate's side of a declaration (`billing_http::api_resource!`, `api_child!`): the
//! record a response shows, the input a body must be, the field list, filters and sort keys,
//! and the whole `Resource` implementation, merged with the methods the resource's own
//! `impl Resource` block writes (`#[declared_resource(…)]`).

use proc_macro2::TokenStream;
use quote::quote;
use syn::Ident;

use crate::api_impl::{ApiWith, resource_impl};
use crate::api_members::*;
use crate::api_parts::{children, field_list, input_struct, rules};
use crate::grammar::{Declaration, json_name};
use crate::stored::Handed;

pub fn api_resource(handed: Handed<ApiWith>) -> syn::Result<TokenStream> {
    let declaration = &handed.declaration;
    let with = &handed.with;
    let (name, noun, storage) = (&with.name, &with.noun, &with.storage);
    let table = &declaration.table;
    let names: Vec<_> = declaration.fields.iter().map(|field| &field.name).collect();
    let record_types = declaration.fields.iter().map(record_type);
    let record_converted = declaration.fields.iter().map(|field| {
        let name = &field.name;
        record_convert(field, quote!(row.#name))
    });
    let children_list = declaration.children.as_deref().unwrap_or_default();
    let child_names: Vec<_> = children_list.iter().map(|child| &child.name).collect();
    let child_json: Vec<_> = children_list
        .iter()
        .map(|child| json_name(&child.name))
        .collect();
    let child_types = children_list
        .iter()
        .map(|child| child_type(child, "Record"));
    let serialized = declaration
        .fields
        .iter()
        .filter(|field| field.access != "write_only")
        .map(|field| {
            let name = &field.name;
            let member = match &field.shown_as {
                Some((member, _)) => json_name(member),
                None => json_name(name),
            };
            quote!(map.serialize_entry(#member, &self.#name)?;)
        });
    let shown: Vec<_> = declaration
        .fields
        .iter()
        .filter(|field| field.shown_as.is_some())
        .map(|field| &field.name)
        .collect();
    let values = declaration
        .fields
        .iter()
        .map(|field| {
            let name = &field.name;
            value(field, quote!(current.map(|current| &current.#name)))
        })
        .collect::<syn::Result<Vec<_>>>()?;
    let write_only_checks = declaration
        .fields
        .iter()
        .map(|field| write_only_check(field, noun));
    let create_only_checks = declaration.fields.iter().map(create_only_check);
    let references = declaration
        .fields
        .iter()
        .map(reference_check)
        .collect::<syn::Result<Vec<_>>>()?;
    let rules = rules(declaration);
    let children = children(declaration);
    let input = input_struct(declaration, false);
    let fields = field_list(declaration);
    let headers = declaration.headers.as_deref().unwrap_or_default();
    let header_names: Vec<_> = headers.iter().map(|header| &header.name).collect();
    let header_texts: Vec<_> = headers
        .iter()
        .map(|header| header.name.to_string())
        .collect();
    let owner_of = scope_owner(declaration);
    let owner_of_row = match &owner_of {
        Some(owner_of) => {
            let owner = owner_of(quote!(row));
            quote!(Some(#owner))
        }
        None => quote!(None),
    };
    let owner_of_changes = match &owner_of {
        Some(owner_of) => {
            let owner = owner_of(quote!(changes));
            quote!(Some(#owner))
        }
        None => quote!(None),
    };
    let rated = with.rated;
    let passwords: Vec<&Ident> = declaration
        .fields
        .iter()
        .filter(|field| field.kind.path.is_ident("Password"))
        .map(|field| &field.name)
        .collect();
    let passwords_prepared = if passwords.is_empty() {
        quote!()
    } else {
        quote! {
            fn prepare(
                state: &::billing_http::state::AppState,
                values: Vec<String>,
            ) -> impl ::std::future::Future<Output = ::billing_http::machinery::resource::ApiResult<::billing_http::machinery::resource::Prepared>> {
                ::billing_http::machinery::kinds::hash_passwords(state, values)
            }

            fn attach_prepared(
                input: &mut declared::Input,
                prepared: &::billing_http::machinery::resource::Prepared,
            ) -> ::billing_http::machinery::resource::ApiResult<()> {
                #(::billing_http::machinery::kinds::TakesHash::take_hash(&mut input.#passwords, prepared);)*
                Ok(())
            }
        }
    };
    let callers_forgotten = if with.changes_callers {
        quote! {
            fn committed(state: &::billing_http::state::AppState) {
                state.auth.forget_cached_users();
            }
        }
    } else {
        quote!()
    };
    let resource_impl = resource_impl(
        with,
        quote! {
            #passwords_prepared
            #callers_forgotten
        },
    )?;
    Ok(quote! {
        mod declared {
            #[allow(unused_imports)]
            use ::billing_domain::kinds::*;
            use ::billing_http::machinery::kinds::ApiKind;
            use ::billing_http::machinery::resource::{ApiResult, Field, WriteRequest};
            use #storage as storage;

            /// The record as responses show it (a shown record's member under its own name:
            /// `currency`, not `currencyId`).
            #[derive(Debug, Clone)]
            pub struct Record {
                pub id: i64,
                #(pub #names: #record_types,)*
                #(pub #child_names: #child_types,)*
                pub version: i64,
            }

            impl ::serde::Serialize for Record {
                fn serialize<S: ::serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
                    use ::serde::ser::SerializeMap;
                    let mut map = serializer.serialize_map(None)?;
                    map.serialize_entry("id", &self.id)?;
                    #(#serialized)*
                    #(map.serialize_entry(#child_json, &self.#child_names)?;)*
                    map.end()
                }
            }

            /// The record's own columns; its children and shown records are loaded by
            /// [`Record::complete_page`].
            impl From<storage::Row> for Record {
                fn from(row: storage::Row) -> Self {
                    Self {
                        id: row.id,
                        #(#names: #record_converted,)*
                        #(#child_names: Default::default(),)*
                        version: row.version,
                    }
                }
            }

            impl Record {
                /// A page of records with their owned children and the records they show:
                /// one query per table, whatever the page's size.
                #[allow(unused_mut)]
                pub fn complete_page(
                    connection: &mut ::billing_persistence::DbConnection,
                    records: Vec<Record>,
                ) -> ApiResult<Vec<Record>> {
                    let mut records = Self::with_children(connection, records)?;
                    #(::billing_http::machinery::shown::fill(connection, &mut records, |record| &mut record.#shown)?;)*
                    Ok(records)
                }
            }

            #children

            impl ::billing_http::machinery::resource::Versioned for Record {
                fn id(&self) -> i64 {
                    self.id
                }

                fn version(&self) -> i64 {
                    self.version
                }

                /// The record's, then each shown record's (and what that one shows).
                #[allow(unused_mut)]
                fn shown_versions(&self) -> Vec<i64> {
                    let mut versions = vec![self.version];
                    #(::billing_http::machinery::shown::ShownMember::versions(&self.#shown, &mut versions);)*
                    versions
                }
            }

            /// Other records may show this one whole (`shown_as(…)`).
            impl ::billing_http::machinery::shown::ShownRecord for Record {
                type Key = i64;
                const NOUN: &'static str = #noun;
                const KEY: &'static str = "id";
                const FIELDS: &'static [Field] = FIELDS;

                fn key(&self) -> i64 {
                    self.id
                }

                fn load(
                    connection: &mut ::billing_persistence::DbConnection,
                    keys: &[i64],
                ) -> ApiResult<Vec<Record>> {
                    let rows = storage::find_many(connection, keys)?;
                    Record::complete_page(connection, rows.into_iter().map(Record::from).collect())
                }

                fn shown_versions(&self) -> Vec<i64> {
                    ::billing_http::machinery::resource::Versioned::shown_versions(self)
                }
            }

            #input

            impl Input {
                /// The values to store, once the rules across fields and the references hold
                /// (in the record and in every owned element). `current` is the stored record a
                /// replace starts from (`None` on create): its stamps and create-only values.
                #[allow(unused_variables, unused_mut)]
                pub fn changes(
                    &self,
                    connection: &mut ::billing_persistence::DbConnection,
                    current: Option<&Record>,
                ) -> ApiResult<(storage::Changes, Children)> {
                    let now = ::billing_persistence::now();
                    #(let #names = #values;)*
                    let mut errors = ::billing_domain::ValidationErrors::default();
                    #(#write_only_checks)*
                    #(#create_only_checks)*
                    #rules
                    if !errors.is_empty() {
                        return Err(errors.into());
                    }
                    #(#references)*
                    let children = self.children(connection)?;
                    Ok((storage::Changes { #(#names,)* }, children))
                }
            }

            /// The declared request headers of a write (parsed; `None` when not sent), and
            /// for a patch the member paths its operations change.
            #[derive(Debug, Default)]
            pub struct Options {
                #(pub #header_names: Option<bool>,)*
                pub patched_paths: Option<Vec<String>>,
                pub request_id: String,
            }

            impl Options {
                fn of(request: &WriteRequest) -> Self {
                    Self {
                        #(#header_names: request.flag(#header_texts),)*
                        patched_paths: request.patched_paths.clone(),
                        request_id: request.request_id.clone(),
                    }
                }
            }

            impl ::billing_http::machinery::declared::Declared for super::#name {
                type Changes = storage::Changes;
                type Options = Options;
                type Row = storage::Row;
                type Children = Children;
                const RATED: bool = #rated;
                const DECLARATION: &'static ::billing_domain::resources::declaration::Declaration =
                    &::billing_domain::resources::#table::DECLARATION;

                fn list_rows(
                    connection: &mut ::billing_persistence::DbConnection,
                    query: &::billing_domain::query::ListQuery,
                    scope: &::billing_domain::roles::ContractOwnerScope,
                ) -> ::billing_persistence::error::PersistenceResult<(Vec<storage::Row>, i64)> {
                    storage::list(connection, query, scope)
                }

                fn find_row(
                    connection: &mut ::billing_persistence::DbConnection,
                    id: i64,
                ) -> ::billing_persistence::error::PersistenceResult<Option<storage::Row>> {
                    storage::find(connection, id)
                }

                fn row_id(row: &storage::Row) -> i64 {
                    row.id
                }

                fn complete_page(
                    connection: &mut ::billing_persistence::DbConnection,
                    rows: Vec<storage::Row>,
                ) -> ApiResult<Vec<Record>> {
                    Record::complete_page(connection, rows.into_iter().map(Record::from).collect())
                }

                #[allow(unused_variables)]
                fn owner_of_row(
                    connection: &mut ::billing_persistence::DbConnection,
                    row: &storage::Row,
                ) -> ApiResult<Option<i64>> {
                    Ok(#owner_of_row)
                }

                #[allow(unused_variables)]
                fn owner_of_changes(
                    connection: &mut ::billing_persistence::DbConnection,
                    changes: &storage::Changes,
                ) -> ApiResult<Option<i64>> {
                    Ok(#owner_of_changes)
                }

                fn changes(
                    connection: &mut ::billing_persistence::DbConnection,
                    input: &Input,
                    current: Option<&Record>,
                ) -> ApiResult<(storage::Changes, Children)> {
                    input.changes(connection, current)
                }

                fn insert(
                    connection: &mut ::billing_persistence::DbConnection,
                    changes: &storage::Changes,
                ) -> ::billing_persistence::error::PersistenceResult<storage::Row> {
                    storage::insert(connection, changes)
                }

                fn update(
                    connection: &mut ::billing_persistence::DbConnection,
                    id: i64,
                    version: i64,
                    changes: &storage::Changes,
                ) -> ::billing_persistence::error::PersistenceResult<Option<storage::Row>> {
                    storage::update(connection, id, version, changes)
                }

                fn write_children(
                    connection: &mut ::billing_persistence::DbConnection,
                    children: &Children,
                    id: i64,
                ) -> ApiResult<()> {
                    children.write(connection, id)
                }

                fn delete_row(
                    connection: &mut ::billing_persistence::DbConnection,
                    id: i64,
                    version: i64,
                ) -> ::billing_persistence::error::PersistenceResult<bool> {
                    storage::delete(connection, id, version)
                }

                fn options(request: &WriteRequest) -> Options {
                    Options::of(request)
                }
            }

            /// The declaration's field list, as the interface shows it.
            pub const FIELDS: &[Field] = #fields;
        }
        pub use self::declared::{Input, Options, Record};

        #resource_impl
    })
}

/// The contract owner a scoped record belongs to, from a row or changes: its scope column, or
/// the owner of the record that column names (`customer_id in customers.contract_owner_id`).
#[allow(clippy::type_complexity)]
fn scope_owner(declaration: &Declaration) -> Option<Box<dyn Fn(TokenStream) -> TokenStream + '_>> {
    let scope = declaration.scope.as_ref()?;
    Some(Box::new(move |source: TokenStream| {
        let column = &scope.column;
        let mut steps = quote!(let owner = #source.#column;);
        for (table, owner) in &scope.through {
            steps.extend(quote! {
                let owner = match ::billing_persistence::#table::find(connection, owner)? {
                    Some(owner) => owner.#owner,
                    None => {
                        return Err(::billing_http::error::ApiError::internal(
                            "the record a scoped record belongs to is missing",
                        ))
                    }
                };
            });
        }
        quote!({ #steps owner })
    }))
}
