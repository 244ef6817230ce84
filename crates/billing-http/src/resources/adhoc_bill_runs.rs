//! `/v1/adhoc-bill-runs` (docs/api.md "Sites"): bill runs for chosen sites. A restricted user may name
//! only sites of their contract owners (403); ids of other owners' sites in a run they can read
//! are shown as ids only.

use billing_auth::AuthenticatedUser;
use billing_persistence::DbConnection;

use crate::error::ApiError;
use crate::machinery::resource::{ApiResult, Resource};

pub struct AdhocBillRuns;

#[crate::declared_resource(
    billing_domain::adhoc_bill_runs,
    path: "adhoc-bill-runs",
    noun: "ad hoc bill run",
    read: ReadCustomers,
    write: WriteCustomers,
    storage: billing_persistence::adhoc_bill_runs,
)]
impl Resource for AdhocBillRuns {
    /// A restricted caller may replace, patch or delete only a run whose every site is one of
    /// their contract owners' (403 otherwise): a run that bills another owner's site involves
    /// that owner's data.
    fn check_change(
        connection: &mut DbConnection,
        caller: &AuthenticatedUser,
        current: &Record,
    ) -> ApiResult<()> {
        let sites: Vec<i64> = current.site_ids.clone();
        super::common::check_sites_in_scope(connection, caller, &sites, |_| {
            format!(
                "ad hoc bill run {} bills a site of a contract owner you are not allowed to see; only a user allowed every site of the run may change or delete it",
                current.id
            )
        })
    }

    /// No site twice, and none outside the caller's contract owners.
    fn complete(
        connection: &mut DbConnection,
        caller: &AuthenticatedUser,
        _: Option<&Record>,
        input: &mut Input,
    ) -> ApiResult<()> {
        let field = billing_domain::resources::adhoc_bill_runs::names::site_ids;
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
        }
        // A missing site is the declared reference check's 400.
        let sites: Vec<i64> = input.site_ids.iter().map(|site| site.0).collect();
        super::common::check_sites_in_scope(connection, caller, &sites, |site| {
            let index = sites.iter().position(|id| *id == site).unwrap_or_default();
            format!(
                "{field}[{index}]: site {site} belongs to a contract owner you are not allowed to see"
            )
        })
    }
}
