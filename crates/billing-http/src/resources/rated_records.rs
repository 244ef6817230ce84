//! What dialstrings and call classes share: each rates as a source charge group, so its source
//! (through that group) decides whether the API may change it (siMaintained → 412), and one
//! value may be in force only once per source and date (409); `Database::write` keeps two
//! concurrent writers from both passing.

use billing_persistence::in_force::InForce;
use billing_persistence::{DbConnection, reference_data_source_charge_groups};
use chrono::NaiveDate;

use super::reference_data_source_charge_groups::ensure_source_open;
use crate::error::ApiError;
use crate::machinery::resource::{ApiResult, missing_reference};

/// The source of source charge group `group_id`, once it is known to accept API changes.
pub fn open_source_of(connection: &mut DbConnection, group_id: i64) -> ApiResult<i64> {
    let source_id = reference_data_source_charge_groups::source_of(connection, group_id)?
        .ok_or_else(|| {
            missing_reference(
                "referenceDataSourceChargeGroupId",
                "reference data source charge group",
                group_id,
            )
        })?;
    ensure_source_open(connection, source_id)?;
    Ok(source_id)
}

/// The values of a write that rating reads.
pub struct RatedWrite<'a> {
    pub group_id: i64,
    pub value: &'a str,
    pub start_date: NaiveDate,
    pub end_date: Option<NaiveDate>,
    /// The record being replaced, if any.
    pub except: Option<i64>,
}

/// 412 for a source maintained by the operator; 409 when another record with the same value is
/// in force in the source on a date this one covers (`conflicting` is the table's check).
pub fn check_rated_write(
    connection: &mut DbConnection,
    noun: &str,
    write: RatedWrite<'_>,
    conflicting: fn(
        &mut DbConnection,
        &InForce<'_>,
    ) -> billing_persistence::error::PersistenceResult<Option<i64>>,
) -> ApiResult<()> {
    let source_id = open_source_of(connection, write.group_id)?;
    let record = InForce {
        value: write.value,
        source_id,
        start_date: write.start_date,
        end_date: write.end_date,
        except: write.except,
    };
    if let Some(other) = conflicting(connection, &record)? {
        return Err(ApiError::conflict(format!(
            "{noun} {:?} is already in force in reference data source {source_id} on these dates ({noun} record {other})",
            write.value
        )));
    }
    Ok(())
}
