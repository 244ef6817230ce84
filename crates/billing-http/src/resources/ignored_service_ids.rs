//! `/v1/ignored-service-ids` (docs/api.md "Reference data"): service ids rating leaves alone.

use crate::machinery::declared::Hooks;

pub struct IgnoredServiceIds;

billing_domain::ignored_service_ids!(
    crate::api_resource,
    IgnoredServiceIds {
        path: "ignored-service-ids",
        noun: "ignored service id",
        read: ReadReferenceData,
        write: WriteReferenceData,
        storage: billing_persistence::ignored_service_ids,
        rated: true,
    }
);

impl Hooks for IgnoredServiceIds {}
