//! The persistence crate's side of a declaration (`billing_persistence::stored_resource!`,
//! `stored_child!`): the Diesel table, the row (checked for both backends by `Selectable`),
//! the changes a write sets, and the queries, with a filter and a sort key for every declared
//! member by its kind and access. The generated code names `::billing_persistence` (which
//! names itself so) and its list macros (`filter_column!`, `sort_column!`).

use proc_macro2::{Group, TokenStream};
use quote::{format_ident, quote};
use syn::parse::{Parse, ParseStream};
use syn::punctuated::Punctuated;
use syn::{Ident, Token, parenthesized};

use crate::grammar::{Declaration, Declarations, Field, json_name};
use crate::stored_table::{stored_sql, table_definition};

/// `(with…) declaration`: what a handed-on macro passes.
pub struct Handed<With> {
    pub with: With,
    pub declaration: Declaration,
}

impl<With: Parse> Parse for Handed<With> {
    fn parse(input: ParseStream) -> syn::Result<Self> {
        let content;
        parenthesized!(content in input);
        let with: With = content.parse()?;
        let declarations: Declarations = input.parse()?;
        match <[Declaration; 1]>::try_from(declarations.items) {
            Ok([declaration]) => Ok(Handed { with, declaration }),
            Err(_) => Err(input.error("expected exactly one declaration")),
        }
    }
}

/// `extra_filters { name => kind(columns…), … }` of a stored resource (optional).
pub struct StoredWith {
    filters: Vec<(Ident, Ident, Group)>,
}

impl Parse for StoredWith {
    fn parse(input: ParseStream) -> syn::Result<Self> {
        if input.is_empty() {
            return Ok(StoredWith {
                filters: Vec::new(),
            });
        }
        let keyword: Ident = input.parse()?;
        if keyword != "extra_filters" {
            return Err(syn::Error::new(
                keyword.span(),
                "expected `extra_filters { … }`",
            ));
        }
        let content;
        syn::braced!(content in input);
        let entries = Punctuated::<(Ident, Ident, Group), Token![,]>::parse_terminated_with(
            &content,
            |input| {
                let name: Ident = input.parse()?;
                input.parse::<Token![=>]>()?;
                let kind: Ident = input.parse()?;
                let columns: Group = input.parse()?;
                Ok((name, kind, columns))
            },
        )?;
        Ok(StoredWith {
            filters: entries.into_iter().collect(),
        })
    }
}

/// `parent: column` of a stored child.
pub struct ChildWith {
    pub parent: Ident,
}

impl Parse for ChildWith {
    fn parse(input: ParseStream) -> syn::Result<Self> {
        let keyword: Ident = input.parse()?;
        if keyword != "parent" {
            return Err(syn::Error::new(keyword.span(), "expected `parent: column`"));
        }
        input.parse::<Token![:]>()?;
        Ok(ChildWith {
            parent: input.parse()?,
        })
    }
}

/// `(sorted, name, key, parent_table, child_field)`: what a parent passes to sort by the
/// members of an owned object.
pub struct NestedWith {
    pub names: Vec<Ident>,
}

impl Parse for NestedWith {
    fn parse(input: ParseStream) -> syn::Result<Self> {
        let content;
        parenthesized!(content in input);
        let names = Punctuated::<Ident, Token![,]>::parse_terminated(&content)?;
        Ok(NestedWith {
            names: names.into_iter().collect(),
        })
    }
}

/// Whether a member's stored value may be NULL.
pub(crate) fn nullable(field: &Field) -> bool {
    matches!(
        field.access.to_string().as_str(),
        "optional" | "derived" | "kept"
    )
}

pub(crate) fn kind_name(field: &Field) -> String {
    field
        .kind
        .path
        .segments
        .last()
        .map(|segment| segment.ident.to_string())
        .unwrap_or_default()
}

