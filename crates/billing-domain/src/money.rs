//! Exact decimal amounts stored as scaled integers (minor units), never floats.

use bigdecimal::{BigDecimal, ToPrimitive};

use crate::error::ValidationErrors;

/// Converts `value` to an integer count of `10^-scale` units, refusing more decimal places
/// than `scale` and values outside `i64`.
pub fn to_scaled_integer(
    field: &str,
    value: &BigDecimal,
    scale: i64,
) -> Result<i64, ValidationErrors> {
    let normalized = value.normalized();
    let (_, exponent) = normalized.as_bigint_and_exponent();
    if exponent > scale {
        return Err(ValidationErrors::single(
            field,
            format!("must have at most {scale} decimal places"),
        ));
    }
    let scaled = normalized.with_scale(scale);
    let (digits, _) = scaled.as_bigint_and_exponent();
    digits
        .to_i64()
        .ok_or_else(|| ValidationErrors::single(field, "is too large"))
}

/// The exact decimal that `units` of `10^-scale` make.
pub fn from_scaled_integer(units: i64, scale: i64) -> BigDecimal {
    BigDecimal::new(units.into(), scale)
}

#[cfg(test)]
mod tests {
    use std::str::FromStr;

    use super::*;

    fn decimal(value: &str) -> BigDecimal {
        BigDecimal::from_str(value).expect("decimal")
    }

    #[test]
    fn round_trips_exactly() {
        assert_eq!(to_scaled_integer("amount", &decimal("12.34"), 2), Ok(1234));
        assert_eq!(to_scaled_integer("amount", &decimal("0.1"), 2), Ok(10));
        assert_eq!(
            to_scaled_integer("amount", &decimal("100000"), 2),
            Ok(10_000_000)
        );
        assert_eq!(from_scaled_integer(1234, 2).to_string(), "12.34");
    }

    #[test]
    fn refuses_extra_places() {
        insta::assert_snapshot!(to_scaled_integer("amount", &decimal("1.005"), 2).unwrap_err(), @"amount: must have at most 2 decimal places");
        assert_eq!(to_scaled_integer("amount", &decimal("1.500"), 2), Ok(150));
    }
}
