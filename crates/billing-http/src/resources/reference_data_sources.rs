//! `/v1/reference-data-sources` (docs/api.md "Reference data"): read by every reference data reader; created, changed
//! and removed only by administrators (docs/api.md "Reference data"). Each shows its locale whole.

use crate::machinery::resource::Resource;

pub struct ReferenceDataSources;

#[crate::declared_resource(
    billing_domain::reference_data_sources,
    path: "reference-data-sources",
    noun: "reference data source",
    read: ReadReferenceData,
    write: ManageReferenceDataSources,
    storage: billing_persistence::reference_data_sources,
    rated: true,
)]
impl Resource for ReferenceDataSources {}
