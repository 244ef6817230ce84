//! `/v1/invoice-templates` (docs/api.md "Sites"): invoice layouts; a template's type is create-only.

use billing_auth::AuthenticatedUser;
use billing_persistence::{DbConnection, invoice_templates};

use crate::machinery::declared::Hooks;
use crate::machinery::resource::{ApiResult, still_referenced};

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

impl Hooks for InvoiceTemplates {
    fn check_delete(
        connection: &mut DbConnection,
        _: &AuthenticatedUser,
        current: &Record,
    ) -> ApiResult<()> {
        if invoice_templates::used_by_sites(connection, current.id)? {
            return Err(still_referenced("invoice template", current.id, "sites"));
        }
        Ok(())
    }
}
