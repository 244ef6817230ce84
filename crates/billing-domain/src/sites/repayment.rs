//! A site's repayment plan (docs/api.md "Sites"): an amount per period and the periods remaining, both or
//! neither. The amount's own rule is the kind [`RepaymentAmount`](super::codes::RepaymentAmount);
//! it is held in hundredths.

use crate::error::ValidationErrors;

/// repaymentPlanAmount and repaymentPlanRemainingPeriods go together (docs/api.md "Sites").
pub fn check_repayment_plan(
    repayment_plan_amount: &Option<i64>,
    repayment_plan_remaining_periods: &Option<i64>,
) -> Result<(), ValidationErrors> {
    match (repayment_plan_amount, repayment_plan_remaining_periods) {
        (Some(_), None) => Err(ValidationErrors::single(
            "repaymentPlanRemainingPeriods",
            "is required when repaymentPlanAmount is given",
        )),
        (None, Some(_)) => Err(ValidationErrors::single(
            "repaymentPlanAmount",
            "is required when repaymentPlanRemainingPeriods is given",
        )),
        _ => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn both_or_neither() {
        let amount = Some(1050);
        assert!(check_repayment_plan(&amount, &Some(12)).is_ok());
        assert!(check_repayment_plan(&None, &None).is_ok());
        insta::assert_snapshot!(check_repayment_plan(&amount, &None).unwrap_err(), @"repaymentPlanRemainingPeriods: is required when repaymentPlanAmount is given");
        insta::assert_snapshot!(check_repayment_plan(&None, &Some(0)).unwrap_err(), @"repaymentPlanAmount: is required when repaymentPlanRemainingPeriods is given");
    }
}
