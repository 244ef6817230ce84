//! Rules that span several fields of one record, named in resource declarations
//! (`rules { validity(start_date, end_date) }`) and called with the fields' values.

use chrono::NaiveDate;

use crate::dates::Validity;
use crate::error::ValidationErrors;

/// A record's dates: the end, when there is one, is not before the start.
pub fn validity(
    start_date: &NaiveDate,
    end_date: &Option<NaiveDate>,
) -> Result<(), ValidationErrors> {
    Validity::new(*start_date, *end_date).map(drop)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dates::parse_date;

    #[test]
    fn an_end_before_the_start_is_refused_naming_end_date() {
        let day = |value| parse_date(value).expect("date");
        insta::assert_snapshot!(validity(&day("2026-02-01"), &Some(day("2026-01-01"))).unwrap_err(), @"endDate: must not be before startDate");
        assert!(validity(&day("2026-01-01"), &Some(day("2026-01-01"))).is_ok());
        assert!(validity(&day("2026-01-01"), &None).is_ok());
    }
}
