//! A page of records with owned children costs one query per child table, whatever the page
//! size: the statements a list runs are counted with Diesel's instrumentation.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use billing_auth::AuthenticatedUser;
use billing_domain::query::{ListQuery, PageRequest};
use billing_domain::roles::{ContractOwnerScope, Role};
use billing_http::machinery::resource::Resource;
use billing_http::resources::contract_owners::{ContractOwners, Input};
use billing_http::resources::sites::Sites;
use billing_http::resources::{billing_cycles, customers, invoice_templates};
use billing_persistence::{Database, DatabaseConfig, DbConnection};
use diesel::connection::{Connection, InstrumentationEvent};

fn administrator() -> AuthenticatedUser {
    AuthenticatedUser {
        id: 1,
        username: "admin".into(),
        roles: vec![Role::Administrator],
        contract_owners: ContractOwnerScope::All,
        api_key_id: None,
    }
}

/// A fresh database: SQLite in a temporary directory, or a new PostgreSQL database on the
/// server of `TEST_DATABASE_URL` when `postgres` (dropped by the returned guard).
struct Fresh {
    database: Database,
    directory: std::path::PathBuf,
    postgres: Option<(String, String)>,
}

impl Drop for Fresh {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.directory);
        if let Some((server, name)) = &self.postgres {
            let _ = billing_persistence::scratch::drop_postgres_database(server, name);
        }
    }
}

