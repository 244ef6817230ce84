//! The http crate's side of a declaration (`billing_http::api_resource!`, `api_child!`): the
//! record a response shows, the input a body must be, the field list, filters and sort keys,
//! and the whole `Resource` implementation, merged with the methods the resource's own
//! `impl Resource` block writes (`#[declared_resource(…)]`).

use proc_macro2::TokenStream;
use quote::quote;
use syn::parse::{Parse, ParseStream};
use syn::{Expr, Ident, LitStr, Path, Token};

use crate::api_members::*;
use crate::api_parts::{children, field_list, input_struct, rules};
use crate::grammar::{Declaration, doc_text, json_name};
use crate::stored::Handed;

/// `Name { path: "…", noun: "…", read: P, write: P, storage: path[, operations: …]
/// [, created_status: …][, embedded: …][, rated: true][, changes_callers: true] }`. `rated`:
/// rating reads the records, so each write records its change in the write's transaction and
/// after the commit the rating index catches up (`billing_http::live_rating`).
/// `changes_callers`: the records say who callers are and what they may do, so after a commit
/// the callers this instance serves from memory are forgotten (a change takes effect on the
/// next request). A member of kind `Password` is hashed on the hashing pool before the write's
/// transaction opens (`billing_http::machinery::kinds::hash_passwords`). An `impl Resource for
/// Name { … }` block may follow the braces: its methods (the checks only stored data can
/// answer) join the generated ones in the one implementation.
pub struct ApiWith {
    name: Ident,
    path: LitStr,
    noun: LitStr,
    read: Ident,
    write: Ident,
    storage: Path,
    operations: Option<Expr>,
    created_status: Option<Expr>,
    embedded: Option<Expr>,
    rated: bool,
    changes_callers: bool,
    written: Option<syn::ItemImpl>,
}

impl Parse for ApiWith {
    fn parse(input: ParseStream) -> syn::Result<Self> {
        let name: Ident = input.parse()?;
        let content;
        syn::braced!(content in input);
        let (mut path, mut noun, mut read, mut write, mut storage) = (None, None, None, None, None);
        let (mut operations, mut created_status, mut embedded) = (None, None, None);
        let mut rated = false;
        let mut changes_callers = false;
        while !content.is_empty() {
            let key: Ident = content.parse()?;
            content.parse::<Token![:]>()?;
            match key.to_string().as_str() {
                "path" => path = Some(content.parse()?),
                "noun" => noun = Some(content.parse()?),
                "read" => read = Some(content.parse()?),
                "write" => write = Some(content.parse()?),
                "storage" => storage = Some(content.parse()?),
                "operations" => operations = Some(content.parse()?),
                "created_status" => created_status = Some(content.parse()?),
                "embedded" => embedded = Some(content.parse()?),
                "rated" => rated = content.parse::<syn::LitBool>()?.value,
                "changes_callers" => {
                    changes_callers = content.parse::<syn::LitBool>()?.value;
                }
                _ => {
                    return Err(syn::Error::new(
                        key.span(),
                        format!("unknown setting `{key}`"),
                    ));
                }
            }
            if !content.is_empty() {
                content.parse::<Token![,]>()?;
            }
        }
        let written = if input.is_empty() {
            None
        } else {
            Some(input.parse()?)
        };
        let missing = |what: &str| syn::Error::new(name.span(), format!("`{what}:` is required"));
        Ok(ApiWith {
            written,
            path: path.ok_or_else(|| missing("path"))?,
            noun: noun.ok_or_else(|| missing("noun"))?,
            read: read.ok_or_else(|| missing("read"))?,
            write: write.ok_or_else(|| missing("write"))?,
            storage: storage.ok_or_else(|| missing("storage"))?,
            name,
            operations,
            created_status,
            embedded,
            rated,
            changes_callers,
        })
    }
}

/// `#[declared_resource(declaration_macro, settings…)]`'s arguments.
pub struct DeclaredSettings {
    declaration: Path,
    settings: TokenStream,
}

