//! How each kind of declared field (`billing_domain::kinds`) looks in JSON: what a body
//! carries, what a response shows, how the OpenAPI document describes it and how it filters.
//! The kind's rule itself is the domain's; garde runs it on every body (`required`/`optional`).

use billing_domain::kinds::{
    AccountNumber, Bool, CodeSet, CountryCode, CurrencyCode, Date, DateTime, Decimal, Digits,
    Email, Enum, Id, IdList, Integer, Kind, Letters, Password, PositiveDecimal, Postcode,
    RoleCodes, SortCode, Symbol, Telephone, TemplateComponents, Text, Username,
};
use billing_domain::money::{format_decimal, parse_decimal};
use billing_domain::sites::codes::TemplateComponent;
use chrono::{NaiveDate, NaiveDateTime};
use serde::de::DeserializeOwned;
use serde::{Deserialize, Deserializer, Serialize, Serializer};

use super::resource::FieldType;
use super::serde_dates::format_date_time;

pub trait ApiKind: Kind {
    /// What a request body carries for it.
    type Input: DeserializeOwned + Default + Clone + std::fmt::Debug + Send + 'static;
    /// What a response shows for it.
    type Output: Serialize
        + From<Self::Value>
        + PartialEq
        + std::fmt::Debug
        + Clone
        + Send
        + 'static;
    /// Its schema in the OpenAPI document.
    const FIELD_TYPE: FieldType;

    /// A list that must hold at least one element (documented as `minItems: 1`).
    const NON_EMPTY: bool = false;
    /// A list kind's most entries, documented as `maxItems` (the kind's check enforces it).
    const MAX_ITEMS: Option<usize> = None;

    /// Whether what a body carried reached the write prepared (a password, hashed by
    /// `Resource::prepare`): always, for kinds with nothing to prepare.
    fn prepared(input: &Self::Input) -> bool {
        let _ = input;
        true
    }

    /// The domain value of what a body carried (once [`ApiKind::check_input`] passed).
    fn value(input: &Self::Input) -> Self::Value;

    /// The kind's rule on what a body carried: by default the domain's rule on its value.
    fn check_input(input: &Self::Input) -> Result<(), String> {
        Self::check(&Self::value(input))
    }
}

/// garde's check of a stamp (`created`, `updated`): a body never carries one (the member
/// checks refuse it as read-only), so there is nothing to check.
pub fn created<K: ApiKind>(_: &(), _: &()) -> garde::Result {
    Ok(())
}

/// See [`created`].
pub fn updated<K: ApiKind>(_: &(), _: &()) -> garde::Result {
    Ok(())
}

/// garde's check of a required field: the kind's rule.
pub fn required<K: ApiKind>(input: &K::Input, _: &()) -> garde::Result {
    K::check_input(input).map_err(garde::Error::new)
}

/// garde's check of an optional field: the kind's rule when a value is there.
pub fn optional<K: ApiKind>(input: &Option<K::Input>, _: &()) -> garde::Result {
    match input {
        Some(input) => required::<K>(input, &()),
        None => Ok(()),
    }
}

/// garde's check of a write-only member (a password): the kind's rule when a value is there.
pub fn write_only<K: ApiKind>(input: &Option<K::Input>, _: &()) -> garde::Result {
    optional::<K>(input, &())
}

/// garde's check of a kept member (`lastLoginDate`): a body never carries one (the member
/// checks refuse it as read-only); writes keep the stored value.
pub fn kept<K: ApiKind>(_: &(), _: &()) -> garde::Result {
    Ok(())
}

/// garde's check of a derived member: the server fills it in, and a body carries one only when
/// it is `[echoed]` (the member checks refuse the others as read-only); what it sends back must
/// keep the kind's rule, though it is then ignored.
pub fn derived<K: ApiKind>(input: &Option<K::Input>, _: &()) -> garde::Result {
    optional::<K>(input, &())
}

/// garde's check of a defaulted field: the kind's rule when a value is there (the default
/// applies otherwise).
pub fn defaulted<K: ApiKind>(input: &Defaulted<K::Input>, _: &()) -> garde::Result {
    optional::<K>(&input.0, &())
}

/// A defaulted member of a body: `None` when left out (the declared default applies); `null`
/// is refused like any value of the wrong type.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Defaulted<T>(pub Option<T>);

impl<T> Default for Defaulted<T> {
    fn default() -> Self {
        Self(None)
    }
}

impl<'de, T: Deserialize<'de>> Deserialize<'de> for Defaulted<T> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        T::deserialize(deserializer).map(|value| Defaulted(Some(value)))
    }
}

