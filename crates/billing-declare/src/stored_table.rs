//! A declared table's Diesel definition (`diesel::table!`), written from its declaration by
//! `stored_resource!` and `stored_child!`: the columns, their SQL types by kind, and their SQL
//! names.

use proc_macro2::TokenStream;
use quote::{format_ident, quote};
use syn::Ident;
use syn::ext::IdentExt;

use crate::grammar::{Declaration, Field};
use crate::stored::{kind_name, nullable};

/// The SQL type a member's kind is stored as (the Diesel type of its `Kind::Value`: text,
/// scaled integers and ids, booleans, timestamps, dates). Diesel's `table!` needs the type
/// written out, not reached through a trait, so it is chosen here by the kind's name; the row
/// (`Queryable` of the kind's value) fails to compile if the two ever disagree.
pub(crate) fn stored_sql(field: &Field) -> syn::Result<&'static str> {
    Ok(match kind_name(field).as_str() {
        "Text" | "Letters" | "Symbol" | "CurrencyCode" | "CountryCode" | "Enum" | "Digits"
        | "Username" | "RoleCodes" | "Postcode" | "Telephone" | "Email" | "AccountNumber"
        | "SortCode" | "IdList" | "TemplateComponents" | "Password" => "Text",
        "Integer" | "Decimal" | "PositiveDecimal" | "Id" => "BigInt",
        "Bool" => "Bool",
        "DateTime" => "Timestamp",
        "Date" => "Date",
        other => {
            return Err(syn::Error::new_spanned(
                &field.kind,
                format!("storage has no column type for the kind `{other}`"),
            ));
        }
    })
}

/// A member's column type: [`stored_sql`], `Nullable` when the member may be unset.
fn sql_type(field: &Field) -> syn::Result<TokenStream> {
    let sql = format_ident!("{}", stored_sql(field)?);
    Ok(if nullable(field) {
        quote!(::diesel::sql_types::Nullable<::diesel::sql_types::#sql>)
    } else {
        quote!(::diesel::sql_types::#sql)
    })
}

/// A member's column name in SQL: its own, but a password's hash is kept in `<member>_hash`
/// (the column never holds the password itself).
fn sql_name(field: &Field) -> String {
    let name = field.name.unraw().to_string();
    if kind_name(field) == "Password" {
        format!("{name}_hash")
    } else {
        name
    }
}

/// The declared table's Diesel definition (`diesel::table!`), from the declaration alone: `id`,
/// for an owned child the parent's column and `ordinal`, every member by its kind and access,
/// and a resource's `version`. Also `stored_columns()`, the same columns as text for the
/// test that holds the migrations to them (`schema_matches_migrations.rs`).
pub fn table_definition(
    declaration: &Declaration,
    parent: Option<&Ident>,
) -> syn::Result<TokenStream> {
    let table = &declaration.table;
    let big_int = quote!(::diesel::sql_types::BigInt);
    let mut columns = vec![(format_ident!("id"), "id".to_owned(), big_int.clone())];
    if let Some(parent) = parent {
        columns.push((parent.clone(), parent.to_string(), big_int.clone()));
        columns.push((
            format_ident!("ordinal"),
            "ordinal".to_owned(),
            big_int.clone(),
        ));
    }
    for field in &declaration.fields {
        columns.push((field.name.clone(), sql_name(field), sql_type(field)?));
    }
    if parent.is_none() {
        columns.push((format_ident!("version"), "version".to_owned(), big_int));
    }
    let definitions = columns.iter().map(|(name, sql_name, sql_type)| {
        let renamed = (name.unraw() != sql_name).then(|| quote!(#[sql_name = #sql_name]));
        quote!(#renamed #name -> #sql_type,)
    });
    let described = columns.iter().map(|(_, sql_name, sql_type)| {
        quote!(::billing_persistence::schema::stored_column::<#sql_type>(#sql_name))
    });
    let table_name = table.to_string();
    Ok(quote! {
        ::diesel::table! {
            #table (id) {
                #(#definitions)*
            }
        }

        /// The table's name and its columns as stored, `name -> SQL type` in order.
        pub fn stored_columns() -> (&'static str, Vec<String>) {
            (#table_name, vec![#(#described),*])
        }
    })
}
