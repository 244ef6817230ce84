//! Deterministic synthetic tariffs and usage, for tests, benchmarks and `billing generate`.
//!
//! Tariffs look like real ones: country codes, each with geographic and mobile ranges of
//! varying depth, some prefixes in several dated versions (a price change: the old record ends
//! the day before the new one starts), call classes for non-geographic traffic.

use chrono::NaiveDate;

use super::engine::Tariff;
use super::model::*;
use crate::dates::Validity;
use crate::reference_data::ChargingUnitType;

/// SplitMix64: small, fast and the same on every machine.
#[derive(Debug, Clone)]
pub struct Random(u64);

impl Random {
    pub fn new(seed: u64) -> Self {
        Self(seed)
    }

    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// Uniform in `0..bound` (bound > 0).
    pub fn below(&mut self, bound: u64) -> u64 {
        self.next_u64() % bound.max(1)
    }

    pub fn chance(&mut self, percent: u64) -> bool {
        self.below(100) < percent
    }
}

const COUNTRY_CODES: [&str; 40] = [
    "1", "7", "20", "27", "30", "31", "32", "33", "34", "36", "39", "40", "41", "43", "44", "45",
    "46", "47", "48", "49", "52", "55", "61", "64", "65", "81", "82", "86", "90", "91", "234",
    "254", "351", "352", "353", "354", "358", "420", "852", "971",
];

pub const CALL_CLASSES: [&str; 6] = [
    "FREEPHONE",
    "LOCAL_RATE",
    "NATIONAL_RATE",
    "PREMIUM",
    "DIRECTORY",
    "EMERGENCY",
];

pub fn date(year: i32, month: u32, day: u32) -> NaiveDate {
    NaiveDate::from_ymd_opt(year, month, day).unwrap_or_default()
}

fn validity(start: NaiveDate, end: Option<NaiveDate>) -> Validity {
    Validity::new(start, end).unwrap_or(Validity::starting(start))
}

/// A tariff of about `dialstrings` dialstrings over `sources` sources (ids 1..=sources).
pub fn tariff(dialstrings: usize, sources: i64, seed: u64) -> Tariff {
    let mut random = Random::new(seed);
    let mut tariff = Tariff {
        categories: vec![
            ChargeGroupCategory {
                id: 1,
                name: "Calls".into(),
                charging_unit_type: ChargingUnitType::Duration,
            },
            ChargeGroupCategory {
                id: 2,
                name: "Data".into(),
                charging_unit_type: ChargingUnitType::Megabytes,
            },
        ],
        ..Tariff::default()
    };
    let groups_per_source = 50i64;
    for group in 1..=groups_per_source {
        tariff.charge_groups.push(ChargeGroup {
            id: group,
            name: format!("Band {group}"),
            charge_group_category_id: 1 + group % 2,
        });
    }
    for source in 1..=sources {
        for group in 1..=groups_per_source {
            let id = (source - 1) * groups_per_source + group;
            tariff.source_charge_groups.push(SourceChargeGroup {
                id,
                name: format!("Source {source} band {group}"),
                code: format!("S{source}B{group}"),
                charge_group_id: group,
                reference_data_source_id: source,
            });
        }
        for (index, call_class) in CALL_CLASSES.iter().enumerate() {
            tariff.call_classes.push(CallClassRecord {
                id: tariff.call_classes.len() as i64 + 1,
                call_class: (*call_class).to_owned(),
                source_charge_group_id: (source - 1) * groups_per_source + index as i64 + 1,
                validity: validity(date(2024, 1, 1), None),
            });
        }
        tariff.ignored_call_classes.push(IgnoredCallClassRecord {
            id: source,
            call_class: "EMERGENCY".into(),
            reference_data_source_id: source,
            validity: validity(date(2024, 1, 1), None),
        });
    }
    tariff.ignored_service_ids.push(IgnoredServiceIdRecord {
        id: 1,
        service_id: "TEST-LINE".into(),
        validity: validity(date(2024, 1, 1), None),
    });
    let mut seen = std::collections::HashSet::with_capacity(dialstrings);
    let mut attempts = 0usize;
    while tariff.dialstrings.len() < dialstrings && attempts < dialstrings * 20 {
        attempts += 1;
        let source = 1 + random.below(sources as u64) as i64;
        let country = COUNTRY_CODES[random.below(COUNTRY_CODES.len() as u64) as usize];
        // Mobile ranges run deeper than geographic ones; a few are whole-country prefixes.
        let extra = match random.below(10) {
            0 => 1,
            1..=4 => 2 + random.below(3),
            _ => 4 + random.below(5),
        } as usize;
        let mut text = String::with_capacity(15);
        text.push_str(country);
        for _ in 0..extra.min(15 - country.len()) {
            text.push(char::from(b'0' + random.below(10) as u8));
        }
        if text.len() < 2 || !seen.insert((source, text.clone())) {
            continue;
        }
        let group =
            (source - 1) * groups_per_source + 1 + random.below(groups_per_source as u64) as i64;
        let id = tariff.dialstrings.len() as i64 + 1;
        if random.chance(5) {
            // A price change: the old version ended, the new one runs on.
            let change = date(2025, 1 + random.below(12) as u32, 1);
            tariff.dialstrings.push(DialstringRecord {
                id,
                dialstring: text.clone(),
                source_charge_group_id: group,
                validity: validity(date(2024, 1, 1), change.pred_opt()),
            });
            let next_group = (source - 1) * groups_per_source
                + 1
                + random.below(groups_per_source as u64) as i64;
            tariff.dialstrings.push(DialstringRecord {
                id: id + 1,
                dialstring: text,
                source_charge_group_id: next_group,
                validity: validity(change, None),
            });
        } else {
            tariff.dialstrings.push(DialstringRecord {
                id,
                dialstring: text,
                source_charge_group_id: group,
                validity: validity(date(2024, 1, 1), None),
            });
        }
    }
    tariff
}

