//! Random writes through the API, then random usage through `POST /v1/rating/lookups`,
//! compared item by item with the naive linear scan over the records the API accepted.

use std::collections::BTreeMap;

use billing_domain::dates::Validity;
use billing_domain::rating::engine::Tariff;
use billing_domain::rating::naive::NaiveRater;
use billing_domain::rating::{
    CallClassRecord, ChargeGroup, ChargeGroupCategory, DialstringRecord, IgnoredCallClassRecord,
    IgnoredServiceIdRecord, Matched, Rater, RatingRequest, SourceChargeGroup,
};
use billing_domain::reference_data::ChargingUnitType;
use chrono::NaiveDate;
use proptest::prelude::*;

use super::*;
use crate::support::Backend;

#[derive(Debug, Clone)]
enum Write {
    Dialstring {
        digits: String,
        group: usize,
        start: u32,
        days: Option<u32>,
    },
    CallClass {
        name: &'static str,
        group: usize,
        start: u32,
        days: Option<u32>,
    },
    IgnoredCallClass {
        name: &'static str,
        start: u32,
        days: Option<u32>,
    },
    IgnoredServiceId {
        name: &'static str,
        start: u32,
        days: Option<u32>,
    },
    /// Re-dates the `n`-th record created so far (modulo how many there are).
    Redate {
        n: usize,
        start: u32,
        days: Option<u32>,
    },
    /// Deletes the `n`-th record created so far.
    Delete { n: usize },
}

#[derive(Debug, Clone)]
struct Usage {
    number: Option<String>,
    call_class: Option<&'static str>,
    service_id: Option<&'static str>,
    day: u32,
}

const CLASSES: [&str; 3] = ["MOBILE", "LOCAL", "PREMIUM"];
const SERVICES: [&str; 2] = ["SVC-1", "SVC-2"];

fn dates() -> impl Strategy<Value = (u32, Option<u32>)> {
    (0u32..60, proptest::option::of(0u32..40))
}

fn write() -> impl Strategy<Value = Write> {
    prop_oneof![
        4 => ("[47][147]{1,4}", 0usize..2, dates()).prop_map(|(digits, group, (start, days))| Write::Dialstring { digits, group, start, days }),
        2 => (proptest::sample::select(&CLASSES[..]), 0usize..2, dates()).prop_map(|(name, group, (start, days))| Write::CallClass { name, group, start, days }),
        1 => (proptest::sample::select(&CLASSES[..]), dates()).prop_map(|(name, (start, days))| Write::IgnoredCallClass { name, start, days }),
        1 => (proptest::sample::select(&SERVICES[..]), dates()).prop_map(|(name, (start, days))| Write::IgnoredServiceId { name, start, days }),
        2 => (any::<usize>(), dates()).prop_map(|(n, (start, days))| Write::Redate { n, start, days }),
        1 => any::<usize>().prop_map(|n| Write::Delete { n }),
    ]
}

fn usage() -> impl Strategy<Value = Usage> {
    (
        proptest::option::of("[47][147]{0,7}"),
        proptest::option::of(proptest::sample::select(&CLASSES[..])),
        proptest::option::of(proptest::sample::select(&SERVICES[..])),
        0u32..110,
    )
        .prop_map(|(number, call_class, service_id, day)| Usage {
            number,
            call_class,
            service_id,
            day,
        })
}

fn day(offset: u32) -> NaiveDate {
    NaiveDate::from_ymd_opt(2026, 1, 1).expect("date") + chrono::Days::new(u64::from(offset))
}

fn dated(start: u32, days: Option<u32>) -> (Value, Validity) {
    let end = days.map(|days| day(start + days));
    let body =
        json!({ "startDate": day(start).to_string(), "endDate": end.map(|d| d.to_string()) });
    (body, Validity::new(day(start), end).expect("validity"))
}

/// A record the API accepted: its path, and how to put it in the model.
#[derive(Debug, Clone)]
enum Stored {
    Dialstring(DialstringRecord),
    CallClass(CallClassRecord),
    IgnoredCallClass(IgnoredCallClassRecord),
    IgnoredServiceId(IgnoredServiceIdRecord),
}

