//! The kinds of field a resource declares (`name: required Text<1, 255>`): each kind is the one
//! place its rule is written. The http crate documents a kind and runs its check on request
//! bodies; the persistence crate stores its value; batch jobs call [`Kind::check`] directly.

use std::marker::PhantomData;

use chrono::{NaiveDate, NaiveDateTime};

use crate::query::FilterKind;

use crate::codes::{CountryCode as CountryCodeValue, CurrencyCode as CurrencyCodeValue};
use crate::text::{AsciiLetters, check_text};

// Code sets are named in declarations (`Enum<ChargingUnitType>`) and resolved here.
pub use crate::customers::{InvoiceTemplateType, MandateProvider};
pub use crate::reference_data::ChargingUnitType;
pub use crate::sites::codes::{
    AccountNumber, ContactRole, Email, IdList, Integer, PaymentMethod, Postcode, ReceiveBy,
    RepaymentAmount, SortCode, Telephone, TemplateComponents,
};
pub use crate::users::{Password, RoleCodes, Username};

/// A kind of field: the value it holds and the rule that value obeys.
pub trait Kind: 'static {
    type Value: Clone + std::fmt::Debug + PartialEq + Send + Sync + FromJson + 'static;

    /// `Err(message)` when `value` breaks the kind's rule (the caller names the field).
    fn check(value: &Self::Value) -> Result<(), String>;

    /// The value a JSON body gives for it (its rule is checked separately, by
    /// [`Kind::check`]): `Err(message)` when the JSON has the wrong type.
    fn from_json(value: &serde_json::Value) -> Result<Self::Value, String> {
        Self::Value::from_json(value)
    }

    /// The value a text column gives for it (a feed file's), rule not checked.
    fn from_text(text: &str) -> Result<Self::Value, String> {
        Self::Value::from_text(text)
    }
}

/// A kind a list can be filtered by, and how.
#[diagnostic::on_unimplemented(
    message = "a filter cannot serve the kind `{Self}`",
    label = "a member or extra filter of this kind would be a filter of lists"
)]
pub trait Filterable: Kind {
    const FILTER: FilterKind;
}

/// How a kind's value is read from JSON and from text by default.
pub trait FromJson: Sized {
    fn from_json(value: &serde_json::Value) -> Result<Self, String>;

    fn from_text(text: &str) -> Result<Self, String> {
        Self::from_json(&serde_json::Value::String(text.to_owned()))
    }
}

impl FromJson for String {
    fn from_json(value: &serde_json::Value) -> Result<Self, String> {
        value
            .as_str()
            .map(str::to_owned)
            .ok_or_else(|| "must be a string".to_owned())
    }
}

impl FromJson for i64 {
    fn from_json(value: &serde_json::Value) -> Result<Self, String> {
        value
            .as_i64()
            .ok_or_else(|| "must be an integer".to_owned())
    }

    fn from_text(text: &str) -> Result<Self, String> {
        text.parse().map_err(|_| "must be an integer".to_owned())
    }
}

impl FromJson for bool {
    fn from_json(value: &serde_json::Value) -> Result<Self, String> {
        value
            .as_bool()
            .ok_or_else(|| "must be true or false".to_owned())
    }

    fn from_text(text: &str) -> Result<Self, String> {
        text.parse().map_err(|_| "must be true or false".to_owned())
    }
}

impl FromJson for NaiveDate {
    fn from_json(value: &serde_json::Value) -> Result<Self, String> {
        crate::dates::parse_date(&String::from_json(value)?)
            .ok_or_else(|| "must be a date, yyyy-MM-dd".to_owned())
    }
}

impl FromJson for NaiveDateTime {
    fn from_json(value: &serde_json::Value) -> Result<Self, String> {
        crate::query::parse_utc_date_time(&String::from_json(value)?)
            .ok_or_else(|| "must be a UTC date-time, yyyy-MM-ddTHH:mm:ssZ".to_owned())
    }
}

// The kinds a filter serves: every kind but a password's.

impl<const MIN: usize, const MAX: usize> Filterable for Text<MIN, MAX> {
    const FILTER: FilterKind = FilterKind::String;
}

impl<const MIN: usize, const MAX: usize> Filterable for Letters<MIN, MAX> {
    const FILTER: FilterKind = FilterKind::String;
}