/// Postcodes: letters and digits of any script, whitespace and `@ . + _ -` (docs/api.md).
pub const POSTCODE_PATTERN: &str = "^[\\p{L}\\p{N}\\s@.+_-]*$";
/// Telephone numbers: empty, or 4 to 100 letters and digits of any script, whitespace and
/// `( ) @ & . , _ £ | -`.
pub const TELEPHONE_PATTERN: &str = "^$|^[\\p{L}\\p{N}\\s()@&.,_£|-]{4,100}$";
/// Currency symbols: one letter or digit of any script, currency sign or punctuation mark of the
/// free-text set.
pub const CURRENCY_SYMBOL_PATTERN: &str = "^[\\p{L}\\p{N}\\p{Sc}.,'&()/@#+_:;!?\"%*=\\[\\]-]$";
/// Usernames: 1 to 100 letters and digits of any script and `. _ @ -`.
pub const USERNAME_PATTERN: &str = "^[\\p{L}\\p{N}._@-]{1,100}$";

macro_rules! text_kind {
    ($kind:ty, $field_type:expr $(, [$($generics:tt)*])?) => {
        impl$(<$($generics)*>)? ApiKind for $kind {
            type Input = String;
            type Output = String;
            const FIELD_TYPE: FieldType = $field_type;

            fn value(input: &String) -> String {
                input.clone()
            }
        }
    };
}

text_kind!(Text<MIN, MAX>, FieldType::Text { min: MIN as u32, max: MAX as u32 }, [const MIN: usize, const MAX: usize]);
text_kind!(Letters<MIN, MAX>, FieldType::Letters { min: MIN as u32, max: MAX as u32 }, [const MIN: usize, const MAX: usize]);
text_kind!(Enum<E>, FieldType::Codes(E::NAME, E::CODES), [E: CodeSet]);
text_kind!(Digits<MIN, MAX>, FieldType::Digits { min: MIN as u32, max: MAX as u32 }, [const MIN: usize, const MAX: usize]);
text_kind!(
    Symbol,
    FieldType::Pattern {
        pattern: CURRENCY_SYMBOL_PATTERN,
        min: 1,
        max: 1,
        example: "£"
    }
);
text_kind!(
    CurrencyCode,
    FieldType::Pattern {
        pattern: "^[A-Z]{3}$",
        min: 3,
        max: 3,
        example: "GBP"
    }
);
text_kind!(
    CountryCode,
    FieldType::Pattern {
        pattern: "^[A-Z]{2}$",
        min: 2,
        max: 2,
        example: "GB"
    }
);

text_kind!(
    Postcode,
    FieldType::Pattern {
        pattern: POSTCODE_PATTERN,
        min: 0,
        max: 20,
        example: "LS1 4AP"
    }
);
text_kind!(
    Telephone,
    FieldType::Pattern {
        pattern: TELEPHONE_PATTERN,
        min: 0,
        max: 100,
        example: "0113 496 0000"
    }
);
text_kind!(
    AccountNumber,
    FieldType::Pattern {
        pattern: "^[a-zA-Z0-9]+$",
        min: 1,
        max: 34,
        example: "31926819"
    }
);
text_kind!(
    SortCode,
    FieldType::Pattern {
        pattern: "^[0-9 -]+$",
        min: 1,
        max: 20,
        example: "60-16-13"
    }
);
text_kind!(Email, FieldType::Email { max: 255 });
text_kind!(
    Username,
    FieldType::Pattern {
        pattern: USERNAME_PATTERN,
        min: 1,
        max: 100,
        example: "jsmith"
    }
);

/// A password in a body, and its hash once made (on the hashing pool, before the write's
/// transaction: `Resource::prepare`, `Resource::attach_prepared`).
#[derive(Debug, Clone)]
pub struct PasswordInput {
    pub secret: billing_auth::Secret,
    pub hash: Option<String>,
}

impl Default for PasswordInput {
    fn default() -> Self {
        Self {
            secret: billing_auth::Secret::new(String::new()),
            hash: None,
        }
    }
}

impl<'de> Deserialize<'de> for PasswordInput {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        String::deserialize(deserializer).map(|value| Self {
            secret: billing_auth::Secret::new(value),
            hash: None,
        })
    }
}

/// Hashes every value of a request's write-only members that is a valid password, on the
/// bounded hashing pool, before the write's transaction opens (a malformed one is left to the
/// member's check): the `prepare` of a resource with a `Password` member.
pub async fn hash_passwords(
    state: &crate::state::AppState,
    values: Vec<String>,
) -> crate::machinery::resource::ApiResult<crate::machinery::resource::Prepared> {
    let mut prepared = crate::machinery::resource::Prepared::default();
    for value in values {
        if billing_domain::users::check_password("password", &value).is_ok() {
            let hash = state.auth.hashing().hash(value.clone()).await?;
            prepared.insert(value, hash);
        }
    }
    Ok(prepared)
}

