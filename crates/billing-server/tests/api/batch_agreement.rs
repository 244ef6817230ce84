//! The batch job's check of a site body (`billing_domain::sites::check_site_body`, what
//! `examples/validate_sites.rs` runs with no database) and the service's (`POST /v1/sites`)
//! agree: the same bodies are accepted, and a body with one mistake is refused by both, naming
//! the same members. Each body below breaks one rule of docs/api.md "Sites" (a member's kind,
//! a required or unknown member, a rule across members or parts, the mandate); the stored
//! records it names exist, so the service has nothing more to say than the batch job.

use std::collections::BTreeSet;

use billing_domain::sites::{MandateFacts, check_site_body};
use serde_json::{Value, json};

use crate::sites::{create_site, site_body, with, world};
use crate::support::TestApp;

/// `body` without the member at `pointer`.
fn without(mut body: Value, pointer: &str) -> Value {
    let (parent, member) = pointer.rsplit_once('/').expect("a pointer");
    if let Some(Value::Object(map)) = body.pointer_mut(parent) {
        map.remove(member);
    }
    body
}

/// The members the batch job names for `body` (empty when it accepts it).
fn batch_job_verdict(body: &Value) -> BTreeSet<String> {
    let mandate = |provider: &str, reference: &str| {
        let status = match (provider, reference) {
            ("PROVIDER_B", "MB-1") => "Active",
            ("PROVIDER_B", "MB-2") => "Cancelled",
            ("PROVIDER_C", "MC-1") => "active",
            _ => return None,
        };
        Some(MandateFacts {
            status: status.to_owned(),
        })
    };
    match check_site_body(body, mandate) {
        Ok(_) => BTreeSet::new(),
        Err(errors) => errors.errors.into_iter().map(|error| error.field).collect(),
    }
}

/// The members the service names for `body` (empty when it creates the site).
fn service_verdict(app: &TestApp, body: &Value) -> BTreeSet<String> {
    let reply = app.post("/v1/sites", body.clone());
    match reply.status {
        200 => BTreeSet::new(),
        400 => reply.error_fields().into_iter().collect(),
        status => panic!("POST /v1/sites answered {status}: {}", reply.text),
    }
}

