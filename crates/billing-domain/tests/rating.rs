//! The rating engine against the naive linear scan, on random tariffs with overlapping
//! prefixes, boundary dates and changes between lookups; and snapshots of a hand-written tariff.

use billing_domain::dates::Validity;
use billing_domain::rating::engine::Tariff;
use billing_domain::rating::naive::NaiveRater;
use billing_domain::rating::synthetic::date;
use billing_domain::rating::*;
use billing_domain::rating::{PrefixMapRater, Rater};
use billing_domain::reference_data::ChargingUnitType;
use chrono::NaiveDate;
use proptest::prelude::*;

fn day(offset: i64) -> NaiveDate {
    date(2026, 1, 1) + chrono::Duration::days(offset)
}

fn validity(start: i64, length: Option<i64>) -> Validity {
    Validity::new(day(start), length.map(|l| day(start + l))).expect("ordered")
}

/// Groups 1..=4 in source 1, 5..=8 in source 2.
fn skeleton() -> Tariff {
    Tariff {
        categories: vec![ChargeGroupCategory {
            id: 1,
            name: "Calls".into(),
            charging_unit_type: ChargingUnitType::Duration,
        }],
        charge_groups: vec![ChargeGroup {
            id: 1,
            name: "Band".into(),
            charge_group_category_id: 1,
        }],
        source_charge_groups: (1..=8)
            .map(|id| SourceChargeGroup {
                id,
                name: format!("G{id}"),
                code: format!("G{id}"),
                charge_group_id: 1,
                reference_data_source_id: 1 + (id - 1) / 4,
            })
            .collect(),
        ..Tariff::default()
    }
}

/// Short dialstrings over three digits, so prefixes overlap a lot.
fn dialstring() -> impl Strategy<Value = String> {
    proptest::collection::vec(prop::sample::select(vec!['1', '2', '3']), 2..6)
        .prop_map(|d| d.into_iter().collect())
}

/// A validity that often starts or ends exactly on a lookup day (days 0..8).
fn span() -> impl Strategy<Value = (i64, Option<i64>)> {
    (0i64..8, prop::option::weighted(0.6, 0i64..4))
}

#[derive(Debug, Clone)]
enum Step {
    AddDialstring(String, i64, (i64, Option<i64>)),
    RemoveDialstring(usize),
    ChangeDialstring(usize, String, (i64, Option<i64>)),
    AddCallClass(u8, i64, (i64, Option<i64>)),
    RemoveCallClass(usize),
    AddIgnoredCallClass(u8, i64, (i64, Option<i64>)),
    AddIgnoredServiceId(u8, (i64, Option<i64>)),
    /// A source charge group moved to another source, with what it rates.
    MoveGroup(i64, i64),
    Lookup(i64, i64, String, Option<u8>, Option<u8>),
}

fn step() -> impl Strategy<Value = Step> {
    prop_oneof![
        6 => (dialstring(), 1i64..=8, span()).prop_map(|(d, g, s)| Step::AddDialstring(d, g, s)),
        1 => any::<usize>().prop_map(Step::RemoveDialstring),
        1 => (any::<usize>(), dialstring(), span()).prop_map(|(i, d, s)| Step::ChangeDialstring(i, d, s)),
        2 => (0u8..3, 1i64..=8, span()).prop_map(|(c, g, s)| Step::AddCallClass(c, g, s)),
        1 => any::<usize>().prop_map(Step::RemoveCallClass),
        1 => (0u8..3, 1i64..=2, span()).prop_map(|(c, src, s)| Step::AddIgnoredCallClass(c, src, s)),
        1 => (0u8..2, span()).prop_map(|(i, s)| Step::AddIgnoredServiceId(i, s)),
        1 => (1i64..=8, 1i64..=3).prop_map(|(g, s)| Step::MoveGroup(g, s)),
        8 => (1i64..=3, 0i64..10, proptest::collection::vec(prop::sample::select(vec!['1', '2', '3']), 0..8), prop::option::of(0u8..3), prop::option::of(0u8..3))
            .prop_map(|(src, d, n, c, s)| Step::Lookup(src, d, n.into_iter().collect(), c, s)),
    ]
}

