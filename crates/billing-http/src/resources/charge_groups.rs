//! `/v1/charge-groups` (docs/api.md "Reference data"): what usage is charged as; each in one category.

use crate::machinery::resource::Resource;

pub struct ChargeGroups;

#[crate::declared_resource(
    billing_domain::charge_groups,
    path: "charge-groups",
    noun: "charge group",
    read: ReadReferenceData,
    write: WriteReferenceData,
    storage: billing_persistence::charge_groups,
    rated: true,
)]
impl Resource for ChargeGroups {}
