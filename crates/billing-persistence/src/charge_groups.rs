//! `charge_groups`: what a call is charged as, within a category.

use billing_domain::reference_data::ChargeGroupDraft;
use chrono::NaiveDate;
use diesel::prelude::*;

use crate::schema::charge_groups;

#[derive(Debug, Clone, PartialEq, Queryable)]
pub struct ChargeGroupRow {
    pub id: i64,
    pub name: String,
    pub charge_group_category_id: i64,
    pub start_date: NaiveDate,
    pub end_date: Option<NaiveDate>,
    pub version: i64,
}

#[derive(Debug, Insertable, AsChangeset)]
#[diesel(table_name = charge_groups, treat_none_as_null = true)]
pub struct ChargeGroupChanges {
    pub name: String,
    pub charge_group_category_id: i64,
    pub start_date: NaiveDate,
    pub end_date: Option<NaiveDate>,
}

impl From<&ChargeGroupDraft> for ChargeGroupChanges {
    fn from(draft: &ChargeGroupDraft) -> Self {
        Self {
            name: draft.name.as_str().to_owned(),
            charge_group_category_id: draft.charge_group_category_id,
            start_date: draft.validity.start_date(),
            end_date: draft.validity.end_date(),
        }
    }
}

crate::define_crud!(table: charge_groups, row: ChargeGroupRow, changes: ChargeGroupChanges);

crate::define_list! {
    source: charge_groups::table,
    select: charge_groups::all_columns,
    row: ChargeGroupRow,
    id: charge_groups::id,
    filters: {
        "name" => text(charge_groups::name),
        "chargeGroupCategoryId" => id(charge_groups::charge_group_category_id),
        "startDate" => date(charge_groups::start_date),
        "endDate" => nullable_date(charge_groups::end_date),
    },
    sort: {
        "id" => plain(charge_groups::id),
        "name" => plain(charge_groups::name),
        "chargeGroupCategoryId" => plain(charge_groups::charge_group_category_id),
        "startDate" => plain(charge_groups::start_date),
        "endDate" => nullable(charge_groups::end_date),
    },
}
