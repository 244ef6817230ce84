//! `/v1/sites` (docs/api.md "Sites"): a site with its address, contacts,
//! invoice details and custom fields, scoped through its customer's contract owner. The rules
//! are the domain's (`billing_domain::sites`); this file looks up the stored facts they need
//! (the mandate, the receiving site, the templates) and hands them over.

use billing_auth::AuthenticatedUser;
use billing_domain::ValidationErrors;
use billing_domain::customers::InvoiceTemplateType;
use billing_domain::resources::site_invoice_details::names as detail_names;
use billing_domain::resources::sites::names;
use billing_domain::sites::{
    ContactInvoiceFlags, MandateFacts, ReceivingSiteFacts, SiteContacts, check_invoice_routing,
    check_mandate, check_receiving_site, is_ended,
};
use billing_persistence::{
    DbConnection, custom_field_definitions, inventory_items, invoice_templates,
    payment_provider_mandates, sites,
};

use crate::error::ApiError;
use crate::machinery::audit::{self, Action, Writer};
use crate::machinery::kinds::{Defaulted, UtcDateTime};
use crate::machinery::resource::{ApiResult, Resource};
use crate::resources::{inventory_items::InventoryItems, site_invoice_details};

pub struct Sites;

#[crate::declared_resource(
    billing_domain::sites,
    path: "sites",
    noun: "site",
    read: ReadCustomers,
    write: WriteCustomers,
    storage: billing_persistence::sites,
    operations: Operations {
        get: true,
        create: true,
        bulk_create: false,
        replace: false,
        patch: true,
        delete: false,
        bulk_update: false,
    },
    created_status: 200,
)]
impl Resource for Sites {
    /// The invoice contact settled (with its derived receiveInvoiceBy), the mandate's status
    /// and dates and the custom fields' labels filled in, and every rule that needs stored
    /// facts checked: routing, receiving site, templates, mandate, ending a receiving site.
    fn complete(
        connection: &mut DbConnection,
        _: &AuthenticatedUser,
        current: Option<&Record>,
        input: &mut Input,
    ) -> ApiResult<()> {
        let mut errors = ValidationErrors::default();
        settle_contacts(current, input, &mut errors);
        errors.collect(check_invoice_routing(
            input.site_invoice_details.is_some(),
            input.site_id_receiving_invoice,
        ));
        // A choice of another record is checked when it is made or what it must cover
        // changes, not on every later edit: the receiving site may end, or the mandate change
        // its status, after the choice (docs/api.md "Sites").
        let routing_changed = current.is_none_or(|site| {
            site.site_id_receiving_invoice != input.site_id_receiving_invoice
                || site.end_date != input.end_date.map(|date| date.0)
                || site.customer_id != input.customer_id
        });
        if let Some(receiving) = input.site_id_receiving_invoice.filter(|_| routing_changed) {
            let facts = sites::receiving_facts(connection, receiving)?.map(
                |(customer_id, has_invoice_details, end_date)| ReceivingSiteFacts {
                    customer_id,
                    has_invoice_details,
                    end_date,
                },
            );
            errors.collect(check_receiving_site(
                current.map(|site| site.id),
                input.customer_id,
                input.end_date.map(|date| date.0),
                receiving,
                facts.as_ref(),
                today(),
            ));
        }
        if let Some(details) = &mut input.site_invoice_details {
            let path = names::site_invoice_details;
            let stored = current.and_then(|site| site.site_invoice_details.as_ref());
            check_templates(connection, path, details, stored, &mut errors)?;
            fill_mandate(connection, path, details, stored, &mut errors)?;
        }
        label_custom_fields(connection, input, &mut errors)?;
        errors.into_result(|| ()).map_err(ApiError::validation)?;
        if let Some(site) = current {
            check_still_receiving(connection, site, input)?;
        }
        Ok(())
    }