impl<const MIN: usize, const MAX: usize> Filterable for Digits<MIN, MAX> {
    const FILTER: FilterKind = FilterKind::String;
}

impl<E: CodeSet> Filterable for Enum<E> {
    const FILTER: FilterKind = FilterKind::Code { codes: E::CODES };
}

impl Filterable for Symbol {
    const FILTER: FilterKind = FilterKind::String;
}

impl Filterable for CurrencyCode {
    const FILTER: FilterKind = FilterKind::String;
}

impl Filterable for CountryCode {
    const FILTER: FilterKind = FilterKind::String;
}

impl Filterable for Postcode {
    const FILTER: FilterKind = FilterKind::String;
}

impl Filterable for Telephone {
    const FILTER: FilterKind = FilterKind::String;
}

impl Filterable for Email {
    const FILTER: FilterKind = FilterKind::String;
}

impl Filterable for AccountNumber {
    const FILTER: FilterKind = FilterKind::String;
}

impl Filterable for SortCode {
    const FILTER: FilterKind = FilterKind::String;
}

impl Filterable for IdList {
    const FILTER: FilterKind = FilterKind::String;
}

impl Filterable for TemplateComponents {
    const FILTER: FilterKind = FilterKind::String;
}

impl Filterable for Username {
    const FILTER: FilterKind = FilterKind::String;
}

/// A user holds a role: `roles=READ_ONLY` finds every user holding READ_ONLY, with other roles
/// or without; `in:` any of them; `like:` a role whose code contains the text. The codes
/// are checked (400 outside the set), and storage matches the held lists, not their text
/// ([`RoleCodes::held_lists`]).
impl Filterable for RoleCodes {
    const FILTER: FilterKind = FilterKind::Code {
        codes: crate::roles::Role::CODES,
    };
}

impl Filterable for Id {
    const FILTER: FilterKind = FilterKind::Id;
}

impl Filterable for Date {
    const FILTER: FilterKind = FilterKind::Date;
}

impl Filterable for DateTime {
    const FILTER: FilterKind = FilterKind::DateTime;
}

impl Filterable for Bool {
    const FILTER: FilterKind = FilterKind::Boolean;
}

impl<const MIN: i64, const MAX: i64> Filterable for Integer<MIN, MAX> {
    const FILTER: FilterKind = FilterKind::Decimal { scale: 0 };
}

impl<const SCALE: u32, const MIN: i64, const MAX: i64> Filterable for Decimal<SCALE, MIN, MAX> {
    const FILTER: FilterKind = FilterKind::Decimal { scale: SCALE };
}

impl<const SCALE: u32, const MAX: i64> Filterable for PositiveDecimal<SCALE, MAX> {
    const FILTER: FilterKind = FilterKind::Decimal { scale: SCALE };
}

/// A set of codes a field takes one of (enumerations).
pub trait CodeSet: 'static {
    /// The set's name in the interface's documentation (`ChargingUnitType`).
    const NAME: &'static str;
    const CODES: &'static [&'static str];
}

fn message(result: Result<(), crate::ValidationErrors>) -> Result<(), String> {
    result.map_err(crate::ValidationErrors::messages)
}

/// Free text of `MIN..=MAX` characters from the service's character set.
pub struct Text<const MIN: usize, const MAX: usize>;

impl<const MIN: usize, const MAX: usize> Kind for Text<MIN, MAX> {
    type Value = String;

    fn check(value: &String) -> Result<(), String> {
        message(check_text("", value, MIN, MAX))
    }
}

/// Letters a-z and A-Z only, `MIN..=MAX` of them (currency unit names).
pub struct Letters<const MIN: usize, const MAX: usize>;

impl<const MIN: usize, const MAX: usize> Kind for Letters<MIN, MAX> {
    type Value = String;

    fn check(value: &String) -> Result<(), String> {
        message(AsciiLetters::<MIN, MAX>::parse("", value.as_str()).map(drop))
    }
}

/// `MIN..=MAX` decimal digits and nothing else (a dialstring).
pub struct Digits<const MIN: usize, const MAX: usize>;

impl<const MIN: usize, const MAX: usize> Kind for Digits<MIN, MAX> {
    type Value = String;

