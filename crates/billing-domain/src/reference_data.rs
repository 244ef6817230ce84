//! Reference data rules that declarations cannot say: charging unit types, the currency symbol
//! rule and the siMaintained rule.

use crate::error::ValidationErrors;

/// How a charge group category's usage is measured.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ChargingUnitType {
    Duration,
    Megabytes,
    OneOff,
}

impl crate::kinds::CodeSet for ChargingUnitType {
    const NAME: &'static str = "ChargingUnitType";
    const CODES: &'static [&'static str] = &Self::CODES;
}

impl ChargingUnitType {
    pub const CODES: [&'static str; 3] = ["DURATION", "MB", "ONE_OFF"];

    pub fn code(self) -> &'static str {
        match self {
            ChargingUnitType::Duration => "DURATION",
            ChargingUnitType::Megabytes => "MB",
            ChargingUnitType::OneOff => "ONE_OFF",
        }
    }

    pub fn parse(field: &str, code: &str) -> Result<Self, ValidationErrors> {
        match code {
            "DURATION" => Ok(ChargingUnitType::Duration),
            "MB" => Ok(ChargingUnitType::Megabytes),
            "ONE_OFF" => Ok(ChargingUnitType::OneOff),
            _ => Err(ValidationErrors::single(
                field,
                "must be one of DURATION, MB, ONE_OFF",
            )),
        }
    }
}

/// One currency symbol: a single character that is a letter or digit of any script (`R`, `ƒ`,
/// `৳`), a currency sign (`¥`, `₹`, `₽`: Unicode's category Sc) or a punctuation mark of the
/// free-text set. Not what shows nothing or nothing on its own (a zero-width space, a direction
/// override, a byte-order mark, a lone accent, a variation selector), nor a picture (`😀`).
pub fn check_currency_symbol(field: &str, value: &str) -> Result<(), ValidationErrors> {
    let mut chars = value.chars();
    match (chars.next(), chars.next()) {
        (Some(c), None) if is_currency_symbol_char(c) => Ok(()),
        _ => Err(ValidationErrors::single(
            field,
            "must be exactly 1 character: a letter, a digit, a currency sign (such as ¥ or ₹) or a punctuation mark of the text set",
        )),
    }
}

/// True when `c` may be a currency symbol ([`check_currency_symbol`]).
pub fn is_currency_symbol_char(c: char) -> bool {
    use unicode_properties::{GeneralCategory, UnicodeGeneralCategory};
    let letter_or_digit = c.is_alphanumeric() && crate::text::is_letter_or_digit(c);
    letter_or_digit
        || (c.general_category() == GeneralCategory::CurrencySymbol && c <= '\u{FFFF}')
        || crate::text::TEXT_PUNCTUATION.contains(c)
}

/// Why a change to reference data is refused because of who maintains it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[error(
    "reference data source {source_id} is maintained by the operator's feed (siMaintained = true) and cannot be changed through the API"
)]
pub struct OperatorMaintained {
    pub source_id: i64,
}

/// Only sources with `siMaintained = false` may have their data changed through the interface.
pub fn ensure_externally_maintained(
    source_id: i64,
    si_maintained: bool,
) -> Result<(), OperatorMaintained> {
    if si_maintained {
        Err(OperatorMaintained { source_id })
    } else {
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn charging_unit_types() {
        for code in ChargingUnitType::CODES {
            assert_eq!(
                ChargingUnitType::parse("t", code).map(ChargingUnitType::code),
                Ok(code)
            );
        }
        assert!(ChargingUnitType::parse("chargingUnitType", "SECONDS").is_err());
    }

    #[test]
    fn a_currency_symbol_is_one_character_that_shows() {
        for symbol in ["£", "$", "€", "¥", "₹", "₽", "R", "ƒ", "৳", "%"] {
            assert!(check_currency_symbol("symbol", symbol).is_ok(), "{symbol}");
        }
        let refused = [
            "",
            "££",
            "<",
            " ",
            "\u{00A0}",
            "\u{200B}",
            "\u{202E}",
            "\u{FEFF}",
            "\u{0301}",
            "\u{FE0F}",
            "\u{3164}",
            "😀",
            "\u{E000}",
            "\u{7}",
            "\u{20171}",
            "\u{1E900}",
            "\u{1E2FF}",
        ];
        for symbol in refused {
            assert!(
                check_currency_symbol("symbol", symbol).is_err(),
                "{symbol:?}"
            );
        }
        insta::assert_snapshot!(check_currency_symbol("symbol", "\u{200B}").unwrap_err(), @"symbol: must be exactly 1 character: a letter, a digit, a currency sign (such as ¥ or ₹) or a punctuation mark of the text set");
    }

    #[test]
    fn operator_maintained_sources_are_refused() {
        assert!(ensure_externally_maintained(3, false).is_ok());
        insta::assert_snapshot!(ensure_externally_maintained(3, true).unwrap_err(), @"reference data source 3 is maintained by the operator's feed (siMaintained = true) and cannot be changed through the API");
    }
}