    /// `cascade_end_date: true`: the end date the write set is given to every inventory item
    /// of the site that ends later or never, each change audited as an update of the item.
    fn written(
        connection: &mut DbConnection,
        caller: &AuthenticatedUser,
        _: Option<&Record>,
        record: &Record,
        options: &Options,
    ) -> ApiResult<()> {
        if options.cascade_end_date != Some(true) {
            return Ok(());
        }
        let header = "cascade_end_date";
        let sets_end = options
            .patched_paths
            .as_ref()
            .is_none_or(|paths| paths.iter().any(|path| path == names::end_date));
        let Some(end_date) = record.end_date.filter(|_| sets_end) else {
            return Err(ApiError::field(
                header,
                "true needs the patch to set an end date (an add, replace, copy or move into /endDate)",
            ));
        };
        // An item that starts after the end date cannot end on it: the write is refused
        // whole rather than leaving an item that ends before it starts.
        let late = inventory_items::starting_after(connection, record.id, end_date, 10)?;
        if !late.is_empty() {
            let items: Vec<String> = late
                .iter()
                .map(|(id, start)| format!("inventory item {id} (from {start})"))
                .collect();
            return Err(ApiError::conflict(format!(
                "cascade_end_date: {} starts after the end date {end_date}; end or remove it first",
                items.join(", ")
            )));
        }
        let writer = Writer {
            caller: caller.clone(),
            request_id: options.request_id.clone(),
        };
        for (before, after) in inventory_items::end_with_site(connection, record.id, end_date)? {
            let before = to_json(&crate::resources::inventory_items::Record::from(before))?;
            let after = crate::resources::inventory_items::Record::from(after);
            audit::record(
                connection,
                &writer,
                Action::Update,
                InventoryItems::PATH,
                after.id,
                Some(&before),
                Some(&to_json(&after)?),
            )?;
        }
        Ok(())
    }
}

fn today() -> chrono::NaiveDate {
    chrono::Utc::now().date_naive()
}

fn to_json<T: serde::Serialize>(value: &T) -> ApiResult<serde_json::Value> {
    serde_json::to_value(value).map_err(|e| ApiError::internal(format!("cannot serialize: {e}")))
}

/// The invoice-contact rule of 2.8 on the contacts of `input`, with the stored invoice contact
/// (on a patch) so a newly marked contact takes the mark over.
fn settle_contacts(current: Option<&Record>, input: &mut Input, errors: &mut ValidationErrors) {
    let previous = current.and_then(|site| {
        site.site_contacts
            .iter()
            .find(|contact| contact.contact_name_to_appear_on_invoice)
            .map(|contact| contact.id)
    });
    let flags: Vec<ContactInvoiceFlags> = input
        .site_contacts
        .iter()
        .map(|contact| ContactInvoiceFlags {
            stored_id: contact.id,
            email_address: contact.contact_email_address.clone(),
            name_on_invoice: contact.contact_name_to_appear_on_invoice.0,
            receive_invoice_by: contact.receive_invoice_by.clone(),
        })
        .collect();
    let settled = match SiteContacts::settle(names::site_contacts, flags, previous) {
        Ok(settled) => settled,
        Err(broken) => {
            errors.errors.extend(broken.errors);
            return;
        }
    };
    for (contact, settled) in input
        .site_contacts
        .iter_mut()
        .zip(settled.contacts().iter().cloned())
    {
        contact.contact_name_to_appear_on_invoice = Defaulted(settled.name_on_invoice);
        contact.receive_invoice_by = settled.receive_invoice_by;
    }
}

/// Every template id names a template of the right type (one query), and the invoice and
/// summary templates keep the values they were created with.
fn check_templates(
    connection: &mut DbConnection,
    path: &str,
    details: &site_invoice_details::Input,
    stored: Option<&site_invoice_details::Record>,
    errors: &mut ValidationErrors,
) -> ApiResult<()> {
    let electronic = details
        .electronic_summary_template_ids
        .0
        .clone()
        .unwrap_or_default();
    let mut wanted: Vec<(String, i64, &str)> = vec![(
        format!("{path}.{}", detail_names::invoice_template_id),
        details.invoice_template_id,
        InvoiceTemplateType::INVOICE,
    )];
    if let Some(id) = details.invoice_summary_template_id {
        wanted.push((
            format!("{path}.{}", detail_names::invoice_summary_template_id),
            id,
            InvoiceTemplateType::INVOICE_SUMMARY,
        ));
    }
    for (index, id) in electronic.iter().enumerate() {
        wanted.push((
            format!(
                "{path}.{}[{index}]",
                detail_names::electronic_summary_template_ids
            ),
            *id,
            InvoiceTemplateType::ELECTRONIC_SUMMARY,
        ));
    }
    let ids: Vec<i64> = wanted.iter().map(|(_, id, _)| *id).collect();
    let types = invoice_templates::types_of(connection, &ids)?;
    for (field, id, expected) in &wanted {
        match types.iter().find(|(found, _)| found == id) {
            None => errors.push(
                field.clone(),
                format!("invoice template {id} does not exist"),
            ),
            Some((_, kind)) if kind != expected => errors.push(
                field.clone(),
                format!("invoice template {id} is of type {kind}, not {expected}"),
            ),
            Some(_) => {}
        }
    }
    if let Some(stored) = stored {
        let fixed = [
            (
                detail_names::invoice_template_id,
                Some(stored.invoice_template_id) != Some(details.invoice_template_id),
            ),
            (
                detail_names::invoice_summary_template_id,
                stored.invoice_summary_template_id != details.invoice_summary_template_id,
            ),
        ];
        for (name, changed) in fixed {
            if changed {
                errors.push(
                    format!("{path}.{name}"),
                    "is set on creation only and cannot be changed",
                );
            }
        }
    }
    Ok(())
}

