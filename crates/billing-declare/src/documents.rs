//! The domain's side of a declaration: a module named after the table with `Draft`, `Parsed`
//! (a `billing_domain::resources::Document`) and `DECLARATION`. The work itself is done by the
//! generic functions of `billing_domain::resources::documents`; this only names them.

use proc_macro2::TokenStream;
use quote::{ToTokens, format_ident, quote, quote_spanned};
use syn::spanned::Spanned;

use crate::grammar::{Declaration, Field, doc_text, json_name};

pub fn module(declaration: &Declaration) -> TokenStream {
    let table = &declaration.table;
    let doc = doc_text(&declaration.docs);
    let aliases = declaration.fields.iter().map(|field| {
        let alias = kind_alias(field);
        let kind = &field.kind;
        quote_spanned!(kind.span()=> #[allow(non_camel_case_types)] type #alias = #kind;)
    });
    let filter_aliases = declaration.extra_filters.iter().map(|filter| {
        let alias = format_ident!("FilterKindOf_{}", filter.name, span = filter.kind.span());
        let kind = &filter.kind;
        quote_spanned!(kind.span()=> #[allow(non_camel_case_types)] type #alias = #kind;)
    });
    let names = names(declaration);
    let (draft, parsed) = structs(declaration);
    let document = document_impl(declaration);
    let description = crate::documents::description(declaration);
    quote! {
        #[doc = #doc]
        #[allow(clippy::all, unused_imports, unused_mut, unused_variables)]
        pub mod #table {
            use ::billing_domain::ValidationErrors;
            use ::billing_domain::kinds::*;
            use ::billing_domain::resources::documents;
            use ::billing_domain::resources::declaration::*;

            #(#aliases)*
            #(#filter_aliases)*
            #names
            #draft
            #parsed
            #document
            #description
        }
    }
}

/// `names::member` for each member, owned child and extra filter: its JSON name, for code
/// that names one (checked by the compiler against the declaration, never typed twice).
fn names(declaration: &Declaration) -> TokenStream {
    let children = declaration.children.as_deref().unwrap_or_default();
    let idents = declaration
        .fields
        .iter()
        .map(|field| &field.name)
        .chain(children.iter().map(|child| &child.name))
        .chain(declaration.extra_filters.iter().map(|filter| &filter.name));
    let constants = idents.map(|ident| {
        let json = json_name(ident);
        quote!(pub const #ident: &str = #json;)
    });
    quote! {
        /// The JSON name of each member, owned child and extra filter.
        #[allow(non_upper_case_globals)]
        pub mod names {
            #(#constants)*
        }
    }
}

/// The alias a module gives a member's kind, written with the kind's span so an unknown kind
/// is reported once, at the declaration's line.
fn kind_alias(field: &Field) -> syn::Ident {
    format_ident!(
        "KindOf_{}",
        json_name(&field.name),
        span = field.kind.span()
    )
}

fn structs(declaration: &Declaration) -> (TokenStream, TokenStream) {
    let children = declaration.children.as_deref().unwrap_or_default();
    let draft_fields = declaration.fields.iter().map(|field| {
        let (name, alias) = (&field.name, kind_alias(field));
        quote!(pub #name: Option<<#alias as Kind>::Value>,)
    });
    let parsed_fields = declaration.fields.iter().map(|field| {
        let (name, alias) = (&field.name, kind_alias(field));
        if field.access == "required" {
            quote!(pub #name: <#alias as Kind>::Value,)
        } else {
            quote!(pub #name: Option<<#alias as Kind>::Value>,)
        }
    });
    let draft_children = children.iter().map(|child| {
        let (name, table) = (&child.name, &child.table);
        match child.multiplicity.to_string().as_str() {
            "one" | "optional_one" => quote!(pub #name: Option<super::#table::Draft>,),
            _ => quote!(pub #name: Vec<super::#table::Draft>,),
        }
    });
    let parsed_children = children.iter().map(|child| {
        let (name, table) = (&child.name, &child.table);
        match child.multiplicity.to_string().as_str() {
            "one" => quote!(pub #name: super::#table::Parsed,),
            "optional_one" => quote!(pub #name: Option<super::#table::Parsed>,),
            _ => quote!(pub #name: Vec<super::#table::Parsed>,),
        }
    });
    let draft = quote! {
        /// The members as given: `None` (or empty) when absent.
        #[derive(Debug, Clone, Default, PartialEq)]
        pub struct Draft {
            #(#draft_fields)*
            #(#draft_children)*
        }
    };
    let parsed = quote! {
        /// The members once every rule holds: required members are there, the others may be
        /// `None` (a defaulted one then takes its declared default when stored).
        #[derive(Debug, Clone, PartialEq)]
        pub struct Parsed {
            #(#parsed_fields)*
            #(#parsed_children)*
        }
    };
    (draft, parsed)
}

fn document_impl(declaration: &Declaration) -> TokenStream {
    let children = declaration.children.as_deref().unwrap_or_default();
    let names: Vec<_> = declaration.fields.iter().map(|field| &field.name).collect();
    let child_names: Vec<_> = children.iter().map(|child| &child.name).collect();
    let parse_members = declaration.fields.iter().map(|field| {
        let (name, access, alias) = (&field.name, &field.access, kind_alias(field));
        let json = json_name(name);
        quote!(let #name = documents::#access::<#alias>(draft.#name, documents::join(path, #json), &mut errors);)
    });
    let rules = declaration.rules.iter().map(|rule| {
        let (function, arguments) = (&rule.function, &rule.arguments);
        quote! {
            (|| -> Option<()> {
                if let Err(broken) = ::billing_domain::rules::#function(#(&#arguments.clone()?),*) {
                    for error in broken.errors {
                        errors.push(documents::join(path, &error.field), error.message);
                    }
                }
                Some(())
            })();
        }
    });
    let parse_children = children.iter().map(|child| {
        let (name, multiplicity, table) = (&child.name, &child.multiplicity, &child.table);
        let json = json_name(name);
        quote!(let #name = documents::#multiplicity::<super::#table::Parsed>(draft.#name, documents::join(path, #json), &mut errors);)
    });
    let read_members = declaration.fields.iter().map(|field| {
        let (name, alias) = (&field.name, kind_alias(field));
        let json = json_name(name);
        let reader = if field.is_echoed() {
            format_ident!("json_echoed")
        } else {
            format_ident!("json_{}", field.access)
        };
        quote!(#name: documents::#reader::<#alias>(object, #json, path, errors),)
    });
    let read_children = children.iter().map(|child| {
        let (name, table) = (&child.name, &child.table);
        let json = json_name(name);
        let reader = format_ident!("json_{}", child.multiplicity);
        quote!(#name: documents::#reader::<super::#table::Parsed>(object, #json, path, errors),)
    });
    let single = match declaration.fields.as_slice() {
        [field] if children.is_empty() => {
            let (name, alias) = (&field.name, kind_alias(field));
            let json = json_name(name);
            quote! {
                const SINGLE: Option<&'static str> = Some(#json);

                fn read_single_json(
                    value: &::serde_json::Value,
                    path: &str,
                    errors: &mut ValidationErrors,
                ) -> Draft {
                    Draft { #name: documents::json_scalar::<#alias>(value, path, errors) }
                }
            }
        }
        _ => TokenStream::new(),
    };
    quote! {
        impl documents::Document for Parsed {
            type Draft = Draft;
            const DECLARATION: &'static Declaration = &DECLARATION;
            #single

            fn parse(draft: Draft, path: &str) -> Result<Self, ValidationErrors> {
                let mut errors = ValidationErrors::default();
                #(#parse_members)*
                #(#rules)*
                #(#parse_children)*
                match (#(#names,)* #(#child_names,)*) {
                    (#(Some(#names),)* #(Some(#child_names),)*) if errors.is_empty() => {
                        Ok(Parsed { #(#names,)* #(#child_names,)* })
                    }
                    _ => Err(errors),
                }
            }

            fn read_json(
                value: &::serde_json::Value,
                path: &str,
                errors: &mut ValidationErrors,
            ) -> Draft {
                let Some(object) = documents::json_object(value, path, errors) else {
                    return Draft::default();
                };
                documents::json_unknown_members(object, path, &DECLARATION, errors);
                Draft {
                    #(#read_members)*
                    #(#read_children)*
                }
            }
        }
    }
}

/// A kind as written (`Text<1, 50>`), for people reading the description.
fn kind_text(kind: &syn::TypePath) -> String {
    kind.to_token_stream()
        .to_string()
        .replace(" < ", "<")
        .replace(" >", ">")
        .replace(" ,", ",")
}

fn description(declaration: &Declaration) -> TokenStream {
    let table = declaration.table.to_string();
    let description = doc_text(&declaration.docs);
    let members = declaration.fields.iter().map(|field| {
        let column = field.name.to_string();
        let column = column.strip_prefix("r#").unwrap_or(&column).to_owned();
        let name = json_name(&field.name);
        let shown_name = field.shown_as.as_ref().map(|(member, _)| json_name(member));
        let member_name = shown_name.clone().unwrap_or_else(|| name.clone());
        let doc = doc_text(&field.docs);
        let access = format_ident!("{}", pascal(&field.access.to_string()));
        let kind = kind_text(&field.kind);
        let alias = kind_alias(field);
        let filter = if field.access == "write_only" {
            quote!(None)
        } else {
            quote_spanned!(field.kind.span()=> Some(<#alias as Filterable>::FILTER))
        };
        let references = match &field.references {
            Some((table, noun)) => {
                let table = table.to_string();
                quote!(Some(Reference { table: #table, noun: #noun }))
            }
            None => quote!(None),
        };
        let shown_as = match &field.shown_as {
            Some((_, table)) => {
                let table = table.to_string();
                quote!(Some(#table))
            }
            None => quote!(None),
        };
        let (create_only, echoed) = (field.is_create_only(), field.is_echoed());
        let default = match &field.default {
            Some(default) => {
                let text = default.to_token_stream().to_string();
                quote!(Some(#text))
            }
            None => quote!(None),
        };
        quote! {
            Member {
                column: #column,
                json_name: #name,
                member_name: #member_name,
                description: #doc,
                access: Access::#access,
                kind: #kind,
                check_text: TextCheck(documents::check_text::<#alias>),
                filter: #filter,
                references: #references,
                shown_as: #shown_as,
                create_only: #create_only,
                echoed: #echoed,
                default: #default,
            }
        }
    });
    let children = declaration.children.as_deref().unwrap_or_default().iter().map(|child| {
        let name = json_name(&child.name);
        let doc = doc_text(&child.docs);
        let multiplicity = format_ident!("{}", pascal(&child.multiplicity.to_string()));
        let table = child.table.to_string();
        quote!(ChildTable { json_name: #name, description: #doc, multiplicity: Multiplicity::#multiplicity, table: #table })
    });
    let scope = match &declaration.scope {
        Some(scope) => {
            let column = scope.column.to_string();
            let steps = scope.through.iter().map(|(table, column)| {
                let (table, column) = (table.to_string(), column.to_string());
                quote!((#table, #column))
            });
            quote!(Some(Scope { column: #column, through: &[#(#steps),*] }))
        }
        None => quote!(None),
    };
    let headers = declaration
        .headers
        .as_deref()
        .unwrap_or_default()
        .iter()
        .map(|header| {
            let name = header.name.to_string();
            let doc = doc_text(&header.docs);
            quote!(Header { name: #name, description: #doc })
        });
    let rules = declaration.rules.iter().map(|rule| {
        let function = rule.function.to_string();
        let arguments = rule.arguments.iter().map(json_name);
        quote!(Rule { function: #function, members: &[#(#arguments),*] })
    });
    let filters = declaration.extra_filters.iter().map(|filter| {
        let name = json_name(&filter.name);
        let doc = doc_text(&filter.docs);
        let kind = kind_text(&filter.kind);
        let alias = format_ident!("FilterKindOf_{}", filter.name, span = filter.kind.span());
        let filter_kind = quote_spanned!(filter.kind.span()=> <#alias as Filterable>::FILTER);
        quote!(ExtraFilter { json_name: #name, description: #doc, kind: #kind, filter: #filter_kind })
    });
    quote! {
        /// The plain-data description of this resource (see
        /// `billing_domain::resources::declaration`).
        pub const DECLARATION: Declaration = Declaration {
            table: #table,
            description: #description,
            members: &[#(#members),*],
            children: &[#(#children),*],
            scope: #scope,
            headers: &[#(#headers),*],
            rules: &[#(#rules),*],
            extra_filters: &[#(#filters),*],
        };
    }
}

fn pascal(snake: &str) -> String {
    snake
        .split('_')
        .map(|word| {
            let mut characters = word.chars();
            match characters.next() {
                Some(first) => first.to_ascii_uppercase().to_string() + characters.as_str(),
                None => String::new(),
            }
        })
        .collect()
}
