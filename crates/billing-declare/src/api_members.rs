//! The http crate's side of one member or owned child: its Rust types in a body and a
//! response, the value a write stores, its entry in the field list, its reference check.
//! Everything is chosen here by the member's access and kind, so the generated code is plain
//! Rust with no macro left to expand. `H` abbreviates `::billing_http`.

use proc_macro2::TokenStream;
use quote::{format_ident, quote};

use crate::grammar::{Child, Field, doc_text, json_name};

/// `<Kind as ApiKind>`.
fn api_kind(field: &Field) -> TokenStream {
    let kind = &field.kind;
    quote!(<#kind as ::billing_http::machinery::kinds::ApiKind>)
}

fn access(field: &Field) -> String {
    field.access.to_string()
}

/// The Rust type of a member in a body.
pub fn input_type(field: &Field) -> TokenStream {
    let kind = api_kind(field);
    match access(field).as_str() {
        "required" => quote!(#kind::Input),
        "optional" | "derived" | "write_only" => quote!(Option<#kind::Input>),
        "defaulted" => quote!(::billing_http::machinery::kinds::Defaulted<#kind::Input>),
        _ => quote!(()),
    }
}

/// The Rust type of a member in a response.
pub fn output_type(field: &Field) -> TokenStream {
    let kind = api_kind(field);
    match access(field).as_str() {
        "optional" | "derived" | "kept" => quote!(Option<#kind::Output>),
        _ => quote!(#kind::Output),
    }
}

/// The Rust type of a member in a record: a shown member holds the other record.
pub fn record_type(field: &Field) -> TokenStream {
    match &field.shown_as {
        Some((_, table)) => {
            let shown = quote!(::billing_http::machinery::shown::Shown<::billing_http::resources::#table::Record>);
            if field.access == "optional" {
                quote!(Option<#shown>)
            } else {
                shown
            }
        }
        None => output_type(field),
    }
}

/// A stored value as a response shows it.
pub fn convert(field: &Field, value: TokenStream) -> TokenStream {
    match access(field).as_str() {
        "optional" | "derived" | "kept" => quote!((#value).map(Into::into)),
        _ => quote!((#value).into()),
    }
}

/// A stored value as a record holds it (a shown member: its key, until its page is completed).
pub fn record_convert(field: &Field, value: TokenStream) -> TokenStream {
    match (&field.shown_as, field.access == "optional") {
        (Some(_), false) => quote!(::billing_http::machinery::shown::Shown::of(#value)),
        (Some(_), true) => quote!((#value).map(::billing_http::machinery::shown::Shown::of)),
        (None, _) => convert(field, value),
    }
}

/// The value to store: what a body carried, or for a stamp the time of the write (`created`:
/// kept from the stored record on a replace). `current` is `Option<&stored member>`.
pub fn value(field: &Field, current: TokenStream) -> syn::Result<TokenStream> {
    let kind = api_kind(field);
    let name = &field.name;
    let input = quote!(&self.#name);
    Ok(match access(field).as_str() {
        "required" => quote!(#kind::value(#input)),
        "optional" | "derived" => quote!((#input).as_ref().map(#kind::value)),
        "defaulted" => {
            let default = &field.default;
            quote! {
                match &(#input).0 {
                    Some(input) => #kind::value(input),
                    None => #kind::value(&(#default).into()),
                }
            }
        }
        "write_only" => quote! {
            match ((#input).as_ref(), #current) {
                (Some(input), _) => #kind::value(input),
                (None, Some(stored)) => stored.0.clone(),
                (None, None) => String::new(),
            }
        },
        "kept" => quote!((#current).and_then(|stamp| stamp.as_ref().map(|stamp| stamp.0))),
        "created" => quote!((#current).map_or(now, |stamp| stamp.0)),
        _ => quote!(now),
    })
}

/// A write-only member is required when a record is created (a later write that leaves it out
/// keeps the stored value), and reaches the write already prepared (a password, hashed).
pub fn write_only_check(field: &Field, noun: &syn::LitStr) -> TokenStream {
    if field.access != "write_only" {
        return TokenStream::new();
    }
    let (kind, name) = (api_kind(field), &field.name);
    let json = json_name(name);
    quote! {
        match ((&self.#name).as_ref(), current) {
            (None, None) => errors.push(
                #json,
                format!("is required when creating {}", ::billing_http::openapi::with_article(#noun)),
            ),
            (Some(input), _) if !#kind::prepared(input) => {
                return Err(::billing_http::error::ApiError::internal(
                    "a write-only value reached the write unprepared",
                ))
            }
            _ => {}
        }
    }
}

/// For a `[create_only]` member, a replace (or patch) that changes the stored value is an
/// error naming it.
pub fn create_only_check(field: &Field) -> TokenStream {
    if !field.is_create_only() {
        return TokenStream::new();
    }
    let name = &field.name;
    let json = json_name(name);
    let output = output_type(field);
    let wanted = convert(field, quote!(#name.clone()));
    quote! {
        if let Some(stored) = current.map(|current| &current.#name) {
            let wanted: #output = #wanted;
            if &wanted != stored {
                errors.push(#json, "is set on creation only and cannot be changed");
            }
        }
    }
}

/// 400 naming the member unless the record it references exists (and, for a shown member,
/// `currency.id` unless the record it shows exists).
pub fn reference_check(field: &Field) -> syn::Result<TokenStream> {
    let name = &field.name;
    let mut checks = TokenStream::new();
    if let Some((table, noun)) = &field.references {
        let json = json_name(name);
        checks.extend(match access(field).as_str() {
            "required" => quote! {
                if !::billing_persistence::#table::exists(connection, #name)? {
                    return Err(::billing_http::machinery::resource::missing_reference(#json, #noun, #name));
                }
            },
            "optional" => quote! {
                if let Some(id) = #name
                    && !::billing_persistence::#table::exists(connection, id)?
                {
                    return Err(::billing_http::machinery::resource::missing_reference(#json, #noun, id));
                }
            },
            _ => {
                return Err(syn::Error::new(
                    field.access.span(),
                    "only a required or optional member may reference another record",
                ));
            }
        });
    }
    if let Some((member, table)) = &field.shown_as {
        let json = json_name(member);
        let check = quote!(::billing_http::machinery::shown::check_exists::<::billing_http::resources::#table::Record>);
        checks.extend(if field.access == "optional" {
            quote!(if let Some(key) = &#name { #check(connection, #json, key)? })
        } else {
            quote!(#check(connection, #json, &#name)?;)
        });
    }
    Ok(checks)
}

/// The member's entry in a field list.
pub fn field_entry(field: &Field) -> TokenStream {
    let kind = api_kind(field);
    let doc = doc_text(&field.docs);
    let field_type = quote!(#kind::FIELD_TYPE);
    let constructor = match access(field).as_str() {
        "defaulted" => format_ident!("optional"),
        other => format_ident!("{other}"),
    };
    let entry = match &field.shown_as {
        Some((member, table)) => {
            let (shown, column) = (json_name(member), json_name(&field.name));
            let record = quote!(<::billing_http::resources::#table::Record as ::billing_http::machinery::shown::ShownRecord>);
            quote! {
                ::billing_http::machinery::resource::Field::#constructor(
                    #shown,
                    ::billing_http::machinery::resource::FieldType::Object(#record::FIELDS),
                    #doc,
                )
                .shows(#column, #record::KEY)
            }
        }
        None => {
            let json = json_name(&field.name);
            let plain = quote!(::billing_http::machinery::resource::Field::#constructor(#json, #field_type, #doc));
            match &field.default {
                Some(default) => {
                    let text = quote::ToTokens::to_token_stream(default).to_string();
                    quote!(#plain.not_null().with_default(#text))
                }
                None => plain,
            }
        }
    };
    let echoed = field.is_echoed();
    quote!(#entry.non_empty_if(#kind::NON_EMPTY).at_most_if(#kind::MAX_ITEMS).echoed_if(#echoed))
}

/// The Rust type of an owned child member in a record (`Record`) or a body (`Input`).
pub fn child_type(child: &Child, shape: &str) -> TokenStream {
    let table = &child.table;
    let module = quote!(::billing_http::resources::#table);
    match (child.multiplicity.to_string().as_str(), shape) {
        ("values", "Record") => quote!(Vec<#module::Value>),
        ("values", _) => quote!(Vec<#module::ValueInput>),
        ("one" | "optional_one", _) => {
            let shape = format_ident!("{shape}");
            quote!(Option<#module::#shape>)
        }
        _ => {
            let shape = format_ident!("{shape}");
            quote!(Vec<#module::#shape>)
        }
    }
}

/// A parent's loaded elements as its child member holds them.
pub fn child_value(child: &Child) -> TokenStream {
    match child.multiplicity.to_string().as_str() {
        "one" | "optional_one" => quote!(elements.into_iter().next()),
        "values" => quote!(
            elements
                .into_iter()
                .map(|element| element.into_value())
                .collect()
        ),
        _ => quote!(elements),
    }
}

/// The stored element of a body's element, its errors named within `path` (a `values`
/// entry's by the entry's path alone: `siteIds[1]`).
pub fn child_element(child: &Child) -> TokenStream {
    let json = json_name(&child.name);
    let multiplicity = child.multiplicity.to_string();
    let path = match multiplicity.as_str() {
        "one" | "optional_one" => quote!(#json.to_owned()),
        _ => quote!(format!("{}[{}]", #json, index)),
    };
    let name_errors = if multiplicity == "values" {
        quote!(at)
    } else {
        quote!(within)
    };
    quote! {{
        let path = #path;
        element.element(connection).map_err(|e| e.#name_errors(&path))
    }}
}

/// The owned child's entry in a field list: `list` may be left out (empty) but is never null;
/// `non_empty_list` is required and holds at least one element; `one` is a required object;
/// `optional_one` an object that may be null or left out; `values` a list of the child's one
/// member's values (`siteIds: [3, 5]`), optional, never null.
pub fn child_field_entry(child: &Child) -> TokenStream {
    let json = json_name(&child.name);
    let doc = doc_text(&child.docs);
    let table = &child.table;
    let module = quote!(::billing_http::resources::#table);
    let field = quote!(::billing_http::machinery::resource::Field);
    let field_type = quote!(::billing_http::machinery::resource::FieldType);
    let max = quote!(::billing_http::machinery::members::MAX_ELEMENTS);
    match child.multiplicity.to_string().as_str() {
        "list" => quote! {
            #field::optional(#json, #field_type::Array(&#field_type::Object(#module::FIELDS)), #doc)
                .not_null().owned().at_most(#max)
        },
        "non_empty_list" => quote! {
            #field::required(#json, #field_type::Array(&#field_type::Object(#module::FIELDS)), #doc)
                .non_empty().owned().at_most(#max)
        },
        "one" => {
            quote!(#field::required(#json, #field_type::Object(#module::FIELDS), #doc).owned())
        }
        "optional_one" => {
            quote!(#field::optional(#json, #field_type::Object(#module::FIELDS), #doc).owned())
        }
        _ => quote! {
            #field::optional(#json, #field_type::Array(&#module::VALUE_TYPE), #doc)
                .not_null().at_most(#max)
        },
    }
}
