//! What a record (`api_resource!`) and an element (`api_child!`) share: owned children, the
//! body's `Input`, the field list and the rules across members.

use proc_macro2::TokenStream;
use quote::quote;

use crate::api_members::*;
use crate::grammar::Declaration;

/// What a record or an element does with its owned children: loads them for a page in one
/// query per child table at every depth, turns a body's elements into what a write stores,
/// and writes them.
pub fn children(declaration: &Declaration) -> TokenStream {
    let children = declaration.children.as_deref().unwrap_or_default();
    let load = children.iter().map(|child| {
        let (name, table) = (&child.name, &child.table);
        let value = child_value(child);
        quote! {{
            let ids: Vec<i64> = records.iter().map(|record| record.id).collect();
            let rows = ::billing_persistence::#table::of_parents(connection, &ids)?;
            let parents: Vec<i64> = rows.iter().map(|row| row.parent_id).collect();
            let elements = ::billing_http::resources::#table::Record::with_children(
                connection,
                rows.into_iter().map(Into::into).collect(),
            )?;
            let mut by_parent = ::std::collections::HashMap::<i64, Vec<_>>::new();
            for (parent, element) in parents.into_iter().zip(elements) {
                by_parent.entry(parent).or_default().push(element);
            }
            for record in &mut records {
                let elements = by_parent.remove(&record.id).unwrap_or_default();
                record.#name = #value;
            }
        }}
    });
    let fields = children.iter().map(|child| {
        let (name, table) = (&child.name, &child.table);
        quote!(pub #name: Vec<::billing_http::resources::#table::Element>,)
    });
    let writes = children.iter().map(|child| {
        let (name, table) = (&child.name, &child.table);
        quote! {
            let elements: Vec<_> = self.#name.iter().map(|element| (element.id, &element.changes)).collect();
            let ids = ::billing_persistence::#table::write(connection, parent_id, &elements)?;
            for (element, id) in self.#name.iter().zip(ids) {
                element.children.write(connection, id)?;
            }
        }
    });
    let elements = children.iter().map(|child| {
        let name = &child.name;
        let element = child_element(child);
        quote! {
            for (index, element) in self.#name.iter().enumerate() {
                children.#name.push(#element?);
            }
        }
    });
    quote! {
        impl Record {
            /// Fills in the owned children of a page of records: one query per child table
            /// (and per grandchild table), whatever the page size.
            #[allow(unused_variables, unused_mut)]
            pub fn with_children(
                connection: &mut ::billing_persistence::DbConnection,
                mut records: Vec<Record>,
            ) -> ApiResult<Vec<Record>> {
                #(#load)*
                Ok(records)
            }
        }

        /// The elements a write gives each owned child field.
        #[derive(Debug, Default)]
        pub struct Children {
            #(#fields)*
        }

        impl Children {
            /// Makes the stored children of `parent_id` exactly these, at every depth.
            #[allow(unused_variables)]
            pub fn write(
                &self,
                connection: &mut ::billing_persistence::DbConnection,
                parent_id: i64,
            ) -> ApiResult<()> {
                #(#writes)*
                Ok(())
            }
        }

        impl Input {
            /// The owned elements of a body, once each element's rules and references hold;
            /// errors name the element (`subBrands[1].name`, `siteAddress.town`).
            #[allow(unused_variables, unused_mut)]
            pub fn children(
                &self,
                connection: &mut ::billing_persistence::DbConnection,
            ) -> ApiResult<Children> {
                let mut children = Children::default();
                #(#elements)*
                Ok(children)
            }
        }
    }
}

/// The `Input` struct of a record or an element (`id` for an element's stored id).
pub fn input_struct(declaration: &Declaration, element: bool) -> TokenStream {
    let fields = declaration.fields.iter().map(|field| {
        let (name, kind, access) = (&field.name, &field.kind, &field.access);
        let ty = input_type(field);
        quote! {
            #[serde(default)]
            #[garde(custom(::billing_http::machinery::kinds::#access::<#kind>))]
            pub #name: #ty,
        }
    });
    let children = declaration
        .children
        .as_deref()
        .unwrap_or_default()
        .iter()
        .map(|child| {
            let (name, multiplicity) = (&child.name, &child.multiplicity);
            let ty = child_type(child, "Input");
            quote! {
                #[serde(default)]
                #[garde(dive, custom(::billing_http::machinery::members::#multiplicity))]
                pub #name: #ty,
            }
        });
    let (id, default, doc) = if element {
        (
            quote!(#[serde(default)] #[garde(skip)] pub id: Option<i64>,),
            quote!(Default,),
            "An element of a body. `id` is only ever the stored element's own: the member checks refuse it in anything a client sent.",
        )
    } else {
        (
            TokenStream::new(),
            TokenStream::new(),
            "A create or replace body (and the result of a patch).",
        )
    };
    quote! {
        #[doc = #doc]
        #[derive(Debug, Clone, #default ::serde::Deserialize, ::garde::Validate)]
        #[serde(rename_all = "camelCase", deny_unknown_fields, expecting = "an object")]
        pub struct Input {
            #id
            #(#fields)*
            #(#children)*
        }
    }
}

/// The field list of a record or an element.
pub fn field_list(declaration: &Declaration) -> TokenStream {
    let fields = declaration.fields.iter().map(field_entry);
    let children = declaration
        .children
        .as_deref()
        .unwrap_or_default()
        .iter()
        .map(child_field_entry);
    quote! {
        &[
            ::billing_http::resources::common::ID,
            #(#fields,)*
            #(#children,)*
        ]
    }
}

/// The rules across members, collected into `errors`.
pub fn rules(declaration: &Declaration) -> TokenStream {
    let rules = declaration.rules.iter().map(|rule| {
        let (function, arguments) = (&rule.function, &rule.arguments);
        quote!(errors.collect(::billing_domain::rules::#function(#(&#arguments),*));)
    });
    quote!(#(#rules)*)
}
