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
use billing_persistence::{Database, DatabaseConfig};
use diesel::connection::{Connection, InstrumentationEvent};

fn administrator() -> AuthenticatedUser {
    AuthenticatedUser {
        id: 1,
        username: "admin".into(),
        roles: vec![Role::Administrator],
        contract_owners: ContractOwnerScope::All,
    }
}

#[test]
fn a_page_loads_children_in_one_query_per_child_table() {
    let directory = std::env::temp_dir().join(format!("children-per-page-{}", std::process::id()));
    let database = Database::open(&DatabaseConfig {
        url: None,
        data_dir: directory.clone(),
        pool_size: 1,
        connection_timeout: Duration::from_secs(5),
    })
    .expect("database");
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
    let statements_for = |page_size: u32| {
        let counter = Arc::new(AtomicUsize::new(0));
        let seen = Arc::clone(&counter);
        let query = ListQuery {
            filters: Vec::new(),
            sort: Vec::new(),
            page: Some(PageRequest { page: 1, page_size }),
        };
        let (records, _) = database
            .read(|connection| {
                connection.set_instrumentation(move |event: InstrumentationEvent<'_>| {
                    if matches!(event, InstrumentationEvent::StartQuery { .. }) {
                        seen.fetch_add(1, Ordering::Relaxed);
                    }
                });
                let page = ContractOwners::list(connection, &caller, &query);
                connection.set_instrumentation(|_: InstrumentationEvent<'_>| {});
                page
            })
            .expect("page");
        assert_eq!(records.len(), page_size as usize);
        assert!(records.iter().all(|owner| owner.sub_brands.len() == 2));
        counter.load(Ordering::Relaxed)
    };
    let small = statements_for(2);
    let large = statements_for(30);
    // The count, the page and the page's sub-brands: the same for 2 records as for 30.
    assert_eq!(
        small, large,
        "the statements a page costs grow with its size"
    );
    assert_eq!(small, 3, "{small} statements for one page");
    let _ = std::fs::remove_dir_all(directory);
}