/// A body's password, given the hash [`hash_passwords`] made of it.
pub trait TakesHash {
    fn take_hash(&mut self, prepared: &crate::machinery::resource::Prepared);
}

impl TakesHash for PasswordInput {
    fn take_hash(&mut self, prepared: &crate::machinery::resource::Prepared) {
        self.hash = prepared.derived(self.secret.expose()).map(str::to_owned);
    }
}

impl<T: TakesHash> TakesHash for Option<T> {
    fn take_hash(&mut self, prepared: &crate::machinery::resource::Prepared) {
        if let Some(inner) = self {
            inner.take_hash(prepared);
        }
    }
}

/// A stored password hash: held by the record (so a write that leaves the password out keeps
/// it), never shown, never printed.
#[derive(Clone, PartialEq)]
pub struct Concealed(pub String);

impl From<String> for Concealed {
    fn from(value: String) -> Self {
        Self(value)
    }
}

impl std::fmt::Debug for Concealed {
    fn fmt(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        formatter.write_str("[concealed]")
    }
}

/// Records skip write-only members; were one ever serialized, it would show nothing.
impl Serialize for Concealed {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_none()
    }
}

impl ApiKind for Password {
    type Input = PasswordInput;
    type Output = Concealed;
    const FIELD_TYPE: FieldType = FieldType::Pattern {
        pattern: billing_domain::users::PASSWORD_PATTERN,
        min: billing_domain::users::PASSWORD_MIN_CHARS as u32,
        max: billing_domain::users::PASSWORD_MAX_CHARS as u32,
        example: "correct horse battery staple",
    };

    fn prepared(input: &PasswordInput) -> bool {
        input.hash.is_some()
    }

    /// The hash (empty until made: the write refuses a password that reached it unhashed).
    fn value(input: &PasswordInput) -> String {
        input.hash.clone().unwrap_or_default()
    }

    fn check_input(input: &PasswordInput) -> Result<(), String> {
        billing_domain::users::check_password("", input.secret.expose())
            .map_err(billing_domain::ValidationErrors::messages)
    }
}

/// The roles a user holds, as codes.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(transparent)]
pub struct RoleList(pub Vec<String>);

impl From<String> for RoleList {
    fn from(value: String) -> Self {
        Self(RoleCodes::split(&value))
    }
}

impl ApiKind for RoleCodes {
    type Input = Vec<String>;
    type Output = RoleList;
    const FIELD_TYPE: FieldType =
        FieldType::Array(&FieldType::Enum(billing_domain::roles::Role::CODES));
    const NON_EMPTY: bool = true;
    const MAX_ITEMS: Option<usize> = Some(billing_domain::roles::Role::ALL.len());

    fn value(input: &Vec<String>) -> String {
        RoleCodes::join(input)
    }

    /// Named by the entry: `roles[1]` for an unknown code.
    fn check_input(input: &Vec<String>) -> Result<(), String> {
        billing_domain::users::parse_roles("", input)
            .map(drop)
            .map_err(billing_domain::ValidationErrors::messages)
    }
}

impl<const MIN: i64, const MAX: i64> ApiKind for Integer<MIN, MAX> {
    type Input = i64;
    type Output = i64;
    const FIELD_TYPE: FieldType = FieldType::Integer {
        minimum: MIN,
        maximum: MAX,
    };

    fn value(input: &i64) -> i64 {
        *input
    }
}

/// A list of ids as JSON shows it: `[3, 5]`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Ids(pub Vec<i64>);

impl From<String> for Ids {
    fn from(value: String) -> Self {
        Self(IdList::split(&value))
    }
}

impl ApiKind for IdList {
    type Input = Vec<i64>;
    type Output = Ids;
    const FIELD_TYPE: FieldType = FieldType::Array(&FieldType::Id);
    const MAX_ITEMS: Option<usize> = Some(billing_domain::sites::codes::MAX_LIST_ENTRIES);

    fn value(input: &Vec<i64>) -> String {
        IdList::join(input)
    }
}

/// One template component in a body or a response.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ComponentJson {
    pub id: i64,
    pub position_in_template: i64,
}

const COMPONENT_FIELDS: &[super::resource::Field] = &[
    super::resource::Field::required("id", FieldType::Id, "Id of the template component."),
    super::resource::Field::required(
        "positionInTemplate",
        FieldType::Integer {
            minimum: 1,
            maximum: 1000,
        },
        "Its position in the template.",
    ),
];

/// Template components as JSON shows them: `[{"id": 4, "positionInTemplate": 1}]`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Components(pub Vec<ComponentJson>);

impl From<String> for Components {
    fn from(value: String) -> Self {
        Self(
            TemplateComponents::split(&value)
                .into_iter()
                .map(|c| ComponentJson {
                    id: c.id,
                    position_in_template: c.position_in_template,
                })
                .collect(),
        )
    }
}

