//! The reference data rating reads, and what it answers.

use chrono::NaiveDate;

use super::number::DialledNumber;
use crate::dates::Validity;
use crate::reference_data::ChargingUnitType;

/// Days since 1970-01-01: dates the engine compares as integers.
pub type Day = i32;

/// Days from 0001-01-01 (proleptic Gregorian) to 1970-01-01.
const UNIX_EPOCH_DAYS_FROM_CE: i32 = 719_163;

pub fn day_of(date: NaiveDate) -> Day {
    use chrono::Datelike;
    date.num_days_from_ce() - UNIX_EPOCH_DAYS_FROM_CE
}

/// The date of `day`; `None` for `Day::MAX` (an open end) or a day out of chrono's range.
pub fn date_of(day: Day) -> Option<NaiveDate> {
    if day == Day::MAX {
        return None;
    }
    NaiveDate::from_num_days_from_ce_opt(day.checked_add(UNIX_EPOCH_DAYS_FROM_CE)?)
}

/// `start..=end` in days; an open end is `Day::MAX`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DayRange {
    pub start: Day,
    pub end: Day,
}

impl DayRange {
    pub fn from_validity(validity: &Validity) -> Self {
        Self {
            start: day_of(validity.start_date()),
            end: validity.end_date().map_or(Day::MAX, day_of),
        }
    }

    pub fn contains(&self, day: Day) -> bool {
        self.start <= day && day <= self.end
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn days_count_from_the_unix_epoch() {
        let day = |y, m, d| super::day_of(chrono::NaiveDate::from_ymd_opt(y, m, d).expect("date"));
        assert_eq!(day(1970, 1, 1), 0);
        assert_eq!(day(2026, 11, 22), 20_779);
        assert_eq!(day(1969, 12, 31), -1);
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ChargeGroupCategory {
    pub id: i64,
    pub name: String,
    pub charging_unit_type: ChargingUnitType,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ChargeGroup {
    pub id: i64,
    pub name: String,
    pub charge_group_category_id: i64,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SourceChargeGroup {
    pub id: i64,
    pub name: String,
    pub code: String,
    pub charge_group_id: i64,
    pub reference_data_source_id: i64,
}

/// A dialstring: 2..15 digits mapped to a source charge group over a validity.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DialstringRecord {
    pub id: i64,
    pub dialstring: String,
    pub source_charge_group_id: i64,
    pub validity: Validity,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CallClassRecord {
    pub id: i64,
    pub call_class: String,
    pub source_charge_group_id: i64,
    pub validity: Validity,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct IgnoredCallClassRecord {
    pub id: i64,
    pub call_class: String,
    pub reference_data_source_id: i64,
    pub validity: Validity,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct IgnoredServiceIdRecord {
    pub id: i64,
    pub service_id: String,
    pub validity: Validity,
}

/// One usage record to rate.
#[derive(Debug, Clone, Copy)]
pub struct RatingRequest<'a> {
    pub reference_data_source_id: i64,
    pub date: NaiveDate,
    pub dialled_number: Option<&'a str>,
    pub call_class: Option<&'a str>,
    pub service_id: Option<&'a str>,
}

impl RatingRequest<'_> {
    /// The dialled number, parsed; `None` when absent or empty (rating then goes by call class).
    pub fn number(&self) -> Result<Option<DialledNumber>, RatingError> {
        match self.dialled_number {
            Some(text) if !text.is_empty() => Ok(Some(DialledNumber::parse(text)?)),
            _ => Ok(None),
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Outcome {
    Ignored,
    Dialstring,
    CallClass,
    Unrated,
}

impl Outcome {
    pub const ALL: [Outcome; 4] = [
        Outcome::Ignored,
        Outcome::Dialstring,
        Outcome::CallClass,
        Outcome::Unrated,
    ];

    pub fn code(self) -> &'static str {
        match self {
            Outcome::Ignored => "IGNORED",
            Outcome::Dialstring => "DIALSTRING",
            Outcome::CallClass => "CALL_CLASS",
            Outcome::Unrated => "UNRATED",
        }
    }
}

/// Which record decided the outcome.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Matched {
    None,
    IgnoredServiceId {
        id: i64,
    },
    IgnoredCallClass {
        id: i64,
    },
    /// `length` digits of the number matched dialstring record `id`.
    Dialstring {
        id: i64,
        length: u8,
    },
    CallClass {
        id: i64,
    },
}

/// The answer for one usage record: the outcome, the record that decided it and the source
/// charge group (with its charge group and category) it maps to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Rating {
    pub outcome: Outcome,
    pub matched: Matched,
    pub source_charge_group_id: Option<i64>,
}

impl Rating {
    pub const UNRATED: Rating = Rating {
        outcome: Outcome::Unrated,
        matched: Matched::None,
        source_charge_group_id: None,
    };
}

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum RatingError {
    #[error(transparent)]
    Number(#[from] crate::rating::number::NumberError),
}

/// Why a change could not be applied to the index.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ChangeError {
    #[error("dialstring '{0}' must be 2 to 15 digits")]
    InvalidDialstring(String),
    #[error("source charge group {0} is not known")]
    UnknownSourceChargeGroup(i64),
    #[error("charge group {0} is not known")]
    UnknownChargeGroup(i64),
    #[error("charge group category {0} is not known")]
    UnknownCategory(i64),
    #[error("source charge group {0} is still used by dialstrings or call classes")]
    StillUsed(i64),
    #[error(
        "the rating index of reference data source {source_id} is full: its dialstrings need more than {limit_words} words of memory"
    )]
    Capacity { source_id: i64, limit_words: usize },
}
