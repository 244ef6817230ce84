//! The site documents parsed whole: every broken rule named by its JSON path at every depth.

use crate::dates::parse_date;
use crate::resources::Document;
use crate::sites::{
    ContactDraft, Site, SiteAddress, SiteAddressDraft, SiteDraft, SiteInvoiceDetails,
    SiteInvoiceDetailsDraft,
};

fn day(value: &str) -> Option<chrono::NaiveDate> {
    parse_date(value)
}

fn address() -> SiteAddressDraft {
    SiteAddressDraft {
        address1: Some("1 High Street".into()),
        town: Some("Leeds".into()),
        postcode: Some("LS1 1AA".into()),
        country: Some("GB".into()),
        ..SiteAddressDraft::default()
    }
}

fn contact(name: &str) -> ContactDraft {
    ContactDraft {
        contact_name: Some(name.into()),
        contact_role: Some("ACCOUNTS".into()),
        ..ContactDraft::default()
    }
}

fn site() -> SiteDraft {
    SiteDraft {
        customer_id: Some(1),
        site_name: Some("Head office".into()),
        site_reference: Some("HO".into()),
        start_date: day("2026-01-01"),
        site_address: Some(address()),
        site_invoice_details: Some(SiteInvoiceDetailsDraft {
            invoice_template_id: Some(1),
            payment_method: Some("CHEQUE".into()),
            payment_terms_in_days: Some(30),
            ..SiteInvoiceDetailsDraft::default()
        }),
        site_contacts: vec![contact("Ann")],
        ..SiteDraft::default()
    }
}

#[test]
fn a_whole_site_parses_into_its_parts() {
    let parsed: Site = Site::parse(site(), "").expect("a valid site");
    let address: &SiteAddress = &parsed.site_address;
    assert_eq!(address.town, "Leeds");
    let details: &SiteInvoiceDetails = parsed.site_invoice_details.as_ref().expect("details");
    assert_eq!(details.payment_terms_in_days, Some(30));
    assert_eq!(parsed.site_contacts.len(), 1);
}

#[test]
fn every_broken_rule_is_named_by_its_path_at_every_depth() {
    let mut draft = site();
    draft.site_name = Some(String::new());
    draft.end_date = day("2025-12-31");
    draft.repayment_plan_amount = Some(150);
    draft.site_address = Some(SiteAddressDraft {
        town: None,
        postcode: Some("LS1#1AA".into()),
        ..address()
    });
    if let Some(details) = &mut draft.site_invoice_details {
        details.payment_terms_in_days = None;
        details.payment_method = Some("BARTER".into());
    }
    draft.site_contacts = vec![
        contact("Ann"),
        ContactDraft {
            contact_telephone_number: Some("123".into()),
            contact_role: Some("BOSS".into()),
            ..contact("Ben")
        },
    ];
    insta::assert_snapshot!(Site::parse(draft, "").unwrap_err(), @"siteName: must be 1 to 100 characters long (got 0); endDate: must not be before startDate; repaymentPlanRemainingPeriods: is required when repaymentPlanAmount is given; siteAddress.town: is required; siteAddress.postcode: may contain only letters, digits, whitespace and @ . - + _ (not '#'); siteInvoiceDetails.paymentMethod: must be one of CHEQUE, DIRECT_DEBIT, CANCELLED_DD, CANCELLED_CARD, CREDIT_CARD, ONLINE_WALLET, BACS, POSTAL_PAYMENT_CARD, PROVIDER_A, PROVIDER_B, PROVIDER_B_INSTANT_BANK_PAYMENTS, PROVIDER_C, PROVIDER_C_CARD, PROVIDER_C_DD, PROVIDER_D, FAST_PAY, OTHER; siteInvoiceDetails.paymentTermsInDays: paymentTermsInDays or preferredPaymentDay is required; siteContacts[1].contactTelephoneNumber: must be 4 to 100 characters long (got 3); siteContacts[1].contactRole: must be one of ACCOUNTS, TECHNICAL, SALES, GENERAL");
    let mut empty = site();
    empty.site_contacts.clear();
    empty.site_address = None;
    insta::assert_snapshot!(Site::parse(empty, "").unwrap_err(), @"siteAddress: is required; siteContacts: must hold at least one element");
}

#[test]
fn a_declaration_is_plain_data() {
    insta::assert_debug_snapshot!(crate::resources::tax_bands::DECLARATION);
}

#[test]
fn json_bodies_are_read_with_every_error_named_once() {
    use crate::resources::users::Parsed as User;
    let body = serde_json::json!({
        "username": "ann",
        "password": "correct horse battery",
        "roles": ["READ_ONLY"],
        "active": null,
        "contractOwnerIds": [3, "x", 0],
        "lastLoginDate": "2026-01-01T00:00:00Z",
        "colour": "red",
    });
    insta::assert_snapshot!(User::from_json(&body, "").unwrap_err(), @"colour: unknown field; active: must not be null (leave it out for its default); lastLoginDate: is read-only and cannot be set; contractOwnerIds[1]: must be an integer; contractOwnerIds[2]: must be an id (an integer >= 1)");
    let fine = serde_json::json!({
        "username": "ann", "password": "correct horse battery", "roles": ["READ_ONLY"],
        "contractOwnerIds": [3, 5],
    });
    let user = User::from_json(&fine, "").expect("a valid user");
    assert_eq!(user.contract_owner_ids.len(), 2);
    assert_eq!(
        user.active, None,
        "left out: the declared default applies when stored"
    );
    insta::assert_snapshot!(User::from_json_text("{").unwrap_err(), @"body: not JSON (EOF while parsing an object at line 1 column 1)");
}

#[test]
fn a_document_that_is_not_an_object_is_that_one_error() {
    use crate::resources::users::Parsed as User;
    // Not the members it lacks as well: the service answers a body of `[]` the same way.
    insta::assert_snapshot!(User::from_json_text("[]").unwrap_err(), @"body: must be a JSON object");
    let nested = serde_json::json!({ "customerId": 1, "siteName": "S", "siteReference": "R",
        "startDate": "2026-01-01", "siteAddress": 5, "siteIdReceivingInvoice": 2 });
    insta::assert_snapshot!(crate::resources::sites::Parsed::from_json(&nested, "").unwrap_err(), @"siteAddress: must be an object; siteContacts: must hold at least one element");
}

#[test]
fn a_custom_fields_label_sent_back_is_checked_and_ignored() {
    use crate::resources::sites::Parsed as Site;
    let body = |label: serde_json::Value| {
        serde_json::json!({ "customerId": 1, "siteName": "S", "siteReference": "R",
            "startDate": "2026-01-01", "siteIdReceivingInvoice": 2,
            "siteAddress": { "address1": "1 High Street", "town": "Leeds", "postcode": "LS1 1AA", "country": "GB" },
            "siteContacts": [{ "contactName": "Ann", "contactRole": "ACCOUNTS" }],
            "assignedCustomFields": [{ "customFieldDefinitionId": 4, "label": label, "value": "v" }] })
    };
    for label in [serde_json::json!("Cost centre"), serde_json::Value::Null] {
        let site = Site::from_json(&body(label), "").expect("a label sent back is accepted");
        assert_eq!(
            site.assigned_custom_fields[0].label, None,
            "the server fills it in"
        );
    }
    insta::assert_snapshot!(Site::from_json(&body(serde_json::json!(5)), "").unwrap_err(), @"assignedCustomFields[0].label: must be a string");
    insta::assert_snapshot!(Site::from_json(&body(serde_json::json!("")), "").unwrap_err(), @"assignedCustomFields[0].label: must be 1 to 255 characters long (got 0)");
}
