//! `/v1/billing-cycles` (docs/api.md "Sites"): the cycles customers are billed on.

use crate::machinery::declared::Hooks;

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

impl Hooks for BillingCycles {}
