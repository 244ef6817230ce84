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

fn id(value: &Value) -> i64 {
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

fn address() -> Value {
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
fn with(mut body: Value, pointer: &str, value: Value) -> Value {
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

fn patch_with_headers(
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

fn count(app: &TestApp, query: &str) -> i64 {
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
        // Unmarking the only marked contact hands the mark back to the first.
        let unmarked = app.patch(&path, json!([{ "op": "replace", "path": "/siteContacts/2/contactNameToAppearOnInvoice", "value": false }]));
        assert_eq!(unmarked.json()["siteContacts"][0]["contactNameToAppearOnInvoice"], true, "{}", unmarked.text);
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
        assert_eq!(refused("/siteContacts/1/contactRole", json!("BOSS")), vec!["siteContacts[1].contactRole"]);
        assert_eq!(refused("/siteName", json!("")), vec!["siteName"]);
        assert_eq!(refused("/siteName", json!("<b>")), vec!["siteName"]);
        assert_eq!(refused("/customerId", json!(999)), vec!["customerId"]);
        assert_eq!(refused("/siteInvoiceDetails/electronicSummaryTemplateIds", json!([w.electronic_template, w.electronic_template])),
            vec!["siteInvoiceDetails.electronicSummaryTemplateIds"]);
        assert_eq!(refused("/siteInvoiceDetails/invoiceSummaryTemplateComponents", json!([{ "id": 1 }])),
            vec!["siteInvoiceDetails.invoiceSummaryTemplateComponents[0]"]);
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
        // A template in use cannot be deleted.
        app.delete(&format!("/v1/invoice-templates/{}", w.invoice_template)).assert_problem(409);
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
        // An end date in the future does not end it.
        assert_eq!(app.patch(&path, json!([{ "op": "add", "path": "/endDate", "value": "2999-01-01" }])).status, 200);
        // Once the sender has ended, the receiving site may end too; an ended site receives nothing.
        let branch_path = format!("/v1/sites/{}", branch["id"]);
        assert_eq!(app.patch(&branch_path, json!([{ "op": "add", "path": "/endDate", "value": "2026-01-31" }])).status, 200);
        assert_eq!(app.patch(&path, json!([{ "op": "replace", "path": "/endDate", "value": "2026-02-01" }])).status, 200);
        assert_eq!(app.post("/v1/sites", sender("Late", receiving["id"].clone())).error_fields(), vec!["siteIdReceivingInvoice"]);
    }

    fn sites_filter_sort_and_count_as_the_interface_lists(app) {
        let w = world(&app);
        let first = create_site(&app, site_body(&w, "Alpha Leeds"));
        let mut paid = site_body(&w, "Beta York");
        paid["siteInvoiceDetails"]["paymentMethod"] = json!("PROVIDER_B");
        paid["siteInvoiceDetails"]["mandateReference"] = json!("MB-1");
        let second = create_site(&app, paid);
        let ended = create_site(&app, with(with(site_body(&w, "Gamma"), "/endDate", json!("2026-01-31")), "/siteReference", json!("S-9")));
        let other_cycle = id(&app.create("/v1/billing-cycles", json!({ "name": "Quarterly" })));
        let other = customer_of(&app, w.owner, other_cycle, "Other");
        create_site(&app, with(site_body(&w, "Delta"), "/customerId", json!(other)));
        assert_eq!(count(&app, ""), 4);
        assert_eq!(count(&app, &format!("customerId={}", w.customer)), 3);
        assert_eq!(count(&app, "siteName=like:leeds"), 1);
        assert_eq!(count(&app, "siteName=in:Gamma,Delta"), 2);
        assert_eq!(count(&app, "siteReference=S-9"), 1);
        assert_eq!(count(&app, "mandateStatus=Active"), 1);
        assert_eq!(count(&app, "mandateReference=MB-1"), 1);
        assert_eq!(count(&app, "mandateReference=like:mb"), 1);
        let today = chrono::Utc::now().date_naive();
        assert_eq!(count(&app, &format!("mandateCreatedDate={today}")), 1);
        assert_eq!(count(&app, &format!("mandateUpdatedDate=lt:{today}")), 0);
        assert_eq!(count(&app, &format!("invoiceTemplateId={}", w.invoice_template)), 4);
        assert_eq!(count(&app, &format!("billingCycleId={other_cycle}")), 1);
        assert_eq!(count(&app, "activeSites=true"), 3);
        assert_eq!(count(&app, "activeSites=false"), 4);
        assert_eq!(count(&app, "createdDate=lt:2000-01-01T00:00:00Z"), 0);
        assert_eq!(count(&app, "updatedDate=gt:2000-01-01T00:00:00Z"), 4);
        for bad in ["activeSites=maybe", "mandateCreatedDate=yesterday", "customerId=x", "siteColour=red"] {
            let reply = app.get(&format!("/v1/sites?page=1&pageSize=10&{bad}"));
            reply.assert_problem(400);
        }
        let sorted = app.get("/v1/sites?page=1&pageSize=10&sort=siteName:desc&fields=id,siteName,siteAddress").json();
        assert_eq!(sorted[0]["siteName"], "Gamma");
        assert_eq!(sorted[0].as_object().expect("row").len(), 3);
        assert_eq!(sorted[0]["siteAddress"]["town"], "Leeds");
        // Sort and fields reach the members of the site's single parts.
        let town = |name: &str, town: &str| {
            let site = app.get(&format!("/v1/sites?page=1&pageSize=1&siteName={}", name.replace(' ', "%20"))).json();
            let path = format!("/v1/sites/{}", site[0]["id"]);
            assert_eq!(app.patch(&path, json!([{ "op": "replace", "path": "/siteAddress/town", "value": town }])).status, 200);
        };
        town("Beta York", "York");
        town("Delta", "Bath");
        let by_town = app.get("/v1/sites?page=1&pageSize=10&sort=siteAddress.town,siteName:desc&fields=siteName,siteAddress.town").json();
        let names: Vec<&str> = by_town.as_array().expect("rows").iter().map(|row| row["siteName"].as_str().unwrap_or_default()).collect();
        assert_eq!(names, ["Delta", "Gamma", "Alpha Leeds", "Beta York"]);
        assert_eq!(by_town[0], json!({ "siteName": "Delta", "siteAddress": { "town": "Bath" } }));
        let by_method = app.get("/v1/sites?page=1&pageSize=10&sort=siteInvoiceDetails.paymentMethod:desc,id&fields=id").json();
        assert_eq!(by_method[0]["id"], second["id"], "PROVIDER_B sorts after CHEQUE");
        for bad in ["sort=siteAddress.colour", "sort=siteContacts.contactName", "fields=siteAddress.colour", "sort=siteAddress.id"] {
            app.get(&format!("/v1/sites?page=1&pageSize=10&{bad}")).assert_problem(400);
        }
        // HEAD: the count, 404 when nothing matches, never a body.
        let head = app.head(&format!("/v1/sites?customerId={}&activeSites=true", w.customer));
        assert_eq!(head.status, 200);
        assert_eq!(head.header("x-total-count"), Some("2"));
        assert!(head.text.is_empty());
        let none = app.head("/v1/sites?siteName=Nowhere");
        assert_eq!(none.status, 404);
        assert_eq!(none.header("x-total-count"), Some("0"));
        assert_eq!(app.head("/v1/sites?activeSites=yes").status, 400);
        let _ = (first, second, ended);
    }

    fn a_cascaded_end_date_reaches_the_sites_inventory(app) {
        let w = world(&app);
        let site = create_site(&app, site_body(&w, "Shop"));
        let path = format!("/v1/sites/{}", site["id"]);
        let item = |code: &str, end: Value| {
            app.create("/v1/inventory-items", json!({ "siteId": site["id"], "productCode": code, "startDate": "2026-01-01", "endDate": end }))
        };
        let open = item("LINE", Value::Null);
        assert_eq!(open["quantity"], 1, "quantity defaults to 1");
        let later = item("ROUTER", json!("2027-01-01"));
        let earlier = item("PROMO", json!("2026-03-01"));
        let end = json!([{ "op": "add", "path": "/endDate", "value": "2026-06-30" }]);
        // The header must be true or false; true needs an /endDate operation.
        patch_with_headers(&app, &path, &[("cascade_end_date", "yes")], end.clone()).assert_problem(400);
        let without = patch_with_headers(&app, &path, &[("cascade_end_date", "true")],
            json!([{ "op": "replace", "path": "/siteName", "value": "Renamed" }]));
        assert_eq!(without.assert_problem(400)["errors"][0]["field"], "cascade_end_date");
        assert_eq!(app.get(&path).json()["siteName"], "Shop", "nothing was written");
        // false (or no header) leaves the inventory alone.
        let plain = patch_with_headers(&app, &path, &[("cascade_end_date", "false")], end.clone());
        assert_eq!(plain.status, 200, "{}", plain.text);
        let item_end = |item: &Value| app.get(&format!("/v1/inventory-items/{}", item["id"])).json()["endDate"].clone();
        assert_eq!(item_end(&open), Value::Null);
        // true: items ending later or never end with the site; earlier ones keep their date.
        let cascaded = patch_with_headers(&app, &path, &[("cascade_end_date", "true")],
            json!([{ "op": "replace", "path": "/endDate", "value": "2026-05-31" }]));
        assert_eq!(cascaded.status, 200, "{}", cascaded.text);
        assert_eq!(item_end(&open), "2026-05-31");
        assert_eq!(item_end(&later), "2026-05-31");
        assert_eq!(item_end(&earlier), "2026-03-01");
        // Each cascaded item leaves its own audit event, in the site patch's request.
        let events = app.get("/v1/audit-events?page=1&pageSize=10&resource=inventory-items&action=UPDATE&sort=id").json();
        assert_eq!(events.as_array().expect("events").len(), 2, "{events}");
        assert_eq!(events[0]["before"]["endDate"], Value::Null);
        assert_eq!(events[0]["after"]["endDate"], "2026-05-31");
        // The OpenAPI document describes the header on the site patch.
        let document = app.get("/v1/openapi.json").json();
        let parameters = document["paths"]["/v1/sites/{id}"]["patch"]["parameters"].as_array().expect("parameters").clone();
        assert!(parameters.iter().any(|p| p["name"] == "cascade_end_date" && p["in"] == "header"), "{parameters:?}");
    }

    fn a_customer_is_created_with_its_sites_in_one_transaction(app) {
        let w = world(&app);
        let customer = |sites: Value| json!({ "customerName": "New Co", "customerReference": "N-1",
            "contractOwnerId": w.owner, "billingCycleId": w.cycle, "startDate": "2026-01-01", "sites": sites });
        let embedded = |name: &str| with(site_body(&w, name), "/customerId", json!(0));
        let created = app.post("/v1/customers", customer(json!([embedded("North"), embedded("South")])));
        assert_eq!(created.status, 201, "{}", created.text);
        let body = created.json();
        let sites = body["sites"].as_array().expect("the created sites").clone();
        assert_eq!(sites.len(), 2);
        assert!(sites.iter().all(|site| site["customerId"] == body["id"] && site["siteAddress"]["id"].is_i64()));
        assert_eq!(count(&app, &format!("customerId={}", body["id"])), 2);
        // The customer as read has no sites member; its sites are read as sites.
        assert!(app.get(&format!("/v1/customers/{}", body["id"])).json().get("sites").is_none());
        let events = app.get("/v1/audit-events?page=1&pageSize=10&resource=sites").json();
        assert_eq!(events.as_array().expect("events").len(), 2, "each site is audited");
        // One broken site: nothing is written, and the error names it within the body.
        let customers_before = app.get("/v1/customers?page=1&pageSize=100").json().as_array().expect("array").len();
        let broken = app.post("/v1/customers", customer(json!([embedded("East"), with(embedded("West"), "/siteAddress/town", json!(""))])));
        assert_eq!(broken.error_fields(), vec!["sites[1].siteAddress.town"]);
        let mismatched = app.post("/v1/customers", customer(json!([with(embedded("East"), "/customerId", json!(w.customer))])));
        assert_eq!(mismatched.error_fields(), vec!["sites[0].customerId"]);
        assert_eq!(app.post("/v1/customers", customer(json!({ "siteName": "x" }))).error_fields(), vec!["sites"]);
        let rule = with(embedded("Two marks"), "/siteContacts/1/contactNameToAppearOnInvoice", json!(true));
        assert_eq!(app.post("/v1/customers", customer(json!([rule]))).error_fields(), vec!["sites[0].siteContacts[1].receiveInvoiceBy"]);
        assert_eq!(app.get("/v1/customers?page=1&pageSize=100").json().as_array().expect("array").len(), customers_before);
        assert_eq!(count(&app, ""), 2);
        // A customer created without sites answers as before; sites are not accepted by PUT.
        let bare = app.post("/v1/customers", customer(json!([])));
        assert_eq!(bare.status, 201);
        let path = format!("/v1/customers/{}", bare.json()["id"]);
        let mut replacement = customer(json!([]));
        assert_eq!(app.put(&path, replacement.clone()).error_fields(), vec!["sites"]);
        replacement.as_object_mut().expect("object").remove("sites");
        assert_eq!(app.put(&path, replacement).status, 200);
        // A user who may not write customers (nor sites) is refused before anything is read.
        let reader = app.user_with_roles("reference", &["REFERENCE_DATA_MANAGER"]);
        app.post_as(&reader, "/v1/customers", customer(json!([embedded("North")]))).assert_problem(403);
    }

    fn ad_hoc_bill_runs_name_sites(app) {
        let w = world(&app);
        let one = create_site(&app, site_body(&w, "One"));
        let two = create_site(&app, site_body(&w, "Two"));
        create_site(&app, site_body(&w, "Three"));
        let run = app.create("/v1/adhoc-bill-runs", json!({ "name": "Year end", "siteIds": [two["id"], one["id"]] }));
        assert_eq!(run["siteIds"], json!([two["id"], one["id"]]), "in the order given");
        let path = format!("/v1/adhoc-bill-runs/{}", run["id"]);
        assert_eq!(app.get(&path).json(), run);
        assert_eq!(app.create("/v1/adhoc-bill-runs", json!({ "name": "Empty" }))["siteIds"], json!([]));
        // Sites filter and count by the runs that bill them.
        assert_eq!(count(&app, &format!("adhocBillRunId={}", run["id"])), 2);
        let head = app.head(&format!("/v1/sites?adhocBillRunId={}", run["id"]));
        assert_eq!(head.header("x-total-count"), Some("2"));
        // Each entry is checked and named by its place.
        let refused = |ids: Value| app.post("/v1/adhoc-bill-runs", json!({ "name": "Bad", "siteIds": ids })).error_fields();
        assert_eq!(refused(json!([one["id"], 999])), vec!["siteIds[1]"]);
        assert_eq!(refused(json!([one["id"], one["id"]])), vec!["siteIds[1]"]);
        assert_eq!(refused(json!([one["id"], 0])), vec!["siteIds[1]"]);
        assert_eq!(refused(json!([one["id"], "x"])), vec!["siteIds[1]"]);
        assert_eq!(refused(Value::Null), vec!["siteIds"]);
        // A patch appends or removes a site.
        let patched = app.patch(&path, json!([{ "op": "add", "path": "/siteIds/-", "value": 3 }, { "op": "remove", "path": "/siteIds/0" }]));
        assert_eq!(patched.status, 200, "{}", patched.text);
        assert_eq!(patched.json()["siteIds"], json!([one["id"], 3]));
        // A restricted user names only their own contract owners' sites.
        let rival_owner = id(&app.create("/v1/contract-owners", json!({ "name": "Rival" })));
        let rival = customer_of(&app, rival_owner, w.cycle, "Rival customer");
        let theirs = create_site(&app, with(site_body(&w, "Theirs"), "/customerId", json!(rival)));
        let reply = app.post("/v1/users", json!({ "username": "restricted", "password": "a-long-enough-password",
            "roles": ["CUSTOMER_MANAGER"], "contractOwnerIds": [w.owner] }));
        assert_eq!(reply.status, 201, "{}", reply.text);
        let token = app.login("restricted", "a-long-enough-password");
        app.post_as(&token, "/v1/adhoc-bill-runs", json!({ "name": "Mine", "siteIds": [theirs["id"]] })).assert_problem(403);
        assert_eq!(app.post_as(&token, "/v1/adhoc-bill-runs", json!({ "name": "Mine", "siteIds": [one["id"]] })).status, 201);
    }

    fn racing_patches_never_leave_two_invoice_contacts(app) {
        let w = world(&app);
        let mut body = site_body(&w, "Race");
        body["siteContacts"] = json!((0..6).map(|n| json!({ "contactName": format!("C{n}"), "contactRole": "GENERAL" })).collect::<Vec<_>>());
        let site = create_site(&app, body);
        let path = format!("/v1/sites/{}", site["id"]);
        let statuses: Vec<u16> = std::thread::scope(|scope| {
            let handles: Vec<_> = (1..6).map(|index| {
                let (app, path) = (&app, &path);
                scope.spawn(move || app.patch(path, json!([
                    { "op": "replace", "path": format!("/siteContacts/{index}/contactNameToAppearOnInvoice"), "value": true },
                    { "op": "replace", "path": format!("/siteContacts/{index}/receiveInvoiceBy"), "value": "POST" },
                    { "op": "replace", "path": "/siteName", "value": format!("Won by {index}") }
                ])).status)
            }).collect();
            handles.into_iter().map(|handle| handle.join().expect("thread")).collect()
        });
        assert!(statuses.iter().all(|status| matches!(status, 200 | 409)), "{statuses:?}");
        assert!(statuses.contains(&200), "{statuses:?}");
        let now = app.get(&path).json();
        let marked: Vec<usize> = now["siteContacts"].as_array().expect("contacts").iter().enumerate()
            .filter(|(_, contact)| contact["contactNameToAppearOnInvoice"] == true).map(|(index, _)| index).collect();
        assert_eq!(marked.len(), 1, "{now}");
        // The winner's whole patch applied: its name and its contact together.
        assert_eq!(now["siteName"], format!("Won by {}", marked[0]));
        // A stale ETag (the site's first version) is refused.
        let reply = app.send("PATCH", &path, Some(&app.admin_token), &[("If-Match", "\"1\"")],
            Some(("application/json-patch+json", json!([{ "op": "replace", "path": "/siteName", "value": "Late" }]).to_string())));
        reply.assert_problem(412);
    }

    fn a_restricted_user_sees_only_their_contract_owners_sites(app) {
        let w = world(&app);
        let other_owner = id(&app.create("/v1/contract-owners", json!({ "name": "Rival" })));
        let rival = customer_of(&app, other_owner, w.cycle, "Rival customer");
        let mine = create_site(&app, site_body(&w, "Mine"));
        let theirs = create_site(&app, with(site_body(&w, "Theirs"), "/customerId", json!(rival)));
        let their_item = app.create("/v1/inventory-items", json!({ "siteId": theirs["id"], "productCode": "X", "startDate": "2026-01-01" }));
        let reply = app.post("/v1/users", json!({ "username": "restricted", "password": "a-long-enough-password",
            "roles": ["CUSTOMER_MANAGER"], "contractOwnerIds": [w.owner] }));
        assert_eq!(reply.status, 201, "{}", reply.text);
        let token = app.login("restricted", "a-long-enough-password");
        let listed = app.get_as(&token, "/v1/sites?page=1&pageSize=10");
        assert_eq!(listed.header("x-total-count"), Some("1"));
        assert_eq!(listed.json()[0]["id"], mine["id"]);
        app.get_as(&token, &format!("/v1/sites/{}", theirs["id"])).assert_problem(403);
        assert_eq!(app.get_as(&token, &format!("/v1/sites/{}", mine["id"])).status, 200);
        let sneaky = with(site_body(&w, "Sneaky"), "/customerId", json!(rival));
        app.post_as(&token, "/v1/sites", sneaky).assert_problem(403);
        assert_eq!(app.get_as(&token, "/v1/inventory-items?page=1&pageSize=10").header("x-total-count"), Some("0"));
        app.get_as(&token, &format!("/v1/inventory-items/{}", their_item["id"])).assert_problem(403);
        app.post_as(&token, "/v1/inventory-items", json!({ "siteId": theirs["id"], "productCode": "Y", "startDate": "2026-01-01" })).assert_problem(403);
        assert_eq!(count(&app, ""), 2, "the refused create wrote nothing");
    }
}
