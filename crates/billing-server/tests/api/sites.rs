//! `/v1/sites` and `/v1/inventory-items`: a site with what it owns (address, contacts, invoice
//! details with their own address, custom fields), every rule of 2.5–2.9 and docs/api.md "Sites",
//! the filters and HEAD of 4.5, the cascade header and contract-owner scope.

use serde_json::{Value, json};

use crate::support::{Reply, TestApp};

/// What a site needs around it: a customer (of a contract owner, billed on a cycle), invoice
/// templates of each type, mandates and a custom field definition.
pub struct World {
    pub owner: i64,
    pub cycle: i64,
    pub customer: i64,
    pub invoice_template: i64,
    pub summary_template: i64,
    pub electronic_template: i64,
    pub field: i64,
}

pub(crate) fn id(value: &Value) -> i64 {
    value["id"].as_i64().expect("id")
}

pub fn world(app: &TestApp) -> World {
    let owner = id(&app.create("/v1/contract-owners", json!({ "name": "Acme" })));
    let cycle = id(&app.create("/v1/billing-cycles", json!({ "name": "Monthly" })));
    let customer = customer_of(app, owner, cycle, "Bob's Bakery");
    let template = |name: &str, kind: &str| {
        id(&app.create(
            "/v1/invoice-templates",
            json!({ "name": name, "type": kind }),
        ))
    };
    let mandate = |provider: &str, reference: &str, status: &str| {
        app.create(
            "/v1/payment-provider-mandates",
            json!({ "provider": provider, "mandateReference": reference, "status": status,
                "thirdPartyCustomerReference": "TP-1" }),
        );
    };
    mandate("PROVIDER_B", "MB-1", "Active");
    mandate("PROVIDER_B", "MB-2", "Cancelled");
    mandate("PROVIDER_C", "MC-1", "active");
    World {
        owner,
        cycle,
        customer,
        invoice_template: template("Standard", "INVOICE"),
        summary_template: template("Summary", "INVOICE_SUMMARY"),
        electronic_template: template("CSV", "ELECTRONIC_SUMMARY"),
        field: id(&app.create(
            "/v1/custom-field-definitions",
            json!({ "label": "Cost centre" }),
        )),
    }
}

pub fn customer_of(app: &TestApp, owner: i64, cycle: i64, name: &str) -> i64 {
    id(&app.create(
        "/v1/customers",
        json!({ "customerName": name, "customerReference": "C-1", "contractOwnerId": owner,
            "billingCycleId": cycle, "startDate": "2026-01-01" }),
    ))
}

pub(crate) fn address() -> Value {
    json!({ "address1": "1 High Street", "town": "Leeds", "postcode": "LS1 1AA", "country": "GB" })
}

/// A site that receives its own invoices, paying by cheque.
pub fn site_body(world: &World, name: &str) -> Value {
    json!({
        "customerId": world.customer,
        "siteName": name,
        "siteReference": "S-1",
        "startDate": "2026-01-01",
        "siteAddress": address(),
        "siteInvoiceDetails": {
            "invoiceTemplateId": world.invoice_template,
            "paymentMethod": "CHEQUE",
            "paymentTermsInDays": 30
        },
        "siteContacts": [
            { "contactName": "Ann", "contactRole": "ACCOUNTS", "contactEmailAddress": "ann@example.com" },
            { "contactName": "Ben", "contactRole": "TECHNICAL" }
        ]
    })
}

/// Creates a site (200, as the interface documents) and returns it.
#[track_caller]
pub fn create_site(app: &TestApp, body: Value) -> Value {
    let reply = app.post("/v1/sites", body);
    assert_eq!(reply.status, 200, "POST /v1/sites: {}", reply.text);
    reply.json()
}

/// `body` with the member at `pointer` set to `value` (added when missing).
pub(crate) fn with(mut body: Value, pointer: &str, value: Value) -> Value {
    let (parent, member) = pointer.rsplit_once('/').expect("a pointer");
    let parent = body
        .pointer_mut(parent)
        .unwrap_or_else(|| panic!("{pointer}"));
    match parent {
        Value::Object(map) => {
            map.insert(member.to_owned(), value);
        }
        Value::Array(items) => items[member.parse::<usize>().expect("index")] = value,
        _ => panic!("{pointer}"),
    }
    body
}

