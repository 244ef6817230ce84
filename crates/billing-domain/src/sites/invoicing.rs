//! Where a site's invoices go and how they are paid (docs/api.md "Sites"). The stored facts
//! a rule needs (the mandate named, the receiving site) are looked up by the caller and passed
//! in; `None` means there is no such record.

use chrono::NaiveDate;

use crate::error::ValidationErrors;
use crate::sites::codes::PaymentMethod;

/// The mandate statuses a PROVIDER_B site accepts (docs/api.md "Sites"); compared ignoring ASCII case.
pub const PROVIDER_B_STATUSES: [&str; 7] = [
    "Created",
    "Pending Submission",
    "Submitted",
    "Active",
    "Reinstated",
    "Customer approval granted",
    "Customer approval skipped",
];

/// A stored mandate, as the rules read it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MandateFacts {
    pub status: String,
}

/// The site named by `siteIdReceivingInvoice`, as the rules read it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReceivingSiteFacts {
    pub customer_id: i64,
    pub has_invoice_details: bool,
    pub end_date: Option<NaiveDate>,
}

/// `path.name`, or `name` alone when `path` is empty.
fn member(path: &str, name: &str) -> String {
    if path.is_empty() {
        name.to_owned()
    } else {
        format!("{path}.{name}")
    }
}

/// Exactly one of `siteInvoiceDetails` and `siteIdReceivingInvoice` (docs/api.md "Sites").
pub fn check_invoice_routing(
    has_invoice_details: bool,
    site_id_receiving_invoice: Option<i64>,
) -> Result<(), ValidationErrors> {
    match (has_invoice_details, site_id_receiving_invoice) {
        (true, Some(_)) => Err(ValidationErrors::single(
            "siteIdReceivingInvoice",
            "must be null when the site has siteInvoiceDetails (a site either receives its invoices or sends them to another site)",
        )),
        (false, None) => Err(ValidationErrors::single(
            "siteInvoiceDetails",
            "is required unless siteIdReceivingInvoice names the site that receives the invoices",
        )),
        _ => Ok(()),
    }
}

/// The receiving site belongs to the same customer, receives invoices itself, has not ended
/// (unless the sending site has ended too) and does not end before the sending site does
/// (docs/api.md "Sites"). `this_site` is the site being written (`None` on create), `end_date`
/// its end date.
pub fn check_receiving_site(
    this_site: Option<i64>,
    customer_id: i64,
    end_date: Option<NaiveDate>,
    receiving_id: i64,
    receiving: Option<&ReceivingSiteFacts>,
    today: NaiveDate,
) -> Result<(), ValidationErrors> {
    let field = "siteIdReceivingInvoice";
    let problem = if this_site == Some(receiving_id) {
        Some("a site cannot send its invoices to itself".to_owned())
    } else {
        match receiving {
            None => Some(format!("site {receiving_id} does not exist")),
            // Not named: it may be another contract owner's site, which a restricted caller is
            // not to be told about (docs/api.md "Contract-owner scope").
            Some(site) if site.customer_id != customer_id => {
                Some("must name a site of the same customer".to_owned())
            }
            Some(site) if !site.has_invoice_details => Some(format!(
                "site {receiving_id} has no siteInvoiceDetails: it sends its own invoices elsewhere"
            )),
            // A site that has ended itself needs only a receiver that lasted as long.
            Some(site)
                if super::is_ended(site.end_date, today) && !super::is_ended(end_date, today) =>
            {
                Some(format!("site {receiving_id} has ended"))
            }
            Some(ReceivingSiteFacts {
                end_date: Some(last),
                ..
            }) if end_date.is_none_or(|end| end > *last) => Some(format!(
                "site {receiving_id} ends on {last}: a site that sends its invoices to it must end by then"
            )),
            Some(_) => None,
        }
    };
    match problem {
        Some(message) => Err(ValidationErrors::single(field, message)),
        None => Ok(()),
    }
}

/// paymentTermsInDays or preferredPaymentDay, at least one (docs/api.md "Sites"); their ranges are
/// their kinds'. `path` is the invoice details' path (`siteInvoiceDetails`).
pub fn check_payment_terms(
    path: &str,
    payment_terms_in_days: Option<i64>,
    preferred_payment_day: Option<i64>,
) -> Result<(), ValidationErrors> {
    if payment_terms_in_days.is_none() && preferred_payment_day.is_none() {
        return Err(ValidationErrors::single(
            member(path, "paymentTermsInDays"),
            "paymentTermsInDays or preferredPaymentDay is required",
        ));
    }
    Ok(())
}

