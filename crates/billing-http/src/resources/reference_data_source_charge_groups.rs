//! `/v1/reference-data-source-charge-groups` (docs/api.md "Reference data"): a source's own charge groups. Data of a
//! source with siMaintained = true cannot be created, changed or removed here (412).

use billing_auth::AuthenticatedUser;
use billing_domain::reference_data::ensure_externally_maintained;
use billing_persistence::reference_data_source_charge_groups::Changes;
use billing_persistence::{DbConnection, reference_data_sources};

use crate::error::ApiError;
use crate::machinery::resource::{ApiResult, Resource, missing_reference};

pub struct ReferenceDataSourceChargeGroups;

#[crate::declared_resource(
    billing_domain::reference_data_source_charge_groups,
    path: "reference-data-source-charge-groups",
    noun: "reference data source charge group",
    read: ReadReferenceData,
    write: WriteReferenceData,
    storage: billing_persistence::reference_data_source_charge_groups,
    rated: true,
)]
impl Resource for ReferenceDataSourceChargeGroups {
    fn check_change(
        connection: &mut DbConnection,
        _: &AuthenticatedUser,
        current: &Record,
    ) -> ApiResult<()> {
        ensure_source_open(connection, current.reference_data_source_id)
    }

    /// The source must accept API changes; a group moved to another source takes its
    /// dialstrings and call classes along, so none of them may already be in force there
    /// (409, as writing such a record directly would be).
    fn check_write(
        connection: &mut DbConnection,
        _: &AuthenticatedUser,
        current: Option<&Record>,
        changes: &Changes,
    ) -> ApiResult<()> {
        let source_id = changes.reference_data_source_id;
        ensure_source_open(connection, source_id)?;
        let Some(current) = current.filter(|current| current.reference_data_source_id != source_id)
        else {
            return Ok(());
        };
        let moved = [
            (
                "dialstring",
                billing_persistence::dialstrings::conflicting_on_move as MoveCheck,
            ),
            (
                "call class",
                billing_persistence::call_classes::conflicting_on_move,
            ),
        ];
        for (noun, conflicting_on_move) in moved {
            if let Some((value, other)) = conflicting_on_move(connection, current.id, source_id)? {
                return Err(ApiError::conflict(format!(
                    "moving this group to reference data source {source_id} would put its {noun} \
                     {value:?} in force there twice: {noun} record {other} of another group \
                     already has it on some of the same dates"
                )));
            }
        }
        Ok(())
    }
}

/// 412 when source `source_id` is maintained by the operator; 400 when it does not exist.
pub(crate) fn ensure_source_open(connection: &mut DbConnection, source_id: i64) -> ApiResult<()> {
    let source = reference_data_sources::find(connection, source_id)?.ok_or_else(|| {
        missing_reference(
            billing_domain::resources::reference_data_source_charge_groups::names::reference_data_source_id,
            "reference data source",
            source_id,
        )
    })?;
    ensure_externally_maintained(source.id, source.si_maintained)
        .map_err(|refused| ApiError::precondition_failed(refused.to_string()))
}

/// A table's `conflicting_on_move` (`billing_persistence::in_force`).
type MoveCheck = fn(
    &mut DbConnection,
    i64,
    i64,
) -> billing_persistence::error::PersistenceResult<Option<(String, i64)>>;
