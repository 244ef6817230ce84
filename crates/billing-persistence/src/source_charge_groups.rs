//! `reference_data_source_charge_groups`: a source's own charge groups, each linked to exactly
//! one charge group and one reference data source.

use billing_domain::reference_data::SourceChargeGroupDraft;
use chrono::NaiveDate;
use diesel::prelude::*;

use crate::schema::{reference_data_source_charge_groups, reference_data_sources};

#[derive(Debug, Clone, PartialEq, Queryable)]
pub struct SourceChargeGroupRow {
    pub id: i64,
    pub name: String,
    pub code: String,
    pub charge_group_id: i64,
    pub reference_data_source_id: i64,
    pub start_date: NaiveDate,
    pub end_date: Option<NaiveDate>,
    pub version: i64,
}

#[derive(Debug, Insertable, AsChangeset)]
#[diesel(table_name = reference_data_source_charge_groups, treat_none_as_null = true)]
pub struct SourceChargeGroupChanges {
    pub name: String,
    pub code: String,
    pub charge_group_id: i64,
    pub reference_data_source_id: i64,
    pub start_date: NaiveDate,
    pub end_date: Option<NaiveDate>,
}

impl From<&SourceChargeGroupDraft> for SourceChargeGroupChanges {
    fn from(draft: &SourceChargeGroupDraft) -> Self {
        Self {
            name: draft.name.as_str().to_owned(),
            code: draft.code.as_str().to_owned(),
            charge_group_id: draft.charge_group_id,
            reference_data_source_id: draft.reference_data_source_id,
            start_date: draft.validity.start_date(),
            end_date: draft.validity.end_date(),
        }
    }
}

use reference_data_source_charge_groups as source_charge_group_table;

crate::define_crud!(table: reference_data_source_charge_groups, row: SourceChargeGroupRow, changes: SourceChargeGroupChanges);

crate::define_list! {
    source: source_charge_group_table::table,
    select: source_charge_group_table::all_columns,
    row: SourceChargeGroupRow,
    id: source_charge_group_table::id,
    filters: {
        "name" => text(source_charge_group_table::name),
        "code" => text(source_charge_group_table::code),
        "chargeGroupId" => id(source_charge_group_table::charge_group_id),
        "referenceDataSourceId" => id(source_charge_group_table::reference_data_source_id),
        "startDate" => date(source_charge_group_table::start_date),
        "endDate" => nullable_date(source_charge_group_table::end_date),
        "siMaintained" => id_in(
            source_charge_group_table::reference_data_source_id,
            |value: bool| reference_data_sources::table
                .select(reference_data_sources::id)
                .filter(reference_data_sources::si_maintained.eq(value))
        ),
    },
    sort: {
        "id" => plain(source_charge_group_table::id),
        "name" => plain(source_charge_group_table::name),
        "code" => plain(source_charge_group_table::code),
        "chargeGroupId" => plain(source_charge_group_table::charge_group_id),
        "referenceDataSourceId" => plain(source_charge_group_table::reference_data_source_id),
        "startDate" => plain(source_charge_group_table::start_date),
        "endDate" => nullable(source_charge_group_table::end_date),
    },
}

/// True when any source charge group still links to charge group `charge_group_id`.
pub fn references_charge_group(
    connection: &mut crate::DbConnection,
    charge_group_id: i64,
) -> crate::error::PersistenceResult<bool> {
    Ok(diesel::select(diesel::dsl::exists(
        source_charge_group_table::table
            .filter(source_charge_group_table::charge_group_id.eq(charge_group_id)),
    ))
    .get_result(connection)?)
}