impl Stored {
    fn path(&self) -> String {
        match self {
            Stored::Dialstring(r) => format!("/v1/dialstrings/{}", r.id),
            Stored::CallClass(r) => format!("/v1/call-classes/{}", r.id),
            Stored::IgnoredCallClass(r) => format!("/v1/ignored-call-classes/{}", r.id),
            Stored::IgnoredServiceId(r) => format!("/v1/ignored-service-ids/{}", r.id),
        }
    }

    fn redated(&self, validity: Validity) -> Stored {
        let mut copy = self.clone();
        match &mut copy {
            Stored::Dialstring(r) => r.validity = validity,
            Stored::CallClass(r) => r.validity = validity,
            Stored::IgnoredCallClass(r) => r.validity = validity,
            Stored::IgnoredServiceId(r) => r.validity = validity,
        }
        copy
    }
}

fn run(backend: Backend, writes: Vec<Write>, usages: Vec<Usage>) -> Result<(), TestCaseError> {
    let Some(app) = TestApp::spawn(backend) else {
        return Ok(());
    };
    let chain = reference_chain(&app);
    let groups = [
        source_group(&app, &chain, "A"),
        source_group(&app, &chain, "B"),
    ];
    let source = chain.open_source;
    let mut stored: BTreeMap<(u8, i64), Stored> = BTreeMap::new();
    let mut order: Vec<(u8, i64)> = Vec::new();
    let id_of = |reply: &crate::support::Reply| reply.json()["id"].as_i64().expect("id");
    for write in writes {
        match write {
            Write::Dialstring {
                digits,
                group,
                start,
                days,
            } => {
                let (mut body, validity) = dated(start, days);
                body["dialstring"] = json!(digits);
                body["referenceDataSourceChargeGroupId"] = json!(groups[group]);
                let reply = app.post("/v1/dialstrings", body);
                prop_assert!(reply.status == 201 || reply.status == 409, "{}", reply.text);
                if reply.status == 201 {
                    let id = id_of(&reply);
                    stored.insert(
                        (0, id),
                        Stored::Dialstring(DialstringRecord {
                            id,
                            dialstring: digits,
                            source_charge_group_id: groups[group],
                            validity,
                        }),
                    );
                    order.push((0, id));
                }
            }
            Write::CallClass {
                name,
                group,
                start,
                days,
            } => {
                let (mut body, validity) = dated(start, days);
                body["callClass"] = json!(name);
                body["referenceDataSourceChargeGroupId"] = json!(groups[group]);
                let reply = app.post("/v1/call-classes", body);
                prop_assert!(reply.status == 201 || reply.status == 409, "{}", reply.text);
                if reply.status == 201 {
                    let id = id_of(&reply);
                    stored.insert(
                        (1, id),
                        Stored::CallClass(CallClassRecord {
                            id,
                            call_class: name.into(),
                            source_charge_group_id: groups[group],
                            validity,
                        }),
                    );
                    order.push((1, id));
                }
            }
            Write::IgnoredCallClass { name, start, days } => {
                let (mut body, validity) = dated(start, days);
                body["callClass"] = json!(name);
                body["referenceDataSourceId"] = json!(source);
                let reply = app.post("/v1/ignored-call-classes", body);
                prop_assert_eq!(reply.status, 201, "{}", reply.text);
                let id = id_of(&reply);
                stored.insert(
                    (2, id),
                    Stored::IgnoredCallClass(IgnoredCallClassRecord {
                        id,
                        call_class: name.into(),
                        reference_data_source_id: source,
                        validity,
                    }),
                );
                order.push((2, id));
            }
            Write::IgnoredServiceId { name, start, days } => {
                let (mut body, validity) = dated(start, days);
                body["serviceId"] = json!(name);
                let reply = app.post("/v1/ignored-service-ids", body);
                prop_assert_eq!(reply.status, 201, "{}", reply.text);
                let id = id_of(&reply);
                stored.insert(
                    (3, id),
                    Stored::IgnoredServiceId(IgnoredServiceIdRecord {
                        id,
                        service_id: name.into(),
                        validity,
                    }),
                );
                order.push((3, id));
            }
            Write::Redate { n, start, days } if !order.is_empty() => {
                let key = order[n % order.len()];
                let Some(record) = stored.get(&key).cloned() else {
                    continue;
                };
                let (body, validity) = dated(start, days);
                let reply = app.patch(
                    &record.path(),
                    json!([
                        { "op": "replace", "path": "/startDate", "value": body["startDate"] },
                        { "op": "replace", "path": "/endDate", "value": body["endDate"] },
                    ]),
                );
                prop_assert!(reply.status == 200 || reply.status == 409, "{}", reply.text);
                if reply.status == 200 {
                    stored.insert(key, record.redated(validity));
                }
            }
            Write::Delete { n } if !order.is_empty() => {
                let key = order.remove(n % order.len());
                if let Some(record) = stored.remove(&key) {
                    prop_assert_eq!(app.delete(&record.path()).status, 204);
                }
            }
            Write::Redate { .. } | Write::Delete { .. } => {}
        }
    }
    let mut tariff = Tariff {
        categories: vec![ChargeGroupCategory {
            id: chain.category,
            name: "Calls".into(),
            charging_unit_type: ChargingUnitType::Duration,
        }],
        charge_groups: vec![ChargeGroup {
            id: chain.charge_group,
            name: "UK Mobile".into(),
            charge_group_category_id: chain.category,
        }],
        source_charge_groups: groups
            .iter()
            .map(|&id| SourceChargeGroup {
                id,
                name: String::new(),
                code: String::new(),
                charge_group_id: chain.charge_group,
                reference_data_source_id: source,
            })
            .collect(),
        ..Tariff::default()
    };
    for record in stored.values() {
        match record.clone() {
            Stored::Dialstring(r) => tariff.dialstrings.push(r),
            Stored::CallClass(r) => tariff.call_classes.push(r),
            Stored::IgnoredCallClass(r) => tariff.ignored_call_classes.push(r),
            Stored::IgnoredServiceId(r) => tariff.ignored_service_ids.push(r),
        }
    }
    let naive = NaiveRater { tariff: &tariff };
    // One request per date, all of that date's items in it (rated side by side).
    let mut by_day: BTreeMap<u32, Vec<Usage>> = BTreeMap::new();
    for usage in usages {
        by_day.entry(usage.day).or_default().push(usage);
    }
    for (offset, usages) in by_day {
        let date = day(offset);
        let items: Vec<Value> = usages
            .iter()
            .map(|usage| json!({ "dialledNumber": usage.number, "callClass": usage.call_class, "serviceId": usage.service_id }))
            .collect();
        let answer = lookup(&app, source, &date.to_string(), Value::Array(items));
        for (usage, got) in usages
            .iter()
            .zip(answer["results"].as_array().expect("results"))
        {
            let expected = naive
                .rate(&RatingRequest {
                    reference_data_source_id: source,
                    date,
                    dialled_number: usage.number.as_deref(),
                    call_class: usage.call_class,
                    service_id: usage.service_id,
                })
                .expect("digits only");
            let matched_id = match expected.matched {
                Matched::None => None,
                Matched::Dialstring { .. } => got["dialstringId"].as_i64(),
                Matched::CallClass { .. } => got["callClassId"].as_i64(),
                Matched::IgnoredCallClass { .. } | Matched::IgnoredServiceId { .. } => {
                    got["ignoredRecordId"].as_i64()
                }
            };
            let expected_id = match expected.matched {
                Matched::None => None,
                Matched::Dialstring { id, .. }
                | Matched::CallClass { id }
                | Matched::IgnoredCallClass { id }
                | Matched::IgnoredServiceId { id } => Some(id),
            };
            prop_assert_eq!(
                got["outcome"].as_str(),
                Some(expected.outcome.code()),
                "{:?} on {} → {}",
                usage,
                date,
                got
            );
            prop_assert_eq!(matched_id, expected_id, "{:?} on {} → {}", usage, date, got);
            prop_assert_eq!(
                got["referenceDataSourceChargeGroupId"].as_i64(),
                expected.source_charge_group_id,
                "{:?} on {} → {}",
                usage,
                date,
                got
            );
        }
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 10, max_shrink_iters: 20, ..ProptestConfig::default() })]

    #[test]
    fn sqlite(writes in proptest::collection::vec(write(), 1..40), usages in proptest::collection::vec(usage(), 40)) {
        run(Backend::Sqlite, writes, usages)?;
    }

    #[test]
    fn postgres(writes in proptest::collection::vec(write(), 1..40), usages in proptest::collection::vec(usage(), 40)) {
        run(Backend::Postgres, writes, usages)?;
    }
}
