//! Customer-side code sets and rules (docs/api.md "Sites").

/// What an invoice template lays out (docs/api.md "Sites"): a site's invoice template must be an
/// INVOICE one, its summary template an INVOICE_SUMMARY one.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum InvoiceTemplateType {
    Invoice,
    InvoiceSummary,
    ElectronicSummary,
}

impl InvoiceTemplateType {
    pub const INVOICE: &'static str = "INVOICE";
    pub const INVOICE_SUMMARY: &'static str = "INVOICE_SUMMARY";
    pub const ELECTRONIC_SUMMARY: &'static str = "ELECTRONIC_SUMMARY";
}

impl crate::kinds::CodeSet for InvoiceTemplateType {
    const NAME: &'static str = "InvoiceTemplateType";
    const CODES: &'static [&'static str] = &[
        Self::INVOICE,
        Self::INVOICE_SUMMARY,
        Self::ELECTRONIC_SUMMARY,
    ];
}

/// The payment providers whose mandates the platform knows (docs/api.md "Sites").
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MandateProvider {
    ProviderB,
    ProviderC,
    ProviderD,
}

impl crate::kinds::CodeSet for MandateProvider {
    const NAME: &'static str = "MandateProvider";
    const CODES: &'static [&'static str] = &["PROVIDER_B", "PROVIDER_C", "PROVIDER_D"];
}
