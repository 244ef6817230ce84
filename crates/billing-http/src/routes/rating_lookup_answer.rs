//! The answer of `POST /v1/rating/lookups`, written straight to JSON text.
//!
//! No `serde_json::Value` per item and no map of owned strings: each result is written into
//! one buffer as it is read off its rating. What a result shows of its source charge group
//! (its charge group, category, source and their dates: 15 members, the same for every item
//! that matched the group) is written once per group and request and copied after that.
//! Members come in a fixed order: `outcome`, the matched record's members, then the group's.

use std::collections::HashMap;
use std::ops::Range;

use billing_domain::dates::Validity;
use billing_domain::rating::{DayRange, Matched, Rating, RatingError, RatingRequest, date_of};
use chrono::{Datelike, NaiveDate};

use super::rating_lookups::{CALL_CLASS, DIALLED_NUMBER, SERVICE_ID, SOURCE};
use crate::live_rating::Live;

/// Writes the results of one request (one source, one date) into a JSON array.
pub struct AnswerWriter<'l> {
    live: &'l Live,
    out: Vec<u8>,
    /// `,"referenceDataSourceId":…,"referenceDataSourceName":…`, written once.
    source_members: Vec<u8>,
    /// Source charge group id → its members' place in `group_text`.
    groups: HashMap<i64, Range<usize>>,
    group_text: Vec<u8>,
}

impl<'l> AnswerWriter<'l> {
    /// Starts `{"referenceDataSourceId":…,"date":…,"results":[`.
    pub fn new(live: &'l Live, source: i64, date: NaiveDate, items: usize) -> Self {
        // About 600 bytes an item when most match a dialstring.
        let mut out = Vec::with_capacity(items.saturating_mul(640) + 128);
        out.extend_from_slice(b"{\"");
        out.extend_from_slice(SOURCE.as_bytes());
        out.extend_from_slice(b"\":");
        write_integer(&mut out, source);
        out.extend_from_slice(b",\"date\":");
        write_date(&mut out, Some(date));
        out.extend_from_slice(b",\"results\":[");
        let mut source_members = Vec::new();
        member(&mut source_members, SOURCE);
        write_integer(&mut source_members, source);
        member(&mut source_members, "referenceDataSourceName");
        write_optional_text(
            &mut source_members,
            live.labels.source_names.get(&source).map(String::as_str),
        );
        Self {
            live,
            out,
            source_members,
            groups: HashMap::new(),
            group_text: Vec::new(),
        }
    }

    /// Adds one item's result.
    pub fn result(&mut self, request: &RatingRequest<'_>, rating: &Result<Rating, RatingError>) {
        if !self.out.ends_with(b"[") {
            self.out.push(b',');
        }
        let rating = match rating {
            Ok(rating) => rating,
            Err(error) => {
                self.out.extend_from_slice(b"{\"error\":{\"field\":\"");
                self.out.extend_from_slice(DIALLED_NUMBER.as_bytes());
                self.out.extend_from_slice(b"\",\"message\":");
                write_text(&mut self.out, &error.to_string());
                self.out.extend_from_slice(b"}}");
                return;
            }
        };
        let out = &mut self.out;
        out.extend_from_slice(b"{\"outcome\":\"");
        out.extend_from_slice(rating.outcome.code().as_bytes());
        out.push(b'"');
        let range = self.live.index.matched_range(request, rating);
        match rating.matched {
            Matched::None => {}
            Matched::IgnoredServiceId { id } => {
                member(out, "ignoredRecordType");
                out.extend_from_slice(b"\"SERVICE_ID\"");
                member(out, "ignoredRecordId");
                write_integer(out, id);
                member(out, SERVICE_ID);
                write_optional_text(out, request.service_id);
                write_range(out, "ignoredRecord", range);
            }
            Matched::IgnoredCallClass { id } => {
                member(out, "ignoredRecordType");
                out.extend_from_slice(b"\"CALL_CLASS\"");
                member(out, "ignoredRecordId");
                write_integer(out, id);
                member(out, CALL_CLASS);
                write_optional_text(out, request.call_class);
                write_range(out, "ignoredRecord", range);
                out.extend_from_slice(&self.source_members);
            }
            Matched::Dialstring { id, length } => {
                member(out, "dialstringId");
                write_integer(out, id);
                member(out, "dialstring");
                match request.number().ok().flatten() {
                    Some(number) => {
                        out.push(b'"');
                        out.extend(number.digits().take(usize::from(length)).map(|d| b'0' + d));
                        out.push(b'"');
                    }
                    None => out.extend_from_slice(b"null"),
                }
                write_range(out, "dialstring", range);
            }
            Matched::CallClass { id } => {
                member(out, "callClassId");
                write_integer(out, id);
                member(out, CALL_CLASS);
                write_optional_text(out, request.call_class);
                write_range(out, CALL_CLASS, range);
            }
        }
        if matches!(
            rating.matched,
            Matched::Dialstring { .. } | Matched::CallClass { .. }
        ) && let Some(group_id) = rating.source_charge_group_id
        {
            let members = self.group_members(group_id);
            self.out.extend_from_slice(&self.group_text[members]);
        }
        self.out.push(b'}');
    }

