//! `charge_group_categories`: how charge groups are grouped and measured.

use billing_domain::reference_data::ChargeGroupCategoryDraft;
use chrono::NaiveDate;
use diesel::prelude::*;

use crate::schema::charge_group_categories;

#[derive(Debug, Clone, PartialEq, Queryable)]
pub struct ChargeGroupCategoryRow {
    pub id: i64,
    pub name: String,
    pub charging_unit_type: String,
    pub start_date: NaiveDate,
    pub end_date: Option<NaiveDate>,
    pub version: i64,
}

#[derive(Debug, Insertable, AsChangeset)]
#[diesel(table_name = charge_group_categories, treat_none_as_null = true)]
pub struct ChargeGroupCategoryChanges {
    pub name: String,
    pub charging_unit_type: String,
    pub start_date: NaiveDate,
    pub end_date: Option<NaiveDate>,
}

impl From<&ChargeGroupCategoryDraft> for ChargeGroupCategoryChanges {
    fn from(draft: &ChargeGroupCategoryDraft) -> Self {
        Self {
            name: draft.name.as_str().to_owned(),
            charging_unit_type: draft.charging_unit_type.code().to_owned(),
            start_date: draft.validity.start_date(),
            end_date: draft.validity.end_date(),
        }
    }
}

crate::define_crud!(table: charge_group_categories, row: ChargeGroupCategoryRow, changes: ChargeGroupCategoryChanges);

crate::define_list! {
    source: charge_group_categories::table,
    select: charge_group_categories::all_columns,
    row: ChargeGroupCategoryRow,
    id: charge_group_categories::id,
    filters: {
        "name" => text(charge_group_categories::name),
        "chargingUnitType" => text(charge_group_categories::charging_unit_type),
        "startDate" => date(charge_group_categories::start_date),
        "endDate" => nullable_date(charge_group_categories::end_date),
    },
    sort: {
        "id" => plain(charge_group_categories::id),
        "name" => plain(charge_group_categories::name),
        "chargingUnitType" => plain(charge_group_categories::charging_unit_type),
        "startDate" => plain(charge_group_categories::start_date),
        "endDate" => nullable(charge_group_categories::end_date),
    },
}
