//! A batch job on the domain crate alone: validates a JSON-lines file of site bodies (as
//! `POST /v1/sites` takes them) with no database and no web framework, and prints every broken
//! rule with its line number and the JSON path of its member.
//!
//! ```text
//! cargo run -p billing-domain --example validate_sites -- sites.jsonl [mandates.jsonl]
//! ```
//!
//! `mandates.jsonl` lists the known mandates (`{"provider", "mandateReference", "status"}`),
//! the stored facts the mandate rule takes. The checks that need the service's stored records
//! (that the customer, templates, receiving site and custom field definitions exist) are the
//! service's; everything else is checked here: every member's kind at every depth, required,
//! unknown and read-only members, the declared rules of each part, the invoice-contact rule,
//! invoice routing and the mandate rules.
//!
//! The checks come from the same declarations the service is built from
//! (`billing_domain::sites!` and its parts), read by a macro of this program's own.

use std::collections::HashMap;

use billing_domain::ValidationErrors;
use billing_domain::kinds::*;
use billing_domain::sites::codes::TemplateComponent;
use billing_domain::sites::{
    ContactInvoiceFlags, MandateFacts, check_invoice_routing, check_mandate, settle_invoice_contact,
};
use serde_json::{Map, Value};

/// How a kind's value is read from JSON (the service's http crate does the same with serde).
pub trait FromJson: Kind {
    fn from_json(value: &Value) -> Result<Self::Value, String>;
}

fn text(value: &Value) -> Result<String, String> {
    value
        .as_str()
        .map(str::to_owned)
        .ok_or_else(|| "must be a string".to_owned())
}

macro_rules! text_kinds {
    ($($kind:ty $(, [$($generics:tt)*])?);* $(;)?) => {
        $(impl$(<$($generics)*>)? FromJson for $kind {
            fn from_json(value: &Value) -> Result<String, String> {
                text(value)
            }
        })*
    };
}

text_kinds!(
    Text<MIN, MAX>, [const MIN: usize, const MAX: usize];
    Enum<E>, [E: CodeSet];
    Postcode; Telephone; Email; CountryCode; AccountNumber; SortCode;
);

impl FromJson for Id {
    fn from_json(value: &Value) -> Result<i64, String> {
        value
            .as_i64()
            .ok_or_else(|| "must be an integer".to_owned())
    }
}

impl<const MIN: i64, const MAX: i64> FromJson for Integer<MIN, MAX> {
    fn from_json(value: &Value) -> Result<i64, String> {
        value
            .as_i64()
            .ok_or_else(|| "must be an integer".to_owned())
    }
}

impl FromJson for Bool {
    fn from_json(value: &Value) -> Result<bool, String> {
        value
            .as_bool()
            .ok_or_else(|| "must be true or false".to_owned())
    }
}

impl FromJson for Date {
    fn from_json(value: &Value) -> Result<chrono::NaiveDate, String> {
        billing_domain::dates::parse_date(&text(value)?)
            .ok_or_else(|| "must be a date, yyyy-MM-dd".to_owned())
    }
}

impl FromJson for DateTime {
    fn from_json(value: &Value) -> Result<chrono::NaiveDateTime, String> {
        billing_domain::query::parse_utc_date_time(&text(value)?)
            .ok_or_else(|| "must be a UTC date-time".to_owned())
    }
}

impl<const SCALE: u32, const MIN: i64, const MAX: i64> FromJson for Decimal<SCALE, MIN, MAX> {
    fn from_json(value: &Value) -> Result<i64, String> {
        match value {
            Value::Number(number) => {
                billing_domain::money::parse_decimal(&number.to_string(), SCALE)
            }
            _ => Err("must be a number".to_owned()),
        }
    }
}

impl FromJson for IdList {
    fn from_json(value: &Value) -> Result<String, String> {
        let ids: Option<Vec<i64>> = value
            .as_array()
            .map(|items| items.iter().map(Value::as_i64).collect())
            .unwrap_or(None);
        ids.map(|ids| IdList::join(&ids))
            .ok_or_else(|| "must be an array of ids".to_owned())
    }
}

impl FromJson for TemplateComponents {
    fn from_json(value: &Value) -> Result<String, String> {
        let component = |item: &Value| {
            Some(TemplateComponent {
                id: item.get("id")?.as_i64()?,
                position_in_template: item.get("positionInTemplate")?.as_i64()?,
            })
        };
        let components: Option<Vec<TemplateComponent>> = value
            .as_array()
            .and_then(|items| items.iter().map(component).collect());
        components
            .map(|components| TemplateComponents::join(&components))
            .ok_or_else(|| "must be an array of {id, positionInTemplate}".to_owned())
    }
}

fn join(path: &str, member: &str) -> String {
    if path.is_empty() {
        member.to_owned()
    } else {
        format!("{path}.{member}")
    }
}