/// One synthetic usage record.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Usage {
    pub reference_data_source_id: i64,
    pub date: NaiveDate,
    pub dialled_number: String,
    pub call_class: String,
    pub service_id: String,
}

impl Usage {
    pub fn request(&self) -> RatingRequest<'_> {
        RatingRequest {
            reference_data_source_id: self.reference_data_source_id,
            date: self.date,
            dialled_number: Some(self.dialled_number.as_str()),
            call_class: Some(self.call_class.as_str()),
            service_id: Some(self.service_id.as_str()),
        }
    }
}

/// `count` usage records against `tariff`: mostly numbers under its dialstrings, some with
/// only a call class, some unknown, a few ignored or malformed.
pub fn usage(tariff: &Tariff, sources: i64, count: usize, seed: u64) -> Vec<Usage> {
    let mut random = Random::new(seed);
    (0..count)
        .map(|_| usage_record(tariff, sources, &mut random))
        .collect()
}

pub fn usage_record(tariff: &Tariff, sources: i64, random: &mut Random) -> Usage {
    let day = date(2024, 6, 1) + chrono::Duration::days(random.below(900) as i64);
    let mut record = Usage {
        reference_data_source_id: 1 + random.below(sources.max(1) as u64) as i64,
        date: day,
        dialled_number: String::new(),
        call_class: String::new(),
        service_id: String::new(),
    };
    match random.below(100) {
        0..=79 if !tariff.dialstrings.is_empty() => {
            let base = &tariff.dialstrings[random.below(tariff.dialstrings.len() as u64) as usize];
            record.reference_data_source_id = tariff
                .source_charge_groups
                .iter()
                .find(|g| g.id == base.source_charge_group_id)
                .map_or(1, |g| g.reference_data_source_id);
            let mut number = String::with_capacity(16);
            if random.chance(20) {
                number.push('+');
            }
            number.push_str(&base.dialstring);
            while number.len() < 12 {
                number.push(char::from(b'0' + random.below(10) as u8));
            }
            record.dialled_number = number;
        }
        80..=89 => {
            record.call_class =
                CALL_CLASSES[random.below(CALL_CLASSES.len() as u64) as usize].to_owned()
        }
        90..=95 => record.dialled_number = format!("99{:010}", random.below(10_000_000_000)),
        96..=97 => record.service_id = "TEST-LINE".into(),
        _ => record.dialled_number = format!("0800-{}", random.below(1_000_000)),
    }
    record
}

/// Where a row's number, call class and service id sit in the buffer.
type Spans = [(u32, u32); 3];

/// Usage held the way a batch reader holds it: text in one buffer, read in order (what the
/// benchmarks rate, so a lookup does not pay for scattered heap strings a real reader avoids).
pub struct UsageBuffer {
    text: String,
    rows: Vec<(i64, NaiveDate, Spans)>,
}

impl UsageBuffer {
    pub fn new(usage: &[Usage]) -> Self {
        let mut text = String::new();
        let mut rows = Vec::with_capacity(usage.len());
        let push = |text: &mut String, value: &str| {
            let start = text.len() as u32;
            text.push_str(value);
            (start, text.len() as u32)
        };
        for record in usage {
            let spans = [
                push(&mut text, &record.dialled_number),
                push(&mut text, &record.call_class),
                push(&mut text, &record.service_id),
            ];
            rows.push((record.reference_data_source_id, record.date, spans));
        }
        Self { text, rows }
    }

    pub fn len(&self) -> usize {
        self.rows.len()
    }

    pub fn is_empty(&self) -> bool {
        self.rows.is_empty()
    }

    pub fn requests(&self) -> impl Iterator<Item = RatingRequest<'_>> {
        self.rows.iter().map(|(source, date, spans)| {
            let field = |(from, to): (u32, u32)| &self.text[from as usize..to as usize];
            RatingRequest {
                reference_data_source_id: *source,
                date: *date,
                dialled_number: Some(field(spans[0])),
                call_class: Some(field(spans[1])),
                service_id: Some(field(spans[2])),
            }
        })
    }
}
