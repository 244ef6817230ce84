//! `/v1/tax-bands` (docs/api.md "Reference data"): named tax rates, exact decimals.

use crate::machinery::declared::Hooks;

pub struct TaxBands;

billing_domain::tax_bands!(
    crate::api_resource,
    TaxBands {
        path: "tax-bands",
        noun: "tax band",
        read: ReadReferenceData,
        write: WriteReferenceData,
        storage: billing_persistence::tax_bands,
    }
);

impl Hooks for TaxBands {}
