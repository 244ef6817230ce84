//! The http crate's side of an owned child table (`billing_http::api_child!`): the element
//! record (with its read-only `id`), the element input, its field list, its checks and its own
//! children; for a table of one member, the value a parent's `values` list holds.

use proc_macro2::TokenStream;
use quote::quote;
use syn::parse::{Parse, ParseStream};

use crate::api_members::*;
use crate::api_parts::{children, field_list, input_struct, rules};
use crate::stored::Handed;

/// Nothing: a child table takes no settings.
pub struct NoWith;

impl Parse for NoWith {
    fn parse(_: ParseStream) -> syn::Result<Self> {
        Ok(NoWith)
    }
}

pub fn api_child(handed: Handed<NoWith>) -> syn::Result<TokenStream> {
    let declaration = &handed.declaration;
    let table = &declaration.table;
    let names: Vec<_> = declaration.fields.iter().map(|field| &field.name).collect();
    let output_types = declaration.fields.iter().map(output_type);
    let converted = declaration.fields.iter().map(|field| {
        let name = &field.name;
        convert(field, quote!(row.#name))
    });
    let child_names: Vec<_> = declaration
        .children
        .as_deref()
        .unwrap_or_default()
        .iter()
        .map(|child| &child.name)
        .collect();
    let child_types = declaration
        .children
        .as_deref()
        .unwrap_or_default()
        .iter()
        .map(|child| child_type(child, "Record"));
    let values = declaration
        .fields
        .iter()
        .map(|field| value(field, quote!(())))
        .collect::<syn::Result<Vec<_>>>()?;
    let references = declaration
        .fields
        .iter()
        .map(reference_check)
        .collect::<syn::Result<Vec<_>>>()?;
    let rules = rules(declaration);
    let children = children(declaration);
    let input = input_struct(declaration, true);
    let fields = field_list(declaration);
    let single = match declaration.fields.as_slice() {
        [field] => {
            let (name, kind, access) = (&field.name, &field.kind, &field.access);
            let (output, input) = (output_type(field), input_type(field));
            quote! {
                /// The element's one member, as responses show it.
                pub type Value = #output;

                /// The element's one member in a body.
                #[derive(Debug, Clone, ::serde::Deserialize)]
                #[serde(transparent)]
                pub struct ValueInput(pub #input);

                /// The member's kind checks the entry, which is named by its own place in the list.
                impl ::garde::Validate for ValueInput {
                    type Context = ();

                    fn validate_into(
                        &self,
                        context: &(),
                        parent: &mut dyn FnMut() -> ::garde::Path,
                        report: &mut ::garde::Report,
                    ) {
                        if let Err(error) = ::billing_http::machinery::kinds::#access::<#kind>(&self.0, context) {
                            report.append(parent(), error);
                        }
                    }
                }

                /// The member's JSON type, for the parent's field list.
                pub const VALUE_TYPE: ::billing_http::machinery::resource::FieldType =
                    <#kind as ::billing_http::machinery::kinds::ApiKind>::FIELD_TYPE;

                impl Record {
                    pub fn into_value(self) -> Value {
                        self.#name
                    }
                }

                impl ValueInput {
                    /// The element this value stands for.
                    pub fn element(
                        &self,
                        connection: &mut ::billing_persistence::DbConnection,
                    ) -> ApiResult<Element> {
                        Input { #name: self.0.clone(), ..Input::default() }.element(connection)
                    }
                }
            }
        }
        _ => TokenStream::new(),
    };
    Ok(quote! {
        mod declared {
            #[allow(unused_imports)]
            use ::billing_domain::kinds::*;
            use ::billing_http::machinery::resource::{ApiResult, Field};
            use ::billing_persistence::#table as storage;

            /// An element as responses show it.
            #[derive(Debug, Clone, ::serde::Serialize)]
            #[serde(rename_all = "camelCase")]
            pub struct Record {
                pub id: i64,
                #(pub #names: #output_types,)*
                #(pub #child_names: #child_types,)*
            }

            impl From<storage::Row> for Record {
                fn from(row: storage::Row) -> Self {
                    Self {
                        id: row.id,
                        #(#names: #converted,)*
                        #(#child_names: Default::default(),)*
                    }
                }
            }

            #children

            #input

            /// What a write gives one element: its id when it came from the stored record,
            /// its columns and its own children.
            #[derive(Debug)]
            pub struct Element {
                pub id: Option<i64>,
                pub changes: storage::Changes,
                pub children: Children,
            }

            impl Input {
                /// The element, once its rules and references hold; errors name members
                /// within the element.
                #[allow(unused_variables, unused_mut)]
                pub fn element(
                    &self,
                    connection: &mut ::billing_persistence::DbConnection,
                ) -> ApiResult<Element> {
                    #(let #names = #values;)*
                    let mut errors = ::billing_domain::ValidationErrors::default();
                    #rules
                    if !errors.is_empty() {
                        return Err(errors.into());
                    }
                    #(#references)*
                    let children = self.children(connection)?;
                    Ok(Element { id: self.id, changes: storage::Changes { #(#names,)* }, children })
                }
            }

            /// An element's members, for the parent's field list and the member checks.
            pub const FIELDS: &[Field] = #fields;

            #single
        }
        pub use self::declared::*;
    })
}
