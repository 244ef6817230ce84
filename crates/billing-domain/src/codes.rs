//! Codes with their own pattern: ISO 3166 countries and ISO 4217 currencies.

use crate::countries::COUNTRIES;
use crate::currency_codes::CURRENCY_CODES;
use crate::error::ValidationErrors;

/// An ISO 3166-1 alpha-2 code that names a country of [`COUNTRIES`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct CountryCode([u8; 2]);

impl CountryCode {
    pub fn parse(field: &str, value: &str) -> Result<Self, ValidationErrors> {
        let bytes = value.as_bytes();
        if bytes.len() != 2 || !bytes.iter().all(u8::is_ascii_uppercase) {
            return Err(ValidationErrors::single(
                field,
                "must be two capital letters (ISO 3166 alpha-2)",
            ));
        }
        if !COUNTRIES.iter().any(|(code, _)| *code == value) {
            return Err(ValidationErrors::single(
                field,
                format!("'{value}' is not an ISO 3166 country code"),
            ));
        }
        Ok(Self([bytes[0], bytes[1]]))
    }

    pub fn as_str(&self) -> &str {
        // Both bytes are ASCII capitals by construction.
        std::str::from_utf8(&self.0).unwrap_or("??")
    }
}

/// An ISO 4217 alphabetic code in current use (one of [`CURRENCY_CODES`]).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct CurrencyCode(String);

impl CurrencyCode {
    pub fn parse(field: &str, value: &str) -> Result<Self, ValidationErrors> {
        if value.len() != 3 || !value.bytes().all(|b| b.is_ascii_uppercase()) {
            return Err(ValidationErrors::single(
                field,
                "must be three capital letters (ISO 4217)",
            ));
        }
        if CURRENCY_CODES.binary_search(&value).is_err() {
            return Err(ValidationErrors::single(
                field,
                format!("'{value}' is not an ISO 4217 currency code"),
            ));
        }
        Ok(Self(value.to_owned()))
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn country_codes_must_be_known() {
        assert_eq!(
            CountryCode::parse("country", "GB").map(|c| c.as_str().to_owned()),
            Ok("GB".into())
        );
        insta::assert_snapshot!(CountryCode::parse("country", "gb").unwrap_err(), @"country: must be two capital letters (ISO 3166 alpha-2)");
        insta::assert_snapshot!(CountryCode::parse("country", "XX").unwrap_err(), @"country: 'XX' is not an ISO 3166 country code");
    }

    #[test]
    fn currency_codes_are_three_capitals() {
        assert!(CurrencyCode::parse("code", "GBP").is_ok());
        assert!(CurrencyCode::parse("code", "GB").is_err());
        assert!(CurrencyCode::parse("code", "gbp").is_err());
    }

    #[test]
    fn currency_codes_must_be_iso_4217() {
        for code in ["EUR", "USD", "JPY", "XAU", "XCG", "ZWG"] {
            assert_eq!(
                CurrencyCode::parse("code", code).map(|c| c.as_str().to_owned()),
                Ok(code.to_owned())
            );
        }
        insta::assert_snapshot!(CurrencyCode::parse("code", "XYZ").unwrap_err(), @"code: 'XYZ' is not an ISO 4217 currency code");
        for withdrawn in ["HRK", "ZWL", "DEM"] {
            assert!(
                CurrencyCode::parse("code", withdrawn).is_err(),
                "{withdrawn}"
            );
        }
    }
}
