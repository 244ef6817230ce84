//! Sites in lists and across records: filters, sort and HEAD counts, the cascade header,
//! customers created with their sites, ad hoc bill runs, racing patches and the
//! contract-owner scope.

use serde_json::{Value, json};

#[allow(unused_imports)]
use super::sites::{
    World, address, count, create_site, customer_of, id, patch_with_headers, site_body, with, world,
};

api_test! {
    fn after_a_mandate_date_or_none_counts_sites_without_invoice_details(app) {
        // gtn: is "after the day or no date at all" (docs/api.md): a site without a mandate,
        // and a site that sends its invoices elsewhere, which has no mandate date either.
        let w = world(&app);
        let mut paid = site_body(&w, "Paid");
        paid["siteInvoiceDetails"]["paymentMethod"] = json!("PROVIDER_B");
        paid["siteInvoiceDetails"]["mandateReference"] = json!("MB-1");
        create_site(&app, paid);
        let unpaid = create_site(&app, site_body(&w, "Unpaid"));
        let mut sending = site_body(&w, "Sending");
        sending["siteInvoiceDetails"] = Value::Null;
        sending["siteIdReceivingInvoice"] = unpaid["id"].clone();
        create_site(&app, sending);
        let today = chrono::Utc::now().date_naive();
        let yesterday = today.pred_opt().expect("a day before");
        assert_eq!(count(&app, &format!("mandateCreatedDate=gtn:{today}")), 2);
        assert_eq!(count(&app, &format!("mandateCreatedDate=gtn:{yesterday}")), 3);
        assert_eq!(count(&app, &format!("mandateCreatedDate=gt:{yesterday}")), 1);
        assert_eq!(count(&app, &format!("mandateUpdatedDate=gtn:{today}")), 2);
        // The last day there is: nothing is after it, and on it only what is dated then (on
        // SQLite the day after it was year 10000, which sorted before every date as text).
        for member in ["mandateCreatedDate", "mandateUpdatedDate"] {
            assert_eq!(count(&app, &format!("{member}=gt:9999-12-31")), 0, "{member}");
            assert_eq!(count(&app, &format!("{member}=gtn:9999-12-31")), 2, "{member}");
            assert_eq!(count(&app, &format!("{member}=9999-12-31")), 0, "{member}");
            assert_eq!(count(&app, &format!("{member}=lt:9999-12-31")), 1, "{member}");
            assert_eq!(count(&app, &format!("{member}={today}")), 1, "{member}");
        }
    }

    fn sites_filter_by_their_customers_sub_brand(app) {
        let w = world(&app);
        create_site(&app, site_body(&w, "Unbranded"));
        // Sites filter by their customer's sub-brand.
        let branded_owner = app.create("/v1/contract-owners", json!({ "name": "Branded", "subBrands": [{ "name": "North" }] }));
        let brand = branded_owner["subBrands"][0]["id"].as_i64().expect("brand");
        let branded = id(&app.create("/v1/customers", json!({ "customerName": "Branded customer", "customerReference": "B-1",
            "contractOwnerId": branded_owner["id"], "contractOwnerSubBrandId": brand, "billingCycleId": w.cycle, "startDate": "2026-01-01" })));
        assert_eq!(count(&app, &format!("contractOwnerSubBrandId={brand}")), 0);
        let branded_site = create_site(&app, with(site_body(&w, "Branded site"), "/customerId", json!(branded)));
        let by_brand = app.get(&format!("/v1/sites?page=1&pageSize=10&contractOwnerSubBrandId={brand}"));
        assert_eq!(by_brand.header("x-total-count"), Some("1"));
        assert_eq!(by_brand.json()[0]["id"], branded_site["id"]);
        assert_eq!(app.patch(&format!("/v1/sites/{}", branded_site["id"]), json!([{ "op": "replace", "path": "/customerId", "value": w.customer }])).status, 200);
        assert_eq!(count(&app, &format!("contractOwnerSubBrandId={brand}")), 0);
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
        // An equal date-time names every instant of its precision: the stored stamp carries
        // microseconds, the second it falls in finds it, and so does the stamp itself.
        let stamp = second["createdDate"].as_str().expect("createdDate").to_owned();
        let whole_second = format!("{}Z", &stamp[..19]);
        let in_second = |filter: &str| {
            let ids = app.get(&format!("/v1/sites?page=1&pageSize=10&createdDate={filter}")).json();
            ids.as_array().expect("page").iter().any(|site| site["id"] == second["id"])
        };
        assert!(in_second(&whole_second), "{whole_second}");
        assert!(in_second(&stamp), "{stamp}");
        let next_second = (chrono::DateTime::parse_from_rfc3339(&whole_second).expect("stamp") + chrono::Duration::seconds(1))
            .format("%Y-%m-%dT%H:%M:%SZ").to_string();
        assert!(!in_second(&next_second), "{next_second}");
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
        // Totals a first page cannot say: read from the rows the triggers keep (no filter;
        // activeSites=true: those less the ended ones) or counted, the same numbers.
        let totals = |app: &crate::support::TestApp| -> Vec<String> {
            ["", "activeSites=true", "activeSites=false", "siteName=like:a"]
                .iter()
                .map(|query| {
                    let listed = app.get(&format!("/v1/sites?page=1&pageSize=1&{query}"));
                    let head = app.head(&format!("/v1/sites?page=1&pageSize=1&{query}"));
                    assert_eq!(listed.header("x-total-count"), head.header("x-total-count"), "{query}");
                    listed.header("x-total-count").unwrap_or_default().to_owned()
                })
                .collect()
        };
        assert_eq!(totals(&app), ["4", "3", "4", "4"]);
        let today = chrono::Utc::now().date_naive();
        let end = |site: &Value, day: chrono::NaiveDate| {
            let path = format!("/v1/sites/{}", site["id"]);
            let reply = app.patch(&path, json!([{ "op": "add", "path": "/endDate", "value": day.to_string() }]));
            assert_eq!(reply.status, 200, "{}", reply.text);
        };
        end(&first, today);
        assert_eq!(totals(&app), ["4", "3", "4", "4"], "ending today is still active");
        end(&first, today - chrono::Duration::days(1));
        assert_eq!(totals(&app), ["4", "2", "4", "4"], "ended yesterday");
        let _ = (first, second, ended);
    }

    fn like_on_optional_and_owned_members_lowers_both_sides_alike(app) {
        // Where the backends' lower-casing differs from Rust's (PostgreSQL's on `İ`), the value
        // and the column go through the same `lower`: an optional member and a member of an
        // owned record find what they are part of, as a required one does.
        let w = world(&app);
        create_site(&app, with(site_body(&w, "Tagged"), "/matchmakerMatchingTag", json!("İstanbul-north")));
        app.create("/v1/payment-provider-mandates", json!({ "provider": "PROVIDER_B",
            "mandateReference": "İzmir-1", "status": "Active", "thirdPartyCustomerReference": "TP-1" }));
        let mut paying = site_body(&w, "Paying");
        paying["siteInvoiceDetails"]["paymentMethod"] = json!("PROVIDER_B");
        paying["siteInvoiceDetails"]["mandateReference"] = json!("İzmir-1");
        create_site(&app, paying);
        let names = |query: &str| -> Vec<String> {
            let reply = app.get(&format!("/v1/sites?page=1&pageSize=10&{query}"));
            assert_eq!(reply.status, 200, "{}", reply.text);
            reply.json().as_array().expect("a page").iter().map(|site| site["siteName"].as_str().expect("name").to_owned()).collect()
        };
        assert_eq!(names("matchmakerMatchingTag=like:İstanbul"), vec!["Tagged"]);
        assert_eq!(names("matchmakerMatchingTag=like:-NORTH"), vec!["Tagged"]);
        assert_eq!(names("mandateReference=like:İzmir"), vec!["Paying"]);
        assert_eq!(names("mandateReference=like:zmir-1"), vec!["Paying"]);
    }

    fn a_record_still_used_is_409_naming_its_users_and_nothing_is_removed(app) {
        let w = world(&app);
        let mut body = site_body(&w, "Shop");
        body["assignedCustomFields"] = json!([{ "customFieldDefinitionId": w.field, "value": "CC-9" }]);
        let site = create_site(&app, body);
        // A contract owner with sub-brands and a customer: its own sub-brands are not named,
        // and survive the refused delete.
        let owner = app.create("/v1/contract-owners", json!({ "name": "Brands", "subBrands": [{ "name": "Brands Mobile" }] }));
        customer_of(&app, id(&owner), w.cycle, "Brand customer");
        let refused = |path: String, detail: String| {
            let problem = app.delete(&path).assert_problem(409);
            assert_eq!(problem["detail"], json!(detail), "{path}");
        };
        refused(format!("/v1/customers/{}", w.customer), format!("customer {} is still used by: sites", w.customer));
        refused(format!("/v1/billing-cycles/{}", w.cycle), format!("billing cycle {} is still used by: customers", w.cycle));
        refused(format!("/v1/invoice-templates/{}", w.invoice_template),
            format!("invoice template {} is still used by: siteInvoiceDetails", w.invoice_template));
        refused(format!("/v1/custom-field-definitions/{}", w.field),
            format!("custom field definition {} is still used by: siteAssignedCustomFields", w.field));
        refused(format!("/v1/contract-owners/{}", id(&owner)), format!("contract owner {} is still used by: customers", id(&owner)));
        let kept = app.get(&format!("/v1/contract-owners/{}", id(&owner))).json();
        assert_eq!(kept, owner, "nothing of the owner was removed");
        assert_eq!(app.get(&format!("/v1/sites/{}", site["id"])).json(), site);
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
        // An item that starts after the new end date cannot end on it: 409 naming it, and the
        // whole patch is undone (the site keeps its end date, no item changes).
        let future = app.create("/v1/inventory-items", json!({ "siteId": site["id"], "productCode": "LATE", "startDate": "2026-09-01" }));
        let refused = patch_with_headers(&app, &path, &[("cascade_end_date", "true")],
            json!([{ "op": "replace", "path": "/endDate", "value": "2026-04-30" }]));
        let problem = refused.assert_problem(409);
        assert!(problem["detail"].as_str().expect("detail").contains(&format!("inventory item {} (from 2026-09-01)", future["id"])), "{problem}");
        assert_eq!(app.get(&path).json()["endDate"], "2026-05-31");
        assert_eq!(item_end(&open), "2026-05-31");
        assert_eq!(item_end(&future), Value::Null);
        app.delete(&format!("/v1/inventory-items/{}", future["id"]));
        // Each cascaded item leaves its own audit event, in the site patch's request.
        let events = app.get("/v1/audit-events?page=1&pageSize=10&resource=inventory-items&action=UPDATE&sort=id").json();
        assert_eq!(events.as_array().expect("events").len(), 2, "{events}");
        assert_eq!(events[0]["before"]["endDate"], Value::Null);
        assert_eq!(events[0]["after"]["endDate"], "2026-05-31");
        // Any operation that writes /endDate gives the end date: a copy from /startDate too.
        let copied = patch_with_headers(&app, &path, &[("cascade_end_date", "true")],
            json!([{ "op": "copy", "from": "/startDate", "path": "/endDate" }]));
        assert_eq!(copied.status, 200, "{}", copied.text);
        for item in [&open, &later, &earlier] {
            assert_eq!(item_end(item), "2026-01-01");
        }
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
        // Every error of the body in one answer: the customer's own, each element that is not
        // an object, each site's members (as its own create names them) beside a wrong parent.
        assert_eq!(app.post("/v1/customers", customer(json!([5, "x"]))).error_fields(), vec!["sites[0]", "sites[1]"]);
        let empty = app.post("/v1/customers", customer(json!([{}]))).error_fields();
        for field in ["sites[0].customerId", "sites[0].siteName", "sites[0].siteAddress", "sites[0].siteContacts"] {
            assert!(empty.iter().any(|named| named == field), "{field} in {empty:?}");
        }
        let mut both = customer(json!([with(with(embedded("North"), "/customerId", json!(7)), "/siteAddress/town", json!(""))]));
        both["customerName"] = json!(5);
        assert_eq!(app.post("/v1/customers", both).error_fields(), vec!["customerName", "sites[0].customerId", "sites[0].siteAddress.town"]);
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
        // The refusal does not say whose the customer is.
        let refused = app.post_as(&token, "/v1/sites", sneaky).assert_problem(403);
        assert_eq!(refused["detail"], "customerId: is outside your contract owners");
        assert_eq!(app.get_as(&token, "/v1/inventory-items?page=1&pageSize=10").header("x-total-count"), Some("0"));
        app.get_as(&token, &format!("/v1/inventory-items/{}", their_item["id"])).assert_problem(403);
        app.post_as(&token, "/v1/inventory-items", json!({ "siteId": theirs["id"], "productCode": "Y", "startDate": "2026-01-01" })).assert_problem(403);
        assert_eq!(count(&app, ""), 2, "the refused create wrote nothing");
        // A patch of another owner's site, or one that moves a site of theirs to another
        // owner's customer, is 403 and changes nothing.
        let their_path = format!("/v1/sites/{}", theirs["id"]);
        let their_before = app.get(&their_path);
        app.patch_as(&token, &their_path, json!([{ "op": "replace", "path": "/siteName", "value": "Taken" }])).assert_problem(403);
        assert_eq!(app.get(&their_path).text, their_before.text);
        let my_path = format!("/v1/sites/{}", mine["id"]);
        let my_before = app.get(&my_path);
        let moved = app.patch_as(&token, &my_path, json!([{ "op": "replace", "path": "/customerId", "value": rival }])).assert_problem(403);
        assert_eq!(moved["detail"], "customerId: is outside your contract owners");
        assert_eq!(app.get(&my_path).text, my_before.text);
        assert_eq!(app.patch_as(&token, &my_path, json!([{ "op": "replace", "path": "/siteName", "value": "Still mine" }])).status, 200);
        // A site that does not exist is 404, for them as for an administrator.
        app.patch_as(&token, "/v1/sites/999999", json!([{ "op": "replace", "path": "/siteName", "value": "X" }])).assert_problem(404);
        app.patch("/v1/sites/999999", json!([{ "op": "replace", "path": "/siteName", "value": "X" }])).assert_problem(404);
    }
}