/// The stored Rust type of a member.
fn stored_type(field: &Field) -> TokenStream {
    let kind = &field.kind;
    let value = quote!(<#kind as ::billing_domain::kinds::Kind>::Value);
    if nullable(field) {
        quote!(Option<#value>)
    } else {
        value
    }
}

/// The `filter_column!` arm of a member's kind and access; `None` for a write-only member,
/// which is never a filter.
fn filter_arm(field: &Field) -> syn::Result<Option<Ident>> {
    if field.access == "write_only" {
        return Ok(None);
    }
    let nullable = nullable(field);
    let arm = match (stored_sql(field)?, kind_name(field).as_str()) {
        ("Text", "RoleCodes") => "role_codes",
        ("Text", _) if nullable => "nullable_text",
        ("Text", _) => "text",
        ("BigInt", "Id") => "id",
        ("BigInt", _) => "decimal",
        ("Bool", _) => "boolean",
        ("Timestamp", _) => "date_time",
        (_, _) if nullable => "nullable_date",
        (_, _) => "date",
    };
    Ok(Some(format_ident!("{arm}")))
}

/// The `sort_column!` arm of a member's access; `None` for a write-only member.
fn sort_arm(field: &Field) -> Option<Ident> {
    match field.access.to_string().as_str() {
        "write_only" => None,
        _ if nullable(field) => Some(format_ident!("nullable")),
        _ => Some(format_ident!("plain")),
    }
}

/// The name filters and sort keys use: the member's, or the shown record's.
fn member_name(field: &Field) -> String {
    match &field.shown_as {
        Some((member, _)) => json_name(member),
        None => json_name(&field.name),
    }
}

pub fn row_and_changes(declaration: &Declaration, parent: Option<&Ident>) -> TokenStream {
    let table = &declaration.table;
    let names: Vec<_> = declaration.fields.iter().map(|field| &field.name).collect();
    let types: Vec<_> = declaration.fields.iter().map(stored_type).collect();
    let parent_field =
        parent.map(|parent| quote!(#[diesel(column_name = #parent)] pub parent_id: i64,));
    let version = parent.is_none().then(|| quote!(pub version: i64,));
    quote! {
        /// A stored record, as the declaration defines the table.
        #[derive(Debug, Clone, PartialEq, ::diesel::Queryable, ::diesel::Selectable)]
        #[diesel(table_name = ::billing_persistence::schema::#table)]
        #[diesel(check_for_backend(::diesel::pg::Pg, ::diesel::sqlite::Sqlite))]
        pub struct Row {
            pub id: i64,
            #parent_field
            #(pub #names: #types,)*
            #version
        }

        /// Every writable column of a record: what create and replace write.
        #[derive(Debug, Clone, PartialEq, ::diesel::Insertable, ::diesel::AsChangeset)]
        #[diesel(table_name = ::billing_persistence::schema::#table, treat_none_as_null = true)]
        pub struct Changes {
            #(pub #names: #types,)*
        }
    }
}

/// The filters of a list: `id`, each member by its kind, then the extra filters.
fn filters(
    declaration: &Declaration,
    with: &StoredWith,
    base: TokenStream,
) -> syn::Result<TokenStream> {
    let table = &declaration.table;
    let mut arms = Vec::new();
    for field in &declaration.fields {
        if let Some(arm) = filter_arm(field)? {
            let (name, column) = (member_name(field), &field.name);
            arms.push(quote! {
                if name == #name {
                    query = ::billing_persistence::filter_column!(#arm, query, (#table::#column), &filter.filter, name);
                    continue;
                }
            });
        }
    }
    for (name, kind, columns) in &with.filters {
        let name = json_name(name);
        arms.push(quote! {
            if name == #name {
                query = ::billing_persistence::filter_column!(#kind, query, #columns, &filter.filter, name);
                continue;
            }
        });
    }
    Ok(quote! {{
        let mut query = #base;
        for filter in &query_filters.filters {
            let name = filter.field;
            if name == "id" {
                query = ::billing_persistence::filter_column!(id, query, (#table::id), &filter.filter, name);
                continue;
            }
            #(#arms)*
            return Err(::billing_persistence::PersistenceError::UnknownField(name.to_owned()));
        }
        query
    }})
}

/// Keeps the rows whose scope column is among the caller's contract owners: directly, or
/// through the records it names, as nested subqueries.
fn scope_filter(declaration: &Declaration, query: TokenStream) -> TokenStream {
    let Some(scope) = &declaration.scope else {
        return query;
    };
    let table = &declaration.table;
    let column = &scope.column;
    let mut condition = None;
    for (step_table, step_column) in scope.through.iter().rev() {
        let inner = match condition {
            None => {
                quote!(::billing_persistence::schema::#step_table::#step_column.eq_any(ids.clone()))
            }
            Some(inner) => {
                quote!(::billing_persistence::schema::#step_table::#step_column.eq_any(#inner))
            }
        };
        condition = Some(quote! {
            ::billing_persistence::schema::#step_table::table
                .filter(#inner)
                .select(::billing_persistence::schema::#step_table::id)
        });
    }
    let condition = match condition {
        None => quote!(#table::#column.eq_any(ids.clone())),
        Some(subquery) => quote!(#table::#column.eq_any(#subquery)),
    };
    quote! {
        match scope {
            ::billing_domain::roles::ContractOwnerScope::All => #query,
            ::billing_domain::roles::ContractOwnerScope::Only(ids) => (#query).filter(#condition),
        }
    }
}

fn sorts(declaration: &Declaration) -> TokenStream {
    let table = &declaration.table;
    let members = declaration.fields.iter().filter_map(|field| {
        let arm = sort_arm(field)?;
        let (name, column) = (member_name(field), &field.name);
        Some(quote! {
            if name == #name {
                sorted = ::billing_persistence::sort_column!(#arm, sorted, #table::#column, key.descending);
                continue;
            }
        })
    });
    // A member of an owned single object (`siteAddress.town`): the child's declaration gives
    // one arm per member.
    let nested = declaration.children.as_deref().unwrap_or_default().iter().filter_map(|child| {
        let multiplicity = child.multiplicity.to_string();
        if multiplicity != "one" && multiplicity != "optional_one" {
            return None;
        }
        let (child_table, child_field) = (&child.table, &child.name);
        Some(quote! {
            ::billing_domain::#child_table!(billing_persistence::nested_sort_arms, (sorted, name, key, #table, #child_field));
        })
    });
    quote! {
        let mut sorted = ::billing_persistence::list::OrderTerms::new();
        for key in &query_filters.sort {
            let name = key.field;
            if name == "id" {
                sorted = ::billing_persistence::sort_column!(plain, sorted, #table::id, key.descending);
                continue;
            }
            #(#members)*
            #(#nested)*
            return Err(::billing_persistence::PersistenceError::UnknownField(name.to_owned()));
        }
    }
}

/// Every table a list of the resource may read (its own, those its scope goes through and
/// those its extra filters name), sorted and comma-separated: what its remembered counts
/// depend on (`counts::total`).
fn tables_read(declaration: &Declaration, with: &StoredWith) -> String {
    use proc_macro2::TokenTree;
    let mut tables = std::collections::BTreeSet::from([declaration.table.to_string()]);
    if let Some(scope) = &declaration.scope {
        tables.extend(scope.through.iter().map(|(table, _)| table.to_string()));
    }
    for (_, _, columns) in &with.filters {
        // `table::column`, and `table.owner.member` at the start of an argument.
        let tokens: Vec<TokenTree> = columns.stream().into_iter().collect();
        for (index, token) in tokens.iter().enumerate() {
            let TokenTree::Ident(ident) = token else {
                continue;
            };
            let next = tokens.get(index + 1);
            let starts_argument = index == 0
                || matches!(&tokens[index - 1], TokenTree::Punct(p) if p.as_char() == ',');
            let is_path = matches!(next, Some(TokenTree::Punct(p)) if p.as_char() == ':');
            let is_dotted = matches!(next, Some(TokenTree::Punct(p)) if p.as_char() == '.');
            if is_path || (is_dotted && starts_argument) {
                tables.insert(ident.to_string());
            }
        }
    }
    tables.into_iter().collect::<Vec<_>>().join(",")
}

/// The count of a list that need not look at every row: the table's rows, kept by triggers
/// (`counts::rows_of`), for a list without filters that every row is visible to; and for a
/// list whose only filter is an `active_today` one set to `true` (`activeSites=true`), those
/// rows less the ended ones, which are few where most are active.
fn read_not_counted(declaration: &Declaration, with: &StoredWith) -> TokenStream {
    let table = &declaration.table;
    let table_name = table.to_string();
    let every_row_visible = if declaration.scope.is_some() {
        quote!(scope.is_all())
    } else {
        quote!(true)
    };
    let active_today = with
        .filters
        .iter()
        .filter(|(_, kind, _)| kind == "active_today")
        .map(|(name, _, column)| {
            let name = json_name(name);
            let column = syn::parse2::<syn::Path>(column.stream())
                .ok()
                .and_then(|path| path.segments.last().map(|last| last.ident.to_string()))
                .unwrap_or_default();
            quote! {
                if let [only] = query_filters.filters.as_slice()
                    && only.field == #name
                    && matches!(only.filter, ::billing_domain::query::Filter::Boolean(true))
                    && let Some(rows) = ::billing_persistence::counts::rows_not_ended(connection, #table_name, #column)?
                {
                    return Ok(rows);
                }
            }
        });
    quote! {
        if #every_row_visible {
            if query_filters.filters.is_empty()
                && let Some(rows) = ::billing_persistence::counts::rows_of(connection, #table_name)?
            {
                return Ok(rows);
            }
            #(#active_today)*
        }
    }
}

pub fn stored_resource(handed: Handed<StoredWith>) -> syn::Result<TokenStream> {
    let declaration = &handed.declaration;
    let table = &declaration.table;
    let row_and_changes = row_and_changes(declaration, None);
    let table_definition = table_definition(declaration, None)?;
    let select = filters(
        declaration,
        &handed.with,
        quote!(#table::table.select(Row::as_select()).into_boxed()),
    )?;
    let count = filters(
        declaration,
        &handed.with,
        quote!(#table::table.count().into_boxed()),
    )?;
    let scoped = scope_filter(declaration, quote!(filtered));
    let counted = scope_filter(declaration, quote!(counted));
    let sorts = sorts(declaration);
    let table_name = table.to_string();
    let tables_read = tables_read(declaration, &handed.with);
    let read_not_counted = read_not_counted(declaration, &handed.with);
    let child_tables: Vec<&syn::Ident> = declaration
        .children
        .as_deref()
        .unwrap_or_default()
        .iter()
        .map(|child| &child.table)
        .collect();
    let child_names: Vec<String> = child_tables.iter().map(|table| table.to_string()).collect();
    Ok(quote! {
        mod stored {
            #[allow(unused_imports)]
            use ::billing_domain::kinds::*;
            use ::billing_persistence::error::PersistenceResult;
            use ::billing_persistence::schema::#table;

            #row_and_changes

            /// The tables a list may read, on which its remembered counts depend.
            pub const TABLES_READ: &str = #tables_read;

            pub fn find(
                connection: &mut ::billing_persistence::DbConnection,
                id: i64,
            ) -> PersistenceResult<Option<Row>> {
                use ::diesel::prelude::*;
                // On the concrete connection, with no `LIMIT ?`: see `on_backend!`.
                Ok(::billing_persistence::on_backend!(connection, |c| #table::table
                    .find(id)
                    .select(Row::as_select())
                    .get_result::<Row>(c)
                    .optional())?)
            }

            pub fn exists(connection: &mut ::billing_persistence::DbConnection, id: i64) -> PersistenceResult<bool> {
                use ::diesel::prelude::*;
                Ok(::diesel::select(::diesel::dsl::exists(#table::table.find(id)))
                    .get_result(connection)?)
            }

            /// The rows with these ids (those that exist): one query per
            /// [`MAX_IN_LIST`](::billing_persistence::MAX_IN_LIST) ids.
            pub fn find_many(connection: &mut ::billing_persistence::DbConnection, ids: &[i64]) -> PersistenceResult<Vec<Row>> {
                use ::diesel::prelude::*;
                ::billing_persistence::in_chunks(ids, |chunk| {
                    Ok(#table::table
                        .filter(#table::id.eq_any(chunk))
                        .select(Row::as_select())
                        .load(connection)?)
                })
            }

            /// Which of `ids` are stored: one query per
            /// [`MAX_IN_LIST`](::billing_persistence::MAX_IN_LIST) ids.
            pub fn existing(connection: &mut ::billing_persistence::DbConnection, ids: &[i64]) -> PersistenceResult<Vec<i64>> {
                use ::diesel::prelude::*;
                ::billing_persistence::in_chunks(ids, |chunk| {
                    Ok(#table::table.filter(#table::id.eq_any(chunk)).select(#table::id).load(connection)?)
                })
            }

            pub fn insert(connection: &mut ::billing_persistence::DbConnection, changes: &Changes) -> PersistenceResult<Row> {
                use ::diesel::prelude::*;
                let id: i64 = ::diesel::insert_into(#table::table)
                    .values(changes)
                    .returning(#table::id)
                    .get_result(connection)?;
                find(connection, id)?.ok_or_else(|| {
                    ::billing_persistence::PersistenceError::Corrupt("an inserted row cannot be read back".into())
                })
            }

            /// `None` when the row is gone or no longer at `expected_version` (of two writers
            /// holding the same version, exactly one wins).
            pub fn update(
                connection: &mut ::billing_persistence::DbConnection,
                id: i64,
                expected_version: i64,
                changes: &Changes,
            ) -> PersistenceResult<Option<Row>> {
                use ::diesel::prelude::*;
                let updated = ::diesel::update(
                    #table::table.find(id).filter(#table::version.eq(expected_version)),
                )
                .set((changes, #table::version.eq(expected_version + 1)))
                .execute(connection)?;
                if updated == 0 {
                    return Ok(None);
                }
                find(connection, id)
            }

            /// Deletes the row and its owned children (theirs go with them: `ON DELETE
            /// CASCADE`); false when the row is gone or no longer at `expected_version` (the
            /// caller rolls back). A row other records still refer to is
            /// `PersistenceError::StillReferenced`, naming their tables, with nothing deleted.
            pub fn delete(
                connection: &mut ::billing_persistence::DbConnection,
                id: i64,
                expected_version: i64,
            ) -> PersistenceResult<bool> {
                use ::diesel::prelude::*;
                let deleted = ::billing_persistence::references::delete_row(connection, #table_name, id, &[#(#child_names),*], |c| {
                    #(::billing_persistence::#child_tables::delete_of(c, id)?;)*
                    Ok(::diesel::delete(
                        #table::table.find(id).filter(#table::version.eq(expected_version)),
                    )
                    .execute(c)?)
                })?;
                Ok(deleted == 1)
            }

            /// One page of rows matching the query and visible in `scope` (one select and,
            /// unless the page says the total, one count: see [`crate::counts`]), and how many
            /// rows match in all. A declaration with a `scope` section filters on that column
            /// in SQL; others show every row whatever the scope.
            #[allow(unused_variables)]
            pub fn list(
                connection: &mut ::billing_persistence::DbConnection,
                query_filters: &::billing_domain::query::ListQuery,
                scope: &::billing_domain::roles::ContractOwnerScope,
            ) -> PersistenceResult<(Vec<Row>, i64)> {
                use ::diesel::prelude::*;
                let filtered = #select;
                let scoped = #scoped;
                #sorts
                let mut sorted = scoped.order_by(sorted.then_order_by(#table::id.asc()));
                if let Some(page) = query_filters.page {
                    sorted = sorted.limit(page.limit()).offset(page.offset());
                }
                let rows = sorted.load::<Row>(connection)?;
                let total = ::billing_persistence::counts::total(
                    connection,
                    query_filters.page,
                    rows.len(),
                    || ::billing_persistence::counts::key(#table_name, &query_filters.filters, scope),
                    TABLES_READ,
                    query_filters.count,
                    |connection, counting| {
                        let counted = #count;
                        let counted = #counted;
                        match counting {
                            ::billing_persistence::counts::Counting::Rows => {
                                #read_not_counted
                                Ok(counted.get_result(connection)?)
                            }
                            ::billing_persistence::counts::Counting::Plan => {
                                ::billing_persistence::counts::planned_rows(connection, counted)
                            }
                        }
                    },
                )?;
                Ok((rows, total))
            }
        }
        pub use self::stored::*;
        #table_definition
    })
}