impl Parse for DeclaredSettings {
    fn parse(input: ParseStream) -> syn::Result<Self> {
        let declaration = input.parse()?;
        input.parse::<Token![,]>()?;
        Ok(DeclaredSettings {
            declaration,
            settings: input.parse()?,
        })
    }
}

/// The `impl Resource for Name` block, handed with its settings to the declaration's macro,
/// which hands both to `api_resource!`.
pub fn declared_resource(
    DeclaredSettings {
        declaration,
        settings,
    }: DeclaredSettings,
    item: syn::ItemImpl,
) -> syn::Result<TokenStream> {
    let syn::Type::Path(name) = &*item.self_ty else {
        return Err(syn::Error::new_spanned(
            &item.self_ty,
            "expected `impl Resource for Name`",
        ));
    };
    let name = name
        .path
        .get_ident()
        .ok_or_else(|| syn::Error::new_spanned(&name.path, "expected a type's name"))?;
    Ok(quote!(#declaration!(billing_http::api_resource, #name { #settings } #item);))
}

pub fn api_resource(handed: Handed<ApiWith>) -> syn::Result<TokenStream> {
    let declaration = &handed.declaration;
    let with = &handed.with;
    let (name, noun, storage) = (&with.name, &with.noun, &with.storage);
    let description = doc_text(&declaration.docs);
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
    let header_docs: Vec<_> = headers
        .iter()
        .map(|header| doc_text(&header.docs))
        .collect();
    // A write-only member (a password) is never a filter; every other member's kind says how it
    // filters (`billing_domain::kinds::Filterable`).
    let member_filters = declaration.fields.iter().filter(|field| field.access != "write_only").map(|field| {
        let kind = &field.kind;
        let member = match &field.shown_as {
            Some((member, _)) => json_name(member),
            None => json_name(&field.name),
        };
        let doc = doc_text(&field.docs);
        quote!(FilterParam::new(#member, <#kind as ::billing_domain::kinds::Filterable>::FILTER, #doc),)
    });
    let extra_filters = declaration.extra_filters.iter().map(|filter| {
        let kind = &filter.kind;
        let json = json_name(&filter.name);
        let doc = doc_text(&filter.docs);
        quote!(FilterParam::new(#json, <#kind as ::billing_domain::kinds::Filterable>::FILTER, #doc),)
    });
    let sort_keys = declaration
        .fields
        .iter()
        .map(|field| match &field.shown_as {
            Some((member, _)) => json_name(member),
            None => json_name(&field.name),
        });
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
    let scope_member = match &declaration.scope {
        Some(scope) => {
            let member = json_name(&scope.column);
            quote!(Some(#member))
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
        &description,
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
            use ::billing_http::machinery::resource::{ApiResult, Field, FilterParam, HeaderParam, WriteRequest};
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
                const SCOPE: Option<&'static str> = #scope_member;

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

            /// The declaration's field list, filters, sort keys and headers, as data.
            pub const FIELDS: &[Field] = #fields;
            pub const FILTERS: &[FilterParam] = &[
                FilterParam::new("id", ::billing_domain::query::FilterKind::Id, "Filter on the id."),
                #(#member_filters)*
                #(#extra_filters)*
            ];
            pub const SORT_KEYS: &[&str] = &["id", #(#sort_keys,)*];
            pub const HEADERS: &[HeaderParam] = &[
                #(HeaderParam::boolean(#header_texts, #header_docs),)*
            ];
        }
        pub use self::declared::{Input, Options, Record};

        #resource_impl
    })
}

/// The one `impl Resource for Name`: the methods the resource's own block wrote, then what
/// the declaration gives (its settings, shapes and the generic operations of
/// `billing_http::machinery::operations`).
fn resource_impl(
    with: &ApiWith,
    description: &str,
    optional: TokenStream,
) -> syn::Result<TokenStream> {
    let (name, path, noun, read, write) =
        (&with.name, &with.path, &with.noun, &with.read, &with.write);
    let operations = match &with.operations {
        Some(operations) => quote!({
            use ::billing_http::machinery::resource::Operations;
            #operations
        }),
        None => quote!(::billing_http::machinery::resource::Operations::ALL),
    };
    let created_status = match &with.created_status {
        Some(status) => quote!(#status),
        None => quote!(201),
    };
    let embedded = match &with.embedded {
        Some(embedded) => quote!(#embedded),
        None => quote!(&[]),
    };
    let resource = quote!(::billing_http::machinery::resource);
    let generic = quote!(::billing_http::machinery::operations);
    let (connection, caller) = (
        quote!(&mut ::billing_persistence::DbConnection),
        quote!(&::billing_auth::AuthenticatedUser),
    );
    let generated = quote! {
        const PATH: &'static str = #path;
        const NOUN: &'static str = #noun;
        const DESCRIPTION: &'static str = #description;
        const READ: ::billing_domain::roles::Permission = ::billing_domain::roles::Permission::#read;
        const WRITE: ::billing_domain::roles::Permission = ::billing_domain::roles::Permission::#write;
        const OPERATIONS: #resource::Operations = #operations;
        const CREATED_STATUS: u16 = #created_status;
        const EMBEDDED: &'static [::billing_http::machinery::embedded::Embedded] = #embedded;
        const FIELDS: &'static [#resource::Field] = declared::FIELDS;
        const FILTERS: &'static [#resource::FilterParam] = declared::FILTERS;
        const SORT_KEYS: &'static [&'static str] = declared::SORT_KEYS;
        const HEADERS: &'static [#resource::HeaderParam] = declared::HEADERS;

        type Record = declared::Record;
        type Input = declared::Input;

        fn sort_keys() -> &'static [&'static str] {
            static KEYS: ::std::sync::OnceLock<Vec<&'static str>> = ::std::sync::OnceLock::new();
            KEYS.get_or_init(|| #resource::with_nested_sort_keys(Self::SORT_KEYS, Self::FIELDS))
        }

        /// The declared filters but a write-only member's.
        fn filters() -> &'static [#resource::FilterParam] {
            static FILTERS: ::std::sync::OnceLock<Vec<#resource::FilterParam>> = ::std::sync::OnceLock::new();
            FILTERS.get_or_init(|| #resource::without_write_only(Self::FILTERS, Self::FIELDS))
        }

        fn list(
            connection: #connection,
            caller: #caller,
            query: &::billing_domain::query::ListQuery,
        ) -> #resource::ApiResult<(Vec<declared::Record>, i64)> {
            #generic::list::<Self>(connection, caller, query)
        }

        fn find(
            connection: #connection,
            caller: #caller,
            id: i64,
        ) -> #resource::ApiResult<Option<declared::Record>> {
            #generic::find::<Self>(connection, caller, id)
        }

        fn create(
            connection: #connection,
            caller: #caller,
            input: declared::Input,
        ) -> #resource::ApiResult<declared::Record> {
            #generic::create::<Self>(connection, caller, input)
        }

        fn replace(
            connection: #connection,
            caller: #caller,
            current: &declared::Record,
            input: declared::Input,
            request: &#resource::WriteRequest,
        ) -> #resource::ApiResult<Option<declared::Record>> {
            #generic::replace::<Self>(connection, caller, current, input, request)
        }

        fn delete(
            connection: #connection,
            caller: #caller,
            current: &declared::Record,
        ) -> #resource::ApiResult<bool> {
            #generic::delete::<Self>(connection, caller, current)
        }

        fn after_commit(state: &::billing_http::state::AppState) {
            #generic::after_commit::<Self>(state)
        }

        #optional
    };
    let generated: syn::ItemImpl = syn::parse2(quote!(impl Resource for #name { #generated }))?;
    let mut written = match &with.written {
        Some(written) => written.clone(),
        None => syn::parse2(quote!(impl #resource::Resource for #name {}))?,
    };
    written.items.extend(generated.items);
    Ok(quote!(#written))
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
