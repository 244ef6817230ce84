//! The declaration grammar, parsed once (the crate documentation shows it). Every mistake is
//! an error at the span of the token that is wrong, so the compiler points at the
//! declaration's line.

use syn::parse::{Parse, ParseStream};
use syn::punctuated::Punctuated;
use syn::{Attribute, Expr, Ident, LitStr, Token, TypePath, braced, bracketed, parenthesized};

/// How a member is written and read (see `billing_domain::resources`).
pub const ACCESSES: &[&str] = &[
    "required",
    "optional",
    "defaulted",
    "derived",
    "created",
    "updated",
    "write_only",
    "kept",
];

/// How a parent holds an owned child table.
pub const MULTIPLICITIES: &[&str] = &["list", "non_empty_list", "one", "optional_one", "values"];

/// The modifiers a member takes: `create_only` (a replace or patch may not change it);
/// `echoed`, on a `derived` member only (a body may carry it back, as a read showed it, and it
/// is ignored: the server fills it in).
const MODIFIERS: &[&str] = &["create_only", "echoed"];

/// The sections that may follow a declaration's members, in the order they are handed on.
const SECTIONS: &[&str] = &["children", "scope", "headers", "rules", "extra_filters"];

/// Every declaration of one `declare!`.
pub struct Declarations {
    pub items: Vec<Declaration>,
}

#[derive(Clone)]
pub struct Declaration {
    pub docs: Vec<Attribute>,
    pub table: Ident,
    pub fields: Vec<Field>,
    pub children: Option<Vec<Child>>,
    pub scope: Option<Scope>,
    pub headers: Option<Vec<Header>>,
    pub rules: Vec<Rule>,
    pub extra_filters: Vec<ExtraFilter>,
}

#[derive(Clone)]
pub struct Field {
    pub docs: Vec<Attribute>,
    pub name: Ident,
    pub access: Ident,
    pub kind: TypePath,
    pub references: Option<(Ident, LitStr)>,
    pub shown_as: Option<(Ident, Ident)>,
    pub modifier: Option<Ident>,
    pub default: Option<Expr>,
}

impl Field {
    /// `[create_only]`: set by a create only.
    pub fn is_create_only(&self) -> bool {
        self.has_modifier("create_only")
    }

    /// `[echoed]`: a derived member a body may carry back (ignored).
    pub fn is_echoed(&self) -> bool {
        self.has_modifier("echoed")
    }

    fn has_modifier(&self, name: &str) -> bool {
        self.modifier
            .as_ref()
            .is_some_and(|modifier| modifier == name)
    }
}

#[derive(Clone)]
pub struct Child {
    pub docs: Vec<Attribute>,
    pub name: Ident,
    pub multiplicity: Ident,
    pub table: Ident,
}

#[derive(Clone)]
pub struct Scope {
    pub column: Ident,
    /// `in table.column` steps, in order.
    pub through: Vec<(Ident, Ident)>,
}

#[derive(Clone)]
pub struct Header {
    pub docs: Vec<Attribute>,
    pub name: Ident,
    pub kind: Ident,
}

#[derive(Clone)]
pub struct Rule {
    pub function: Ident,
    pub arguments: Vec<Ident>,
}

#[derive(Clone)]
pub struct ExtraFilter {
    pub docs: Vec<Attribute>,
    pub name: Ident,
    pub kind: TypePath,
}

fn docs(input: ParseStream) -> syn::Result<Vec<Attribute>> {
    let attributes = input.call(Attribute::parse_outer)?;
    for attribute in &attributes {
        if !attribute.path().is_ident("doc") {
            return Err(syn::Error::new_spanned(
                attribute,
                "only doc comments (`/// …`) may precede a declaration, a member or a filter",
            ));
        }
    }
    Ok(attributes)
}

fn one_of(ident: &Ident, allowed: &[&str], what: &str) -> syn::Result<()> {
    if allowed.contains(&ident.to_string().as_str()) {
        Ok(())
    } else {
        Err(syn::Error::new(
            ident.span(),
            format!(
                "unknown {what} `{ident}`: expected one of {}",
                allowed.join(", ")
            ),
        ))
    }
}

