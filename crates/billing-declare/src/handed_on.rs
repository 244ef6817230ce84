//! The declaration in its fixed token form, handed to the persistence and http crates'
//! macros: members, then `children`, `scope`, `headers` when declared, then `rules` and
//! `extra_filters` always.

use proc_macro2::TokenStream;
use quote::quote;

use crate::grammar::Declaration;

/// The macro named after the table: `table!(then $(, with…)?)` expands to
/// `then! { (with…) <declaration> }`.
pub fn macro_of(declaration: &Declaration) -> TokenStream {
    let table = &declaration.table;
    let tokens = fixed_form(declaration);
    let doc = format!(
        "The declaration of `{table}`, handed to a macro of the caller's choosing: \
         `{table}!(path::to::macro, extra tokens…)` (see `billing_domain::resources`)."
    );
    quote! {
        #[doc = #doc]
        #[macro_export]
        macro_rules! #table {
            ($($then:ident)::+ $(, $($with:tt)*)?) => { $($then)::+! { ($($($with)*)?) #tokens } };
        }
    }
}

fn fixed_form(declaration: &Declaration) -> TokenStream {
    let docs = &declaration.docs;
    let table = &declaration.table;
    let fields = declaration.fields.iter().map(|field| {
        let (docs, name, access, kind) = (&field.docs, &field.name, &field.access, &field.kind);
        let references = field
            .references
            .as_ref()
            .map(|(table, noun)| quote!(references(#table, #noun)));
        let shown_as = field
            .shown_as
            .as_ref()
            .map(|(member, table)| quote!(shown_as(#member, #table)));
        let modifier = field.modifier.as_ref().map(|modifier| quote!([#modifier]));
        let default = field.default.as_ref().map(|default| quote!(= #default));
        quote!(#(#docs)* #name : #access #kind #references #shown_as #modifier #default)
    });
    let children = declaration.children.as_ref().map(|children| {
        let children = children.iter().map(|child| {
            let (docs, name, multiplicity, table) =
                (&child.docs, &child.name, &child.multiplicity, &child.table);
            quote!(#(#docs)* #name : #multiplicity #table)
        });
        quote!(children { #(#children),* })
    });
    let scope = declaration.scope.as_ref().map(|scope| {
        let column = &scope.column;
        let steps = scope
            .through
            .iter()
            .map(|(table, column)| quote!(in #table . #column));
        quote!(scope { #column #(#steps)* })
    });
    let headers = declaration.headers.as_ref().map(|headers| {
        let headers = headers.iter().map(|header| {
            let (docs, name, kind) = (&header.docs, &header.name, &header.kind);
            quote!(#(#docs)* #name : #kind)
        });
        quote!(headers { #(#headers),* })
    });
    let rules = declaration.rules.iter().map(|rule| {
        let (function, arguments) = (&rule.function, &rule.arguments);
        quote!(#function(#(#arguments),*))
    });
    let filters = declaration.extra_filters.iter().map(|filter| {
        let (docs, name, kind) = (&filter.docs, &filter.name, &filter.kind);
        quote!(#(#docs)* #name : #kind)
    });
    quote! {
        #(#docs)*
        #table { #(#fields),* }
        #children
        #scope
        #headers
        rules { #(#rules),* }
        extra_filters { #(#filters),* }
    }
}
