//! `/v1/custom-field-definitions` (docs/api.md "Sites"): the custom fields sites can carry.

use billing_auth::AuthenticatedUser;
use billing_persistence::{DbConnection, custom_field_definitions};

use crate::machinery::resource::{ApiResult, Resource};

pub struct CustomFieldDefinitions;

#[crate::declared_resource(
    billing_domain::custom_field_definitions,
    path: "custom-field-definitions",
    noun: "custom field definition",
    read: ReadCustomers,
    write: WriteCustomers,
    storage: billing_persistence::custom_field_definitions,
)]
impl Resource for CustomFieldDefinitions {
    /// A user limited to contract owners changes only definitions that no other owner's sites
    /// use (those sites show its label).
    fn check_change(
        connection: &mut DbConnection,
        caller: &AuthenticatedUser,
        current: &Record,
    ) -> ApiResult<()> {
        super::common::check_used_only_in_scope(
            connection,
            caller,
            |connection| billing_persistence::sites::using_custom_field(connection, current.id),
            |_| {
                format!(
                    "custom field definition {} is used by a site of a contract owner you are not allowed to see",
                    current.id
                )
            },
        )
    }

    /// Sites show the definition's label with their values: a new label reaches them.
    fn written(
        connection: &mut DbConnection,
        _: &AuthenticatedUser,
        before: Option<&Record>,
        record: &Record,
        _: &Options,
    ) -> ApiResult<()> {
        if before.is_some_and(|before| before.label != record.label) {
            custom_field_definitions::relabel_sites(connection, record.id, &record.label)?;
        }
        Ok(())
    }
}