/// A site paying by PROVIDER_B, PROVIDER_C or PROVIDER_D names a known mandate of that
/// provider (`mandate` is the stored mandate with that provider and reference); PROVIDER_B
/// only with the statuses of 2.7 rule 2; PROVIDER_C with a thirdPartyCustomerReference.
/// Other payment methods need no mandate.
pub fn check_mandate(
    path: &str,
    payment_method: &str,
    mandate_reference: Option<&str>,
    third_party_customer_reference: Option<&str>,
    mandate: Option<&MandateFacts>,
) -> Result<(), ValidationErrors> {
    if !PaymentMethod::WITH_MANDATE.contains(&payment_method) {
        return Ok(());
    }
    let mut errors = ValidationErrors::default();
    let reference_field = member(path, "mandateReference");
    match (mandate_reference, mandate) {
        (None, _) => errors.push(
            reference_field,
            format!("is required when paymentMethod is {payment_method}"),
        ),
        (Some(reference), None) => errors.push(
            reference_field,
            format!("no {payment_method} mandate has reference {reference}"),
        ),
        (Some(_), Some(found)) => {
            let accepted = PROVIDER_B_STATUSES
                .iter()
                .any(|status| status.eq_ignore_ascii_case(&found.status));
            if payment_method == "PROVIDER_B" && !accepted {
                errors.push(
                    reference_field,
                    format!(
                        "the mandate's status {:?} is not accepted for PROVIDER_B (accepted: {})",
                        found.status,
                        PROVIDER_B_STATUSES.join(", ")
                    ),
                );
            }
        }
    }
    if payment_method == "PROVIDER_C"
        && third_party_customer_reference.is_none_or(|reference| reference.trim().is_empty())
    {
        errors.push(
            member(path, "thirdPartyCustomerReference"),
            "is required with a PROVIDER_C mandate",
        );
    }
    errors.into_result(|| ())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dates::parse_date;

    fn day(value: &str) -> NaiveDate {
        parse_date(value).expect("date")
    }

    #[test]
    fn a_site_either_receives_its_invoices_or_names_who_does() {
        assert!(check_invoice_routing(true, None).is_ok());
        assert!(check_invoice_routing(false, Some(3)).is_ok());
        insta::assert_snapshot!(check_invoice_routing(true, Some(3)).unwrap_err(), @"siteIdReceivingInvoice: must be null when the site has siteInvoiceDetails (a site either receives its invoices or sends them to another site)");
        insta::assert_snapshot!(check_invoice_routing(false, None).unwrap_err(), @"siteInvoiceDetails: is required unless siteIdReceivingInvoice names the site that receives the invoices");
    }

    #[test]
    fn the_receiving_site_is_a_live_invoiced_site_of_the_same_customer() {
        let today = day("2026-11-23");
        let good = ReceivingSiteFacts {
            customer_id: 1,
            has_invoice_details: true,
            end_date: None,
        };
        assert!(check_receiving_site(None, 1, None, 5, Some(&good), today).is_ok());
        let outcomes = [
            check_receiving_site(Some(5), 1, None, 5, Some(&good), today),
            check_receiving_site(None, 1, None, 5, None, today),
            check_receiving_site(None, 2, None, 5, Some(&good), today),
            check_receiving_site(
                None,
                1,
                None,
                5,
                Some(&ReceivingSiteFacts {
                    has_invoice_details: false,
                    ..good.clone()
                }),
                today,
            ),
            check_receiving_site(
                None,
                1,
                None,
                5,
                Some(&ReceivingSiteFacts {
                    end_date: Some(day("2026-11-22")),
                    ..good.clone()
                }),
                today,
            ),
        ];
        let messages: Vec<String> = outcomes
            .into_iter()
            .map(|o| o.unwrap_err().to_string())
            .collect();
        insta::assert_snapshot!(messages.join("\n"), @r"
        siteIdReceivingInvoice: a site cannot send its invoices to itself
        siteIdReceivingInvoice: site 5 does not exist
        siteIdReceivingInvoice: must name a site of the same customer
        siteIdReceivingInvoice: site 5 has no siteInvoiceDetails: it sends its own invoices elsewhere
        siteIdReceivingInvoice: site 5 has ended
        ");
        // Ending today is not ended yet.
        let ends_today = ReceivingSiteFacts {
            end_date: Some(today),
            ..good
        };
        // A receiver that ends is sent to only by sites that end by then.
        let ends_later = ReceivingSiteFacts {
            end_date: Some(day("2026-12-31")),
            ..ends_today
        };
        let by =
            |end: &str| check_receiving_site(None, 1, Some(day(end)), 5, Some(&ends_later), today);
        assert!(by("2026-12-31").is_ok());
        assert!(by("2026-12-01").is_ok());
        insta::assert_snapshot!(by("2027-01-01").unwrap_err(), @"siteIdReceivingInvoice: site 5 ends on 2026-12-31: a site that sends its invoices to it must end by then");
        assert!(
            check_receiving_site(None, 1, None, 5, Some(&ends_later), today).is_err(),
            "open-ended"
        );
        // A site that has ended needs a receiver that lasted as long, ended or not.
        let ended_on = |end: &str| ReceivingSiteFacts {
            end_date: Some(day(end)),
            ..ends_later.clone()
        };
        let sender_ended = |receiver: &str| {
            check_receiving_site(
                Some(7),
                1,
                Some(day("2026-10-01")),
                5,
                Some(&ended_on(receiver)),
                today,
            )
        };
        assert!(sender_ended("2026-11-01").is_ok());
        assert!(sender_ended("2026-10-01").is_ok());
        insta::assert_snapshot!(sender_ended("2026-06-01").unwrap_err(), @"siteIdReceivingInvoice: site 5 ends on 2026-06-01: a site that sends its invoices to it must end by then");
    }

    #[test]
    fn payment_terms_or_a_preferred_day() {
        assert!(check_payment_terms("siteInvoiceDetails", Some(30), None).is_ok());
        assert!(check_payment_terms("siteInvoiceDetails", None, Some(1)).is_ok());
        insta::assert_snapshot!(check_payment_terms("siteInvoiceDetails", None, None).unwrap_err(), @"siteInvoiceDetails.paymentTermsInDays: paymentTermsInDays or preferredPaymentDay is required");
    }

    #[test]
    fn integrated_payment_methods_need_a_known_mandate() {
        let path = "siteInvoiceDetails";
        let active = MandateFacts {
            status: "Active".into(),
        };
        let cancelled = MandateFacts {
            status: "Cancelled".into(),
        };
        assert!(check_mandate(path, "CHEQUE", None, None, None).is_ok());
        assert!(check_mandate(path, "PROVIDER_B", Some("M1"), None, Some(&active)).is_ok());
        assert!(
            check_mandate(
                path,
                "PROVIDER_B",
                Some("M1"),
                None,
                Some(&MandateFacts {
                    status: "pending submission".into()
                })
            )
            .is_ok()
        );
        assert!(
            check_mandate(path, "PROVIDER_D", Some("M1"), None, Some(&cancelled)).is_ok(),
            "the status list is PROVIDER_B's"
        );
        assert!(check_mandate(path, "PROVIDER_C", Some("M1"), Some("C-9"), Some(&active)).is_ok());
        let failures = [
            check_mandate(path, "PROVIDER_D", None, None, None),
            check_mandate(path, "PROVIDER_B", Some("M404"), None, None),
            check_mandate(path, "PROVIDER_B", Some("M1"), None, Some(&cancelled)),
            check_mandate(path, "PROVIDER_C", Some("M1"), Some(" "), Some(&active)),
        ];
        let messages: Vec<String> = failures
            .into_iter()
            .map(|o| o.unwrap_err().to_string())
            .collect();
        insta::assert_snapshot!(messages.join("\n"), @r#"
        siteInvoiceDetails.mandateReference: is required when paymentMethod is PROVIDER_D
        siteInvoiceDetails.mandateReference: no PROVIDER_B mandate has reference M404
        siteInvoiceDetails.mandateReference: the mandate's status "Cancelled" is not accepted for PROVIDER_B (accepted: Created, Pending Submission, Submitted, Active, Reinstated, Customer approval granted, Customer approval skipped)
        siteInvoiceDetails.thirdPartyCustomerReference: is required with a PROVIDER_C mandate
        "#);
    }
}
