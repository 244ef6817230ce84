//! `/v1/reference-data-sources` (docs/api.md "Reference data"): read by every reference data reader; created, changed
//! and removed only by administrators (docs/api.md "Reference data"). Each shows its locale whole.

use crate::machinery::declared::Hooks;

pub struct ReferenceDataSources;

billing_domain::reference_data_sources!(
    crate::api_resource,
    ReferenceDataSources {
        path: "reference-data-sources",
        noun: "reference data source",
        read: ReadReferenceData,
        write: ManageReferenceDataSources,
        storage: billing_persistence::reference_data_sources,
        rated: true,
    }
);

impl Hooks for ReferenceDataSources {}