    fn check(value: &String) -> Result<(), String> {
        let length = value.len();
        if value.bytes().all(|b| b.is_ascii_digit()) && (MIN..=MAX).contains(&length) {
            Ok(())
        } else {
            Err(format!("must be {MIN} to {MAX} digits 0-9"))
        }
    }
}

/// One visible character (a currency symbol).
pub struct Symbol;

impl Kind for Symbol {
    type Value = String;

    fn check(value: &String) -> Result<(), String> {
        message(crate::reference_data::check_currency_symbol("", value))
    }
}

/// An ISO 4217 currency code.
pub struct CurrencyCode;

impl Kind for CurrencyCode {
    type Value = String;

    fn check(value: &String) -> Result<(), String> {
        message(CurrencyCodeValue::parse("", value).map(drop))
    }
}

/// An ISO 3166-1 alpha-2 country code.
pub struct CountryCode;

impl Kind for CountryCode {
    type Value = String;

    fn check(value: &String) -> Result<(), String> {
        message(CountryCodeValue::parse("", value).map(drop))
    }
}

/// One of the codes of `E`.
pub struct Enum<E: CodeSet>(PhantomData<E>);

impl<E: CodeSet> Kind for Enum<E> {
    type Value = String;

    fn check(value: &String) -> Result<(), String> {
        if E::CODES.contains(&value.as_str()) {
            Ok(())
        } else {
            Err(format!("must be one of {}", E::CODES.join(", ")))
        }
    }
}

/// The id of a record: an integer >= 1.
pub struct Id;

impl Kind for Id {
    type Value = i64;

    fn check(value: &i64) -> Result<(), String> {
        if *value >= 1 {
            Ok(())
        } else {
            Err("must be an id (an integer >= 1)".into())
        }
    }
}

/// A calendar date.
pub struct Date;

impl Kind for Date {
    type Value = NaiveDate;

    fn check(_: &NaiveDate) -> Result<(), String> {
        Ok(())
    }
}

/// A UTC date and time.
pub struct DateTime;

impl Kind for DateTime {
    type Value = NaiveDateTime;

    fn check(_: &NaiveDateTime) -> Result<(), String> {
        Ok(())
    }
}

/// An exact decimal in `MIN..=MAX` (whole units) with at most `SCALE` decimal places, held as
/// an integer count of `10^-SCALE` units (stored as BIGINT, never a float). Text becomes a value
/// with [`crate::money::parse_decimal`], which refuses extra places.
pub struct Decimal<const SCALE: u32, const MIN: i64, const MAX: i64>;

impl<const SCALE: u32, const MIN: i64, const MAX: i64> Kind for Decimal<SCALE, MIN, MAX> {
    type Value = i64;

    /// A JSON number (exact: the service reads numbers with arbitrary precision) with at
    /// most `SCALE` decimal places.
    fn from_json(value: &serde_json::Value) -> Result<i64, String> {
        match value {
            serde_json::Value::Number(number) => {
                crate::money::parse_decimal(&number.to_string(), SCALE)
            }
            _ => Err("must be a number".to_owned()),
        }
    }

    fn from_text(text: &str) -> Result<i64, String> {
        crate::money::parse_decimal(text, SCALE)
    }

    fn check(units: &i64) -> Result<(), String> {
        let unit = 10_i64.pow(SCALE);
        let (low, high) = (MIN.saturating_mul(unit), MAX.saturating_mul(unit));
        if (low..=high).contains(units) {
            Ok(())
        } else {
            Err(format!("must be between {MIN} and {MAX}"))
        }
    }
}

/// An exact decimal greater than 0 and at most `MAX` (whole units), with at most `SCALE`
/// decimal places: a rate, which 0 would make meaningless. Held as [`Decimal`] is.
pub struct PositiveDecimal<const SCALE: u32, const MAX: i64>;

impl<const SCALE: u32, const MAX: i64> Kind for PositiveDecimal<SCALE, MAX> {
    type Value = i64;

    fn from_json(value: &serde_json::Value) -> Result<i64, String> {
        Decimal::<SCALE, 0, MAX>::from_json(value)
    }

