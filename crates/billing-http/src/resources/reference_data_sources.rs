//! `/v1/reference-data-sources` (docs/api.md "Reference data"): read by every reference data reader; created, changed
//! and removed only by administrators (docs/api.md "Reference data"). Each shows its locale whole.

use billing_auth::AuthenticatedUser;
use billing_persistence::DbConnection;

use crate::machinery::declared::Hooks;
use crate::machinery::resource::{ApiResult, still_referenced};

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

impl Hooks for ReferenceDataSources {
    fn check_delete(
        connection: &mut DbConnection,
        _: &AuthenticatedUser,
        current: &Record,
    ) -> ApiResult<()> {
        if billing_persistence::reference_data_sources::has_charge_groups(connection, current.id)? {
            return Err(still_referenced(
                "reference data source",
                current.id,
                "its source charge groups",
            ));
        }
        Ok(())
    }
}
