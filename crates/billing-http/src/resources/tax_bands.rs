//! `/v1/tax-bands` (docs/api.md "Reference data"): named tax rates, exact decimals.

use crate::machinery::resource::Resource;

pub struct TaxBands;

#[crate::declared_resource(
    billing_domain::tax_bands,
    path: "tax-bands",
    noun: "tax band",
    read: ReadReferenceData,
    write: WriteReferenceData,
    storage: billing_persistence::tax_bands,
)]
impl Resource for TaxBands {}
