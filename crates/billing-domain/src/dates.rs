//! Dates a record applies over.

use chrono::NaiveDate;

use crate::error::ValidationErrors;

/// `start_date..=end_date`, open-ended when there is no end; never ends before it starts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Validity {
    start_date: NaiveDate,
    end_date: Option<NaiveDate>,
}

impl Validity {
    pub fn new(
        start_date: NaiveDate,
        end_date: Option<NaiveDate>,
    ) -> Result<Self, ValidationErrors> {
        if end_date.is_some_and(|end| end < start_date) {
            return Err(ValidationErrors::single(
                "endDate",
                "must not be before startDate",
            ));
        }
        Ok(Self {
            start_date,
            end_date,
        })
    }

    /// An open-ended validity, which cannot break the ordering rule.
    pub fn starting(start_date: NaiveDate) -> Self {
        Self {
            start_date,
            end_date: None,
        }
    }

    pub fn start_date(&self) -> NaiveDate {
        self.start_date
    }

    pub fn end_date(&self) -> Option<NaiveDate> {
        self.end_date
    }

    /// True when the record applies on `day` (both ends inclusive).
    pub fn is_in_force_on(&self, day: NaiveDate) -> bool {
        self.start_date <= day && self.end_date.is_none_or(|end| day <= end)
    }
}

/// Parses `yyyy-MM-dd` strictly: four-digit year, two-digit month and day.
pub fn parse_date(value: &str) -> Option<NaiveDate> {
    let bytes = value.as_bytes();
    let shaped = bytes.len() == 10
        && bytes[4] == b'-'
        && bytes[7] == b'-'
        && bytes
            .iter()
            .enumerate()
            .all(|(i, b)| i == 4 || i == 7 || b.is_ascii_digit());
    if !shaped {
        return None;
    }
    NaiveDate::parse_from_str(value, "%Y-%m-%d").ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn day(value: &str) -> NaiveDate {
        parse_date(value).expect("valid date")
    }

    #[test]
    fn end_before_start_is_rejected() {
        insta::assert_snapshot!(Validity::new(day("2026-02-01"), Some(day("2026-01-31"))).unwrap_err(), @"endDate: must not be before startDate");
        assert!(Validity::new(day("2026-02-01"), Some(day("2026-02-01"))).is_ok());
    }

    #[test]
    fn in_force_is_inclusive_at_both_ends() {
        let validity = Validity::new(day("2026-01-01"), Some(day("2026-01-31"))).expect("valid");
        assert!(validity.is_in_force_on(day("2026-01-01")));
        assert!(validity.is_in_force_on(day("2026-01-31")));
        assert!(!validity.is_in_force_on(day("2026-02-01")));
        assert!(!validity.is_in_force_on(day("2025-12-31")));
        let open = Validity::new(day("2026-01-01"), None).expect("valid");
        assert!(open.is_in_force_on(day("2999-01-01")));
    }

    #[test]
    fn dates_are_parsed_strictly() {
        assert!(parse_date("2026-11-22").is_some());
        for bad in [
            "2026-1-22",
            "22-11-2026",
            "2026-02-30",
            "2026-11-22T00:00:00Z",
            "+2026-11-22",
            "",
        ] {
            assert!(parse_date(bad).is_none(), "{bad} should be rejected");
        }
    }
}
