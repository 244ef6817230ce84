//! `/v1/billing-cycles` (docs/api.md "Sites"): the cycles customers are billed on.

use crate::machinery::resource::Resource;

pub struct BillingCycles;

#[crate::declared_resource(
    billing_domain::billing_cycles,
    path: "billing-cycles",
    noun: "billing cycle",
    read: ReadCustomers,
    write: WriteCustomers,
    storage: billing_persistence::billing_cycles,
)]
impl Resource for BillingCycles {}
