//! `/v1/billing-cycles` (docs/api.md "Sites"): the cycles customers are billed on.

use billing_auth::AuthenticatedUser;
use billing_persistence::{DbConnection, customers};

use crate::machinery::declared::Hooks;
use crate::machinery::resource::{ApiResult, still_referenced};

pub struct BillingCycles;

billing_domain::billing_cycles!(
    crate::api_resource,
    BillingCycles {
        path: "billing-cycles",
        noun: "billing cycle",
        read: ReadCustomers,
        write: WriteCustomers,
        storage: billing_persistence::billing_cycles,
    }
);

impl Hooks for BillingCycles {
    fn check_delete(
        connection: &mut DbConnection,
        _: &AuthenticatedUser,
        current: &Record,
    ) -> ApiResult<()> {
        if customers::with_billing_cycle(connection, current.id)? {
            return Err(still_referenced("billing cycle", current.id, "customers"));
        }
        Ok(())
    }
}
