//! `reference_data_sources`: where reference data comes from, read with its locale joined in.

use billing_domain::reference_data::ReferenceDataSourceDraft;
use diesel::prelude::*;

use crate::countries::CountryRow;
use crate::currencies::Row as CurrencyRow;
use crate::locales::LocaleRow;
use crate::schema::{
    countries, currencies, locales, reference_data_source_charge_groups, reference_data_sources,
};

#[derive(Debug, Clone, PartialEq, Queryable)]
pub struct ReferenceDataSourceRow {
    pub id: i64,
    pub name: String,
    pub locale_id: i64,
    pub si_maintained: bool,
    pub version: i64,
}

/// A source with its locale, the locale's country and currency.
pub type ReferenceDataSourceView = (ReferenceDataSourceRow, LocaleRow, CountryRow, CurrencyRow);

#[derive(Debug, Insertable, AsChangeset)]
#[diesel(table_name = reference_data_sources)]
pub struct ReferenceDataSourceChanges {
    pub name: String,
    pub locale_id: i64,
    pub si_maintained: bool,
}

impl From<&ReferenceDataSourceDraft> for ReferenceDataSourceChanges {
    fn from(draft: &ReferenceDataSourceDraft) -> Self {
        Self {
            name: draft.name.as_str().to_owned(),
            locale_id: draft.locale_id,
            si_maintained: draft.si_maintained,
        }
    }
}

mod plain {
    use super::*;
    crate::define_crud!(table: reference_data_sources, row: ReferenceDataSourceRow, changes: ReferenceDataSourceChanges);
}
pub use plain::{delete, exists, insert, update};

/// The plain row, without joins (for the siMaintained check before a write).
pub fn find_row(
    connection: &mut crate::DbConnection,
    id: i64,
) -> crate::error::PersistenceResult<Option<ReferenceDataSourceRow>> {
    plain::find(connection, id)
}

macro_rules! source_view_source {
    () => {
        reference_data_sources::table.inner_join(
            locales::table
                .inner_join(countries::table)
                .inner_join(currencies::table),
        )
    };
}

macro_rules! source_view_columns {
    () => {
        (
            reference_data_sources::all_columns,
            locales::all_columns,
            countries::all_columns,
            <CurrencyRow as diesel::SelectableHelper<crate::connection::MultiBackend>>::as_select(),
        )
    };
}

crate::define_list! {
    source: source_view_source!(),
    select: source_view_columns!(),
    row: ReferenceDataSourceView,
    id: reference_data_sources::id,
    filters: {
        "name" => text(reference_data_sources::name),
        "locale" => id(reference_data_sources::locale_id),
        "siMaintained" => boolean(reference_data_sources::si_maintained),
    },
    sort: {
        "id" => plain(reference_data_sources::id),
        "name" => plain(reference_data_sources::name),
        "siMaintained" => plain(reference_data_sources::si_maintained),
    },
}

pub fn find(
    connection: &mut crate::DbConnection,
    id: i64,
) -> crate::error::PersistenceResult<Option<ReferenceDataSourceView>> {
    Ok(source_view_source!()
        .filter(reference_data_sources::id.eq(id))
        .select(source_view_columns!())
        .first::<ReferenceDataSourceView>(connection)
        .optional()?)
}

/// True when the source still has charge groups.
pub fn has_charge_groups(
    connection: &mut crate::DbConnection,
    id: i64,
) -> crate::error::PersistenceResult<bool> {
    Ok(diesel::select(diesel::dsl::exists(
        reference_data_source_charge_groups::table
            .filter(reference_data_source_charge_groups::reference_data_source_id.eq(id)),
    ))
    .get_result(connection)?)
}
