//! The persistence crate's side of an owned child table (`billing_persistence::stored_child!`)
//! and the sort arms a parent's list takes from a child's declaration (`nested_sort_arms!`).

use proc_macro2::TokenStream;
use quote::quote;
use syn::Ident;

use crate::grammar::json_name;
use crate::stored::{ChildWith, Handed, NestedWith, row_and_changes};
use crate::stored_table::table_definition;

pub fn stored_child(handed: Handed<ChildWith>) -> syn::Result<TokenStream> {
    let declaration = &handed.declaration;
    let table = &declaration.table;
    let parent = &handed.with.parent;
    let row_and_changes = row_and_changes(declaration, Some(parent));
    let table_definition = table_definition(declaration, Some(parent))?;
    let table_name = table.to_string();
    // The element's own children go with it (ON DELETE CASCADE): never "still using" it.
    let owned: Vec<String> = declaration
        .children
        .as_deref()
        .unwrap_or_default()
        .iter()
        .map(|child| child.table.to_string())
        .collect();
    Ok(quote! {
        mod stored {
            #[allow(unused_imports)]
            use ::billing_domain::kinds::*;
            use ::billing_persistence::error::PersistenceResult;
            use ::billing_persistence::schema::#table;

            /// The column naming an element's parent (for sorting parents by a member).
            pub use ::billing_persistence::schema::#table::#parent as parent_column;

            #row_and_changes

            /// The elements of every parent in `parent_ids`, each parent's in list order: one
            /// query for a whole page of parents.
            pub fn of_parents(
                connection: &mut ::billing_persistence::DbConnection,
                parent_ids: &[i64],
            ) -> PersistenceResult<Vec<Row>> {
                use ::diesel::prelude::*;
                ::billing_persistence::in_chunks(parent_ids, |chunk| {
                    Ok(#table::table
                        .filter(#table::#parent.eq_any(chunk))
                        .order((#table::#parent.asc(), #table::ordinal.asc()))
                        .select(Row::as_select())
                        .load(connection)?)
                })
            }

            /// Makes the elements of `parent_id` exactly `elements`, in order, and gives
            /// their ids in that order. An element with the id of one of the parent's elements
            /// updates it (once: a second element with the same id is new); any other element
            /// is inserted; elements left out are deleted (with their own children: ON DELETE
            /// CASCADE). Runs inside the caller's transaction.
            pub fn write(
                connection: &mut ::billing_persistence::DbConnection,
                parent_id: i64,
                elements: &[(Option<i64>, &Changes)],
            ) -> PersistenceResult<Vec<i64>> {
                use ::diesel::prelude::*;
                let existing: Vec<i64> = #table::table
                    .filter(#table::#parent.eq(parent_id))
                    .select(#table::id)
                    .load(connection)?;
                let mut kept: Vec<i64> = Vec::with_capacity(elements.len());
                let mut plan = Vec::with_capacity(elements.len());
                for (id, changes) in elements {
                    let reused = id.filter(|id| existing.contains(id) && !kept.contains(id));
                    if let Some(id) = reused {
                        kept.push(id);
                    }
                    plan.push((reused, changes));
                }
                // Each element left out goes on its own, so that one other records still use is
                // named (`StillReferenced`: 409 naming their tables) and nothing is deleted.
                for gone in existing.into_iter().filter(|id| !kept.contains(id)) {
                    ::billing_persistence::references::delete_row(connection, #table_name, gone, &[#(#owned),*], |c| {
                        Ok(::diesel::delete(#table::table.find(gone)).execute(c)?)
                    })?;
                }
                let mut ids = Vec::with_capacity(plan.len());
                for (ordinal, (reused, changes)) in plan.into_iter().enumerate() {
                    let ordinal = ordinal as i64;
                    match reused {
                        Some(id) => {
                            ::diesel::update(#table::table.find(id))
                                .set((*changes, #table::ordinal.eq(ordinal)))
                                .execute(connection)?;
                            ids.push(id);
                        }
                        None => {
                            let id: i64 = ::diesel::insert_into(#table::table)
                                .values((*changes, #table::#parent.eq(parent_id), #table::ordinal.eq(ordinal)))
                                .returning(#table::id)
                                .get_result(connection)?;
                            ids.push(id);
                        }
                    }
                }
                Ok(ids)
            }

            /// Whether `id` is one of the elements of `parent_id`.
            pub fn is_element_of(
                connection: &mut ::billing_persistence::DbConnection,
                parent_id: i64,
                id: i64,
            ) -> PersistenceResult<bool> {
                use ::diesel::prelude::*;
                Ok(::diesel::select(::diesel::dsl::exists(
                    #table::table.find(id).filter(#table::#parent.eq(parent_id)),
                ))
                .get_result(connection)?)
            }

            /// Removes every element of `parent_id` (before the parent itself goes).
            pub fn delete_of(connection: &mut ::billing_persistence::DbConnection, parent_id: i64) -> PersistenceResult<()> {
                use ::diesel::prelude::*;
                ::diesel::delete(#table::table.filter(#table::#parent.eq(parent_id))).execute(connection)?;
                Ok(())
            }
        }
        pub use self::stored::*;
        #table_definition
    })
}

/// One sort arm per member of a child table: `parent.member` orders by a correlated subquery
/// of the child's value (NULL, when the object is absent, sorts as the largest value).
pub fn nested_sort_arms(handed: Handed<NestedWith>) -> syn::Result<TokenStream> {
    let [sorted, name, key, parent, child_field] = <[Ident; 5]>::try_from(handed.with.names)
        .map_err(|_| {
            syn::Error::new(
                proc_macro2::Span::call_site(),
                "expected (sorted, name, key, parent, field)",
            )
        })?;
    let table = &handed.declaration.table;
    let object = json_name(&child_field);
    let arms = handed.declaration.fields.iter().map(|field| {
        let (member, column) = (json_name(&field.name), &field.name);
        quote! {
            if member == #member {
                let value = ::billing_persistence::schema::#table::table
                    .filter(::billing_persistence::#table::parent_column.eq(::billing_persistence::schema::#parent::id))
                    .select(::billing_persistence::schema::#table::#column)
                    .single_value();
                #sorted = ::billing_persistence::sort_column!(nullable, #sorted, value, #key.descending);
                continue;
            }
        }
    });
    Ok(quote! {
        if let Some((object, member)) = #name.split_once('.')
            && object == #object
        {
            #(#arms)*
        }
    })
}
