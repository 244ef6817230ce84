//! A site body (as `POST /v1/sites` takes it) checked whole with no database: what a batch
//! job needs to validate a file of sites. The stored facts the rules read are passed in (the
//! known mandates); the checks that need other stored records (that the customer, templates,
//! receiving site and custom field definitions exist) are the service's.

use std::collections::HashMap;

use serde_json::Value;

use super::{
    ContactInvoiceFlags, MandateFacts, Site, SiteDraft, check_custom_fields_once,
    check_invoice_routing, check_mandate, settle_invoice_contact,
};
use crate::resources::Document;
use crate::resources::documents::{WHOLE_BODY, merged};
use crate::{FieldError, ValidationErrors};

/// Every broken rule of a site body, each once, by its JSON path: every member's kind at every
/// depth, required, unknown and read-only members, the declared rules of each part, invoice
/// routing, the invoice contact, one value per custom field and the mandate
/// (`mandate(provider, reference)` is the stored mandate, if any).
pub fn check_site_body(
    body: &Value,
    mandate: impl Fn(&str, &str) -> Option<MandateFacts>,
) -> Result<Site, ValidationErrors> {
    let mut errors = ValidationErrors::default();
    let draft = Site::read_json(body, "", &mut errors);
    if !body.is_object() {
        // Only that: the members it lacks and the rules across them say nothing more.
        return Err(errors);
    }
    let across = across_parts(&draft, mandate);
    match merged(Site::parse(draft, ""), errors) {
        Ok(site) if across.is_empty() => Ok(site),
        Ok(_) => Err(across),
        Err(mut errors) => {
            errors.errors.extend(across.errors);
            Err(errors)
        }
    }
}

/// The rules that span the parts of a site, on what the body gave.
fn across_parts(
    draft: &SiteDraft,
    mandate: impl Fn(&str, &str) -> Option<MandateFacts>,
) -> ValidationErrors {
    let mut errors = ValidationErrors::default();
    let details = draft.site_invoice_details.as_ref();
    errors.collect(check_invoice_routing(
        details.is_some(),
        draft.site_id_receiving_invoice,
    ));
    let mut flags: Vec<ContactInvoiceFlags> = draft
        .site_contacts
        .iter()
        .map(|contact| ContactInvoiceFlags {
            stored_id: None,
            email_address: contact.contact_email_address.clone(),
            name_on_invoice: contact.contact_name_to_appear_on_invoice,
            receive_invoice_by: contact.receive_invoice_by.clone(),
        })
        .collect();
    errors.collect(settle_invoice_contact(
        crate::resources::sites::names::site_contacts,
        &mut flags,
        None,
    ));
    let definitions: Vec<Option<i64>> = draft
        .assigned_custom_fields
        .iter()
        .map(|field| field.custom_field_definition_id)
        .collect();
    errors.collect(check_custom_fields_once(&definitions));
    if let Some(details) = details {
        let method = details.payment_method.as_deref().unwrap_or_default();
        let reference = details.mandate_reference.as_deref();
        let facts = reference.and_then(|reference| mandate(method, reference));
        errors.collect(check_mandate(
            "siteInvoiceDetails",
            method,
            reference,
            details.third_party_customer_reference.as_deref(),
            facts.as_ref(),
        ));
    }
    errors
}

/// The known mandates a batch job supplies, by provider and reference.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct KnownMandates(HashMap<(String, String), MandateFacts>);

impl KnownMandates {
    /// Reads JSON lines of `{"provider", "mandateReference", "status"}`; `Err` names the line.
    pub fn from_json_lines(text: &str) -> Result<Self, String> {
        let mut mandates = HashMap::new();
        for (number, line) in lines(text) {
            let value: Value =
                serde_json::from_str(line).map_err(|e| format!("mandates line {number}: {e}"))?;
            let member = |name: &str| match value.get(name).and_then(Value::as_str) {
                Some(text) => Ok(text.to_owned()),
                None => Err(format!("mandates line {number}: {name} is required")),
            };
            let key = (member("provider")?, member("mandateReference")?);
            mandates.insert(
                key,
                MandateFacts {
                    status: member("status")?,
                },
            );
        }
        Ok(Self(mandates))
    }

    /// The mandate of `provider` with `reference`, if known.
    pub fn get(&self, provider: &str, reference: &str) -> Option<MandateFacts> {
        self.0
            .get(&(provider.to_owned(), reference.to_owned()))
            .cloned()
    }
}

/// The non-blank lines of a text with their numbers (from 1).
fn lines(text: &str) -> impl Iterator<Item = (usize, &str)> {
    text.lines()
        .enumerate()
        .map(|(index, line)| (index + 1, line))
        .filter(|(_, line)| !line.trim().is_empty())
}

/// Every broken rule of each site body of a JSON-lines text ([`check_site_body`]), with its
/// line number; a line that is not JSON is one error naming `body`.
pub fn check_site_lines(text: &str, mandates: &KnownMandates) -> Vec<(usize, FieldError)> {
    let mut report = Vec::new();
    for (number, line) in lines(text) {
        let errors = match serde_json::from_str::<Value>(line) {
            Ok(body) => {
                check_site_body(&body, |provider, reference| {
                    mandates.get(provider, reference)
                })
                .err()
                .unwrap_or_default()
                .errors
            }
            Err(error) => vec![FieldError::new(WHOLE_BODY, format!("not JSON ({error})"))],
        };
        report.extend(errors.into_iter().map(|error| (number, error)));
    }
    report
}
