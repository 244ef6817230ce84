//! `/v1/ignored-call-classes` (docs/api.md "Reference data"): call classes a source does not rate; a source
//! with siMaintained = true is refused (412).

use billing_auth::AuthenticatedUser;
use billing_persistence::DbConnection;
use billing_persistence::ignored_call_classes::Changes;

use super::reference_data_source_charge_groups::ensure_source_open;
use crate::machinery::resource::{ApiResult, Resource};

pub struct IgnoredCallClasses;

#[crate::declared_resource(
    billing_domain::ignored_call_classes,
    path: "ignored-call-classes",
    noun: "ignored call class",
    read: ReadReferenceData,
    write: WriteReferenceData,
    storage: billing_persistence::ignored_call_classes,
    rated: true,
)]
impl Resource for IgnoredCallClasses {
    fn check_change(
        connection: &mut DbConnection,
        _: &AuthenticatedUser,
        current: &Record,
    ) -> ApiResult<()> {
        ensure_source_open(connection, current.reference_data_source_id)
    }

    fn check_write(
        connection: &mut DbConnection,
        _: &AuthenticatedUser,
        _: Option<&Record>,
        changes: &Changes,
    ) -> ApiResult<()> {
        ensure_source_open(connection, changes.reference_data_source_id)
    }
}
