//! Reference data records as the rules allow them. Each `*Draft` is a record that passed every
//! field rule and every cross-field rule; storage takes drafts only.

use chrono::NaiveDate;

use crate::codes::{CountryCode, CurrencyCode};
use crate::dates::Validity;
use crate::error::ValidationErrors;
use crate::text::{AsciiLetters, BoundedText};

/// How a charge group category's usage is measured.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ChargingUnitType {
    Duration,
    Megabytes,
    OneOff,
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

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CurrencyDraft {
    pub code: CurrencyCode,
    pub symbol: String,
    pub major_currency_name: AsciiLetters<1, 10>,
    pub minor_currency_name: AsciiLetters<1, 10>,
    pub major_currency_format: BoundedText<1, 20>,
    pub minor_currency_format: BoundedText<1, 20>,
    pub sales_tax_name: BoundedText<1, 20>,
}

/// The raw fields of a currency, as received.
pub struct CurrencyFields<'a> {
    pub code: &'a str,
    pub symbol: &'a str,
    pub major_currency_name: &'a str,
    pub minor_currency_name: &'a str,
    pub major_currency_format: &'a str,
    pub minor_currency_format: &'a str,
    pub sales_tax_name: &'a str,
}

impl CurrencyDraft {
    pub fn parse(fields: CurrencyFields<'_>) -> Result<Self, ValidationErrors> {
        let mut errors = ValidationErrors::default();
        let code = errors.collect(CurrencyCode::parse("code", fields.code));
        let symbol = errors.collect(check_currency_symbol("symbol", fields.symbol));
        let major_name = errors.collect(AsciiLetters::parse(
            "majorCurrencyName",
            fields.major_currency_name,
        ));
        let minor_name = errors.collect(AsciiLetters::parse(
            "minorCurrencyName",
            fields.minor_currency_name,
        ));
        let major_format = errors.collect(BoundedText::parse(
            "majorCurrencyFormat",
            fields.major_currency_format,
        ));
        let minor_format = errors.collect(BoundedText::parse(
            "minorCurrencyFormat",
            fields.minor_currency_format,
        ));
        let tax_name = errors.collect(BoundedText::parse("salesTaxName", fields.sales_tax_name));
        match (
            code,
            symbol,
            major_name,
            minor_name,
            major_format,
            minor_format,
            tax_name,
        ) {
            (
                Some(code),
                Some(()),
                Some(major_name),
                Some(minor_name),
                Some(major_format),
                Some(minor_format),
                Some(tax_name),
            ) if errors.is_empty() => Ok(Self {
                code,
                symbol: fields.symbol.to_owned(),
                major_currency_name: major_name,
                minor_currency_name: minor_name,
                major_currency_format: major_format,
                minor_currency_format: minor_format,
                sales_tax_name: tax_name,
            }),
            _ => Err(errors),
        }
    }
}

/// A country and a currency used together.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LocaleDraft {
    pub country: CountryCode,
    pub currency_id: i64,
}

