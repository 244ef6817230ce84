//! `/v1/currency-rates` (docs/api.md "Reference data"): exact exchange rates from a date on.

use crate::machinery::declared::Hooks;

pub struct CurrencyRates;

billing_domain::currency_rates!(
    crate::api_resource,
    CurrencyRates {
        path: "currency-rates",
        noun: "currency rate",
        read: ReadReferenceData,
        write: WriteReferenceData,
        storage: billing_persistence::currency_rates,
    }
);

impl Hooks for CurrencyRates {}
