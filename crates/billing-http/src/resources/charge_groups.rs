//! `/v1/charge-groups` (docs/api.md "Reference data"): what usage is charged as; each in one category.

use billing_auth::AuthenticatedUser;
use billing_persistence::{DbConnection, reference_data_source_charge_groups};

use crate::machinery::declared::Hooks;
use crate::machinery::resource::{ApiResult, still_referenced};

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

impl Hooks for ChargeGroups {
    fn check_delete(
        connection: &mut DbConnection,
        _: &AuthenticatedUser,
        current: &Record,
    ) -> ApiResult<()> {
        if reference_data_source_charge_groups::references_charge_group(connection, current.id)? {
            return Err(still_referenced(
                "charge group",
                current.id,
                "reference data source charge groups",
            ));
        }
        Ok(())
    }
}
