//! `/v1/locales`: a country and a currency used together (docs/api.md "Reference data"), each shown whole; created
//! with `{country: {code}, currency: {id}}`.

use billing_auth::AuthenticatedUser;
use billing_persistence::DbConnection;

use crate::machinery::declared::Hooks;
use crate::machinery::resource::{ApiResult, still_referenced};

pub struct Locales;

billing_domain::locales!(
    crate::api_resource,
    Locales {
        path: "locales",
        noun: "locale",
        read: ReadReferenceData,
        write: WriteReferenceData,
        storage: billing_persistence::locales,
    }
);

impl Hooks for Locales {
    fn check_delete(
        connection: &mut DbConnection,
        _: &AuthenticatedUser,
        current: &Record,
    ) -> ApiResult<()> {
        if billing_persistence::locales::is_used_by_source(connection, current.id)? {
            return Err(still_referenced(
                "locale",
                current.id,
                "a reference data source",
            ));
        }
        Ok(())
    }
}
