//! `/v1/ignored-service-ids` (docs/api.md "Reference data"): service ids rating leaves alone.

use crate::machinery::resource::Resource;

pub struct IgnoredServiceIds;

#[crate::declared_resource(
    billing_domain::ignored_service_ids,
    path: "ignored-service-ids",
    noun: "ignored service id",
    read: ReadReferenceData,
    write: WriteReferenceData,
    storage: billing_persistence::ignored_service_ids,
    rated: true,
)]
impl Resource for IgnoredServiceIds {}
