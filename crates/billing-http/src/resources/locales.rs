//! `/v1/locales`: a country and a currency used together (docs/api.md "Reference data"), each shown whole; created
//! with `{country: {code}, currency: {id}}`.

use crate::machinery::declared::Hooks;

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

impl Hooks for Locales {}
