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
    // `1e999999999` is small to write and enormous to scale: anything of 10^19 or more is
    // refused before its digits are made.
    if exponent < -19 {
        return Err(ValidationErrors::single(field, "is too large"));
    }
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

/// The longest text a decimal may be written in. Any amount the service stores fits in far
/// fewer characters; reading a number costs time that grows faster than its length (a million
/// digits took seconds), so a longer one is refused before it is read.
pub const DECIMAL_MAX_CHARS: usize = 100;

/// Whether `text` is written as a JSON number is (`-12.5`, `1e2`, leading zeros allowed), or
/// with `exponent: false` plainly (`-12.5`): the text parser under it also takes `1_0`, `+5`,
/// `.5` and `5.`, which no client writes on purpose.
fn is_decimal_text(text: &str, exponent: bool) -> bool {
    let digits = |part: &str| !part.is_empty() && part.bytes().all(|b| b.is_ascii_digit());
    let unsigned = text.strip_prefix('-').unwrap_or(text);
    let (number, power) = match unsigned.find(['e', 'E']) {
        Some(at) if exponent => (&unsigned[..at], Some(&unsigned[at + 1..])),
        Some(_) => return false,
        None => (unsigned, None),
    };
    let (whole, fraction) = match number.split_once('.') {
        Some((whole, fraction)) => (whole, Some(fraction)),
        None => (number, None),
    };
    digits(whole)
        && fraction.is_none_or(digits)
        && power.is_none_or(|power| digits(power.strip_prefix(['+', '-']).unwrap_or(power)))
}

/// A decimal written as a JSON number (`12.5`, `1e2`) as a count of `10^-scale` units,
/// exactly; `Err` says why not (too long, not a number, too many places, too large).
pub fn parse_decimal(text: &str, scale: u32) -> Result<i64, String> {
    parse_decimal_text(text, scale, true)
}

/// A decimal written plainly (`-12.5`, no exponent: a list filter's value) as a count of
/// `10^-scale` units, exactly.
pub fn parse_plain_decimal(text: &str, scale: u32) -> Result<i64, String> {
    parse_decimal_text(text, scale, false)
}

fn parse_decimal_text(text: &str, scale: u32, exponent: bool) -> Result<i64, String> {
    use std::str::FromStr;
    if text.len() > DECIMAL_MAX_CHARS {
        return Err(format!(
            "must be written in at most {DECIMAL_MAX_CHARS} characters"
        ));
    }
    if !is_decimal_text(text, exponent) {
        return Err("must be a number".to_owned());
    }
    let value = BigDecimal::from_str(text).map_err(|_| "must be a number".to_owned())?;
    to_scaled_integer("", &value, i64::from(scale)).map_err(ValidationErrors::messages)
}

/// Whether two numbers written as JSON numbers are the same number (`150`, `150.00` and
/// `1.5e2` are): compared exactly, never expanded (`1e999999999` costs no more than `1`). Text
/// past [`DECIMAL_MAX_CHARS`] or not a number is compared as text.
pub fn same_number(one: &str, other: &str) -> bool {
    use std::str::FromStr;
    let read = |text: &str| {
        (text.len() <= DECIMAL_MAX_CHARS && is_decimal_text(text, true))
            .then(|| BigDecimal::from_str(text).ok())
            .flatten()
            .map(|value| value.normalized().as_bigint_and_exponent())
    };
    match (read(one), read(other)) {
        (Some(one), Some(other)) => {
            // Zero is zero whatever its exponent.
            let zero = |(digits, _): &(bigdecimal::num_bigint::BigInt, i64)| {
                digits.sign() == bigdecimal::num_bigint::Sign::NoSign
            };
            one == other || (zero(&one) && zero(&other))
        }
        _ => one == other,
    }
}

/// `units` of `10^-scale` as the shortest exact decimal text (`1050`, 2 → `10.5`).
pub fn format_decimal(units: i64, scale: u32) -> String {
    let text = from_scaled_integer(units, i64::from(scale)).to_string();
    if !text.contains('.') || text.contains('e') || text.contains('E') {
        return text;
    }
    text.trim_end_matches('0').trim_end_matches('.').to_owned()
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
    fn decimal_text_round_trips() {
        assert_eq!(parse_decimal("17.5", 4), Ok(175_000));
        assert_eq!(parse_decimal("1e2", 2), Ok(10_000));
        assert_eq!(parse_decimal("-0.25", 2), Ok(-25));
        insta::assert_snapshot!(parse_decimal("0.125", 2).unwrap_err(), @"must have at most 2 decimal places");
        insta::assert_snapshot!(parse_decimal("ten", 2).unwrap_err(), @"must be a number");
        assert!(parse_decimal("1e30", 2).is_err());
        insta::assert_snapshot!(parse_decimal("1e999999999", 2).unwrap_err(), @"is too large");
        insta::assert_snapshot!(parse_decimal("1e-999999999", 2).unwrap_err(), @"must have at most 2 decimal places");
        // A number past the length limit is refused before it is read (a million digits took
        // seconds to read); one at the limit is read.
        let at_limit = format!("1.{}", "0".repeat(DECIMAL_MAX_CHARS - 2));
        assert_eq!(parse_decimal(&at_limit, 2), Ok(100));
        insta::assert_snapshot!(parse_decimal(&"9".repeat(1_000_000), 2).unwrap_err(), @"must be written in at most 100 characters");
        // Written as a number is: not as the text parser under it would also take.
        for odd in [
            "1_0", "+5", ".5", "5.", "1e", "1e+", "--1", "1.2.3", " 1", "",
        ] {
            assert_eq!(
                parse_decimal(odd, 2),
                Err("must be a number".to_owned()),
                "{odd}"
            );
        }
        assert_eq!(parse_decimal("007.50", 2), Ok(750));
        assert_eq!(parse_decimal("1.75E+1", 2), Ok(1750));
        // A list filter's value is written plainly.
        assert_eq!(parse_plain_decimal("-17.5", 2), Ok(-1750));
        assert!(parse_plain_decimal("1.75e1", 2).is_err());
        assert_eq!(format_decimal(175_000, 4), "17.5");
        assert_eq!(format_decimal(10_000, 2), "100");
        assert_eq!(format_decimal(-25, 2), "-0.25");
        assert_eq!(format_decimal(0, 2), "0");
        assert_eq!(format_decimal(7, 0), "7");
    }

    #[test]
    fn numbers_are_the_same_by_value() {
        for (one, other) in [
            ("150", "150.00"),
            ("150", "1.5e2"),
            ("0", "-0.0"),
            ("1e999999999", "10e999999998"),
        ] {
            assert!(same_number(one, other), "{one} {other}");
        }
        for (one, other) in [("150", "150.01"), ("1e999999999", "1"), ("-1", "1")] {
            assert!(!same_number(one, other), "{one} {other}");
        }
    }

    #[test]
    fn refuses_extra_places() {
        insta::assert_snapshot!(to_scaled_integer("amount", &decimal("1.005"), 2).unwrap_err(), @"amount: must have at most 2 decimal places");
        assert_eq!(to_scaled_integer("amount", &decimal("1.500"), 2), Ok(150));
    }
}
