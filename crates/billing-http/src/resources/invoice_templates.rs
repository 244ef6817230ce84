//! `/v1/invoice-templates` (docs/api.md "Sites"): invoice layouts; a template's type is create-only.

use billing_auth::AuthenticatedUser;
use billing_persistence::{DbConnection, sites};

use crate::error::ApiError;
use crate::machinery::resource::{ApiResult, Resource};

pub struct InvoiceTemplates;

#[crate::declared_resource(
    billing_domain::invoice_templates,
    path: "invoice-templates",
    noun: "invoice template",
    read: ReadCustomers,
    write: WriteCustomers,
    storage: billing_persistence::invoice_templates,
)]
impl Resource for InvoiceTemplates {
    /// A template that sites list among their electronic summary templates is in use like one
    /// they name as their invoice or summary template (which the foreign keys guard): 409. The
    /// list is held in one column, so the check is here; a site written at the same moment is
    /// ordered against the delete by the write transaction (`SERIALIZABLE` on PostgreSQL: the
    /// delete reads the details, the site's write reads the template's type).
    fn check_delete(
        connection: &mut DbConnection,
        _: &AuthenticatedUser,
        current: &Record,
    ) -> ApiResult<()> {
        let senders = sites::sending_electronic_summaries_with(connection, current.id)?;
        if senders.is_empty() {
            return Ok(());
        }
        let shown: Vec<String> = senders.iter().take(10).map(i64::to_string).collect();
        let more = if senders.len() > 10 { ", …" } else { "" };
        Err(ApiError::conflict(format!(
            "invoice template {} is still used by sites as an electronic summary template \
             (siteInvoiceDetails.electronicSummaryTemplateIds of sites {}{more})",
            current.id,
            shown.join(", ")
        )))
    }
}
