//! A second plain reference, fast enough to check a whole batch run: every record sits in a
//! hash map under its exact key, and the longest dialstring is found by trying each prefix
//! of the number from 15 digits down to 2. No trie, no packing, no batching: the same rules
//! as [`super::naive::NaiveRater`] (property-tested against it) at hash-map speed, so
//! `billing rate --reference` can rate millions of rows and its output be compared with the
//! engine's byte for byte.

use std::collections::HashMap;
use std::hash::Hash;

use super::engine::Tariff;
use super::model::*;
use super::number::MAX_DIALSTRING_DIGITS;
use crate::dates::Validity;

/// Anything that rates usage records: the engine, and the references it is checked against.
pub trait Rater {
    fn rate(&self, request: &RatingRequest<'_>) -> Result<Rating, RatingError>;

    /// Rates a batch, appending one answer per request to `out`, in order.
    fn rate_many(
        &self,
        requests: &[RatingRequest<'_>],
        out: &mut Vec<Result<Rating, RatingError>>,
    ) {
        out.extend(requests.iter().map(|request| self.rate(request)));
    }
}

/// `(validity, id, payload)` of one keyed record.
type Keyed<T> = Vec<(DayRange, i64, T)>;

/// The record in force on `day` with the latest start, then the larger id.
fn in_force<T: Copy>(records: Option<&Keyed<T>>, day: Day) -> Option<(i64, T)> {
    records?
        .iter()
        .filter(|(range, _, _)| range.contains(day))
        .max_by_key(|(range, id, _)| (range.start, *id))
        .map(|(_, id, payload)| (*id, *payload))
}

/// Files one record under `key`.
fn file<K: Eq + Hash, T>(
    map: &mut HashMap<K, Keyed<T>>,
    key: K,
    validity: &Validity,
    id: i64,
    payload: T,
) {
    map.entry(key)
        .or_default()
        .push((DayRange::from_validity(validity), id, payload));
}

/// Files a record of source charge group `group` under `(its source, key)`; a record whose
/// group is unknown is left out.
fn file_by_group<'a>(
    map: &mut HashMap<(i64, &'a str), Keyed<i64>>,
    source_of: &HashMap<i64, i64>,
    key: &'a str,
    group: i64,
    validity: &Validity,
    id: i64,
) {
    if let Some(&source) = source_of.get(&group) {
        file(map, (source, key), validity, id, group);
    }
}

pub struct PrefixMapRater<'a> {
    /// `(source, dialstring)` → `(validity, id, source charge group)`.
    dialstrings: HashMap<(i64, &'a str), Keyed<i64>>,
    /// `(source, call class)` → `(validity, id, source charge group)`.
    call_classes: HashMap<(i64, &'a str), Keyed<i64>>,
    ignored_call_classes: HashMap<(i64, &'a str), Keyed<()>>,
    ignored_service_ids: HashMap<&'a str, Keyed<()>>,
}

impl<'a> PrefixMapRater<'a> {
    /// Indexes `tariff`; records whose source charge group is unknown are left out (the
    /// engine refuses them when it is built).
    pub fn new(tariff: &'a Tariff) -> Self {
        let source_of: HashMap<i64, i64> = tariff
            .source_charge_groups
            .iter()
            .map(|group| (group.id, group.reference_data_source_id))
            .collect();
        let mut rater = Self {
            dialstrings: HashMap::new(),
            call_classes: HashMap::new(),
            ignored_call_classes: HashMap::new(),
            ignored_service_ids: HashMap::new(),
        };
        for record in &tariff.dialstrings {
            let key = record.dialstring.as_str();
            let group = record.source_charge_group_id;
            file_by_group(
                &mut rater.dialstrings,
                &source_of,
                key,
                group,
                &record.validity,
                record.id,
            );
        }
        for record in &tariff.call_classes {
            let key = record.call_class.as_str();
            let group = record.source_charge_group_id;
            file_by_group(
                &mut rater.call_classes,
                &source_of,
                key,
                group,
                &record.validity,
                record.id,
            );
        }
        for record in &tariff.ignored_call_classes {
            let key = (record.reference_data_source_id, record.call_class.as_str());
            file(
                &mut rater.ignored_call_classes,
                key,
                &record.validity,
                record.id,
                (),
            );
        }
        for record in &tariff.ignored_service_ids {
            let key = record.service_id.as_str();
            file(
                &mut rater.ignored_service_ids,
                key,
                &record.validity,
                record.id,
                (),
            );
        }
        rater
    }
}

impl Rater for PrefixMapRater<'_> {
    fn rate(&self, request: &RatingRequest<'_>) -> Result<Rating, RatingError> {
        let number = request.number()?;
        let day = day_of(request.date);
        let source = request.reference_data_source_id;
        if let Some(service_id) = request.service_id.filter(|s| !s.is_empty())
            && let Some((id, ())) = in_force(self.ignored_service_ids.get(service_id), day)
        {
            return Ok(Rating {
                outcome: Outcome::Ignored,
                matched: Matched::IgnoredServiceId { id },
                source_charge_group_id: None,
            });
        }
        let call_class = request.call_class.filter(|c| !c.is_empty());
        if let Some(call_class) = call_class
            && let Some((id, ())) =
                in_force(self.ignored_call_classes.get(&(source, call_class)), day)
        {
            return Ok(Rating {
                outcome: Outcome::Ignored,
                matched: Matched::IgnoredCallClass { id },
                source_charge_group_id: None,
            });
        }
        if let Some(number) = number {
            let text = number.prefix_text(MAX_DIALSTRING_DIGITS);
            for length in (2..=text.len()).rev() {
                let records = self.dialstrings.get(&(source, &text[..length]));
                if let Some((id, group)) = in_force(records, day) {
                    return Ok(Rating {
                        outcome: Outcome::Dialstring,
                        matched: Matched::Dialstring {
                            id,
                            length: length as u8,
                        },
                        source_charge_group_id: Some(group),
                    });
                }
            }
        }
        if let Some(call_class) = call_class
            && let Some((id, group)) = in_force(self.call_classes.get(&(source, call_class)), day)
        {
            return Ok(Rating {
                outcome: Outcome::CallClass,
                matched: Matched::CallClass { id },
                source_charge_group_id: Some(group),
            });
        }
        Ok(Rating::UNRATED)
    }
}
