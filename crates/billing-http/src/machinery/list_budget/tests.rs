use std::time::Duration;

use super::*;

/// The members of a site, the resource with the largest records.
pub(crate) fn site_fields() -> &'static [Field] {
    crate::resources::documentation()
        .into_iter()
        .find(|resource| resource.path == "sites")
        .expect("sites")
        .fields
}

#[test]
fn every_resources_worst_case_record_is_counted_from_its_declaration() {
    let sizes: Vec<String> = crate::resources::documentation()
        .iter()
        .map(|resource| {
            format!(
                "{}: {} bytes",
                resource.path,
                max_json_bytes(resource.fields)
            )
        })
        .collect();
    insta::assert_snapshot!(sizes.join("\n"));
}

#[test]
fn an_audit_events_states_are_counted_as_the_largest_record() {
    let largest = crate::resources::documentation()
        .iter()
        .filter(|resource| resource.path != "audit-events")
        .map(|resource| max_json_bytes(resource.fields))
        .max()
        .expect("resources");
    assert!(
        crate::machinery::fields::RECORD_STATE_BYTES >= largest,
        "{largest}"
    );
}

#[tokio::test]
async fn pages_wait_while_what_they_may_hold_does_not_fit() {
    let sites = site_fields();
    let budget = ListBudget::new(64 * 1024 * 1024);
    // A page of 1,000 sites may hold more than the whole budget: it takes all of it.
    assert_eq!(
        budget.units_for(sites, 1000) as usize * UNIT,
        64 * 1024 * 1024
    );
    let whole = budget.take(sites, 1000).await;
    assert_eq!(budget.available_bytes(), 0);
    // Another page waits for it, then runs.
    let waiting = budget.take(sites, 10);
    tokio::pin!(waiting);
    assert!(
        tokio::time::timeout(Duration::from_millis(50), &mut waiting)
            .await
            .is_err()
    );
    drop(whole);
    let small = tokio::time::timeout(Duration::from_secs(1), waiting)
        .await
        .expect("served once the first page is done");
    assert!(budget.available_bytes() < 64 * 1024 * 1024);
    drop(small);
    assert_eq!(budget.available_bytes(), 64 * 1024 * 1024);
}

#[tokio::test]
async fn a_small_page_never_waits_behind_a_large_one() {
    let sites = site_fields();
    let budget = ListBudget::new(64 * 1024 * 1024);
    let running = budget.take(sites, 1000).await;
    // A second large page waits for the first, at the head of the queue.
    let waiting = budget.take(sites, 1000);
    tokio::pin!(waiting);
    assert!(
        tokio::time::timeout(Duration::from_millis(50), &mut waiting)
            .await
            .is_err()
    );
    // A page of one site is small: it is served at once, from the reserve.
    let small = tokio::time::timeout(Duration::from_millis(50), budget.take(sites, 1))
        .await
        .expect("a small page does not queue behind large ones");
    assert!(budget.available_small_pages_bytes() < SMALL_PAGES_RESERVE_BYTES);
    drop(small);
    assert_eq!(
        budget.available_small_pages_bytes(),
        SMALL_PAGES_RESERVE_BYTES
    );
    // So is one audit event, though it may hold 6 MB at its worst (a review found its GET
    // waiting a minute behind pages of sites).
    let audit_events = crate::resources::documentation()
        .into_iter()
        .find(|resource| resource.path == "audit-events")
        .expect("audit events")
        .fields;
    assert!(budget.units_for(audit_events, 1) as usize * UNIT > SMALL_PAGE_BYTES);
    let one = tokio::time::timeout(Duration::from_millis(50), budget.take(audit_events, 1))
        .await
        .expect("a record alone does not queue behind large pages");
    drop(one);
    drop(running);
    let next = tokio::time::timeout(Duration::from_secs(1), waiting)
        .await
        .expect("the large page is served once the first is done");
    drop(next);
    assert_eq!(budget.available_bytes(), 64 * 1024 * 1024);
}
