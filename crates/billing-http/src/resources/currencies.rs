//! `/v1/currencies`: currencies with their display names and formats (2.3).

use billing_auth::AuthenticatedUser;
use billing_domain::query::{FilterKind, ListQuery};
use billing_domain::reference_data::{CurrencyDraft, CurrencyFields};
use billing_domain::roles::Permission;
use billing_persistence::DbConnection;
use billing_persistence::currencies::{self, CurrencyChanges, CurrencyRow};
use billing_persistence::locales;
use serde::{Deserialize, Serialize};

use super::common::ID;
use crate::machinery::resource::{
    ApiResult, Field, FieldType, FilterParam, Operations, Resource, page, still_referenced,
};

#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Currency {
    pub id: i64,
    pub code: String,
    pub symbol: String,
    pub major_currency_name: String,
    pub minor_currency_name: String,
    pub major_currency_format: String,
    pub minor_currency_format: String,
    pub sales_tax_name: String,
    #[serde(skip)]
    pub version: i64,
}

impl From<CurrencyRow> for Currency {
    fn from(row: CurrencyRow) -> Self {
        Self {
            id: row.id,
            code: row.code,
            symbol: row.symbol,
            major_currency_name: row.major_currency_name,
            minor_currency_name: row.minor_currency_name,
            major_currency_format: row.major_currency_format,
            minor_currency_format: row.minor_currency_format,
            sales_tax_name: row.sales_tax_name,
            version: row.version,
        }
    }
}

#[derive(Debug, Deserialize, garde::Validate)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct CurrencyInput {
    #[garde(length(chars, equal = 3))]
    pub code: String,
    #[garde(length(chars, equal = 1))]
    pub symbol: String,
    #[garde(length(chars, min = 1, max = 10))]
    pub major_currency_name: String,
    #[garde(length(chars, min = 1, max = 10))]
    pub minor_currency_name: String,
    #[garde(length(chars, min = 1, max = 20))]
    pub major_currency_format: String,
    #[garde(length(chars, min = 1, max = 20))]
    pub minor_currency_format: String,
    #[garde(length(chars, min = 1, max = 20))]
    pub sales_tax_name: String,
}

impl CurrencyInput {
    fn draft(&self) -> Result<CurrencyDraft, billing_domain::ValidationErrors> {
        CurrencyDraft::parse(CurrencyFields {
            code: &self.code,
            symbol: &self.symbol,
            major_currency_name: &self.major_currency_name,
            minor_currency_name: &self.minor_currency_name,
            major_currency_format: &self.major_currency_format,
            minor_currency_format: &self.minor_currency_format,
            sales_tax_name: &self.sales_tax_name,
        })
    }
}

const LETTERS: FieldType = FieldType::Pattern {
    pattern: "^[a-zA-Z]{1,10}$",
    min: 1,
    max: 10,
};

pub const CURRENCY_FIELDS: &[Field] = &[
    ID,
    Field::required(
        "code",
        FieldType::Pattern {
            pattern: "^[A-Z]{3}$",
            min: 3,
            max: 3,
        },
        "ISO 4217 code.",
    ),
    Field::required(
        "symbol",
        FieldType::Pattern {
            pattern: "^[^\\s\\u0000-\\u001F\\u007F-\\u009F<>]$",
            min: 1,
            max: 1,
        },
        "The symbol, one character.",
    ),
    Field::required(
        "majorCurrencyName",
        LETTERS,
        "Name of the major unit (letters only).",
    ),
    Field::required(
        "minorCurrencyName",
        LETTERS,
        "Name of the minor unit (letters only).",
    ),
    Field::required(
        "majorCurrencyFormat",
        FieldType::Text { min: 1, max: 20 },
        "Display format of the major unit.",
    ),
    Field::required(
        "minorCurrencyFormat",
        FieldType::Text { min: 1, max: 20 },
        "Display format of the minor unit.",
    ),
    Field::required(
        "salesTaxName",
        FieldType::Text { min: 1, max: 20 },
        "Name of sales tax in this currency.",
    ),
];

pub struct Currencies;

impl Resource for Currencies {
    const PATH: &'static str = "currencies";
    const NOUN: &'static str = "currency";
    const DESCRIPTION: &'static str =
        "Currencies used by locales. The code is unique (409 on a duplicate).";
    const READ: Permission = Permission::ReadReferenceData;
    const WRITE: Permission = Permission::WriteReferenceData;
    const OPERATIONS: Operations = Operations::ALL;
    const FIELDS: &'static [Field] = CURRENCY_FIELDS;
    const FILTERS: &'static [FilterParam] = &[
        FilterParam::new("code", FilterKind::String, "Filter on the ISO 4217 code."),
        FilterParam::new(
            "majorCurrencyName",
            FilterKind::String,
            "Filter on the major unit name.",
        ),
    ];
    const SORT_KEYS: &'static [&'static str] = &["id", "code", "majorCurrencyName"];

    type Record = Currency;
    type Input = CurrencyInput;

    fn list(
        connection: &mut DbConnection,
        _: &AuthenticatedUser,
        query: &ListQuery,
    ) -> ApiResult<(Vec<Currency>, i64)> {
        Ok(page(currencies::list(connection, query)?))
    }

    fn find(
        connection: &mut DbConnection,
        _: &AuthenticatedUser,
        id: i64,
    ) -> ApiResult<Option<Currency>> {
        Ok(currencies::find(connection, id)?.map(Currency::from))
    }

    fn create(
        connection: &mut DbConnection,
        _: &AuthenticatedUser,
        input: CurrencyInput,
    ) -> ApiResult<Currency> {
        let draft = input.draft()?;
        Ok(currencies::insert(connection, &CurrencyChanges::from(&draft))?.into())
    }

    fn replace(
        connection: &mut DbConnection,
        _: &AuthenticatedUser,
        current: &Currency,
        input: CurrencyInput,
    ) -> ApiResult<Option<Currency>> {
        let draft = input.draft()?;
        Ok(currencies::update(
            connection,
            current.id,
            current.version,
            &CurrencyChanges::from(&draft),
        )?
        .map(Currency::from))
    }

    fn delete(
        connection: &mut DbConnection,
        _: &AuthenticatedUser,
        current: &Currency,
    ) -> ApiResult<bool> {
        if locales::uses_currency(connection, current.id)? {
            return Err(still_referenced("currency", current.id, "a locale"));
        }
        Ok(currencies::delete(connection, current.id, current.version)?)
    }
}

crate::versioned!(Currency);
