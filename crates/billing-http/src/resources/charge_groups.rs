//! `/v1/charge-groups` (docs/api.md "Reference data"): what usage is charged as; each in one category.

use crate::machinery::declared::Hooks;

pub struct ChargeGroups;

billing_domain::charge_groups!(
    crate::api_resource,
    ChargeGroups {
        path: "charge-groups",
        noun: "charge group",
        read: ReadReferenceData,
        write: WriteReferenceData,
        storage: billing_persistence::charge_groups,
        rated: true,
    }
);

impl Hooks for ChargeGroups {}
