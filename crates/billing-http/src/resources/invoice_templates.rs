//! `/v1/invoice-templates` (docs/api.md "Sites"): invoice layouts; a template's type is create-only.

use crate::machinery::resource::Resource;

pub struct InvoiceTemplates;

#[crate::declared_resource(
    billing_domain::invoice_templates,
    path: "invoice-templates",
    noun: "invoice template",
    read: ReadCustomers,
    write: WriteCustomers,
    storage: billing_persistence::invoice_templates,
)]
impl Resource for InvoiceTemplates {}
