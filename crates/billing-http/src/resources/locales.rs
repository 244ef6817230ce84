//! `/v1/locales`: a country and a currency used together (2.3). Created with
//! `{country: {code}, currency: {id}}`; other members of those objects are descriptive and ignored.

use billing_auth::AuthenticatedUser;
use billing_domain::query::{FilterKind, ListQuery};
use billing_domain::reference_data::LocaleDraft;
use billing_domain::roles::Permission;
use billing_persistence::DbConnection;
use billing_persistence::currencies;
use billing_persistence::locales::{self, LocaleChanges, LocaleView};
use serde::{Deserialize, Serialize};

use super::common::{ID, require_reference};
use super::countries::{CODE, Country, NAME};
use super::currencies::{Currencies, Record as Currency};
use crate::machinery::resource::{
    ApiResult, Field, FieldType, FilterParam, Operations, Resource, page, still_referenced,
};

#[derive(Debug, Clone, Serialize)]
pub struct Locale {
    pub id: i64,
    pub country: Country,
    pub currency: Currency,
    #[serde(skip)]
    pub version: i64,
}

impl From<LocaleView> for Locale {
    fn from((locale, country, currency): LocaleView) -> Self {
        Self {
            id: locale.id,
            country: country.into(),
            currency: currency.into(),
            version: locale.version,
        }
    }
}

/// `{code}` of a country; `name` may be present and is ignored.
#[derive(Debug, Deserialize, garde::Validate)]
#[serde(deny_unknown_fields)]
pub struct CountryReference {
    #[garde(skip)]
    pub code: String,
    #[serde(default)]
    #[garde(skip)]
    pub name: Option<serde::de::IgnoredAny>,
}

/// `{id}` of a currency; its other members may be present and are ignored.
#[derive(Debug, Deserialize, garde::Validate)]
pub struct CurrencyReference {
    #[garde(range(min = 1))]
    pub id: i64,
}

#[derive(Debug, Deserialize, garde::Validate)]
#[serde(deny_unknown_fields)]
pub struct LocaleInput {
    #[garde(dive)]
    pub country: CountryReference,
    #[garde(dive)]
    pub currency: CurrencyReference,
}

const COUNTRY_FIELDS: &[Field] = &[CODE, NAME];
pub const LOCALE_FIELDS: &[Field] = &[
    ID,
    Field::required(
        "country",
        FieldType::Object(COUNTRY_FIELDS),
        "The country; only code is read on input.",
    ),
    Field::required(
        "currency",
        FieldType::Object(<Currencies as crate::machinery::resource::Resource>::FIELDS),
        "The currency; only id is read on input.",
    ),
];

pub struct Locales;

impl Locales {
    fn draft(connection: &mut DbConnection, input: &LocaleInput) -> ApiResult<LocaleDraft> {
        let draft = LocaleDraft::parse(&input.country.code, input.currency.id)?;
        require_reference(
            currencies::exists(connection, draft.currency_id)?,
            "currency.id",
            "currency",
            draft.currency_id,
        )?;
        Ok(draft)
    }
}

impl Resource for Locales {
    const PATH: &'static str = "locales";
    const NOUN: &'static str = "locale";
    const DESCRIPTION: &'static str =
        "A country and a currency used together; each pair exists once (409 on a duplicate).";
    const READ: Permission = Permission::ReadReferenceData;
    const WRITE: Permission = Permission::WriteReferenceData;
    const OPERATIONS: Operations = Operations::ALL;
    const FIELDS: &'static [Field] = LOCALE_FIELDS;
    const FILTERS: &'static [FilterParam] = &[
        FilterParam::new("country", FilterKind::String, "Filter on the country code."),
        FilterParam::new("currencyId", FilterKind::Id, "Filter on the currency id."),
    ];
    const SORT_KEYS: &'static [&'static str] = &["id", "country", "currencyId"];

    type Record = Locale;
    type Input = LocaleInput;

    fn list(
        connection: &mut DbConnection,
        _: &AuthenticatedUser,
        query: &ListQuery,
    ) -> ApiResult<(Vec<Locale>, i64)> {
        Ok(page(locales::list(connection, query)?))
    }

    fn find(
        connection: &mut DbConnection,
        _: &AuthenticatedUser,
        id: i64,
    ) -> ApiResult<Option<Locale>> {
        Ok(locales::find(connection, id)?.map(Locale::from))
    }

    fn create(
        connection: &mut DbConnection,
        caller: &AuthenticatedUser,
        input: LocaleInput,
    ) -> ApiResult<Locale> {
        let draft = Self::draft(connection, &input)?;
        let row = locales::insert(connection, &LocaleChanges::from(&draft))?;
        Self::find(connection, caller, row.id)?
            .ok_or_else(|| crate::error::ApiError::internal("created locale vanished"))
    }

    fn replace(
        connection: &mut DbConnection,
        caller: &AuthenticatedUser,
        current: &Locale,
        input: LocaleInput,
        _: &crate::machinery::resource::WriteRequest,
    ) -> ApiResult<Option<Locale>> {
        let draft = Self::draft(connection, &input)?;
        match locales::update(
            connection,
            current.id,
            current.version,
            &LocaleChanges::from(&draft),
        )? {
            Some(row) => Self::find(connection, caller, row.id),
            None => Ok(None),
        }
    }

    fn delete(
        connection: &mut DbConnection,
        _: &AuthenticatedUser,
        current: &Locale,
    ) -> ApiResult<bool> {
        if locales::is_used_by_source(connection, current.id)? {
            return Err(still_referenced(
                "locale",
                current.id,
                "a reference data source",
            ));
        }
        Ok(locales::delete(connection, current.id, current.version)?)
    }
}

impl crate::machinery::resource::Versioned for Locale {
    fn id(&self) -> i64 {
        self.id
    }

    fn version(&self) -> i64 {
        self.version
    }

    /// The locale's and its currency's (countries are a shipped, unchanging list).
    fn shown_versions(&self) -> Vec<i64> {
        vec![self.version, self.currency.version]
    }
}