    fn from_text(text: &str) -> Result<i64, String> {
        Decimal::<SCALE, 0, MAX>::from_text(text)
    }

    fn check(units: &i64) -> Result<(), String> {
        if *units <= 0 {
            return Err("must be greater than 0".to_owned());
        }
        Decimal::<SCALE, 0, MAX>::check(units)
    }
}

/// true or false.
pub struct Bool;

impl Kind for Bool {
    type Value = bool;

    fn check(_: &bool) -> Result<(), String> {
        Ok(())
    }
}

/// The JSON name of a field: its Rust name in lower camel case, computed at compile time so
/// the name is written once (`charge_group_category_id` → `chargeGroupCategoryId`). A declared
/// member's name is `resources::<table>::names::<member>`; this is for other tables' columns
/// (the reference data summary's).
#[macro_export]
macro_rules! json_name {
    ($field:ident) => {{
        const SNAKE: &str = stringify!($field);
        const LENGTH: usize = $crate::kinds::camel_case_length(SNAKE);
        const BYTES: [u8; LENGTH] = $crate::kinds::camel_case::<LENGTH>(SNAKE);
        match ::core::str::from_utf8(&BYTES) {
            Ok(name) => name,
            Err(_) => panic!("a field name is ASCII"),
        }
    }};
}

/// A raw identifier (`r#type`, for a JSON member named after a keyword) is named without `r#`.
const fn raw_prefix(bytes: &[u8]) -> usize {
    if bytes.len() > 2 && bytes[0] == b'r' && bytes[1] == b'#' {
        2
    } else {
        0
    }
}

#[doc(hidden)]
pub const fn camel_case_length(snake: &str) -> usize {
    let bytes = snake.as_bytes();
    let (mut length, mut index) = (0, raw_prefix(bytes));
    while index < bytes.len() {
        if bytes[index] != b'_' {
            length += 1;
        }
        index += 1;
    }
    length
}

#[doc(hidden)]
pub const fn camel_case<const N: usize>(snake: &str) -> [u8; N] {
    let bytes = snake.as_bytes();
    let mut out = [0u8; N];
    let (mut index, mut written, mut upper) = (raw_prefix(bytes), 0, false);
    while index < bytes.len() {
        if bytes[index] == b'_' {
            upper = true;
        } else {
            out[written] = if upper {
                bytes[index].to_ascii_uppercase()
            } else {
                bytes[index]
            };
            upper = false;
            written += 1;
        }
        index += 1;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn json_names_are_lower_camel_case() {
        assert_eq!(
            json_name!(charge_group_category_id),
            "chargeGroupCategoryId"
        );
        assert_eq!(json_name!(name), "name");
        assert_eq!(json_name!(r#type), "type");
    }

    #[test]
    fn kinds_check_their_rule() {
        insta::assert_snapshot!(Text::<1, 5>::check(&"".into()).unwrap_err(), @"must be 1 to 5 characters long (got 0)");
        assert!(Digits::<2, 15>::check(&"4420".into()).is_ok());
        insta::assert_snapshot!(Digits::<2, 15>::check(&"4".into()).unwrap_err(), @"must be 2 to 15 digits 0-9");
        for bad in ["+4420", "44 20", "4".repeat(16).as_str(), "٤٤"] {
            assert!(Digits::<2, 15>::check(&bad.into()).is_err(), "{bad}");
        }
        insta::assert_snapshot!(Text::<1, 5>::check(&"a<b".into()).unwrap_err(), @"contains a character that is not allowed: '<'");
        insta::assert_snapshot!(Letters::<1, 10>::check(&"Pound1".into()).unwrap_err(), @"must contain only letters a-z and A-Z");
        insta::assert_snapshot!(Id::check(&0).unwrap_err(), @"must be an id (an integer >= 1)");
        insta::assert_snapshot!(CountryCode::check(&"XX".into()).unwrap_err(), @"'XX' is not an ISO 3166 country code");
        insta::assert_snapshot!(Enum::<crate::reference_data::ChargingUnitType>::check(&"SECONDS".into()).unwrap_err(), @"must be one of DURATION, MB, ONE_OFF");
        assert!(Symbol::check(&"£".into()).is_ok());
        assert!(CurrencyCode::check(&"GBP".into()).is_ok());
    }
}
