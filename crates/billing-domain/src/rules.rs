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

/// A currency rate converts between two different currencies (its rate's kind,
/// `PositiveDecimal`, keeps it above zero).
pub fn currency_rate(from_currency_id: &i64, to_currency_id: &i64) -> Result<(), ValidationErrors> {
    let mut errors = ValidationErrors::default();
    if from_currency_id == to_currency_id {
        errors.push(
            "toCurrencyId",
            "must not be the same currency as fromCurrencyId",
        );
    }
    errors.into_result(|| ())
}

/// A site's repayment plan: amount and remaining periods both or neither (docs/api.md "Sites").
pub fn repayment_plan(
    repayment_plan_amount: &Option<i64>,
    repayment_plan_remaining_periods: &Option<i64>,
) -> Result<(), ValidationErrors> {
    crate::sites::check_repayment_plan(repayment_plan_amount, repayment_plan_remaining_periods)
}

/// Invoice details name paymentTermsInDays or preferredPaymentDay, at least one (docs/api.md "Sites");
/// the error names a member of the details (the caller adds their path).
pub fn payment_terms(
    payment_terms_in_days: &Option<i64>,
    preferred_payment_day: &Option<i64>,
) -> Result<(), ValidationErrors> {
    crate::sites::check_payment_terms("", *payment_terms_in_days, *preferred_payment_day)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dates::parse_date;

    #[test]
    fn a_currency_rate_is_between_two_currencies_at_a_positive_rate() {
        use crate::kinds::{Kind, PositiveDecimal};
        assert!(currency_rate(&1, &2).is_ok());
        insta::assert_snapshot!(currency_rate(&1, &1).unwrap_err(), @"toCurrencyId: must not be the same currency as fromCurrencyId");
        // The rate's kind: greater than 0 (1 is a millionth), at most its maximum.
        type Rate = PositiveDecimal<6, 1_000_000>;
        assert!(Rate::check(&1).is_ok());
        insta::assert_snapshot!(Rate::check(&0).unwrap_err(), @"must be greater than 0");
        insta::assert_snapshot!(Rate::check(&-5).unwrap_err(), @"must be greater than 0");
        insta::assert_snapshot!(Rate::check(&1_000_000_000_001).unwrap_err(), @"must be between 0 and 1000000");
    }

    #[test]
    fn an_end_before_the_start_is_refused_naming_end_date() {
        let day = |value| parse_date(value).expect("date");
        insta::assert_snapshot!(validity(&day("2026-02-01"), &Some(day("2026-01-01"))).unwrap_err(), @"endDate: must not be before startDate");
        assert!(validity(&day("2026-01-01"), &Some(day("2026-01-01"))).is_ok());
        assert!(validity(&day("2026-01-01"), &None).is_ok());
    }
}
