//! The rules of a customer site (docs/api.md "Sites"), as pure functions and
//! kinds: field rules are kinds (`Postcode`, `Telephone`, `Email`, `Integer<0, 365>`, …), and
//! the rules that span fields or elements take the values, and any stored facts they need
//! (a mandate, the receiving site), as arguments. Nothing here reads a database, so a batch
//! job validates sites with this crate alone.
//!
//! Every error names the JSON path of its member (`siteContacts[1].receiveInvoiceBy`).

pub mod body;
pub mod codes;
pub mod contacts;
pub mod custom_fields;
pub mod invoicing;
pub mod repayment;

pub use body::{KnownMandates, check_site_body, check_site_lines};
pub use codes::{ContactRole, PaymentMethod, ReceiveBy};
pub use contacts::{ContactInvoiceFlags, SiteContacts, settle_invoice_contact};
pub use custom_fields::check_custom_fields_once;
pub use invoicing::{
    MandateFacts, ReceivingSiteFacts, check_invoice_routing, check_mandate, check_payment_terms,
    check_receiving_site,
};
pub use repayment::check_repayment_plan;

use chrono::NaiveDate;

/// An address (docs/api.md "Sites"), parsed.
pub use crate::resources::site_addresses::{Draft as SiteAddressDraft, Parsed as SiteAddress};
/// A contact (docs/api.md "Sites"), parsed; the rule across contacts is [`SiteContacts`].
pub use crate::resources::site_contacts::{Draft as ContactDraft, Parsed as Contact};
/// Invoice details (docs/api.md "Sites"), parsed; the mandate rule is [`check_mandate`].
pub use crate::resources::site_invoice_details::{
    Draft as SiteInvoiceDetailsDraft, Parsed as SiteInvoiceDetails,
};
/// A site document as given, and once every member's kind, every declared rule and every part
/// hold (`Site::parse(draft, "")`): made from the same declarations the service is.
pub use crate::resources::sites::{Draft as SiteDraft, Parsed as Site};

/// A site is ended when its end date is before `today` (UTC): it ends at the end of its
/// end date (docs/api.md "Sites").
pub fn is_ended(end_date: Option<NaiveDate>, today: NaiveDate) -> bool {
    end_date.is_some_and(|end| end < today)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dates::parse_date;

    #[test]
    fn a_site_ends_after_its_end_date() {
        let day = |value| parse_date(value).expect("date");
        assert!(!is_ended(None, day("2026-11-23")));
        assert!(!is_ended(Some(day("2026-11-23")), day("2026-11-23")));
        assert!(is_ended(Some(day("2026-11-22")), day("2026-11-23")));
    }
}