impl LocaleDraft {
    pub fn parse(country_code: &str, currency_id: i64) -> Result<Self, ValidationErrors> {
        Ok(Self {
            country: CountryCode::parse("country.code", country_code)?,
            currency_id,
        })
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReferenceDataSourceDraft {
    pub name: BoundedText<1, 50>,
    pub locale_id: i64,
    pub si_maintained: bool,
}

impl ReferenceDataSourceDraft {
    pub fn parse(
        name: &str,
        locale_id: i64,
        si_maintained: bool,
    ) -> Result<Self, ValidationErrors> {
        Ok(Self {
            name: BoundedText::parse("name", name)?,
            locale_id,
            si_maintained,
        })
    }
}

/// Collects a name and a validity; shared by the dated records below.
fn parse_named_validity<const MAX: usize>(
    errors: &mut ValidationErrors,
    name: &str,
    start_date: NaiveDate,
    end_date: Option<NaiveDate>,
) -> (Option<BoundedText<1, MAX>>, Option<Validity>) {
    let name = errors.collect(BoundedText::parse("name", name));
    let validity = errors.collect(Validity::new(start_date, end_date));
    (name, validity)
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ChargeGroupCategoryDraft {
    pub name: BoundedText<1, 50>,
    pub charging_unit_type: ChargingUnitType,
    pub validity: Validity,
}

impl ChargeGroupCategoryDraft {
    pub fn parse(
        name: &str,
        charging_unit_type: &str,
        start_date: NaiveDate,
        end_date: Option<NaiveDate>,
    ) -> Result<Self, ValidationErrors> {
        let mut errors = ValidationErrors::default();
        let (name, validity) = parse_named_validity(&mut errors, name, start_date, end_date);
        let unit = errors.collect(ChargingUnitType::parse(
            "chargingUnitType",
            charging_unit_type,
        ));
        match (name, unit, validity) {
            (Some(name), Some(charging_unit_type), Some(validity)) => Ok(Self {
                name,
                charging_unit_type,
                validity,
            }),
            _ => Err(errors),
        }
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ChargeGroupDraft {
    pub name: BoundedText<1, 255>,
    pub charge_group_category_id: i64,
    pub validity: Validity,
}

impl ChargeGroupDraft {
    pub fn parse(
        name: &str,
        charge_group_category_id: i64,
        start_date: NaiveDate,
        end_date: Option<NaiveDate>,
    ) -> Result<Self, ValidationErrors> {
        let mut errors = ValidationErrors::default();
        let (name, validity) = parse_named_validity(&mut errors, name, start_date, end_date);
        match (name, validity) {
            (Some(name), Some(validity)) => Ok(Self {
                name,
                charge_group_category_id,
                validity,
            }),
            _ => Err(errors),
        }
    }
}

/// A source's own charge group: the link between a reference data source and a charge group.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SourceChargeGroupDraft {
    pub name: BoundedText<1, 255>,
    pub code: BoundedText<1, 255>,
    pub charge_group_id: i64,
    pub reference_data_source_id: i64,
    pub validity: Validity,
}

impl SourceChargeGroupDraft {
    pub fn parse(
        name: &str,
        code: &str,
        charge_group_id: i64,
        reference_data_source_id: i64,
        start_date: NaiveDate,
        end_date: Option<NaiveDate>,
    ) -> Result<Self, ValidationErrors> {
        let mut errors = ValidationErrors::default();
        let (name, validity) = parse_named_validity(&mut errors, name, start_date, end_date);
        let code = errors.collect(BoundedText::parse("code", code));
        match (name, code, validity) {
            (Some(name), Some(code), Some(validity)) => Ok(Self {
                name,
                code,
                charge_group_id,
                reference_data_source_id,
                validity,
            }),
            _ => Err(errors),
        }
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
    use crate::dates::parse_date;

    fn day(value: &str) -> NaiveDate {
        parse_date(value).expect("date")
    }

    #[test]
    fn all_currency_errors_are_reported_together() {
        let error = CurrencyDraft::parse(CurrencyFields {
            code: "gbp",
            symbol: "££",
            major_currency_name: "Pound1",
            minor_currency_name: "Penny",
            major_currency_format: "<b>",
            minor_currency_format: "p",
            sales_tax_name: "",
        })
        .unwrap_err();
        insta::assert_snapshot!(error, @"code: must be three capital letters (ISO 4217); symbol: must be exactly 1 visible character; majorCurrencyName: must contain only letters a-z and A-Z; majorCurrencyFormat: contains a character that is not allowed: '<'; salesTaxName: must be 1 to 20 characters long (got 0)");
    }

    #[test]
    fn source_charge_group_needs_ordered_dates() {
        let error = SourceChargeGroupDraft::parse(
            "UK Mobile",
            "UKM",
            1,
            1,
            day("2026-02-01"),
            Some(day("2026-01-01")),
        )
        .unwrap_err();
        insta::assert_snapshot!(error, @"endDate: must not be before startDate");
        assert!(
            SourceChargeGroupDraft::parse("UK Mobile", "UKM", 1, 1, day("2026-01-01"), None)
                .is_ok()
        );
    }

    #[test]
    fn charging_unit_types() {
        for code in ChargingUnitType::CODES {
            assert_eq!(
                ChargingUnitType::parse("t", code).map(ChargingUnitType::code),
                Ok(code)
            );
        }
        assert!(
            ChargeGroupCategoryDraft::parse("Calls", "SECONDS", day("2026-01-01"), None).is_err()
        );
    }

    #[test]
    fn operator_maintained_sources_are_refused() {
        assert!(ensure_externally_maintained(3, false).is_ok());
        insta::assert_snapshot!(ensure_externally_maintained(3, true).unwrap_err(), @"reference data source 3 is maintained by the operator's feed (siMaintained = true) and cannot be changed through the API");
    }
}
