//! `/v1/reference-data-source-charge-groups` (4.3): a source's own charge groups. Data of a
//! source with siMaintained = true cannot be created, changed or removed here (412).

use billing_auth::AuthenticatedUser;
use billing_domain::query::{FilterKind, ListQuery};
use billing_domain::reference_data::{SourceChargeGroupDraft, ensure_externally_maintained};
use billing_domain::roles::Permission;
use billing_persistence::source_charge_groups::{
    self, SourceChargeGroupChanges, SourceChargeGroupRow,
};
use billing_persistence::{DbConnection, charge_groups, reference_data_sources};
use chrono::NaiveDate;
use serde::{Deserialize, Serialize};

use super::common::{
    END_DATE, END_DATE_FILTER, ID, START_DATE, START_DATE_FILTER, require_reference,
};
use crate::error::ApiError;
use crate::machinery::resource::{
    ApiResult, Field, FieldType, FilterParam, Operations, Resource, missing_reference, page,
};
use crate::machinery::serde_dates::{deserialize_date, deserialize_optional_date};

#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ReferenceDataSourceChargeGroup {
    pub id: i64,
    pub name: String,
    pub code: String,
    pub charge_group_id: i64,
    pub reference_data_source_id: i64,
    pub start_date: NaiveDate,
    pub end_date: Option<NaiveDate>,
    #[serde(skip)]
    pub version: i64,
}

impl From<SourceChargeGroupRow> for ReferenceDataSourceChargeGroup {
    fn from(row: SourceChargeGroupRow) -> Self {
        Self {
            id: row.id,
            name: row.name,
            code: row.code,
            charge_group_id: row.charge_group_id,
            reference_data_source_id: row.reference_data_source_id,
            start_date: row.start_date,
            end_date: row.end_date,
            version: row.version,
        }
    }
}

#[derive(Debug, Deserialize, garde::Validate)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ReferenceDataSourceChargeGroupInput {
    #[garde(length(chars, min = 1, max = 255))]
    pub name: String,
    #[garde(length(chars, min = 1, max = 255))]
    pub code: String,
    #[garde(range(min = 1))]
    pub charge_group_id: i64,
    #[garde(range(min = 1))]
    pub reference_data_source_id: i64,
    #[serde(deserialize_with = "deserialize_date")]
    #[garde(skip)]
    pub start_date: NaiveDate,
    #[serde(default, deserialize_with = "deserialize_optional_date")]
    #[garde(skip)]
    pub end_date: Option<NaiveDate>,
}

/// 412 when source `source_id` is maintained by the operator; 400 when it does not exist.
fn ensure_source_open(connection: &mut DbConnection, source_id: i64, field: &str) -> ApiResult<()> {
    let source = reference_data_sources::find_row(connection, source_id)?
        .ok_or_else(|| missing_reference(field, "reference data source", source_id))?;
    ensure_externally_maintained(source.id, source.si_maintained)
        .map_err(|refused| ApiError::precondition_failed(refused.to_string()))
}

impl ReferenceDataSourceChargeGroupInput {
    fn changes(&self, connection: &mut DbConnection) -> ApiResult<SourceChargeGroupChanges> {
        let draft = SourceChargeGroupDraft::parse(
            &self.name,
            &self.code,
            self.charge_group_id,
            self.reference_data_source_id,
            self.start_date,
            self.end_date,
        )?;
        ensure_source_open(
            connection,
            draft.reference_data_source_id,
            "referenceDataSourceId",
        )?;
        require_reference(
            charge_groups::exists(connection, draft.charge_group_id)?,
            "chargeGroupId",
            "charge group",
            draft.charge_group_id,
        )?;
        Ok(SourceChargeGroupChanges::from(&draft))
    }
}

pub struct ReferenceDataSourceChargeGroups;

