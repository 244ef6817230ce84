//! `/v1/reference-data-sources` (docs/api.md "Reference data"): read by every reference data reader; created, changed
//! and removed only by administrators (docs/api.md "Reference data"). Each shows its locale whole.
//! A source the operator's feed maintains (`siMaintained = true`) is not changed or removed here
//! at all (412), as its data is not.

use billing_auth::AuthenticatedUser;
use billing_domain::reference_data::ensure_externally_maintained;
use billing_persistence::DbConnection;

use crate::error::ApiError;
use crate::machinery::resource::{ApiResult, Resource};

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
impl Resource for ReferenceDataSources {
    /// Only sources with `siMaintained = false` are changed through the interface: one the
    /// feed maintains is neither renamed, nor handed back, nor removed here (412); one
    /// maintained here may be handed to the feed.
    fn check_change(
        _: &mut DbConnection,
        _: &AuthenticatedUser,
        current: &Record,
    ) -> ApiResult<()> {
        ensure_externally_maintained(current.id, current.si_maintained)
            .map_err(|refused| ApiError::precondition_failed(refused.to_string()))
    }
}