impl Parse for Declarations {
    fn parse(input: ParseStream) -> syn::Result<Self> {
        let mut items: Vec<Declaration> = Vec::new();
        while !input.is_empty() {
            let docs = docs(input)?;
            let table: Ident = input.parse()?;
            if input.peek(Token![=]) {
                // `other_table = table;`: the same members and sections under another table.
                input.parse::<Token![=]>()?;
                let original: Ident = input.parse()?;
                input.parse::<Token![;]>()?;
                let Some(base) = items.iter().find(|item| item.table == original) else {
                    return Err(syn::Error::new(
                        original.span(),
                        format!("no declaration of `{original}` above it in this `declare!`"),
                    ));
                };
                let mut copy = base.clone();
                copy.table = table;
                copy.docs = docs;
                items.push(copy);
                continue;
            }
            let mut declaration = Declaration::members(docs, table, input)?;
            declaration.sections(input)?;
            items.push(declaration);
        }
        Ok(Declarations { items })
    }
}

impl Declaration {
    fn members(docs: Vec<Attribute>, table: Ident, input: ParseStream) -> syn::Result<Self> {
        let content;
        braced!(content in input);
        let fields = Punctuated::<Field, Token![,]>::parse_terminated(&content)?;
        let fields: Vec<Field> = fields.into_iter().collect();
        for (index, field) in fields.iter().enumerate() {
            if fields[..index].iter().any(|other| other.name == field.name) {
                return Err(syn::Error::new(
                    field.name.span(),
                    format!("`{}` is declared twice", field.name),
                ));
            }
        }
        Ok(Declaration {
            docs,
            table,
            fields,
            children: None,
            scope: None,
            headers: None,
            rules: Vec::new(),
            extra_filters: Vec::new(),
        })
    }

    /// The sections after the members, in any order, each at most once.
    fn sections(&mut self, input: ParseStream) -> syn::Result<()> {
        let mut seen: Vec<String> = Vec::new();
        loop {
            let fork = input.fork();
            let Ok(keyword) = fork.parse::<Ident>() else {
                return Ok(());
            };
            let name = keyword.to_string();
            if !SECTIONS.contains(&name.as_str()) || !fork.peek(syn::token::Brace) {
                return Ok(());
            }
            input.parse::<Ident>()?;
            if seen.contains(&name) {
                return Err(syn::Error::new(
                    keyword.span(),
                    format!("a second `{name}` section"),
                ));
            }
            seen.push(name.clone());
            let content;
            braced!(content in input);
            match name.as_str() {
                "children" => {
                    self.children = Some(
                        Punctuated::<Child, Token![,]>::parse_terminated(&content)?
                            .into_iter()
                            .collect(),
                    );
                }
                "scope" => self.scope = Some(content.parse()?),
                "headers" => {
                    self.headers = Some(
                        Punctuated::<Header, Token![,]>::parse_terminated(&content)?
                            .into_iter()
                            .collect(),
                    );
                }
                "rules" => {
                    self.rules = Punctuated::<Rule, Token![,]>::parse_terminated(&content)?
                        .into_iter()
                        .collect();
                    self.check_rule_arguments()?;
                }
                _ => {
                    self.extra_filters =
                        Punctuated::<ExtraFilter, Token![,]>::parse_terminated(&content)?
                            .into_iter()
                            .collect();
                }
            }
        }
    }

    fn check_rule_arguments(&self) -> syn::Result<()> {
        for rule in &self.rules {
            for argument in &rule.arguments {
                if !self.fields.iter().any(|field| field.name == *argument) {
                    return Err(syn::Error::new(
                        argument.span(),
                        format!("`{argument}` is not a member of `{}`", self.table),
                    ));
                }
            }
        }
        Ok(())
    }
}