fn call_class(index: u8) -> String {
    format!("CLASS{index}")
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 400, ..ProptestConfig::default() })]

    #[test]
    fn the_engine_agrees_with_the_linear_scan(steps in proptest::collection::vec(step(), 1..60)) {
        let mut tariff = skeleton();
        let mut index = RatingIndex::build(&tariff).expect("skeleton builds");
        let mut next_id = 1i64;
        for step in steps {
            match step {
                Step::AddDialstring(text, group, (start, length)) => {
                    let record = DialstringRecord { id: next_id, dialstring: text, source_charge_group_id: group, validity: validity(start, length) };
                    next_id += 1;
                    index.add_dialstring(&record).expect("valid");
                    tariff.dialstrings.push(record);
                }
                Step::RemoveDialstring(pick) if !tariff.dialstrings.is_empty() => {
                    let record = tariff.dialstrings.remove(pick % tariff.dialstrings.len());
                    prop_assert!(index.remove_dialstring(&record));
                }
                Step::ChangeDialstring(pick, text, (start, length)) if !tariff.dialstrings.is_empty() => {
                    let at = pick % tariff.dialstrings.len();
                    let before = tariff.dialstrings[at].clone();
                    let after = DialstringRecord { dialstring: text, validity: validity(start, length), ..before.clone() };
                    index.replace_dialstring(&before, &after).expect("valid");
                    tariff.dialstrings[at] = after;
                }
                Step::AddCallClass(class, group, (start, length)) => {
                    let record = CallClassRecord { id: next_id, call_class: call_class(class), source_charge_group_id: group, validity: validity(start, length) };
                    next_id += 1;
                    index.add_call_class(&record).expect("valid");
                    tariff.call_classes.push(record);
                }
                Step::RemoveCallClass(pick) if !tariff.call_classes.is_empty() => {
                    let record = tariff.call_classes.remove(pick % tariff.call_classes.len());
                    prop_assert!(index.remove_call_class(&record));
                }
                Step::AddIgnoredCallClass(class, source, (start, length)) => {
                    let record = IgnoredCallClassRecord { id: next_id, call_class: call_class(class), reference_data_source_id: source, validity: validity(start, length) };
                    next_id += 1;
                    index.add_ignored_call_class(&record);
                    tariff.ignored_call_classes.push(record);
                }
                Step::AddIgnoredServiceId(service, (start, length)) => {
                    let record = IgnoredServiceIdRecord { id: next_id, service_id: format!("SVC{service}"), validity: validity(start, length) };
                    next_id += 1;
                    index.add_ignored_service_id(&record);
                    tariff.ignored_service_ids.push(record);
                }
                Step::MoveGroup(group, source) => {
                    let record = tariff.source_charge_groups.iter_mut().find(|g| g.id == group).expect("in the skeleton");
                    record.reference_data_source_id = source;
                    index.upsert_source_charge_group(record.clone()).expect("moves");
                }
                Step::Lookup(source, offset, number, class, service) => {
                    let class = class.map(call_class);
                    let service = service.map(|s| format!("SVC{s}"));
                    let request = RatingRequest {
                        reference_data_source_id: source,
                        date: day(offset),
                        dialled_number: Some(number.as_str()),
                        call_class: class.as_deref(),
                        service_id: service.as_deref(),
                    };
                    let expected = NaiveRater { tariff: &tariff }.rate(&request);
                    prop_assert_eq!(&index.rate(&request), &expected);
                    let reference = PrefixMapRater::new(&tariff);
                    prop_assert_eq!(&Rater::rate(&reference, &request), &expected);
                    let mut batch = Vec::new();
                    index.rate_many(&[request, request, request], &mut batch);
                    prop_assert_eq!(batch, vec![expected.clone(), expected.clone(), expected]);
                }
                _ => {}
            }
        }
        prop_assert_eq!(index.dialstring_count(), tariff.dialstrings.len());
    }

    #[test]
    fn synthetic_tariffs_agree_too(seed in any::<u64>()) {
        let tariff = synthetic::tariff(300, 2, seed);
        let index = RatingIndex::build(&tariff).expect("builds");
        let naive = NaiveRater { tariff: &tariff };
        let usage = synthetic::usage(&tariff, 2, 200, seed ^ 0xABCD);
        let requests: Vec<RatingRequest<'_>> = usage.iter().map(synthetic::Usage::request).collect();
        let mut batch = Vec::new();
        index.rate_many(&requests, &mut batch);
        prop_assert_eq!(batch.len(), requests.len());
        let reference = PrefixMapRater::new(&tariff);
        for (request, batched) in requests.iter().zip(batch) {
            let expected = naive.rate(request);
            prop_assert_eq!(&Rater::rate(&reference, request), &expected);
            prop_assert_eq!(&index.rate(request), &expected);
            prop_assert_eq!(batched, expected);
        }
    }
}

/// A small tariff a person can check by eye.
fn hand_written() -> Tariff {
    let mut tariff = skeleton();
    let dialstrings = [
        (1, "44", 1, (0, None)),
        (2, "447", 2, (0, None)),
        (3, "4477", 3, (0, Some(9))), // ends on day 9
        (4, "4477", 4, (10, None)),   // takes over on day 10
        (5, "4420", 1, (5, Some(0))), // in force on day 5 only
        (6, "33", 5, (0, None)),      // source 2
    ];
    for (id, text, group, (start, length)) in dialstrings {
        tariff.dialstrings.push(DialstringRecord {
            id,
            dialstring: text.into(),
            source_charge_group_id: group,
            validity: validity(start, length),
        });
    }
    tariff.call_classes.push(CallClassRecord {
        id: 1,
        call_class: "FREEPHONE".into(),
        source_charge_group_id: 4,
        validity: validity(0, None),
    });
    tariff.ignored_call_classes.push(IgnoredCallClassRecord {
        id: 1,
        call_class: "EMERGENCY".into(),
        reference_data_source_id: 1,
        validity: validity(0, None),
    });
    tariff.ignored_service_ids.push(IgnoredServiceIdRecord {
        id: 1,
        service_id: "TEST-LINE".into(),
        validity: validity(3, Some(2)),
    });
    tariff
}