/// A member's value by its access: required and defaulted members are values, the others
/// optional; `None` when the member is missing or broken (its error is already recorded).
macro_rules! read_member {
    (required, $kind:ty, $object:ident, $name:expr, $path:expr, $errors:ident) => {
        match $object.get($name) {
            None | Some(Value::Null) => {
                $errors.push(join($path, $name), "is required");
                None
            }
            Some(value) => checked::<$kind>(value, &join($path, $name), $errors),
        }
    };
    (defaulted, $kind:ty, $object:ident, $name:expr, $path:expr, $errors:ident) => {
        match $object.get($name) {
            None => None,
            Some(value) => checked::<$kind>(value, &join($path, $name), $errors),
        }
    };
    (optional, $kind:ty, $object:ident, $name:expr, $path:expr, $errors:ident) => {
        match $object.get($name) {
            None | Some(Value::Null) => Some(None),
            Some(value) => checked::<$kind>(value, &join($path, $name), $errors).map(Some),
        }
    };
    ($read_only:ident, $kind:ty, $object:ident, $name:expr, $path:expr, $errors:ident) => {{
        if $object.contains_key($name) {
            $errors.push(join($path, $name), "is read-only and cannot be set");
        }
        None::<()>
    }};
}

fn checked<K: FromJson>(
    value: &Value,
    path: &str,
    errors: &mut ValidationErrors,
) -> Option<K::Value> {
    match K::from_json(value).and_then(|parsed| K::check(&parsed).map(|()| parsed)) {
        Ok(parsed) => Some(parsed),
        Err(message) => {
            errors.push(path, message);
            None
        }
    }
}

