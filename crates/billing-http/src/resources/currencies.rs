//! `/v1/currencies`: currencies with their display names and formats (docs/api.md "Reference data").

use crate::machinery::declared::Hooks;

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

impl Hooks for Currencies {}
