//! `/v1/charge-group-categories` (docs/api.md "Reference data"): how charge groups are grouped and measured.

use crate::machinery::resource::Resource;

pub struct ChargeGroupCategories;

#[crate::declared_resource(
    billing_domain::charge_group_categories,
    path: "charge-group-categories",
    noun: "charge group category",
    read: ReadReferenceData,
    write: WriteReferenceData,
    storage: billing_persistence::charge_group_categories,
    rated: true,
)]
impl Resource for ChargeGroupCategories {}