#[test]
fn outcomes_of_a_hand_written_tariff() {
    let tariff = hand_written();
    let index = RatingIndex::build(&tariff).expect("builds");
    let cases: [(i64, i64, &str, &str, &str); 12] = [
        (1, 0, "+44 7712 345678", "", ""),
        (1, 9, "447712345678", "", ""),
        (1, 10, "447712345678", "", ""),
        (1, 5, "442071234567", "", ""),
        (1, 6, "442071234567", "", ""),
        (1, 0, "4478", "", ""),
        (1, 0, "390612345", "FREEPHONE", ""),
        (1, 0, "447712345678", "EMERGENCY", ""),
        (1, 4, "447712345678", "", "TEST-LINE"),
        (1, 6, "447712345678", "", "TEST-LINE"),
        (2, 0, "33123", "", ""),
        (1, 0, "44-77", "", ""),
    ];
    let lines: Vec<String> = cases
        .iter()
        .map(|(source, offset, number, class, service)| {
            let request = RatingRequest {
                reference_data_source_id: *source,
                date: day(*offset),
                dialled_number: Some(number),
                call_class: Some(class),
                service_id: Some(service),
            };
            let answer = match index.rate(&request) {
                Ok(rating) => format!(
                    "{} {:?} group={:?}",
                    rating.outcome.code(),
                    rating.matched,
                    rating.source_charge_group_id
                ),
                Err(error) => format!("ERROR {error}"),
            };
            format!("source {source} day {offset} {number:?} {class} {service} => {answer}")
        })
        .collect();
    insta::assert_snapshot!(lines.join("\n"));
}

#[test]
fn readers_see_whole_changes_while_a_writer_works() {
    let tariff = hand_written();
    let shared = std::sync::Arc::new(SharedRatingIndex::new(
        RatingIndex::build(&tariff).expect("builds"),
    ));
    let record = |group| DialstringRecord {
        id: 99,
        dialstring: "447712".into(),
        source_charge_group_id: group,
        validity: validity(0, None),
    };
    let writer = {
        let shared = std::sync::Arc::clone(&shared);
        std::thread::spawn(move || {
            shared
                .write(|index| index.add_dialstring(&record(2)))
                .expect("add");
            for round in 0..2000 {
                let (before, after) = if round % 2 == 0 {
                    (record(2), record(3))
                } else {
                    (record(3), record(2))
                };
                shared
                    .write(|index| index.replace_dialstring(&before, &after))
                    .expect("replace");
            }
        })
    };
    let request = RatingRequest {
        reference_data_source_id: 1,
        date: day(0),
        dialled_number: Some("447712999"),
        call_class: None,
        service_id: None,
    };
    for _ in 0..20_000 {
        let rating = shared.read().rate(&request).expect("rates");
        // Either the old record 3 ("4477"), or record 99 with group 2 or 3: never a half change.
        match rating.matched {
            Matched::Dialstring { id: 99, length: 6 } => {
                assert!(matches!(rating.source_charge_group_id, Some(2 | 3)))
            }
            Matched::Dialstring { id: 3, length: 4 } => {
                assert_eq!(rating.source_charge_group_id, Some(3))
            }
            other => panic!("inconsistent answer {other:?}"),
        }
    }
    writer.join().expect("writer");
}

#[test]
fn a_full_source_is_a_capacity_error_never_a_panic() {
    use billing_domain::rating::ChangeError;
    let tariff = synthetic::tariff(2_000, 1, 5);
    let source = tariff.source_charge_groups[0].reference_data_source_id;
    match RatingIndex::build_with_word_limit(&tariff, 1_000) {
        Err(ChangeError::Capacity {
            source_id,
            limit_words: 1_000,
        }) => assert_eq!(source_id, source),
        other => panic!("expected a capacity error, got {other:?}"),
    }
    let mut small = tariff.clone();
    small.dialstrings.truncate(10);
    let mut index = RatingIndex::build_with_word_limit(&small, 1_000).expect("ten fit");
    let refused = tariff.dialstrings[10..]
        .iter()
        .map(|record| index.add_dialstring(record))
        .find_map(Result::err)
        .expect("the limit is reached");
    assert!(matches!(refused, ChangeError::Capacity { .. }), "{refused}");
    let (words, limit) = index.source_words(source);
    assert!(words <= limit, "{words} of {limit}");
}
