//! `/v1/currencies`: currencies with their display names and formats (docs/api.md "Reference data").

use crate::machinery::resource::Resource;

pub struct Currencies;

#[crate::declared_resource(
    billing_domain::currencies,
    path: "currencies",
    noun: "currency",
    read: ReadReferenceData,
    write: WriteReferenceData,
    storage: billing_persistence::currencies,
)]
impl Resource for Currencies {}