crate::api_test! {
    fn the_batch_job_and_the_service_agree_on_every_site_body(app) {
        let w = world(&app);
        let valid = site_body(&w, "Agreed");
        let receiver = create_site(&app, site_body(&w, "Receiver"))["id"].clone();
        let mandated = |reference: &str| {
            let body = with(valid.clone(), "/siteInvoiceDetails/paymentMethod", json!("PROVIDER_B"));
            with(body, "/siteInvoiceDetails/mandateReference", json!(reference))
        };
        let both_invoice_contacts = {
            let body = with(valid.clone(), "/siteContacts/0/contactNameToAppearOnInvoice", json!(true));
            let second = json!({ "contactName": "Cat", "contactRole": "ACCOUNTS",
                "contactEmailAddress": "cat@example.com", "contactNameToAppearOnInvoice": true });
            with(body, "/siteContacts/1", second)
        };
        let bodies: Vec<(&str, Value)> = vec![
            ("valid", valid.clone()),
            ("valid, paid through an active mandate", mandated("MB-1")),
            ("empty name", with(valid.clone(), "/siteName", json!(""))),
            ("over-long name", with(valid.clone(), "/siteName", json!("x".repeat(300)))),
            ("name of the wrong type", with(valid.clone(), "/siteName", json!(5))),
            ("no such date", with(valid.clone(), "/startDate", json!("2026-02-30"))),
            ("end before start", with(valid.clone(), "/endDate", json!("2025-12-31"))),
            ("no town", without(valid.clone(), "/siteAddress/town")),
            ("unknown country", with(valid.clone(), "/siteAddress/country", json!("UK"))),
            ("postcode with symbols", with(valid.clone(), "/siteAddress/postcode", json!("L$1 1AA"))),
            ("malformed email", with(valid.clone(), "/siteContacts/0/contactEmailAddress", json!("ann.example.com"))),
            ("unknown role", with(valid.clone(), "/siteContacts/1/contactRole", json!("BOSS"))),
            ("unknown member", with(valid.clone(), "/colour", json!("red"))),
            ("read-only member", with(valid.clone(), "/id", json!(5))),
            ("customer of the wrong type", with(valid.clone(), "/customerId", json!("one"))),
            ("no customer", without(valid.clone(), "/customerId")),
            ("negative payment terms", with(valid.clone(), "/siteInvoiceDetails/paymentTermsInDays", json!(-1))),
            ("unknown payment method", with(valid.clone(), "/siteInvoiceDetails/paymentMethod", json!("BITCOIN"))),
            ("invoice address without a town", with(valid.clone(), "/siteInvoiceDetails/invoiceAddress",
                json!({ "businessName": "Bob's", "address1": "PO Box 7", "postcode": "YO1 7AA", "country": "GB" }))),
            ("details and a receiving site", with(valid.clone(), "/siteIdReceivingInvoice", receiver.clone())),
            ("neither details nor a receiving site", without(valid.clone(), "/siteInvoiceDetails")),
            ("two invoice contacts", both_invoice_contacts),
            ("unknown mandate", mandated("MB-404")),
            ("cancelled mandate", mandated("MB-2")),
            ("a provider with no mandate reference", without(mandated("MB-1"), "/siteInvoiceDetails/mandateReference")),
            ("not an object", json!([])),
            ("null name", with(valid.clone(), "/siteName", json!(null))),
            ("control character in a name", with(valid.clone(), "/siteName", json!("Head\u{7}office"))),
            ("customer id zero", with(valid.clone(), "/customerId", json!(0))),
            ("customer id past 64 bits", with(valid.clone(), "/customerId", json!(1e20))),
            ("date without leading zeros", with(valid.clone(), "/startDate", json!("2026-1-1"))),
            ("an element's id in a body", with(valid.clone(), "/siteContacts/0/id", json!(3))),
            ("invoice contact without an email", with(valid.clone(), "/siteContacts/1/contactNameToAppearOnInvoice", json!(true))),
            ("payment day out of range", with(valid.clone(), "/siteInvoiceDetails/preferredPaymentDay", json!(40))),
            ("too many electronic templates", with(valid.clone(), "/siteInvoiceDetails/electronicSummaryTemplateIds",
                json!((1..=200).collect::<Vec<i64>>()))),
            ("summary component out of place", with(valid.clone(), "/siteInvoiceDetails/invoiceSummaryTemplateComponents",
                json!([{ "id": 4, "positionInTemplate": 0 }]))),
            ("contacts not a list", with(valid.clone(), "/siteContacts", json!({}))),
            ("address not an object", with(valid.clone(), "/siteAddress", json!("1 High Street"))),
            ("one custom field given two values", with(valid.clone(), "/assignedCustomFields",
                json!([{ "customFieldDefinitionId": w.field, "value": "A" }, { "customFieldDefinitionId": w.field, "value": "B" }]))),
        ];
        let mut disagreements = Vec::new();
        for (what, body) in &bodies {
            let (batch, service) = (batch_job_verdict(body), service_verdict(&app, body));
            if batch != service {
                disagreements.push(format!("{what}: batch job {batch:?}, service {service:?}"));
            }
            if *what != "valid" && !what.starts_with("valid,") {
                assert!(!service.is_empty(), "{what}: the service accepted it");
            }
        }
        assert!(disagreements.is_empty(), "{}", disagreements.join("\n"));

        // Several members' mistakes at once: both name every one.
        let mut several = with(valid.clone(), "/siteName", json!(""));
        several = with(several, "/siteAddress/country", json!("UK"));
        several = with(several, "/siteContacts/0/contactEmailAddress", json!("ann.example.com"));
        several = with(several, "/siteInvoiceDetails/paymentTermsInDays", json!(-1));
        let expected: BTreeSet<String> = ["siteName", "siteAddress.country",
            "siteContacts[0].contactEmailAddress", "siteInvoiceDetails.paymentTermsInDays"]
            .map(str::to_owned).into();
        assert_eq!(batch_job_verdict(&several), expected);
        assert_eq!(service_verdict(&app, &several), expected);
        // A member's mistake and a rule across members: the service answers the member first
        // (docs/api.md "Errors"), the batch job both; what the service names, the job names.
        let mixed = with(with(valid.clone(), "/siteName", json!("")), "/endDate", json!("2025-12-31"));
        let (batch, service) = (batch_job_verdict(&mixed), service_verdict(&app, &mixed));
        assert!(service.contains("siteName") && service.is_subset(&batch), "{batch:?} {service:?}");
        assert!(batch.len() > service.len(), "{batch:?} {service:?}");
    }
}
