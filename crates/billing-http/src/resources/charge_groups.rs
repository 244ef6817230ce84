//! `/v1/charge-groups` (decisions §3): what usage is charged as; each in one category.

use billing_auth::AuthenticatedUser;
use billing_domain::query::{FilterKind, ListQuery};
use billing_domain::reference_data::ChargeGroupDraft;
use billing_domain::roles::Permission;
use billing_persistence::charge_groups::{self, ChargeGroupChanges, ChargeGroupRow};
use billing_persistence::{DbConnection, charge_group_categories, source_charge_groups};
use chrono::NaiveDate;
use serde::{Deserialize, Serialize};

use super::common::{
    END_DATE, END_DATE_FILTER, ID, START_DATE, START_DATE_FILTER, require_reference,
};
use crate::machinery::resource::{
    ApiResult, Field, FieldType, FilterParam, Operations, Resource, page, still_referenced,
};
use crate::machinery::serde_dates::{deserialize_date, deserialize_optional_date};

#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ChargeGroup {
    pub id: i64,
    pub name: String,
    pub charge_group_category_id: i64,
    pub start_date: NaiveDate,
    pub end_date: Option<NaiveDate>,
    #[serde(skip)]
    pub version: i64,
}

impl From<ChargeGroupRow> for ChargeGroup {
    fn from(row: ChargeGroupRow) -> Self {
        Self {
            id: row.id,
            name: row.name,
            charge_group_category_id: row.charge_group_category_id,
            start_date: row.start_date,
            end_date: row.end_date,
            version: row.version,
        }
    }
}

#[derive(Debug, Deserialize, garde::Validate)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ChargeGroupInput {
    #[garde(length(chars, min = 1, max = 255))]
    pub name: String,
    #[garde(range(min = 1))]
    pub charge_group_category_id: i64,
    #[serde(deserialize_with = "deserialize_date")]
    #[garde(skip)]
    pub start_date: NaiveDate,
    #[serde(default, deserialize_with = "deserialize_optional_date")]
    #[garde(skip)]
    pub end_date: Option<NaiveDate>,
}

impl ChargeGroupInput {
    fn changes(&self, connection: &mut DbConnection) -> ApiResult<ChargeGroupChanges> {
        let draft = ChargeGroupDraft::parse(
            &self.name,
            self.charge_group_category_id,
            self.start_date,
            self.end_date,
        )?;
        let category = draft.charge_group_category_id;
        require_reference(
            charge_group_categories::exists(connection, category)?,
            "chargeGroupCategoryId",
            "charge group category",
            category,
        )?;
        Ok(ChargeGroupChanges::from(&draft))
    }
}

pub struct ChargeGroups;

impl Resource for ChargeGroups {
    const PATH: &'static str = "charge-groups";
    const NOUN: &'static str = "charge group";
    const DESCRIPTION: &'static str =
        "Charge groups: what usage is charged as. Each belongs to one charge group category.";
    const READ: Permission = Permission::ReadReferenceData;
    const WRITE: Permission = Permission::WriteReferenceData;
    const OPERATIONS: Operations = Operations::ALL;
    const FIELDS: &'static [Field] = &[
        ID,
        Field::required(
            "name",
            FieldType::Text { min: 1, max: 255 },
            "Name of the charge group.",
        ),
        Field::required(
            "chargeGroupCategoryId",
            FieldType::Id,
            "Id of its charge group category.",
        ),
        START_DATE,
        END_DATE,
    ];
    const FILTERS: &'static [FilterParam] = &[
        FilterParam::new("name", FilterKind::String, "Filter on the name."),
        FilterParam::new(
            "chargeGroupCategoryId",
            FilterKind::Id,
            "Filter on the category id.",
        ),
        START_DATE_FILTER,
        END_DATE_FILTER,
    ];
    const SORT_KEYS: &'static [&'static str] = &[
        "id",
        "name",
        "chargeGroupCategoryId",
        "startDate",
        "endDate",
    ];

    type Record = ChargeGroup;
    type Input = ChargeGroupInput;

    fn list(
        connection: &mut DbConnection,
        _: &AuthenticatedUser,
        query: &ListQuery,
    ) -> ApiResult<(Vec<ChargeGroup>, i64)> {
        Ok(page(charge_groups::list(connection, query)?))
    }

    fn find(
        connection: &mut DbConnection,
        _: &AuthenticatedUser,
        id: i64,
    ) -> ApiResult<Option<ChargeGroup>> {
        Ok(charge_groups::find(connection, id)?.map(ChargeGroup::from))
    }

    fn create(
        connection: &mut DbConnection,
        _: &AuthenticatedUser,
        input: ChargeGroupInput,
    ) -> ApiResult<ChargeGroup> {
        let changes = input.changes(connection)?;
        Ok(charge_groups::insert(connection, &changes)?.into())
    }

    fn replace(
        connection: &mut DbConnection,
        _: &AuthenticatedUser,
        current: &ChargeGroup,
        input: ChargeGroupInput,
    ) -> ApiResult<Option<ChargeGroup>> {
        let changes = input.changes(connection)?;
        Ok(
            charge_groups::update(connection, current.id, current.version, &changes)?
                .map(Into::into),
        )
    }

    fn delete(
        connection: &mut DbConnection,
        _: &AuthenticatedUser,
        current: &ChargeGroup,
    ) -> ApiResult<bool> {
        if source_charge_groups::references_charge_group(connection, current.id)? {
            return Err(still_referenced(
                "charge group",
                current.id,
                "reference data source charge groups",
            ));
        }
        Ok(charge_groups::delete(
            connection,
            current.id,
            current.version,
        )?)
    }
}

crate::versioned!(ChargeGroup);