/// Reads a declaration into a module named after its table, with `check(object, path,
/// errors)`: every member by its kind, unknown members, the declared rules, and each owned
/// part by its own module.
macro_rules! checker {
    (
        ($($with:tt)*)
        $(#[doc = $resource_doc:literal])*
        $table:ident {
            $(
                $(#[doc = $doc:literal])*
                $field:ident : $access:ident $kind:ident $(<$($param:tt),*>)?
                $(references($rtable:ident, $rnoun:literal))?
                $([$modifier:ident])?
                $(= $default:expr)?
            ),* $(,)?
        }
        $(children { $( $(#[doc = $cdoc:literal])* $cfield:ident : $cmult:ident $ctable:ident ),* $(,)? })?
        $(scope { $($scope:tt)* })?
        $(headers { $($headers:tt)* })?
        rules { $($rule:ident($($rule_arg:ident),*)),* $(,)? }
        extra_filters { $($extra:tt)* }
    ) => {
        #[allow(non_snake_case, unused)]
        pub mod $table {
            use super::*;

            pub fn check(object: &Map<String, Value>, path: &str, errors: &mut ValidationErrors) {
                let known: &[&str] = &["id", $(billing_domain::json_name!($field),)* $($(billing_domain::json_name!($cfield),)*)?];
                for key in object.keys() {
                    if !known.contains(&key.as_str()) {
                        errors.push(join(path, key), "unknown field");
                    } else if key == "id" {
                        errors.push(join(path, key), "is read-only and cannot be set");
                    }
                }
                $(let $field = read_member!($access, $kind $(<$($param),*>)?, object, billing_domain::json_name!($field), path, errors);)*
                $(
                    let mut rule = || -> Option<()> {
                        let broken = billing_domain::rules::$rule($(&$rule_arg.clone()?),*);
                        if let Err(broken) = broken {
                            for error in broken.errors {
                                errors.push(join(path, &error.field), error.message);
                            }
                        }
                        Some(())
                    };
                    rule();
                )*
                $($(
                    let name = billing_domain::json_name!($cfield);
                    children!($cmult, $ctable, object, name, path, errors);
                )*)?
            }
        }
    };
}

/// Checks an owned part (or each element of an owned list) with its table's module.
macro_rules! children {
    ($multiplicity:ident, $table:ident, $object:ident, $name:expr, $path:expr, $errors:ident) => {{
        let here = join($path, $name);
        match ($object.get($name), stringify!($multiplicity)) {
            (None | Some(Value::Null), "one") => $errors.push(here, "is required"),
            (None | Some(Value::Null), "non_empty_list") => $errors.push(here, "is required"),
            (None | Some(Value::Null), _) => {}
            (Some(Value::Object(part)), "one" | "optional_one") => {
                super::$table::check(part, &here, $errors)
            }
            (Some(Value::Array(items)), "list" | "non_empty_list") => {
                if items.is_empty() && stringify!($multiplicity) == "non_empty_list" {
                    $errors.push(here.clone(), "must hold at least one element");
                }
                for (index, item) in items.iter().enumerate() {
                    match item {
                        Value::Object(element) => {
                            super::$table::check(element, &format!("{here}[{index}]"), $errors)
                        }
                        _ => $errors.push(format!("{here}[{index}]"), "must be an object"),
                    }
                }
            }
            _ => $errors.push(here, "has the wrong type"),
        }
    }};
}

billing_domain::sites!(checker);
billing_domain::site_addresses!(checker);
billing_domain::site_invoice_addresses!(checker);
billing_domain::site_contacts!(checker);
billing_domain::site_invoice_details!(checker);
billing_domain::site_assigned_custom_fields!(checker);

/// The known mandates, by provider and reference.
pub type Mandates = HashMap<(String, String), String>;

/// Every broken rule of one site body, as `path: message`.
pub fn validate_site(body: &Value, mandates: &Mandates) -> Vec<String> {
    let mut errors = ValidationErrors::default();
    let Value::Object(site) = body else {
        return vec!["body: must be a JSON object".to_owned()];
    };
    sites::check(site, "", &mut errors);
    // The rules across parts, with the facts passed in (docs/api.md "Sites").
    let details = site
        .get("siteInvoiceDetails")
        .filter(|value| !value.is_null());
    errors.collect(check_invoice_routing(
        details.is_some(),
        site.get("siteIdReceivingInvoice").and_then(Value::as_i64),
    ));
    if let Some(contacts) = site.get("siteContacts").and_then(Value::as_array) {
        let text = |contact: &Value, name: &str| {
            contact.get(name).and_then(Value::as_str).map(str::to_owned)
        };
        let mut flags: Vec<ContactInvoiceFlags> = contacts
            .iter()
            .map(|contact| ContactInvoiceFlags {
                stored_id: None,
                email_address: text(contact, "contactEmailAddress"),
                name_on_invoice: contact
                    .get("contactNameToAppearOnInvoice")
                    .and_then(Value::as_bool),
                receive_invoice_by: text(contact, "receiveInvoiceBy"),
            })
            .collect();
        errors.collect(settle_invoice_contact("siteContacts", &mut flags, None));
    }
    if let Some(details) = details {
        let text = |name: &str| details.get(name).and_then(Value::as_str);
        let method = text("paymentMethod").unwrap_or_default();
        let reference = text("mandateReference");
        let facts = reference
            .and_then(|reference| mandates.get(&(method.to_owned(), reference.to_owned())))
            .map(|status| MandateFacts {
                status: status.clone(),
            });
        errors.collect(check_mandate(
            "siteInvoiceDetails",
            method,
            reference,
            text("thirdPartyCustomerReference"),
            facts.as_ref(),
        ));
    }
    let mut lines: Vec<String> = errors
        .errors
        .into_iter()
        .map(|error| format!("{}: {}", error.field, error.message))
        .collect();
    lines.dedup();
    lines
}

/// Every broken rule of a JSON-lines text, as `line N: path: message`.
pub fn validate_lines(text: &str, mandates: &Mandates) -> Vec<String> {
    let mut report = Vec::new();
    for (index, line) in text.lines().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        let errors = match serde_json::from_str::<Value>(line) {
            Ok(body) => validate_site(&body, mandates),
            Err(error) => vec![format!("body: not JSON ({error})")],
        };
        report.extend(
            errors
                .into_iter()
                .map(|error| format!("line {}: {error}", index + 1)),
        );
    }
    report
}

/// Reads `{"provider", "mandateReference", "status"}` lines.
pub fn read_mandates(text: &str) -> Result<Mandates, String> {
    let mut mandates = Mandates::new();
    for (index, line) in text
        .lines()
        .enumerate()
        .filter(|(_, line)| !line.trim().is_empty())
    {
        let value: Value =
            serde_json::from_str(line).map_err(|e| format!("mandates line {}: {e}", index + 1))?;
        let field = |name: &str| {
            value
                .get(name)
                .and_then(Value::as_str)
                .map(str::to_owned)
                .ok_or_else(|| format!("mandates line {}: {name} is required", index + 1))
        };
        mandates.insert(
            (field("provider")?, field("mandateReference")?),
            field("status")?,
        );
    }
    Ok(mandates)
}

#[allow(dead_code)]
fn main() -> std::process::ExitCode {
    let arguments: Vec<String> = std::env::args().skip(1).collect();
    let Some(sites_path) = arguments.first() else {
        eprintln!("usage: validate_sites SITES.jsonl [MANDATES.jsonl]");
        return std::process::ExitCode::from(2);
    };
    let read = |path: &String| std::fs::read_to_string(path).map_err(|e| format!("{path}: {e}"));
    let outcome = read(sites_path).and_then(|sites| {
        let mandates = match arguments.get(1) {
            Some(path) => read_mandates(&read(path)?)?,
            None => Mandates::new(),
        };
        Ok(validate_lines(&sites, &mandates))
    });
    match outcome {
        Ok(report) if report.is_empty() => {
            println!("every site is valid");
            std::process::ExitCode::SUCCESS
        }
        Ok(report) => {
            for line in &report {
                println!("{line}");
            }
            std::process::ExitCode::FAILURE
        }
        Err(error) => {
            eprintln!("{error}");
            std::process::ExitCode::from(2)
        }
    }
}
