//! `/v1/charge-group-categories` (decisions §3): how charge groups are grouped and measured.

use billing_auth::AuthenticatedUser;
use billing_domain::query::{FilterKind, ListQuery};
use billing_domain::reference_data::{ChargeGroupCategoryDraft, ChargingUnitType};
use billing_domain::roles::Permission;
use billing_persistence::DbConnection;
use billing_persistence::charge_group_categories::{
    self, ChargeGroupCategoryChanges, ChargeGroupCategoryRow,
};
use chrono::NaiveDate;
use serde::{Deserialize, Serialize};

use super::common::{END_DATE, END_DATE_FILTER, ID, START_DATE, START_DATE_FILTER};
use crate::machinery::resource::{
    ApiResult, Field, FieldType, FilterParam, Operations, Resource, page,
};
use crate::machinery::serde_dates::{deserialize_date, deserialize_optional_date};

#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ChargeGroupCategory {
    pub id: i64,
    pub name: String,
    pub charging_unit_type: String,
    pub start_date: NaiveDate,
    pub end_date: Option<NaiveDate>,
    #[serde(skip)]
    pub version: i64,
}

impl From<ChargeGroupCategoryRow> for ChargeGroupCategory {
    fn from(row: ChargeGroupCategoryRow) -> Self {
        Self {
            id: row.id,
            name: row.name,
            charging_unit_type: row.charging_unit_type,
            start_date: row.start_date,
            end_date: row.end_date,
            version: row.version,
        }
    }
}

#[derive(Debug, Deserialize, garde::Validate)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ChargeGroupCategoryInput {
    #[garde(length(chars, min = 1, max = 50))]
    pub name: String,
    #[garde(skip)]
    pub charging_unit_type: String,
    #[serde(deserialize_with = "deserialize_date")]
    #[garde(skip)]
    pub start_date: NaiveDate,
    #[serde(default, deserialize_with = "deserialize_optional_date")]
    #[garde(skip)]
    pub end_date: Option<NaiveDate>,
}

impl ChargeGroupCategoryInput {
    fn changes(&self) -> ApiResult<ChargeGroupCategoryChanges> {
        let draft = ChargeGroupCategoryDraft::parse(
            &self.name,
            &self.charging_unit_type,
            self.start_date,
            self.end_date,
        )?;
        Ok(ChargeGroupCategoryChanges::from(&draft))
    }
}

pub struct ChargeGroupCategories;

impl Resource for ChargeGroupCategories {
    const PATH: &'static str = "charge-group-categories";
    const NOUN: &'static str = "charge group category";
    const DESCRIPTION: &'static str =
        "Categories of charge groups, with the unit their usage is measured in.";
    const READ: Permission = Permission::ReadReferenceData;
    const WRITE: Permission = Permission::WriteReferenceData;
    const OPERATIONS: Operations = Operations::ALL;
    const FIELDS: &'static [Field] = &[
        ID,
        Field::required(
            "name",
            FieldType::Text { min: 1, max: 50 },
            "Name of the category.",
        ),
        Field::required(
            "chargingUnitType",
            FieldType::Enum(&ChargingUnitType::CODES),
            "DURATION, MB (data) or ONE_OFF.",
        ),
        START_DATE,
        END_DATE,
    ];
    const FILTERS: &'static [FilterParam] = &[
        FilterParam::new("name", FilterKind::String, "Filter on the name."),
        FilterParam::new(
            "chargingUnitType",
            FilterKind::String,
            "Filter on the charging unit type.",
        ),
        START_DATE_FILTER,
        END_DATE_FILTER,
    ];
    const SORT_KEYS: &'static [&'static str] =
        &["id", "name", "chargingUnitType", "startDate", "endDate"];

    type Record = ChargeGroupCategory;
    type Input = ChargeGroupCategoryInput;

    fn list(
        connection: &mut DbConnection,
        _: &AuthenticatedUser,
        query: &ListQuery,
    ) -> ApiResult<(Vec<ChargeGroupCategory>, i64)> {
        Ok(page(charge_group_categories::list(connection, query)?))
    }

    fn find(
        connection: &mut DbConnection,
        _: &AuthenticatedUser,
        id: i64,
    ) -> ApiResult<Option<ChargeGroupCategory>> {
        Ok(charge_group_categories::find(connection, id)?.map(ChargeGroupCategory::from))
    }

    fn create(
        connection: &mut DbConnection,
        _: &AuthenticatedUser,
        input: ChargeGroupCategoryInput,
    ) -> ApiResult<ChargeGroupCategory> {
        Ok(charge_group_categories::insert(connection, &input.changes()?)?.into())
    }

    fn replace(
        connection: &mut DbConnection,
        _: &AuthenticatedUser,
        current: &ChargeGroupCategory,
        input: ChargeGroupCategoryInput,
    ) -> ApiResult<Option<ChargeGroupCategory>> {
        Ok(charge_group_categories::update(
            connection,
            current.id,
            current.version,
            &input.changes()?,
        )?
        .map(Into::into))
    }

    fn delete(
        connection: &mut DbConnection,
        _: &AuthenticatedUser,
        current: &ChargeGroupCategory,
    ) -> ApiResult<bool> {
        Ok(charge_group_categories::delete(
            connection,
            current.id,
            current.version,
        )?)
    }
}

crate::versioned!(ChargeGroupCategory);
