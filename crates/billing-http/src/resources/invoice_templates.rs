//! `/v1/invoice-templates` (docs/api.md "Sites"): invoice layouts; a template's type is create-only.

use crate::machinery::declared::Hooks;

pub struct InvoiceTemplates;

billing_domain::invoice_templates!(
    crate::api_resource,
    InvoiceTemplates {
        path: "invoice-templates",
        noun: "invoice template",
        read: ReadCustomers,
        write: WriteCustomers,
        storage: billing_persistence::invoice_templates,
    }
);

impl Hooks for InvoiceTemplates {}