pub(crate) fn patch_with_headers(
    app: &TestApp,
    path: &str,
    headers: &[(&str, &str)],
    operations: Value,
) -> Reply {
    app.send(
        "PATCH",
        path,
        Some(&app.admin_token),
        headers,
        Some(("application/json-patch+json", operations.to_string())),
    )
}

pub(crate) fn count(app: &TestApp, query: &str) -> i64 {
    let reply = app.get(&format!("/v1/sites?page=1&pageSize=100&{query}"));
    assert_eq!(reply.status, 200, "{query}: {}", reply.text);
    reply.json().as_array().expect("array").len() as i64
}

api_test! {
    fn a_site_is_created_with_everything_it_owns(app) {
        let w = world(&app);
        let mut body = site_body(&w, "Head office");
        body["siteInvoiceDetails"] = json!({
            "invoiceTemplateId": w.invoice_template,
            "invoiceSummaryTemplateId": w.summary_template,
            "electronicSummaryTemplateIds": [w.electronic_template],
            "invoiceSummaryTemplateComponents": [{ "id": 4, "positionInTemplate": 1 }],
            "invoiceAddress": { "businessName": "Bob's Bakery Ltd", "address1": "PO Box 7", "town": "York", "postcode": "YO1 7AA", "country": "GB" },
            "paymentMethod": "PROVIDER_B",
            "mandateReference": "MB-1",
            "preferredPaymentDay": 5,
            "accountNumber": "12345678",
            "sortCode": "12-34-56",
            "taxExempt": false
        });
        body["assignedCustomFields"] = json!([{ "customFieldDefinitionId": w.field, "value": "CC-9" }]);
        body["repaymentPlanAmount"] = json!(99.99);
        body["repaymentPlanRemainingPeriods"] = json!(12);
        let site = create_site(&app, body);
        let mut shown = site.clone();
        for pointer in ["/createdDate", "/updatedDate", "/siteInvoiceDetails/mandateCreatedDate", "/siteInvoiceDetails/mandateUpdatedDate"] {
            assert!(shown.pointer(pointer).is_some_and(Value::is_string), "{pointer}: {site}");
            *shown.pointer_mut(pointer).expect("member") = json!("[date-time]");
        }
        insta::assert_json_snapshot!(crate::support::plain(&shown), @r#"
        {
          "id": 1,
          "customerId": 1,
          "siteName": "Head office",
          "siteReference": "S-1",
          "matchmakerMatchingTag": null,
          "startDate": "2026-01-01",
          "endDate": null,
          "createdDate": "[date-time]",
          "updatedDate": "[date-time]",
          "siteIdReceivingInvoice": null,
          "repaymentPlanAmount": 99.99,
          "repaymentPlanRemainingPeriods": 12,
          "siteAddress": {
            "id": 1,
            "businessName": null,
            "address1": "1 High Street",
            "address2": null,
            "address3": null,
            "town": "Leeds",
            "county": null,
            "postcode": "LS1 1AA",
            "country": "GB"
          },
          "siteInvoiceDetails": {
            "id": 1,
            "invoiceSummaryTemplateId": 2,
            "invoiceTemplateId": 1,
            "electronicSummaryTemplateIds": [
              3
            ],
            "invoiceSummaryTemplateComponents": [
              {
                "id": 4,
                "positionInTemplate": 1
              }
            ],
            "accountPackageReference": null,
            "paymentTermsInDays": null,
            "preferredPaymentDay": 5,
            "paymentMethod": "PROVIDER_B",
            "mandateReference": "MB-1",
            "mandateStatus": "Active",
            "mandateCreatedDate": "[date-time]",
            "mandateUpdatedDate": "[date-time]",
            "thirdPartyCustomerReference": null,
            "directDebitReference": null,
            "accountName": null,
            "accountNumber": "12345678",
            "sortCode": "12-34-56",
            "purchaseOrderNumber": null,
            "invoiceNotes": null,
            "taxExempt": false,
            "taxRegistrationNumber": null,
            "invoiceAddress": {
              "id": 1,
              "businessName": "Bob's Bakery Ltd",
              "address1": "PO Box 7",
              "address2": null,
              "address3": null,
              "town": "York",
              "county": null,
              "postcode": "YO1 7AA",
              "country": "GB"
            }
          },
          "siteContacts": [
            {
              "id": 1,
              "contactName": "Ann",
              "contactTelephoneNumber": null,
              "contactAlternativeTelephoneNumber": null,
              "contactEmailAddress": "ann@example.com",
              "contactRole": "ACCOUNTS",
              "receiveInvoiceBy": "EMAIL",
              "receiveInvoiceSummaryBy": null,
              "receiveElectronicSummaryReports": null,
              "emailSuspended": false,
              "contactNameToAppearOnInvoice": true,
              "receiveEmailFraudAlert": false,
              "receiveSmsFraudAlert": false
            },
            {
              "id": 2,
              "contactName": "Ben",
              "contactTelephoneNumber": null,
              "contactAlternativeTelephoneNumber": null,
              "contactEmailAddress": null,
              "contactRole": "TECHNICAL",
              "receiveInvoiceBy": null,
              "receiveInvoiceSummaryBy": null,
              "receiveElectronicSummaryReports": null,
              "emailSuspended": false,
              "contactNameToAppearOnInvoice": false,
              "receiveEmailFraudAlert": false,
              "receiveSmsFraudAlert": false
            }
          ],
          "assignedCustomFields": [
            {
              "id": 1,
              "customFieldDefinitionId": 1,
              "label": "Cost centre",
              "value": "CC-9"
            }
          ]
        }
        "#);
        let path = format!("/v1/sites/{}", site["id"]);
        let read = app.get(&path);
        assert_eq!(read.json(), site);
        assert!(read.header("etag").is_some());
        // A nested member patched in place keeps every id.
        let patched = app.patch(&path, json!([{ "op": "replace", "path": "/siteAddress/town", "value": "Bradford" }]));
        assert_eq!(patched.status, 200, "{}", patched.text);
        assert_eq!(patched.json()["siteAddress"]["town"], "Bradford");
        assert_eq!(patched.json()["siteAddress"]["id"], site["siteAddress"]["id"]);
        assert_eq!(patched.json()["siteContacts"], site["siteContacts"]);
        assert_ne!(patched.header("etag"), read.header("etag"));
        // The interface documents no DELETE and no PUT for sites.
        assert_eq!(app.delete(&path).status, 405);
        assert_eq!(app.put(&path, site_body(&w, "X")).status, 405);
    }

    fn a_site_holds_one_value_per_custom_field(app) {
        let w = world(&app);
        let body = with(site_body(&w, "Fielded"), "/assignedCustomFields",
            json!([{ "customFieldDefinitionId": w.field, "value": "CC-1" }]));
        let site = create_site(&app, body);
        let path = format!("/v1/sites/{}", site["id"]);
        // A second value for the same definition, by a patch: refused whole, naming it.
        let twice = app.patch(&path, json!([{ "op": "add", "path": "/assignedCustomFields/-",
            "value": { "customFieldDefinitionId": w.field, "value": "CC-2" } }]));
        assert_eq!(twice.error_fields(), vec!["assignedCustomFields[1].customFieldDefinitionId"], "{}", twice.text);
        assert_eq!(app.get(&path).json()["assignedCustomFields"], site["assignedCustomFields"]);
        // A definition that does not exist, by a patch or in a create: refused, naming it.
        let unknown = app.patch(&path, json!([{ "op": "add", "path": "/assignedCustomFields/-",
            "value": { "customFieldDefinitionId": 999_999, "value": "CC-3" } }]));
        assert_eq!(unknown.error_fields(), vec!["assignedCustomFields[1].customFieldDefinitionId"], "{}", unknown.text);
        let unknown_create = app.post("/v1/sites", with(site_body(&w, "Unknown field"), "/assignedCustomFields",
            json!([{ "customFieldDefinitionId": 999_999, "value": "CC-1" }])));
        assert_eq!(unknown_create.error_fields(), vec!["assignedCustomFields[0].customFieldDefinitionId"], "{}", unknown_create.text);
        assert_eq!(app.get(&path).json()["assignedCustomFields"], site["assignedCustomFields"]);
        // Another definition is fine.
        let other = app.create("/v1/custom-field-definitions", json!({ "label": "Region" }));
        let added = app.patch(&path, json!([{ "op": "add", "path": "/assignedCustomFields/-",
            "value": { "customFieldDefinitionId": other["id"], "value": "North" } }]));
        assert_eq!(added.status, 200, "{}", added.text);
    }

    fn the_invoice_contact_rule_holds_in_every_case(app) {
        let w = world(&app);
        // None marked: the first becomes it, by POST when it has no e-mail address.
        let body = with(site_body(&w, "A"), "/siteContacts/0/contactEmailAddress", Value::Null);
        let site = create_site(&app, body);
        assert_eq!(site["siteContacts"][0]["contactNameToAppearOnInvoice"], true);
        assert_eq!(site["siteContacts"][0]["receiveInvoiceBy"], "POST");
        assert_eq!(site["siteContacts"][1]["contactNameToAppearOnInvoice"], false);
        // A contact marked explicitly keeps its own receiveInvoiceBy, and must have one.
        let marked = with(site_body(&w, "B"), "/siteContacts/1/contactNameToAppearOnInvoice", json!(true));
        assert_eq!(app.post("/v1/sites", marked.clone()).error_fields(), vec!["siteContacts[1].receiveInvoiceBy"]);
        let marked = with(marked, "/siteContacts/1/receiveInvoiceBy", json!("EMAIL_AND_POST"));
        let second = create_site(&app, marked);
        assert_eq!(second["siteContacts"][0]["contactNameToAppearOnInvoice"], false);
        assert_eq!(second["siteContacts"][0]["receiveInvoiceBy"], Value::Null);
        assert_eq!(second["siteContacts"][1]["receiveInvoiceBy"], "EMAIL_AND_POST");
        // Two marked in one body: refused, naming the second.
        let mut both = site_body(&w, "C");
        for index in 0..2 {
            both["siteContacts"][index]["contactNameToAppearOnInvoice"] = json!(true);
            both["siteContacts"][index]["receiveInvoiceBy"] = json!("EMAIL");
        }
        assert_eq!(app.post("/v1/sites", both).error_fields(), vec!["siteContacts[1].contactNameToAppearOnInvoice"]);
        // Marking another contact in a patch moves the mark off the previous one.
        let path = format!("/v1/sites/{}", site["id"]);
        let moved = app.patch(&path, json!([
            { "op": "replace", "path": "/siteContacts/1/contactNameToAppearOnInvoice", "value": true },
            { "op": "replace", "path": "/siteContacts/1/receiveInvoiceBy", "value": "EMAIL" }
        ]));
        assert_eq!(moved.status, 200, "{}", moved.text);
        assert_eq!(moved.json()["siteContacts"][0]["contactNameToAppearOnInvoice"], false);
        assert_eq!(moved.json()["siteContacts"][1]["contactNameToAppearOnInvoice"], true);
        // A new contact marked in a patch takes it over too.
        let added = app.patch(&path, json!([{ "op": "add", "path": "/siteContacts/-", "value":
            { "contactName": "Cy", "contactRole": "SALES", "contactNameToAppearOnInvoice": true, "receiveInvoiceBy": "POST" } }]));
        assert_eq!(added.status, 200, "{}", added.text);
        let flags: Vec<bool> = added.json()["siteContacts"].as_array().expect("contacts").iter()
            .map(|c| c["contactNameToAppearOnInvoice"].as_bool().expect("flag")).collect();
        assert_eq!(flags, [false, false, true]);
        // Unmarking the only marked contact leaves the site without one, as the patch says.
        let unmarked = app.patch(&path, json!([{ "op": "replace", "path": "/siteContacts/2/contactNameToAppearOnInvoice", "value": false }]));
        assert_eq!(unmarked.status, 200, "{}", unmarked.text);
        let flags = |site: &Value| -> Vec<bool> { site["siteContacts"].as_array().expect("contacts").iter()
            .map(|c| c["contactNameToAppearOnInvoice"].as_bool().expect("flag")).collect() };
        assert_eq!(flags(&unmarked.json()), [false, false, false]);
        assert_eq!(flags(&app.get(&path).json()), [false, false, false]);
        // A contact added without the flag to such a site is not marked: the others gave theirs.
        let added = app.patch(&path, json!([{ "op": "add", "path": "/siteContacts/-", "value":
            { "contactName": "Di", "contactRole": "SALES" } }]));
        assert_eq!(flags(&added.json()), [false, false, false, false], "{}", added.text);
        // Contacts all marked false on create: no invoice contact, no receiveInvoiceBy made up.
        let mut none = site_body(&w, "E");
        for index in 0..2 {
            none["siteContacts"][index]["contactNameToAppearOnInvoice"] = json!(false);
        }
        let none = create_site(&app, none);
        assert_eq!(flags(&none), [false, false]);
        assert_eq!(none["siteContacts"][0]["receiveInvoiceBy"], Value::Null);
        // The list is never empty.
        let emptied = with(site_body(&w, "D"), "/siteContacts", json!([]));
        assert_eq!(app.post("/v1/sites", emptied).error_fields(), vec!["siteContacts"]);
    }

    fn members_are_checked_at_every_depth(app) {
        let w = world(&app);
        let refused = |pointer: &str, value: Value| app.post("/v1/sites", with(site_body(&w, "A"), pointer, value)).error_fields();
        assert_eq!(refused("/siteContacts/0/id", json!(5)), vec!["siteContacts[0].id"]);
        assert_eq!(refused("/siteAddress/id", json!(5)), vec!["siteAddress.id"]);
        assert_eq!(refused("/siteAddress/colour", json!("red")), vec!["siteAddress.colour"]);
        assert_eq!(refused("/siteInvoiceDetails/mandateStatus", json!("Active")), vec!["siteInvoiceDetails.mandateStatus"]);
        assert_eq!(refused("/siteInvoiceDetails/invoiceAddress", json!({ "town": "York" })),
            vec!["siteInvoiceDetails.invoiceAddress.address1", "siteInvoiceDetails.invoiceAddress.postcode", "siteInvoiceDetails.invoiceAddress.country"]);
        assert_eq!(refused("/siteAddress", Value::Null), vec!["siteAddress"]);
        assert_eq!(refused("/siteContacts/0/emailSuspended", Value::Null), vec!["siteContacts[0].emailSuspended"]);
        assert_eq!(refused("/siteAddress/country", json!("XX")), vec!["siteAddress.country"]);
        assert_eq!(refused("/siteAddress/postcode", json!("LS1#1AA")), vec!["siteAddress.postcode"]);
        assert_eq!(refused("/siteAddress/town", json!("x".repeat(51))), vec!["siteAddress.town"]);
        assert_eq!(refused("/siteContacts/1/contactTelephoneNumber", json!("123")), vec!["siteContacts[1].contactTelephoneNumber"]);
        assert_eq!(refused("/siteContacts/1/contactEmailAddress", json!("not an address")), vec!["siteContacts[1].contactEmailAddress"]);
        for malformed in ["a@b..com", ".a@b.com", "a@-b.com"] {
            assert_eq!(refused("/siteContacts/1/contactEmailAddress", json!(malformed)), vec!["siteContacts[1].contactEmailAddress"], "{malformed}");
        }
        assert_eq!(refused("/siteContacts/1/contactRole", json!("BOSS")), vec!["siteContacts[1].contactRole"]);
        assert_eq!(refused("/siteName", json!("")), vec!["siteName"]);
        assert_eq!(refused("/siteName", json!("<b>")), vec!["siteName"]);
        assert_eq!(refused("/customerId", json!(999)), vec!["customerId"]);
        assert_eq!(refused("/siteInvoiceDetails/electronicSummaryTemplateIds", json!([w.electronic_template, w.electronic_template])),
            vec!["siteInvoiceDetails.electronicSummaryTemplateIds"]);
        // The missing member itself is named, as at any other depth.
        assert_eq!(refused("/siteInvoiceDetails/invoiceSummaryTemplateComponents", json!([{ "id": 1 }])),
            vec!["siteInvoiceDetails.invoiceSummaryTemplateComponents[0].positionInTemplate"]);
        // Owned lists are capped, so no body makes one write unbounded.
        let contacts = |n: usize| json!((0..n).map(|i| json!({ "contactName": format!("C{i}"), "contactRole": "GENERAL" })).collect::<Vec<_>>());
        assert_eq!(refused("/siteContacts", contacts(101)), vec!["siteContacts"]);
        assert_eq!(app.post("/v1/contract-owners", json!({ "name": "Big", "subBrands": contacts(101).as_array().expect("array").iter()
            .map(|_| json!({ "name": "B" })).collect::<Vec<_>>() })).error_fields(), vec!["subBrands"]);
        // A telephone number may be empty.
        let empty_phone = app.post("/v1/sites", with(site_body(&w, "A"), "/siteContacts/1/contactTelephoneNumber", json!("")));
        assert_eq!(empty_phone.status, 200, "{}", empty_phone.text);
        // Nothing refused was written.
        assert_eq!(count(&app, ""), 1);
        let hundred = app.post("/v1/sites", with(site_body(&w, "Hundred"), "/siteContacts", contacts(100)));
        assert_eq!(hundred.status, 200, "{}", hundred.text);
        assert_eq!(hundred.json()["siteContacts"].as_array().expect("contacts").len(), 100);
        // A nested read-only member cannot be patched either.
        let path = format!("/v1/sites/{}", empty_phone.json()["id"]);
        assert_eq!(app.patch(&path, json!([{ "op": "replace", "path": "/siteInvoiceDetails/mandateStatus", "value": "Active" }])).error_fields(), vec!["[0].path"]);
        assert_eq!(app.patch(&path, json!([{ "op": "replace", "path": "/siteContacts/0/id", "value": 9 }])).error_fields(), vec!["[0].path"]);
        // A part of the wrong JSON type is named, in words a client knows.
        let wrong = app.patch(&path, json!([{ "op": "replace", "path": "/siteContacts/0", "value": "x" }]));
        assert_eq!(wrong.error_fields(), vec!["siteContacts[0]"]);
        assert!(wrong.text.contains("must be an object"), "{}", wrong.text);
    }

    fn payment_terms_mandates_and_templates_are_checked(app) {
        let w = world(&app);
        let refused = |pointer: &str, value: Value| app.post("/v1/sites", with(site_body(&w, "A"), pointer, value));
        let details = |extra: Value| {
            let mut details = json!({ "invoiceTemplateId": w.invoice_template, "paymentTermsInDays": 30 });
            for (key, value) in extra.as_object().expect("object") {
                details[key] = value.clone();
            }
            details
        };
        assert_eq!(refused("/siteInvoiceDetails/paymentTermsInDays", Value::Null).error_fields(), vec!["siteInvoiceDetails.paymentTermsInDays"]);
        assert_eq!(refused("/siteInvoiceDetails/paymentTermsInDays", json!(366)).error_fields(), vec!["siteInvoiceDetails.paymentTermsInDays"]);
        assert_eq!(refused("/siteInvoiceDetails", details(json!({ "preferredPaymentDay": 29, "paymentMethod": "CHEQUE" }))).error_fields(), vec!["siteInvoiceDetails.preferredPaymentDay"]);
        assert_eq!(refused("/siteInvoiceDetails/paymentMethod", json!("BARTER")).error_fields(), vec!["siteInvoiceDetails.paymentMethod"]);
        let mandate = |extra: Value| refused("/siteInvoiceDetails", details(extra)).error_fields();
        assert_eq!(mandate(json!({ "paymentMethod": "PROVIDER_B" })), vec!["siteInvoiceDetails.mandateReference"]);
        assert_eq!(mandate(json!({ "paymentMethod": "PROVIDER_B", "mandateReference": "NOPE" })), vec!["siteInvoiceDetails.mandateReference"]);
        assert_eq!(mandate(json!({ "paymentMethod": "PROVIDER_B", "mandateReference": "MB-2" })), vec!["siteInvoiceDetails.mandateReference"]);
        assert_eq!(mandate(json!({ "paymentMethod": "PROVIDER_D", "mandateReference": "MB-1" })), vec!["siteInvoiceDetails.mandateReference"]);
        assert_eq!(mandate(json!({ "paymentMethod": "PROVIDER_C", "mandateReference": "MC-1" })), vec!["siteInvoiceDetails.thirdPartyCustomerReference"]);
        assert_eq!(mandate(json!({ "paymentMethod": "CHEQUE", "invoiceTemplateId": w.summary_template })), vec!["siteInvoiceDetails.invoiceTemplateId"]);
        assert_eq!(mandate(json!({ "paymentMethod": "CHEQUE", "invoiceTemplateId": 99 })), vec!["siteInvoiceDetails.invoiceTemplateId"]);
        assert_eq!(mandate(json!({ "paymentMethod": "CHEQUE", "invoiceSummaryTemplateId": w.invoice_template })), vec!["siteInvoiceDetails.invoiceSummaryTemplateId"]);
        assert_eq!(mandate(json!({ "paymentMethod": "CHEQUE", "electronicSummaryTemplateIds": [w.electronic_template, w.invoice_template] })), vec!["siteInvoiceDetails.electronicSummaryTemplateIds[1]"]);
        let paid = create_site(&app, with(site_body(&w, "C"), "/siteInvoiceDetails", details(json!({
            "paymentMethod": "PROVIDER_C", "mandateReference": "MC-1", "thirdPartyCustomerReference": "TP-9" }))));
        assert_eq!(paid["siteInvoiceDetails"]["mandateStatus"], "active");
        // The templates are fixed once created.
        let path = format!("/v1/sites/{}", paid["id"]);
        let template = id(&app.create("/v1/invoice-templates", json!({ "name": "Other", "type": "INVOICE" })));
        assert_eq!(app.patch(&path, json!([{ "op": "replace", "path": "/siteInvoiceDetails/invoiceTemplateId", "value": template }])).error_fields(),
            vec!["siteInvoiceDetails.invoiceTemplateId"]);
        let summarised = create_site(&app, with(site_body(&w, "D"), "/siteInvoiceDetails/invoiceSummaryTemplateId", json!(w.summary_template)));
        let summarised_path = format!("/v1/sites/{}", summarised["id"]);
        let other_summary = id(&app.create("/v1/invoice-templates", json!({ "name": "Other summary", "type": "INVOICE_SUMMARY" })));
        for value in [json!(other_summary), Value::Null] {
            assert_eq!(app.patch(&summarised_path, json!([{ "op": "replace", "path": "/siteInvoiceDetails/invoiceSummaryTemplateId", "value": value }])).error_fields(),
                vec!["siteInvoiceDetails.invoiceSummaryTemplateId"]);
        }
        assert_eq!(app.get(&summarised_path).json()["siteInvoiceDetails"]["invoiceSummaryTemplateId"], w.summary_template);
        // A template in use cannot be deleted.
        app.delete(&format!("/v1/invoice-templates/{}", w.invoice_template)).assert_problem(409);
        // Nor one that sites list among their electronic summary templates (held in one
        // column, which no foreign key sees); one no site lists can be.
        let csv = id(&app.create("/v1/invoice-templates", json!({ "name": "Listed CSV", "type": "ELECTRONIC_SUMMARY" })));
        let listed = create_site(&app, with(site_body(&w, "Listed"), "/siteInvoiceDetails/electronicSummaryTemplateIds", json!([w.electronic_template, csv])));
        let refused = app.delete(&format!("/v1/invoice-templates/{csv}"));
        refused.assert_problem(409);
        assert!(refused.text.contains(&format!("sites {}", listed["id"])), "{}", refused.text);
        let unused = id(&app.create("/v1/invoice-templates", json!({ "name": "Unused CSV", "type": "ELECTRONIC_SUMMARY" })));
        assert_eq!(app.delete(&format!("/v1/invoice-templates/{unused}")).status, 204);
        // The mandate's status shows on the site as it changes, and moves the site's ETag.
        let tag = app.get(&path).header("etag").map(str::to_owned);
        let mandates = app.get("/v1/payment-provider-mandates?page=1&pageSize=10&mandateReference=MC-1").json();
        let mandate_path = format!("/v1/payment-provider-mandates/{}", mandates[0]["id"]);
        assert_eq!(app.patch(&mandate_path, json!([{ "op": "replace", "path": "/status", "value": "suspended" }])).status, 200);
        let now = app.get(&path);
        assert_eq!(now.json()["siteInvoiceDetails"]["mandateStatus"], "suspended");
        assert_ne!(now.header("etag").map(str::to_owned), tag);
        // A mandate a site names keeps its reference and is not deleted.
        app.patch(&mandate_path, json!([{ "op": "replace", "path": "/mandateReference", "value": "MC-2" }])).assert_problem(409);
        app.delete(&mandate_path).assert_problem(409);
        // Repayment plans: both or neither, exact, in range.
        let plan = |amount: Value, periods: Value| {
            let mut body = site_body(&w, "R");
            body["repaymentPlanAmount"] = amount;
            body["repaymentPlanRemainingPeriods"] = periods;
            app.post("/v1/sites", body).error_fields()
        };
        assert_eq!(plan(json!(10), Value::Null), vec!["repaymentPlanRemainingPeriods"]);
        assert_eq!(plan(Value::Null, json!(3)), vec!["repaymentPlanAmount"]);
        assert_eq!(plan(json!(0.5), json!(3)), vec!["repaymentPlanAmount"]);
        assert_eq!(plan(json!(10.005), json!(3)), vec!["repaymentPlanAmount"]);
        assert_eq!(plan(json!(10), json!(241)), vec!["repaymentPlanRemainingPeriods"]);
        assert_eq!(plan(json!("10"), json!(3)), vec!["repaymentPlanAmount"]);
    }

    fn invoices_are_consolidated_to_an_active_site_of_the_same_customer(app) {
        let w = world(&app);
        let receiving = create_site(&app, site_body(&w, "Head office"));
        let sender = |name: &str, receiving_id: Value| {
            let mut body = site_body(&w, name);
            body["siteInvoiceDetails"] = Value::Null;
            body["siteIdReceivingInvoice"] = receiving_id;
            body
        };
        let branch = create_site(&app, sender("Branch", receiving["id"].clone()));
        assert_eq!(branch["siteInvoiceDetails"], Value::Null);
        assert_eq!(branch["siteIdReceivingInvoice"], receiving["id"]);
        // Exactly one of the two.
        assert_eq!(app.post("/v1/sites", sender("Neither", Value::Null)).error_fields(), vec!["siteInvoiceDetails"]);
        let both = with(site_body(&w, "Both"), "/siteIdReceivingInvoice", receiving["id"].clone());
        assert_eq!(app.post("/v1/sites", both).error_fields(), vec!["siteIdReceivingInvoice"]);
        // Not to a site without invoice details, of another customer, or that does not exist.
        assert_eq!(app.post("/v1/sites", sender("Chain", branch["id"].clone())).error_fields(), vec!["siteIdReceivingInvoice"]);
        let other = customer_of(&app, w.owner, w.cycle, "Other");
        let foreign = create_site(&app, with(site_body(&w, "Foreign"), "/customerId", json!(other)));
        assert_eq!(app.post("/v1/sites", sender("Far", foreign["id"].clone())).error_fields(), vec!["siteIdReceivingInvoice"]);
        assert_eq!(app.post("/v1/sites", sender("Ghost", json!(999))).error_fields(), vec!["siteIdReceivingInvoice"]);
        // A site active sites send to cannot end, nor drop its invoice details (409).
        let path = format!("/v1/sites/{}", receiving["id"]);
        app.patch(&path, json!([{ "op": "add", "path": "/endDate", "value": "2026-02-01" }])).assert_problem(409);
        let spare = create_site(&app, site_body(&w, "Spare"));
        app.patch(&path, json!([
            { "op": "remove", "path": "/siteInvoiceDetails" },
            { "op": "replace", "path": "/siteIdReceivingInvoice", "value": spare["id"] }
        ])).assert_problem(409);
        app.patch(&path, json!([{ "op": "replace", "path": "/customerId", "value": other }])).assert_problem(409);
        // Nor end in the future while a sender goes on after that day (or never ends): from
        // then on the sender would send to an ended site.
        let future_end = json!([{ "op": "add", "path": "/endDate", "value": "2999-01-01" }]);
        let refused = app.patch(&path, future_end.clone());
        assert!(refused.assert_problem(409)["detail"].as_str().expect("detail").contains("cannot end on 2999-01-01"), "{}", refused.text);
        let branch_path = format!("/v1/sites/{}", branch["id"]);
        let branch_ends = |day: &str| app.patch(&branch_path, json!([{ "op": "add", "path": "/endDate", "value": day }]));
        assert_eq!(branch_ends("2998-12-31").status, 200);
        assert_eq!(app.patch(&path, future_end).status, 200);
        // A sender cannot then go on past its receiver's end, nor a new one start open-ended.
        assert_eq!(branch_ends("2999-01-02").error_fields(), vec!["siteIdReceivingInvoice"]);
        assert_eq!(app.post("/v1/sites", sender("Open", receiving["id"].clone())).error_fields(), vec!["siteIdReceivingInvoice"]);
        let by_then = with(sender("Bounded", receiving["id"].clone()), "/endDate", json!("2999-01-01"));
        assert_eq!(app.post("/v1/sites", by_then).status, 200);
        // Once the sender has ended, the receiving site may end too; an ended site receives nothing.
        assert_eq!(branch_ends("2026-01-31").status, 200);
        let bounded = app.get("/v1/sites?page=1&pageSize=1&siteName=Bounded").json()[0]["id"].clone();
        assert_eq!(app.patch(&format!("/v1/sites/{bounded}"), json!([{ "op": "replace", "path": "/endDate", "value": "2026-01-15" }])).status, 200);
        assert_eq!(app.patch(&path, json!([{ "op": "replace", "path": "/endDate", "value": "2026-02-01" }])).status, 200);
        assert_eq!(app.post("/v1/sites", sender("Late", receiving["id"].clone())).error_fields(), vec!["siteIdReceivingInvoice"]);
    }
}
