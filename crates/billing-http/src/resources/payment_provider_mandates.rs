//! `/v1/payment-provider-mandates` (docs/api.md "Sites"): the mandates sites name by reference.

use billing_auth::AuthenticatedUser;
use billing_persistence::{DbConnection, sites};

use crate::error::ApiError;
use crate::machinery::declared::Declared;
use crate::machinery::resource::{ApiResult, Resource};

pub struct PaymentProviderMandates;

#[crate::declared_resource(
    billing_domain::payment_provider_mandates,
    path: "payment-provider-mandates",
    noun: "payment provider mandate",
    read: ReadCustomers,
    write: WriteCustomers,
    storage: billing_persistence::payment_provider_mandates,
)]
impl Resource for PaymentProviderMandates {
    /// A user limited to contract owners changes only mandates that no other owner's sites
    /// name (those sites show its status, and their rules read it).
    fn check_change(
        connection: &mut DbConnection,
        caller: &AuthenticatedUser,
        current: &Record,
    ) -> ApiResult<()> {
        let (provider, reference) = (&current.provider, &current.mandate_reference);
        super::common::check_used_only_in_scope(
            connection,
            caller,
            |connection| sites::naming_mandate(connection, provider, reference),
            |_| {
                format!(
                    "payment provider mandate {} is named by a site of a contract owner you are not allowed to see",
                    current.id
                )
            },
        )
    }

    /// A mandate that sites name keeps its provider and reference.
    fn check_write(
        connection: &mut DbConnection,
        _: &AuthenticatedUser,
        current: Option<&Record>,
        changes: &<Self as Declared>::Changes,
    ) -> ApiResult<()> {
        match current {
            Some(current)
                if current.provider != changes.provider
                    || current.mandate_reference != changes.mandate_reference =>
            {
                check_unnamed(connection, current, "change")
            }
            _ => Ok(()),
        }
    }

    /// The sites that name the mandate show its new status and dates.
    fn written(
        connection: &mut DbConnection,
        _: &AuthenticatedUser,
        _: Option<&Record>,
        record: &Record,
        _: &Options,
    ) -> ApiResult<()> {
        sites::refresh_mandate(
            connection,
            &record.provider,
            &record.mandate_reference,
            Some((&record.status, record.created_date.0, record.updated_date.0)),
        )?;
        Ok(())
    }

    fn check_delete(
        connection: &mut DbConnection,
        _: &AuthenticatedUser,
        current: &Record,
    ) -> ApiResult<()> {
        check_unnamed(connection, current, "be deleted")
    }
}

/// 409 when sites name the mandate: they read its status from it.
fn check_unnamed(connection: &mut DbConnection, mandate: &Record, doing: &str) -> ApiResult<()> {
    if sites::name_mandate(connection, &mandate.provider, &mandate.mandate_reference)? {
        return Err(ApiError::conflict(format!(
            "payment provider mandate {} is named by sites: its provider and reference cannot {doing}",
            mandate.id
        )));
    }
    Ok(())
}
