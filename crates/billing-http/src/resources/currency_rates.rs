//! `/v1/currency-rates` (docs/api.md "Reference data"): exact exchange rates from a date on.

use crate::machinery::resource::Resource;

pub struct CurrencyRates;

#[crate::declared_resource(
    billing_domain::currency_rates,
    path: "currency-rates",
    noun: "currency rate",
    read: ReadReferenceData,
    write: WriteReferenceData,
    storage: billing_persistence::currency_rates,
)]
impl Resource for CurrencyRates {}
