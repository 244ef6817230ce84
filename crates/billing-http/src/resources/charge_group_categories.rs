//! `/v1/charge-group-categories` (docs/api.md "Reference data"): how charge groups are grouped and measured.

use crate::machinery::declared::Hooks;

pub struct ChargeGroupCategories;

billing_domain::charge_group_categories!(
    crate::api_resource,
    ChargeGroupCategories {
        path: "charge-group-categories",
        noun: "charge group category",
        read: ReadReferenceData,
        write: WriteReferenceData,
        storage: billing_persistence::charge_group_categories,
        rated: true,
    }
);

impl Hooks for ChargeGroupCategories {}
