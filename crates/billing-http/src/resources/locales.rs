//! `/v1/locales`: a country and a currency used together (docs/api.md "Reference data"), each shown whole; created
//! with `{country: {code}, currency: {id}}`.

use crate::machinery::resource::Resource;

pub struct Locales;

#[crate::declared_resource(
    billing_domain::locales,
    path: "locales",
    noun: "locale",
    read: ReadReferenceData,
    write: WriteReferenceData,
    storage: billing_persistence::locales,
)]
impl Resource for Locales {}