fn open(name: &str, postgres: bool) -> Option<Fresh> {
    let directory = std::env::temp_dir().join(format!("{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&directory);
    let (url, scratch) = if postgres {
        let server = std::env::var("TEST_DATABASE_URL").ok()?;
        let database = format!("{}_{}", name.replace('-', "_"), std::process::id());
        let url = billing_persistence::scratch::create_postgres_database(&server, &database)
            .expect("a scratch PostgreSQL database");
        (Some(url), Some((server, database)))
    } else {
        (None, None)
    };
    let database = Database::open(&DatabaseConfig {
        url,
        data_dir: directory.clone(),
        pool_size: 1,
        connection_timeout: Duration::from_secs(5),
    })
    .expect("database");
    Some(Fresh {
        database,
        directory,
        postgres: scratch,
    })
}

/// The records of the first page of `page_size` of `R`, and how many statements reading it ran.
fn page_of<R: Resource>(
    database: &Database,
    caller: &AuthenticatedUser,
    page_size: u32,
) -> (Vec<R::Record>, usize) {
    let counter = Arc::new(AtomicUsize::new(0));
    let seen = Arc::clone(&counter);
    let query = ListQuery {
        filters: Vec::new(),
        sort: Vec::new(),
        page: Some(PageRequest { page: 1, page_size }),
        count: Default::default(),
    };
    billing_persistence::counts::forget_all();
    let (records, _) = database
        .read(|connection| {
            connection.set_instrumentation(move |event: InstrumentationEvent<'_>| {
                if matches!(event, InstrumentationEvent::StartQuery { .. }) {
                    seen.fetch_add(1, Ordering::Relaxed);
                }
            });
            let page = R::list(connection, caller, &query);
            connection.set_instrumentation(|_: InstrumentationEvent<'_>| {});
            page
        })
        .expect("page");
    assert_eq!(records.len(), page_size as usize);
    (records, counter.load(Ordering::Relaxed))
}

fn create<R: Resource>(
    connection: &mut DbConnection,
    caller: &AuthenticatedUser,
    body: serde_json::Value,
) -> Result<R::Record, billing_http::error::ApiError> {
    let input: R::Input = serde_json::from_value(body).expect("input");
    R::create(connection, caller, input)
}

#[test]
fn a_page_loads_children_in_one_query_per_child_table() {
    let fresh = open("children-per-page", false).expect("SQLite");
    let database = &fresh.database;
    let caller = administrator();
    database
        .write(|connection| {
            for owner in 0..30 {
                let input: Input = serde_json::from_value(serde_json::json!({
                    "name": format!("Owner {owner}"),
                    "subBrands": [{ "name": "One" }, { "name": "Two" }],
                }))
                .expect("input");
                ContractOwners::create(connection, &caller, input)?;
            }
            Ok::<_, billing_http::error::ApiError>(())
        })
        .expect("seeded");
    let (small_page, small) = page_of::<ContractOwners>(database, &caller, 2);
    let (large_page, large) = page_of::<ContractOwners>(database, &caller, 30);
    assert!(
        small_page
            .iter()
            .chain(&large_page)
            .all(|owner| owner.sub_brands.len() == 2)
    );
    // The page, the count's two tokens (the change counts of the tables it reads, then the
    // data's state: see `counts`), the count and the page's sub-brands: the same for 2 records
    // as for 30 (both pages are full, so the total is counted).
    assert_eq!(
        small, large,
        "the statements a page costs grow with its size"
    );
    assert_eq!(small, 5, "{small} statements for one page");
}

/// A page of sites: one count (and its two tokens), one select of sites, and one select per owned table (address,
/// invoice details, their invoice address, contacts, custom fields), whatever the page size
/// and for a caller restricted to contract owners too (the scope is a subquery of the same
/// statements).
#[test]
fn a_page_of_sites_costs_one_query_per_table_at_every_depth_on_sqlite() {
    sites_per_page(false);
}

#[test]
fn a_page_of_sites_costs_one_query_per_table_at_every_depth_on_postgresql() {
    sites_per_page(true);
}

fn sites_per_page(postgres: bool) {
    let Some(fresh) = open("sites-per-page", postgres) else {
        eprintln!("TEST_DATABASE_URL is not set: the PostgreSQL count is skipped");
        return;
    };
    let database = &fresh.database;
    let caller = administrator();
    database
        .write(|connection| {
            let owner = ContractOwners::create(
                connection,
                &caller,
                serde_json::from_value(serde_json::json!({ "name": "Acme" })).expect("input"),
            )?;
            let cycle = create::<billing_cycles::BillingCycles>(
                connection,
                &caller,
                serde_json::json!({ "name": "Monthly" }),
            )?;
            let customer = create::<customers::Customers>(
                connection,
                &caller,
                serde_json::json!({ "customerName": "Bob", "customerReference": "B",
                    "contractOwnerId": owner.id, "billingCycleId": cycle.id, "startDate": "2026-01-01" }),
            )?;
            let template = create::<invoice_templates::InvoiceTemplates>(
                connection,
                &caller,
                serde_json::json!({ "name": "Standard", "type": "INVOICE" }),
            )?;
            let address = serde_json::json!({ "address1": "1 High Street", "town": "Leeds",
                "postcode": "LS1 1AA", "country": "GB" });
            for site in 0..30 {
                create::<Sites>(
                    connection,
                    &caller,
                    serde_json::json!({
                        "customerId": customer.id, "siteName": format!("Site {site}"),
                        "siteReference": "S", "startDate": "2026-01-01",
                        "siteAddress": address,
                        "siteInvoiceDetails": { "invoiceTemplateId": template.id,
                            "paymentMethod": "CHEQUE", "paymentTermsInDays": 30,
                            "invoiceAddress": address },
                        "siteContacts": [{ "contactName": "Ann", "contactRole": "ACCOUNTS" },
                            { "contactName": "Ben", "contactRole": "SALES" }],
                    }),
                )?;
            }
            Ok::<_, billing_http::error::ApiError>(owner.id)
        })
        .expect("seeded");
    let restricted = AuthenticatedUser {
        contract_owners: ContractOwnerScope::from_ids(&[1]),
        ..administrator()
    };
    let (small_page, small) = page_of::<Sites>(database, &caller, 2);
    let (large_page, large) = page_of::<Sites>(database, &caller, 30);
    let (_, scoped) = page_of::<Sites>(database, &restricted, 30);
    assert!(large_page.iter().chain(&small_page).all(|site| {
        site.site_contacts.len() == 2
            && site.site_address.is_some()
            && site
                .site_invoice_details
                .as_ref()
                .is_some_and(|details| details.invoice_address.is_some())
    }));
    assert_eq!(
        small, large,
        "the statements a page costs grow with its size"
    );
    assert_eq!(scoped, large, "the scope costs no statement of its own");
    assert_eq!(small, 9, "{small} statements for one page of sites");
}

/// A page of sources shows each source's locale, and the locale its country and currency: one
/// count (and its two tokens), one select of sources and one select per shown table (locales, countries,
/// currencies), whatever the page size and however many sources share a locale.
#[test]
fn a_page_loads_shown_records_in_one_query_per_table() {
    use billing_http::resources::{currencies, locales, reference_data_sources};
    let fresh = open("shown-per-page", false).expect("SQLite");
    let database = &fresh.database;
    let caller = administrator();
    database
        .write(|connection| {
            let mut locale_ids = Vec::new();
            for (code, country) in [("EUR", "IE"), ("GBP", "GB"), ("USD", "US")] {
                let currency = create::<currencies::Currencies>(
                    connection,
                    &caller,
                    serde_json::json!({ "code": code, "symbol": "$", "majorCurrencyName": "Unit",
                        "minorCurrencyName": "Cent", "majorCurrencyFormat": "#", "minorCurrencyFormat": "#",
                        "salesTaxName": "VAT" }),
                )?;
                let locale = create::<locales::Locales>(
                    connection,
                    &caller,
                    serde_json::json!({ "countryCode": country, "currencyId": currency.id }),
                )?;
                locale_ids.push(locale.id);
            }
            for source in 0..30 {
                create::<reference_data_sources::ReferenceDataSources>(
                    connection,
                    &caller,
                    serde_json::json!({ "name": format!("Source {source}"),
                        "localeId": locale_ids[source % 3], "siMaintained": false }),
                )?;
            }
            Ok::<_, billing_http::error::ApiError>(())
        })
        .expect("seeded");
    let (small_page, small) =
        page_of::<reference_data_sources::ReferenceDataSources>(database, &caller, 2);
    let (large_page, large) =
        page_of::<reference_data_sources::ReferenceDataSources>(database, &caller, 30);
    let shown: Vec<serde_json::Value> = large_page
        .iter()
        .chain(&small_page)
        .map(|source| serde_json::to_value(source).expect("JSON"))
        .collect();
    assert!(
        shown
            .iter()
            .all(|source| source["locale"]["country"]["name"].is_string()
                && source["locale"]["currency"]["salesTaxName"] == "VAT")
    );
    assert_eq!(shown[1]["locale"]["country"]["code"], "GB");
    assert_eq!(
        small, large,
        "the statements a page costs grow with its size"
    );
    assert_eq!(small, 7, "{small} statements for one page of sources");
}