    /// Ends the array and the object; the answer's bytes.
    pub fn finish(mut self) -> Vec<u8> {
        self.out.extend_from_slice(b"]}");
        self.out
    }

    /// The members shown for source charge group `id`, written on first use.
    fn group_members(&mut self, id: i64) -> Range<usize> {
        if let Some(range) = self.groups.get(&id) {
            return range.clone();
        }
        let start = self.group_text.len();
        self.write_group(id);
        let range = start..self.group_text.len();
        self.groups.insert(id, range.clone());
        range
    }

    fn write_group(&mut self, id: i64) {
        let (live, out) = (self.live, &mut self.group_text);
        let Some(group) = live.index.source_charge_group(id) else {
            return;
        };
        let labels = &live.labels;
        member(out, "referenceDataSourceChargeGroupId");
        write_integer(out, group.id);
        member(out, "referenceDataSourceChargeGroupName");
        write_text(out, &group.name);
        write_validity(
            out,
            "referenceDataSourceChargeGroup",
            labels.source_charge_group_dates.get(&group.id),
        );
        out.extend_from_slice(&self.source_members);
        member(out, "chargeGroupId");
        write_integer(out, group.charge_group_id);
        let Some(charge_group) = live.index.charge_group(group.charge_group_id) else {
            return;
        };
        member(out, "chargeGroupName");
        write_text(out, &charge_group.name);
        write_validity(
            out,
            "chargeGroup",
            labels.charge_group_dates.get(&charge_group.id),
        );
        let category_id = charge_group.charge_group_category_id;
        member(out, "chargeGroupCategoryId");
        write_integer(out, category_id);
        if let Some(category) = live.index.category(category_id) {
            member(out, "chargeGroupCategoryName");
            write_text(out, &category.name);
            member(out, "chargeGroupCategoryChargingUnitType");
            write_text(out, category.charging_unit_type.code());
            write_validity(
                out,
                "chargeGroupCategory",
                labels.category_dates.get(&category_id),
            );
        }
    }
}

/// `,"name":` (names are plain ASCII, never escaped).
fn member(out: &mut Vec<u8>, name: &str) {
    out.extend_from_slice(b",\"");
    out.extend_from_slice(name.as_bytes());
    out.extend_from_slice(b"\":");
}

fn write_integer(out: &mut Vec<u8>, value: i64) {
    out.extend_from_slice(itoa::Buffer::new().format(value).as_bytes());
}

fn write_text(out: &mut Vec<u8>, text: &str) {
    // Writing JSON into a Vec cannot fail.
    let _ = serde_json::to_writer(&mut *out, text);
}

fn write_optional_text(out: &mut Vec<u8>, text: Option<&str>) {
    match text {
        Some(text) => write_text(out, text),
        None => out.extend_from_slice(b"null"),
    }
}

/// `"yyyy-MM-dd"`, or `null`.
fn write_date(out: &mut Vec<u8>, date: Option<NaiveDate>) {
    let Some(date) = date else {
        out.extend_from_slice(b"null");
        return;
    };
    let year = date.year();
    if !(0..=9999).contains(&year) {
        let _ = serde_json::to_writer(&mut *out, &date.to_string());
        return;
    }
    let two = |n: u32| [b'0' + (n / 10) as u8, b'0' + (n % 10) as u8];
    let year = year as u32;
    out.push(b'"');
    out.extend_from_slice(&two(year / 100));
    out.extend_from_slice(&two(year % 100));
    out.push(b'-');
    out.extend_from_slice(&two(date.month()));
    out.push(b'-');
    out.extend_from_slice(&two(date.day()));
    out.push(b'"');
}

/// `,"<prefix>StartDate":…,"<prefix>EndDate":…` when the range is known.
fn write_range(out: &mut Vec<u8>, prefix: &str, range: Option<DayRange>) {
    let Some(range) = range else {
        return;
    };
    for (suffix, day) in [("StartDate", range.start), ("EndDate", range.end)] {
        out.extend_from_slice(b",\"");
        out.extend_from_slice(prefix.as_bytes());
        out.extend_from_slice(suffix.as_bytes());
        out.extend_from_slice(b"\":");
        write_date(out, date_of(day));
    }
}

fn write_validity(out: &mut Vec<u8>, prefix: &str, validity: Option<&Validity>) {
    write_range(out, prefix, validity.map(DayRange::from_validity));
}

#[cfg(test)]
mod tests {
    use super::*;

    fn date_text(date: Option<NaiveDate>) -> String {
        let mut out = Vec::new();
        write_date(&mut out, date);
        String::from_utf8(out).expect("text")
    }

    #[test]
    fn dates_are_written_as_chrono_shows_them() {
        for (y, m, d) in [
            (2026, 1, 2),
            (1, 12, 31),
            (999, 6, 9),
            (9999, 12, 31),
            (2024, 2, 29),
        ] {
            let date = NaiveDate::from_ymd_opt(y, m, d).expect("date");
            assert_eq!(date_text(Some(date)), format!("\"{date}\""));
        }
        let far = NaiveDate::from_ymd_opt(12345, 1, 1).expect("date");
        assert_eq!(date_text(Some(far)), format!("\"{far}\""));
        assert_eq!(date_text(None), "null");
    }
}
