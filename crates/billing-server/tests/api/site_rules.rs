//! Rules of docs/api.md "Sites" that `sites.rs` leaves out: a custom field's label sent back,
//! a site switching its invoice routing both ways by patch, a site sending to itself, the
//! template ids fixed once the details exist, the mandate a site names, and the members a body
//! may not carry; choices of other records checked when they are made, so that a site stays
//! editable when the receiving site ends or the mandate is cancelled later.

use serde_json::{Value, json};

use crate::sites::{create_site, id, site_body, with, world};

api_test! {
    fn a_custom_fields_label_may_be_sent_back_and_is_the_definitions(app) {
        let w = world(&app);
        let custom = |label: Value| json!([{ "customFieldDefinitionId": w.field, "label": label, "value": "CC-1" }]);
        // As a read shows it: accepted (the interface lists `label` as optional in a body).
        let site = create_site(&app, with(site_body(&w, "A"), "/assignedCustomFields", custom(json!("Cost centre"))));
        assert_eq!(site["assignedCustomFields"][0]["label"], "Cost centre");
        // Another label, or null, changes nothing: the label is the definition's.
        for label in [json!("Something else"), Value::Null] {
            let other = create_site(&app, with(site_body(&w, "B"), "/assignedCustomFields", custom(label)));
            assert_eq!(other["assignedCustomFields"][0]["label"], "Cost centre");
        }
        // Of the wrong type or length: 400 naming it.
        for label in [json!(5), json!(""), json!("x".repeat(256))] {
            let wrong = app.post("/v1/sites", with(site_body(&w, "C"), "/assignedCustomFields", custom(label)));
            assert_eq!(wrong.error_fields(), vec!["assignedCustomFields[0].label"], "{}", wrong.text);
        }
        // A patch may not change it, but may add an element that carries one.
        let path = format!("/v1/sites/{}", site["id"]);
        assert_eq!(app.patch(&path, json!([{ "op": "replace", "path": "/assignedCustomFields/0/label", "value": "X" }])).error_fields(), vec!["[0].path"]);
        let region = id(&app.create("/v1/custom-field-definitions", json!({ "label": "Region" })));
        let added = app.patch(&path, json!([{ "op": "add", "path": "/assignedCustomFields/-",
            "value": { "customFieldDefinitionId": region, "label": "Area", "value": "North" } }]));
        assert_eq!(added.status, 200, "{}", added.text);
        assert_eq!(added.json()["assignedCustomFields"][1]["label"], "Region");
        // A renamed definition renames what sites show.
        assert_eq!(app.patch(&format!("/v1/custom-field-definitions/{region}"), json!([{ "op": "replace", "path": "/label", "value": "Zone" }])).status, 200);
        assert_eq!(app.get(&path).json()["assignedCustomFields"][1]["label"], "Zone");
    }

    fn a_site_switches_its_invoice_routing_by_patch_both_ways(app) {
        let w = world(&app);
        let head = create_site(&app, site_body(&w, "Head office"));
        let branch = create_site(&app, site_body(&w, "Branch"));
        let path = format!("/v1/sites/{}", branch["id"]);
        // From its own details to another site's.
        let sending = app.patch(&path, json!([
            { "op": "remove", "path": "/siteInvoiceDetails" },
            { "op": "add", "path": "/siteIdReceivingInvoice", "value": head["id"] }
        ]));
        assert_eq!(sending.status, 200, "{}", sending.text);
        assert_eq!(sending.json()["siteInvoiceDetails"], Value::Null);
        assert_eq!(sending.json()["siteIdReceivingInvoice"], head["id"]);
        // And back: the details are new, so their templates may be chosen again.
        let details = json!({ "invoiceTemplateId": w.invoice_template, "invoiceSummaryTemplateId": w.summary_template,
            "paymentMethod": "CHEQUE", "paymentTermsInDays": 14 });
        let own = app.patch(&path, json!([
            { "op": "remove", "path": "/siteIdReceivingInvoice" },
            { "op": "add", "path": "/siteInvoiceDetails", "value": details }
        ]));
        assert_eq!(own.status, 200, "{}", own.text);
        assert_eq!(own.json()["siteIdReceivingInvoice"], Value::Null);
        assert_eq!(own.json()["siteInvoiceDetails"]["invoiceSummaryTemplateId"], w.summary_template);
        assert_eq!(own.json()["siteInvoiceDetails"]["paymentTermsInDays"], 14);
        // Neither, or both: 400 naming the one that is wrong.
        assert_eq!(app.patch(&path, json!([{ "op": "remove", "path": "/siteInvoiceDetails" }])).error_fields(), vec!["siteInvoiceDetails"]);
        assert_eq!(app.patch(&path, json!([{ "op": "add", "path": "/siteIdReceivingInvoice", "value": head["id"] }])).error_fields(), vec!["siteIdReceivingInvoice"]);
    }

    fn a_site_cannot_send_its_invoices_to_itself(app) {
        let w = world(&app);
        let site = create_site(&app, site_body(&w, "Alone"));
        let path = format!("/v1/sites/{}", site["id"]);
        let refused = app.patch(&path, json!([
            { "op": "remove", "path": "/siteInvoiceDetails" },
            { "op": "add", "path": "/siteIdReceivingInvoice", "value": site["id"] }
        ]));
        assert_eq!(refused.error_fields(), vec!["siteIdReceivingInvoice"], "{}", refused.text);
        assert!(app.get(&path).json()["siteInvoiceDetails"].is_object());
    }

    fn the_template_ids_are_fixed_once_the_details_exist(app) {
        let w = world(&app);
        let site = create_site(&app, site_body(&w, "No summary"));
        let path = format!("/v1/sites/{}", site["id"]);
        // Details created without a summary template do not gain one later.
        let added = app.patch(&path, json!([{ "op": "add", "path": "/siteInvoiceDetails/invoiceSummaryTemplateId", "value": w.summary_template }]));
        assert_eq!(added.error_fields(), vec!["siteInvoiceDetails.invoiceSummaryTemplateId"]);
        assert!(added.text.contains("set on creation only"), "{}", added.text);
        // Sending the same values back changes nothing and is accepted.
        let same = app.patch(&path, json!([{ "op": "replace", "path": "/siteInvoiceDetails/invoiceTemplateId", "value": w.invoice_template }]));
        assert_eq!(same.status, 200, "{}", same.text);
    }

    fn a_mandate_sites_name_keeps_its_provider_and_references_are_unique_per_provider(app) {
        let w = world(&app);
        let details = json!({ "invoiceTemplateId": w.invoice_template, "paymentTermsInDays": 30,
            "paymentMethod": "PROVIDER_B", "mandateReference": "MB-1" });
        create_site(&app, with(site_body(&w, "Direct"), "/siteInvoiceDetails", details));
        let mandates = app.get("/v1/payment-provider-mandates?page=1&pageSize=10&mandateReference=MB-1").json();
        let mandate_path = format!("/v1/payment-provider-mandates/{}", mandates[0]["id"]);
        app.patch(&mandate_path, json!([{ "op": "replace", "path": "/provider", "value": "PROVIDER_D" }])).assert_problem(409);
        // Its status may change: the site shows it.
        assert_eq!(app.patch(&mandate_path, json!([{ "op": "replace", "path": "/status", "value": "Submitted" }])).status, 200);
        // A second mandate of the provider with the same reference: 409; of another provider: fine.
        let twin = |provider: &str| app.post("/v1/payment-provider-mandates",
            json!({ "provider": provider, "mandateReference": "MB-1", "status": "Active" }));
        twin("PROVIDER_B").assert_problem(409);
        assert_eq!(twin("PROVIDER_D").status, 201);
    }

    fn a_body_may_not_carry_what_the_mandate_or_the_server_decides(app) {
        let w = world(&app);
        for member in ["mandateStatus", "mandateCreatedDate", "mandateUpdatedDate"] {
            let value = if member == "mandateStatus" { json!("Active") } else { json!("2026-01-01T00:00:00Z") };
            let body = with(site_body(&w, "A"), &format!("/siteInvoiceDetails/{member}"), value);
            assert_eq!(app.post("/v1/sites", body).error_fields(), vec![format!("siteInvoiceDetails.{member}")]);
        }
        for member in ["id", "createdDate", "updatedDate"] {
            let body = with(site_body(&w, "A"), &format!("/{member}"), json!(1));
            assert_eq!(app.post("/v1/sites", body).error_fields(), vec![member.to_owned()]);
        }
        // A contact marked in a patch must have a way to receive the invoice.
        let body = with(site_body(&w, "B"), "/siteContacts/0/contactEmailAddress", Value::Null);
        let site = create_site(&app, body);
        let path = format!("/v1/sites/{}", site["id"]);
        let marked = app.patch(&path, json!([{ "op": "replace", "path": "/siteContacts/1/contactNameToAppearOnInvoice", "value": true }]));
        assert_eq!(marked.error_fields(), vec!["siteContacts[1].receiveInvoiceBy"], "{}", marked.text);
    }

    fn a_site_that_has_ended_stays_editable_when_its_receiving_site_ends_later(app) {
        let w = world(&app);
        let end = |path: &str, date: &str| app.patch(path, json!([{ "op": "add", "path": "/endDate", "value": date }]));
        let sender = |receiver: &Value, name: &str| {
            let body = with(site_body(&w, name), "/siteInvoiceDetails", Value::Null);
            create_site(&app, with(body, "/siteIdReceivingInvoice", receiver["id"].clone()))
        };
        for (receiver_end, what) in [("2026-11-01", "after the sender"), ("2026-06-01", "before the sender")] {
            let head = create_site(&app, site_body(&w, "Head office"));
            let branch = sender(&head, "Branch");
            let (head_path, branch_path) = (format!("/v1/sites/{}", head["id"]), format!("/v1/sites/{}", branch["id"]));
            assert_eq!(end(&branch_path, "2026-10-01").status, 200);
            // The branch has ended: it does not hold the head office (docs/api.md "Sites").
            let ended = end(&head_path, receiver_end);
            assert_eq!(ended.status, 200, "{what}: {}", ended.text);
            // The branch is still editable, whatever its receiver did after it.
            let renamed = app.patch(&branch_path, json!([{ "op": "replace", "path": "/siteName", "value": "Old branch" }]));
            assert_eq!(renamed.status, 200, "{what}: {}", renamed.text);
            // A new end date must still be covered by the receiver's.
            let later = end(&branch_path, "2026-10-15");
            if receiver_end == "2026-11-01" {
                assert_eq!(later.status, 200, "{what}: {}", later.text);
            } else {
                assert_eq!(later.error_fields(), vec!["siteIdReceivingInvoice"], "{what}: {}", later.text);
                assert_eq!(end(&branch_path, "2026-05-01").status, 200, "{what}");
            }
            // A site in force cannot start sending to the ended head office.
            let body = with(site_body(&w, "New"), "/siteInvoiceDetails", Value::Null);
            let refused = app.post("/v1/sites", with(body, "/siteIdReceivingInvoice", head["id"].clone()));
            assert_eq!(refused.error_fields(), vec!["siteIdReceivingInvoice"], "{what}: {}", refused.text);
        }
    }

    fn a_site_whose_mandate_is_cancelled_stays_editable_and_can_end(app) {
        let w = world(&app);
        let details = json!({ "invoiceTemplateId": w.invoice_template, "paymentTermsInDays": 30,
            "paymentMethod": "PROVIDER_B", "mandateReference": "MB-1" });
        let site = create_site(&app, with(site_body(&w, "Direct"), "/siteInvoiceDetails", details.clone()));
        let path = format!("/v1/sites/{}", site["id"]);
        let mandates = app.get("/v1/payment-provider-mandates?page=1&pageSize=10&mandateReference=MB-1").json();
        let mandate_path = format!("/v1/payment-provider-mandates/{}", mandates[0]["id"]);
        assert_eq!(app.patch(&mandate_path, json!([{ "op": "replace", "path": "/status", "value": "Cancelled" }])).status, 200);
        // The site shows the cancelled mandate, and may still be edited and ended.
        let renamed = app.patch(&path, json!([
            { "op": "replace", "path": "/siteName", "value": "Direct (old)" },
            { "op": "replace", "path": "/siteInvoiceDetails/paymentTermsInDays", "value": 14 }]));
        assert_eq!(renamed.status, 200, "{}", renamed.text);
        assert_eq!(renamed.json()["siteInvoiceDetails"]["mandateStatus"], "Cancelled");
        let ended = app.patch(&path, json!([{ "op": "add", "path": "/endDate", "value": "2026-10-01" }]));
        assert_eq!(ended.status, 200, "{}", ended.text);
        // Choosing the cancelled mandate is refused: on a new site, and on a site changing to it.
        let field = "siteInvoiceDetails.mandateReference";
        let created = app.post("/v1/sites", with(site_body(&w, "New"), "/siteInvoiceDetails", details));
        assert_eq!(created.error_fields(), vec![field], "{}", created.text);
        let other = create_site(&app, site_body(&w, "Cheque"));
        let switched = app.patch(&format!("/v1/sites/{}", other["id"]), json!([
            { "op": "replace", "path": "/siteInvoiceDetails/paymentMethod", "value": "PROVIDER_B" },
            { "op": "add", "path": "/siteInvoiceDetails/mandateReference", "value": "MB-1" }]));
        assert_eq!(switched.error_fields(), vec![field], "{}", switched.text);
    }
}
