//! `/v1/charge-group-categories` (docs/api.md "Reference data"): how charge groups are grouped and measured.

use billing_auth::AuthenticatedUser;
use billing_persistence::{DbConnection, charge_groups};

use crate::machinery::declared::Hooks;
use crate::machinery::resource::{ApiResult, still_referenced};

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

impl Hooks for ChargeGroupCategories {
    fn check_delete(
        connection: &mut DbConnection,
        _: &AuthenticatedUser,
        current: &Record,
    ) -> ApiResult<()> {
        if charge_groups::in_category(connection, current.id)? {
            return Err(still_referenced(
                "charge group category",
                current.id,
                "charge groups",
            ));
        }
        Ok(())
    }
}
