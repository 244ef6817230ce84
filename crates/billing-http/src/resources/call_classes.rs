//! `/v1/call-classes` (docs/api.md "Reference data"): rated as a source charge group; siMaintained sources are
//! refused (412) and one call class is in force once per source and date (409).

use billing_auth::AuthenticatedUser;
use billing_persistence::DbConnection;
use billing_persistence::call_classes::Changes;

use super::rated_records::{RatedWrite, check_rated_write, open_source_of};
use crate::machinery::resource::{ApiResult, Resource};

pub struct CallClasses;

#[crate::declared_resource(
    billing_domain::call_classes,
    path: "call-classes",
    noun: "call class",
    read: ReadReferenceData,
    write: WriteReferenceData,
    storage: billing_persistence::call_classes,
    rated: true,
)]
impl Resource for CallClasses {
    fn check_change(
        connection: &mut DbConnection,
        _: &AuthenticatedUser,
        current: &Record,
    ) -> ApiResult<()> {
        open_source_of(connection, current.reference_data_source_charge_group_id).map(drop)
    }

    fn check_write(
        connection: &mut DbConnection,
        _: &AuthenticatedUser,
        current: Option<&Record>,
        changes: &Changes,
    ) -> ApiResult<()> {
        let write = RatedWrite {
            group_id: changes.reference_data_source_charge_group_id,
            value: &changes.call_class,
            start_date: changes.start_date,
            end_date: changes.end_date,
            except: current.map(|current| current.id),
        };
        check_rated_write(
            connection,
            "call class",
            write,
            billing_persistence::call_classes::conflicting,
        )
    }
}
