//! Strict date and date-time forms: `yyyy-MM-dd` and RFC 3339 UTC (`…Z`).

use chrono::{NaiveDate, NaiveDateTime};
use serde::{Deserialize, Deserializer, Serializer};

use billing_domain::dates::parse_date;

pub fn deserialize_date<'de, D: Deserializer<'de>>(deserializer: D) -> Result<NaiveDate, D::Error> {
    let text = String::deserialize(deserializer)?;
    parse_date(&text).ok_or_else(|| serde::de::Error::custom("expected a date as yyyy-MM-dd"))
}

/// Date-times are written as `2026-11-22T10:15:00Z` (fractions of a second when present).
pub fn serialize_date_time<S: Serializer>(
    value: &NaiveDateTime,
    serializer: S,
) -> Result<S::Ok, S::Error> {
    serializer.serialize_str(&format_date_time(value))
}

pub fn serialize_optional_date_time<S: Serializer>(
    value: &Option<NaiveDateTime>,
    serializer: S,
) -> Result<S::Ok, S::Error> {
    match value {
        Some(value) => serializer.serialize_str(&format_date_time(value)),
        None => serializer.serialize_none(),
    }
}

pub fn format_date_time(value: &NaiveDateTime) -> String {
    value
        .and_utc()
        .to_rfc3339_opts(chrono::SecondsFormat::AutoSi, true)
}
