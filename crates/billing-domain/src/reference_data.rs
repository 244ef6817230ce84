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

/// One currency symbol: a single visible character.
pub fn check_currency_symbol(field: &str, value: &str) -> Result<(), ValidationErrors> {
    let mut chars = value.chars();
    match (chars.next(), chars.next()) {
        (Some(c), None) if !c.is_control() && !c.is_whitespace() && c != '<' && c != '>' => Ok(()),
        _ => Err(ValidationErrors::single(
            field,
            "must be exactly 1 visible character",
        )),
    }
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
    fn operator_maintained_sources_are_refused() {
        assert!(ensure_externally_maintained(3, false).is_ok());
        insta::assert_snapshot!(ensure_externally_maintained(3, true).unwrap_err(), @"reference data source 3 is maintained by the operator's feed (siMaintained = true) and cannot be changed through the API");
    }
}