impl ApiKind for TemplateComponents {
    type Input = Vec<ComponentJson>;
    type Output = Components;
    const FIELD_TYPE: FieldType = FieldType::ObjectList(COMPONENT_FIELDS);
    const MAX_ITEMS: Option<usize> = Some(billing_domain::sites::codes::MAX_LIST_ENTRIES);

    fn value(input: &Vec<ComponentJson>) -> String {
        let components: Vec<TemplateComponent> = input
            .iter()
            .map(|c| TemplateComponent {
                id: c.id,
                position_in_template: c.position_in_template,
            })
            .collect();
        TemplateComponents::join(&components)
    }
}

impl ApiKind for Id {
    type Input = i64;
    type Output = i64;
    const FIELD_TYPE: FieldType = FieldType::Id;

    fn value(input: &i64) -> i64 {
        *input
    }
}

impl ApiKind for Bool {
    type Input = bool;
    type Output = bool;
    const FIELD_TYPE: FieldType = FieldType::Boolean;

    fn value(input: &bool) -> bool {
        *input
    }
}

impl ApiKind for Date {
    type Input = StrictDate;
    type Output = NaiveDate;
    const FIELD_TYPE: FieldType = FieldType::Date;

    fn value(input: &StrictDate) -> NaiveDate {
        input.0
    }
}

impl ApiKind for DateTime {
    type Input = UtcDateTime;
    type Output = UtcDateTime;
    const FIELD_TYPE: FieldType = FieldType::DateTime;

    fn value(input: &UtcDateTime) -> NaiveDateTime {
        input.0
    }
}

impl<const SCALE: u32, const MIN: i64, const MAX: i64> ApiKind for Decimal<SCALE, MIN, MAX> {
    type Input = ExactNumber;
    type Output = DecimalNumber<SCALE>;
    const FIELD_TYPE: FieldType = FieldType::Decimal {
        scale: SCALE,
        minimum: MIN,
        maximum: MAX,
        exclusive_minimum: false,
    };

    fn value(input: &ExactNumber) -> i64 {
        parse_decimal(&input.0, SCALE).unwrap_or_default()
    }

    fn check_input(input: &ExactNumber) -> Result<(), String> {
        Self::check(&parse_decimal(&input.0, SCALE)?)
    }
}

impl<const SCALE: u32, const MAX: i64> ApiKind for PositiveDecimal<SCALE, MAX> {
    type Input = ExactNumber;
    type Output = DecimalNumber<SCALE>;
    const FIELD_TYPE: FieldType = FieldType::Decimal {
        scale: SCALE,
        minimum: 0,
        maximum: MAX,
        exclusive_minimum: true,
    };

    fn value(input: &ExactNumber) -> i64 {
        parse_decimal(&input.0, SCALE).unwrap_or_default()
    }

    fn check_input(input: &ExactNumber) -> Result<(), String> {
        Self::check(&parse_decimal(&input.0, SCALE)?)
    }
}

/// A JSON number in a body, as written (the service parses JSON with arbitrary precision, so
/// `0.1` stays `0.1`); a string or anything else is refused by its type.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ExactNumber(pub String);

impl<'de> Deserialize<'de> for ExactNumber {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        serde_json::Number::deserialize(deserializer).map(|number| ExactNumber(number.to_string()))
    }
}

/// A decimal held as `10^-SCALE` units, written as an exact JSON number (`17.5`, `100`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DecimalNumber<const SCALE: u32>(pub i64);

impl<const SCALE: u32> From<i64> for DecimalNumber<SCALE> {
    fn from(units: i64) -> Self {
        Self(units)
    }
}

impl<const SCALE: u32> Serialize for DecimalNumber<SCALE> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        format_decimal(self.0, SCALE)
            .parse::<serde_json::Number>()
            .map_err(serde::ser::Error::custom)?
            .serialize(serializer)
    }
}

/// A date in a body: `yyyy-MM-dd` exactly.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct StrictDate(pub NaiveDate);

impl<'de> Deserialize<'de> for StrictDate {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        super::serde_dates::deserialize_date(deserializer).map(StrictDate)
    }
}

/// A UTC date-time, written `2026-11-22T10:15:00Z`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct UtcDateTime(pub NaiveDateTime);

impl From<NaiveDateTime> for UtcDateTime {
    fn from(value: NaiveDateTime) -> Self {
        Self(value)
    }
}

impl Serialize for UtcDateTime {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(&format_date_time(&self.0))
    }
}

impl<'de> Deserialize<'de> for UtcDateTime {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let text = String::deserialize(deserializer)?;
        billing_domain::query::parse_utc_date_time(&text)
            .map(UtcDateTime)
            .ok_or_else(|| {
                serde::de::Error::custom("expected a UTC date-time as yyyy-MM-ddTHH:mm:ssZ")
            })
    }
}
