//! A served resource's settings (`Name { path: …, … }`, or `#[declared_resource(…)]`'s) and
//! its one `impl Resource`: the methods the resource's own block wrote, then the generated
//! ones.

use proc_macro2::TokenStream;
use quote::quote;
use syn::parse::{Parse, ParseStream};
use syn::{Expr, Ident, LitStr, Path, Token};

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
    pub name: Ident,
    pub path: LitStr,
    pub noun: LitStr,
    pub read: Ident,
    pub write: Ident,
    pub storage: Path,
    pub operations: Option<Expr>,
    pub created_status: Option<Expr>,
    pub embedded: Option<Expr>,
    pub rated: bool,
    pub changes_callers: bool,
    pub written: Option<syn::ItemImpl>,
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

/// The one `impl Resource for Name`: the methods the resource's own block wrote, then what
/// the declaration gives (its settings, shapes and the generic operations of
/// `billing_http::machinery::operations`).
pub fn resource_impl(with: &ApiWith, optional: TokenStream) -> syn::Result<TokenStream> {
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
    let declared = quote!(::billing_http::machinery::declared::Declared);
    let generic = quote!(::billing_http::machinery::operations);
    let (connection, caller) = (
        quote!(&mut ::billing_persistence::DbConnection),
        quote!(&::billing_auth::AuthenticatedUser),
    );
    let generated = quote! {
        const PATH: &'static str = #path;
        const NOUN: &'static str = #noun;
        const DESCRIPTION: &'static str = <Self as #declared>::DECLARATION.description;
        const READ: ::billing_domain::roles::Permission = ::billing_domain::roles::Permission::#read;
        const WRITE: ::billing_domain::roles::Permission = ::billing_domain::roles::Permission::#write;
        const OPERATIONS: #resource::Operations = #operations;
        const CREATED_STATUS: u16 = #created_status;
        const EMBEDDED: &'static [::billing_http::machinery::embedded::Embedded] = #embedded;
        const FIELDS: &'static [#resource::Field] = declared::FIELDS;
        const HEADERS: &'static [#resource::HeaderParam] = <Self as #declared>::DECLARATION.headers;

        type Record = declared::Record;
        type Input = declared::Input;

        fn sort_keys() -> &'static [&'static str] {
            static KEYS: ::std::sync::OnceLock<Vec<&'static str>> = ::std::sync::OnceLock::new();
            KEYS.get_or_init(|| {
                ::billing_http::machinery::declared::sort_keys_of(<Self as #declared>::DECLARATION, Self::FIELDS)
            })
        }

        fn filters() -> &'static [#resource::FilterParam] {
            static FILTERS: ::std::sync::OnceLock<Vec<#resource::FilterParam>> = ::std::sync::OnceLock::new();
            FILTERS.get_or_init(|| ::billing_http::machinery::declared::filters_of(<Self as #declared>::DECLARATION))
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
