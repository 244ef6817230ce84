//! `/v1/currencies`: currencies with their display names and formats (docs/api.md "Reference data").

use billing_auth::AuthenticatedUser;
use billing_persistence::{DbConnection, locales};

use crate::machinery::declared::Hooks;
use crate::machinery::resource::{ApiResult, still_referenced};

pub struct Currencies;

billing_domain::currencies!(
    crate::api_resource,
    Currencies {
        path: "currencies",
        noun: "currency",
        read: ReadReferenceData,
        write: WriteReferenceData,
        storage: billing_persistence::currencies,
    }
);

impl Hooks for Currencies {
    fn check_delete(
        connection: &mut DbConnection,
        _: &AuthenticatedUser,
        current: &Record,
    ) -> ApiResult<()> {
        if locales::uses_currency(connection, current.id)? {
            return Err(still_referenced("currency", current.id, "a locale"));
        }
        if billing_persistence::currencies::in_rates(connection, current.id)? {
            return Err(still_referenced("currency", current.id, "currency rates"));
        }
        Ok(())
    }
}