impl Resource for ReferenceDataSourceChargeGroups {
    const PATH: &'static str = "reference-data-source-charge-groups";
    const NOUN: &'static str = "reference data source charge group";
    const DESCRIPTION: &'static str = "A reference data source's own charge groups, each linked to one charge group and one \
        source. Records of a source with siMaintained = true cannot be created, changed or removed here (412). The code is \
        unique within a source (409).";
    const READ: Permission = Permission::ReadReferenceData;
    const WRITE: Permission = Permission::WriteReferenceData;
    const OPERATIONS: Operations = Operations::ALL;
    const FIELDS: &'static [Field] = &[
        ID,
        Field::required(
            "name",
            FieldType::Text { min: 1, max: 255 },
            "Name of the source charge group.",
        ),
        Field::required(
            "code",
            FieldType::Text { min: 1, max: 255 },
            "The source's code for it; unique within the source.",
        ),
        Field::required(
            "chargeGroupId",
            FieldType::Id,
            "Id of the linked charge group.",
        ),
        Field::required(
            "referenceDataSourceId",
            FieldType::Id,
            "Id of the linked reference data source.",
        ),
        START_DATE,
        END_DATE,
    ];
    const FILTERS: &'static [FilterParam] = &[
        FilterParam::new("name", FilterKind::String, "Filter on the name."),
        FilterParam::new("code", FilterKind::String, "Filter on the code."),
        FilterParam::new(
            "chargeGroupId",
            FilterKind::Id,
            "Filter on the charge group id.",
        ),
        FilterParam::new(
            "referenceDataSourceId",
            FilterKind::Id,
            "Filter on the source id.",
        ),
        START_DATE_FILTER,
        END_DATE_FILTER,
        FilterParam::new(
            "siMaintained",
            FilterKind::Boolean,
            "Only records whose source has this siMaintained value.",
        ),
    ];
    const SORT_KEYS: &'static [&'static str] = &[
        "id",
        "name",
        "code",
        "chargeGroupId",
        "referenceDataSourceId",
        "startDate",
        "endDate",
    ];

    type Record = ReferenceDataSourceChargeGroup;
    type Input = ReferenceDataSourceChargeGroupInput;

    fn list(
        connection: &mut DbConnection,
        _: &AuthenticatedUser,
        query: &ListQuery,
    ) -> ApiResult<(Vec<ReferenceDataSourceChargeGroup>, i64)> {
        Ok(page(source_charge_groups::list(connection, query)?))
    }

    fn find(
        connection: &mut DbConnection,
        _: &AuthenticatedUser,
        id: i64,
    ) -> ApiResult<Option<ReferenceDataSourceChargeGroup>> {
        Ok(source_charge_groups::find(connection, id)?.map(ReferenceDataSourceChargeGroup::from))
    }

    fn create(
        connection: &mut DbConnection,
        _: &AuthenticatedUser,
        input: ReferenceDataSourceChargeGroupInput,
    ) -> ApiResult<ReferenceDataSourceChargeGroup> {
        let changes = input.changes(connection)?;
        Ok(source_charge_groups::insert(connection, &changes)?.into())
    }

    fn replace(
        connection: &mut DbConnection,
        _: &AuthenticatedUser,
        current: &ReferenceDataSourceChargeGroup,
        input: ReferenceDataSourceChargeGroupInput,
    ) -> ApiResult<Option<ReferenceDataSourceChargeGroup>> {
        ensure_source_open(
            connection,
            current.reference_data_source_id,
            "referenceDataSourceId",
        )?;
        let changes = input.changes(connection)?;
        Ok(
            source_charge_groups::update(connection, current.id, current.version, &changes)?
                .map(Into::into),
        )
    }

    fn delete(
        connection: &mut DbConnection,
        _: &AuthenticatedUser,
        current: &ReferenceDataSourceChargeGroup,
    ) -> ApiResult<bool> {
        ensure_source_open(
            connection,
            current.reference_data_source_id,
            "referenceDataSourceId",
        )?;
        Ok(source_charge_groups::delete(
            connection,
            current.id,
            current.version,
        )?)
    }
}

crate::versioned!(ReferenceDataSourceChargeGroup);
