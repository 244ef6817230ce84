//! `currencies` (ISO 4217 codes with display names and formats).

use billing_domain::reference_data::CurrencyDraft;
use diesel::prelude::*;

use crate::schema::currencies;

#[derive(Debug, Clone, PartialEq, Queryable)]
pub struct CurrencyRow {
    pub id: i64,
    pub code: String,
    pub symbol: String,
    pub major_currency_name: String,
    pub minor_currency_name: String,
    pub major_currency_format: String,
    pub minor_currency_format: String,
    pub sales_tax_name: String,
    pub version: i64,
}

#[derive(Debug, Insertable, AsChangeset)]
#[diesel(table_name = currencies)]
pub struct CurrencyChanges {
    pub code: String,
    pub symbol: String,
    pub major_currency_name: String,
    pub minor_currency_name: String,
    pub major_currency_format: String,
    pub minor_currency_format: String,
    pub sales_tax_name: String,
}

impl From<&CurrencyDraft> for CurrencyChanges {
    fn from(draft: &CurrencyDraft) -> Self {
        Self {
            code: draft.code.as_str().to_owned(),
            symbol: draft.symbol.clone(),
            major_currency_name: draft.major_currency_name.clone().into_inner(),
            minor_currency_name: draft.minor_currency_name.clone().into_inner(),
            major_currency_format: draft.major_currency_format.as_str().to_owned(),
            minor_currency_format: draft.minor_currency_format.as_str().to_owned(),
            sales_tax_name: draft.sales_tax_name.as_str().to_owned(),
        }
    }
}

crate::define_crud!(table: currencies, row: CurrencyRow, changes: CurrencyChanges);

crate::define_list! {
    source: currencies::table,
    select: currencies::all_columns,
    row: CurrencyRow,
    id: currencies::id,
    filters: {
        "code" => text(currencies::code),
        "majorCurrencyName" => text(currencies::major_currency_name),
    },
    sort: {
        "id" => plain(currencies::id),
        "code" => plain(currencies::code),
        "majorCurrencyName" => plain(currencies::major_currency_name),
    },
}
