//! `locales`: a country and a currency used together; read with both joined in.

use billing_domain::reference_data::LocaleDraft;
use diesel::prelude::*;

use crate::countries::CountryRow;
use crate::currencies::Row as CurrencyRow;
use crate::schema::{countries, currencies, locales, reference_data_sources};

#[derive(Debug, Clone, PartialEq, Queryable)]
pub struct LocaleRow {
    pub id: i64,
    pub country_code: String,
    pub currency_id: i64,
    pub version: i64,
}

/// A locale with its country and currency.
pub type LocaleView = (LocaleRow, CountryRow, CurrencyRow);

#[derive(Debug, Insertable, AsChangeset)]
#[diesel(table_name = locales)]
pub struct LocaleChanges {
    pub country_code: String,
    pub currency_id: i64,
}

impl From<&LocaleDraft> for LocaleChanges {
    fn from(draft: &LocaleDraft) -> Self {
        Self {
            country_code: draft.country.as_str().to_owned(),
            currency_id: draft.currency_id,
        }
    }
}

mod plain {
    use super::*;
    crate::define_crud!(table: locales, row: LocaleRow, changes: LocaleChanges);
}
pub use plain::{delete, exists, find as find_row, insert, update};

/// The joined columns, in `LocaleView` order.
macro_rules! locale_view_columns {
    () => {
        (
            locales::all_columns,
            countries::all_columns,
            <CurrencyRow as diesel::SelectableHelper<crate::connection::MultiBackend>>::as_select(),
        )
    };
}

crate::define_list! {
    source: locales::table.inner_join(countries::table).inner_join(currencies::table),
    select: locale_view_columns!(),
    row: LocaleView,
    id: locales::id,
    filters: {
        "country" => text(locales::country_code),
        "currencyId" => id(locales::currency_id),
    },
    sort: {
        "id" => plain(locales::id),
        "country" => plain(locales::country_code),
        "currencyId" => plain(locales::currency_id),
    },
}

pub fn find(
    connection: &mut crate::DbConnection,
    id: i64,
) -> crate::error::PersistenceResult<Option<LocaleView>> {
    Ok(locales::table
        .inner_join(countries::table)
        .inner_join(currencies::table)
        .filter(locales::id.eq(id))
        .select(locale_view_columns!())
        .first::<LocaleView>(connection)
        .optional()?)
}

/// True when a locale uses currency `currency_id`.
pub fn uses_currency(
    connection: &mut crate::DbConnection,
    currency_id: i64,
) -> crate::error::PersistenceResult<bool> {
    Ok(diesel::select(diesel::dsl::exists(
        locales::table.filter(locales::currency_id.eq(currency_id)),
    ))
    .get_result(connection)?)
}

/// True when a reference data source uses locale `locale_id`.
pub fn is_used_by_source(
    connection: &mut crate::DbConnection,
    locale_id: i64,
) -> crate::error::PersistenceResult<bool> {
    Ok(diesel::select(diesel::dsl::exists(
        reference_data_sources::table.filter(reference_data_sources::locale_id.eq(locale_id)),
    ))
    .get_result(connection)?)
}