impl Parse for Field {
    fn parse(input: ParseStream) -> syn::Result<Self> {
        let docs = docs(input)?;
        let name: Ident = input.parse()?;
        input.parse::<Token![:]>()?;
        let access: Ident = input.parse()?;
        one_of(&access, ACCESSES, "access")?;
        let kind: TypePath = input.parse()?;
        let mut field = Field {
            docs,
            name,
            access,
            kind,
            references: None,
            shown_as: None,
            modifier: None,
            default: None,
        };
        while input.peek(Ident) {
            let word: Ident = input.parse()?;
            let content;
            parenthesized!(content in input);
            match word.to_string().as_str() {
                "references" => {
                    let table: Ident = content.parse()?;
                    content.parse::<Token![,]>()?;
                    field.references = Some((table, content.parse()?));
                }
                "shown_as" => {
                    let member: Ident = content.parse()?;
                    content.parse::<Token![,]>()?;
                    field.shown_as = Some((member, content.parse()?));
                }
                _ => {
                    return Err(syn::Error::new(
                        word.span(),
                        format!(
                            "unknown `{word}(…)`: expected references(table, \"noun\") or shown_as(member, table)"
                        ),
                    ));
                }
            }
        }
        if input.peek(syn::token::Bracket) {
            let content;
            bracketed!(content in input);
            let modifier: Ident = content.parse()?;
            one_of(&modifier, MODIFIERS, "modifier")?;
            if modifier == "echoed" && field.access != "derived" {
                return Err(syn::Error::new(
                    modifier.span(),
                    "`echoed` is for a `derived` member (one the server fills in)",
                ));
            }
            field.modifier = Some(modifier);
        }
        if input.peek(Token![=]) {
            input.parse::<Token![=]>()?;
            field.default = Some(input.parse()?);
        }
        let defaulted = field.access == "defaulted";
        match (&field.default, defaulted) {
            (None, true) => Err(syn::Error::new(
                field.access.span(),
                "a `defaulted` member needs its default: `= value`",
            )),
            (Some(default), false) => Err(syn::Error::new_spanned(
                default,
                "only a `defaulted` member has a default",
            )),
            _ => Ok(field),
        }
    }
}

impl Parse for Child {
    fn parse(input: ParseStream) -> syn::Result<Self> {
        let docs = docs(input)?;
        let name: Ident = input.parse()?;
        input.parse::<Token![:]>()?;
        let multiplicity: Ident = input.parse()?;
        one_of(&multiplicity, MULTIPLICITIES, "multiplicity")?;
        Ok(Child {
            docs,
            name,
            multiplicity,
            table: input.parse()?,
        })
    }
}

impl Parse for Scope {
    fn parse(input: ParseStream) -> syn::Result<Self> {
        let column: Ident = input.parse()?;
        let mut through = Vec::new();
        while input.peek(Token![in]) {
            input.parse::<Token![in]>()?;
            let table: Ident = input.parse()?;
            input.parse::<Token![.]>()?;
            through.push((table, input.parse()?));
        }
        Ok(Scope { column, through })
    }
}

impl Parse for Header {
    fn parse(input: ParseStream) -> syn::Result<Self> {
        let docs = docs(input)?;
        let name: Ident = input.parse()?;
        input.parse::<Token![:]>()?;
        let kind: Ident = input.parse()?;
        one_of(&kind, &["Bool"], "header kind")?;
        Ok(Header { docs, name, kind })
    }
}

impl Parse for Rule {
    fn parse(input: ParseStream) -> syn::Result<Self> {
        let function: Ident = input.parse()?;
        let content;
        parenthesized!(content in input);
        let arguments = Punctuated::<Ident, Token![,]>::parse_terminated(&content)?;
        Ok(Rule {
            function,
            arguments: arguments.into_iter().collect(),
        })
    }
}

impl Parse for ExtraFilter {
    fn parse(input: ParseStream) -> syn::Result<Self> {
        let docs = docs(input)?;
        let name: Ident = input.parse()?;
        input.parse::<Token![:]>()?;
        Ok(ExtraFilter {
            docs,
            name,
            kind: input.parse()?,
        })
    }
}

/// A member's JSON name: its Rust name in lower camel case (`charge_group_id` →
/// `chargeGroupId`; `r#type` → `type`).
pub fn json_name(ident: &Ident) -> String {
    let text = ident.to_string();
    let text = text.strip_prefix("r#").unwrap_or(&text);
    let mut out = String::with_capacity(text.len());
    let mut upper = false;
    for character in text.chars() {
        if character == '_' {
            upper = true;
        } else if upper {
            out.push(character.to_ascii_uppercase());
            upper = false;
        } else {
            out.push(character);
        }
    }
    out
}

/// The joined text of doc comments as `billing_domain::kinds::doc_text` makes it: the lines
/// concatenated, without the leading space rustdoc keeps.
pub fn doc_text(docs: &[Attribute]) -> String {
    let mut joined = String::new();
    for attribute in docs {
        if let syn::Meta::NameValue(pair) = &attribute.meta
            && let Expr::Lit(syn::ExprLit {
                lit: syn::Lit::Str(text),
                ..
            }) = &pair.value
        {
            joined.push_str(&text.value());
        }
    }
    joined
        .strip_prefix(' ')
        .map(str::to_owned)
        .unwrap_or(joined)
}