/// The mandate rules of 2.7 with the mandate the details name, whose status and dates the
/// details then show.
fn fill_mandate(
    connection: &mut DbConnection,
    path: &str,
    details: &mut site_invoice_details::Input,
    stored: Option<&site_invoice_details::Record>,
    errors: &mut ValidationErrors,
) -> ApiResult<()> {
    let mandate = match &details.mandate_reference {
        Some(reference) => payment_provider_mandates::find_by_reference(
            connection,
            &details.payment_method,
            reference,
        )?,
        None => None,
    };
    let facts = mandate.as_ref().map(|row| MandateFacts {
        status: row.status.clone(),
    });
    // The mandate's status may change after a site chose it: the rule is checked when the
    // choice is made or changed, so that a site whose mandate was cancelled can still be
    // edited and ended.
    let choice_changed = stored.is_none_or(|stored| {
        stored.payment_method != details.payment_method
            || stored.mandate_reference != details.mandate_reference
            || stored.third_party_customer_reference != details.third_party_customer_reference
    });
    if choice_changed {
        errors.collect(check_mandate(
            path,
            &details.payment_method,
            details.mandate_reference.as_deref(),
            details.third_party_customer_reference.as_deref(),
            facts.as_ref(),
        ));
    }
    details.mandate_status = mandate.as_ref().map(|row| row.status.clone());
    details.mandate_created_date = mandate.as_ref().map(|row| UtcDateTime(row.created_date));
    details.mandate_updated_date = mandate.as_ref().map(|row| UtcDateTime(row.updated_date));
    Ok(())
}

/// A site holds one value per custom field definition (400), and each shows its definition's
/// label (an unknown definition is the declared reference check's 400).
fn label_custom_fields(
    connection: &mut DbConnection,
    input: &mut Input,
    errors: &mut ValidationErrors,
) -> ApiResult<()> {
    let ids: Vec<i64> = input
        .assigned_custom_fields
        .iter()
        .map(|field| field.custom_field_definition_id)
        .collect();
    let given: Vec<Option<i64>> = ids.iter().copied().map(Some).collect();
    errors.collect(billing_domain::sites::check_custom_fields_once(&given));
    let labels = custom_field_definitions::labels_of(connection, &ids)?;
    for field in &mut input.assigned_custom_fields {
        field.label = labels
            .iter()
            .find(|(id, _)| *id == field.custom_field_definition_id)
            .map(|(_, label)| label.clone());
    }
    Ok(())
}

/// A site that active sites send their invoices to keeps its invoice details and its customer,
/// and ends no earlier than they do (409): those sites would have nowhere to send them.
fn check_still_receiving(
    connection: &mut DbConnection,
    site: &Record,
    input: &Input,
) -> ApiResult<()> {
    let end_date = input.end_date.map(|date| date.0);
    let ends = is_ended(end_date, today()) || (end_date.is_some() && end_date != site.end_date);
    let moves = input.customer_id != site.customer_id;
    if !ends && !moves && input.site_invoice_details.is_some() {
        return Ok(());
    }
    // Moving or dropping the details leaves every active sender without a receiver; an end
    // date, those that go on after it.
    let ending_after = if moves || input.site_invoice_details.is_none() {
        None
    } else {
        end_date
    };
    let senders: Vec<i64> = sites::active_senders_to(connection, site.id, today(), ending_after)?
        .into_iter()
        .filter(|sender| *sender != site.id)
        .collect();
    if senders.is_empty() {
        return Ok(());
    }
    let ids = senders
        .iter()
        .map(i64::to_string)
        .collect::<Vec<_>>()
        .join(", ");
    let id = site.id;
    Err(ApiError::conflict(match (moves, end_date) {
        (false, Some(end)) if input.site_invoice_details.is_some() => format!(
            "site {id} cannot end on {end}: sites that send their invoices to it end later or never ({ids}); end them by {end} or send their invoices elsewhere first"
        ),
        _ => {
            let what = if moves {
                "cannot move to another customer"
            } else {
                "must keep its siteInvoiceDetails"
            };
            format!(
                "site {id} {what}: active sites send their invoices to it ({ids}); end them or send their invoices elsewhere first"
            )
        }
    }))
}
