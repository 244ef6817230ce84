//! `/v1/adhoc-bill-runs` (decisions §4): bill runs for chosen sites. A restricted user may name
//! only sites of their contract owners (403); ids of other owners' sites in a run they can read
//! are shown as ids only.

use billing_auth::AuthenticatedUser;
use billing_persistence::DbConnection;

use crate::error::ApiError;
use crate::machinery::declared::Hooks;
use crate::machinery::resource::{ApiResult, Resource};
use crate::resources::sites::Sites;

pub struct AdhocBillRuns;

billing_domain::adhoc_bill_runs!(
    crate::api_resource,
    AdhocBillRuns {
        path: "adhoc-bill-runs",
        noun: "ad hoc bill run",
        read: ReadCustomers,
        write: WriteCustomers,
        storage: billing_persistence::adhoc_bill_runs,
    }
);

impl Hooks for AdhocBillRuns {
    /// No site twice, and none outside the caller's contract owners.
    fn complete(
        connection: &mut DbConnection,
        caller: &AuthenticatedUser,
        _: Option<&Record>,
        input: &mut Input,
    ) -> ApiResult<()> {
        let field = billing_domain::json_name!(site_ids);
        for (index, site) in input.site_ids.iter().enumerate() {
            if input.site_ids[..index]
                .iter()
                .any(|earlier| earlier.0 == site.0)
            {
                return Err(ApiError::field(
                    format!("{field}[{index}]"),
                    format!("repeats site {}", site.0),
                ));
            }
            // `find` answers 403 for another owner's site; a missing one is the declared
            // reference check's 400.
            Sites::find(connection, caller, site.0)?;
        }
        Ok(())
    }
}
