//! The audit trail: every write through the machinery records who, when, what (the record
//! before and after, as returned by the API, so write-only secrets never enter it) and the
//! request id, in the same transaction as the write.

use billing_auth::AuthenticatedUser;
use billing_persistence::DbConnection;
use billing_persistence::audit_events::{self, NewAuditEvent};
use serde_json::Value;

use super::resource::Resource;
use crate::error::ApiError;
use crate::request_context;

/// The action of a `billing import reference-data` run's audit event.
pub const IMPORT: &str = "IMPORT";
/// The resource of a `billing import reference-data` run's audit event.
pub const IMPORT_RESOURCE: &str = "reference-data";

/// Every action an audit event records: the machinery's writes (an [`Action`]'s code) and
/// [`IMPORT`].
pub const ACTIONS: &[&str] = &["CREATE", "REPLACE", "PATCH", "UPDATE", "DELETE", IMPORT];

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Action {
    Create,
    Replace,
    Patch,
    Update,
    Delete,
}

impl Action {
    pub fn code(self) -> &'static str {
        match self {
            Action::Create => "CREATE",
            Action::Replace => "REPLACE",
            Action::Patch => "PATCH",
            Action::Update => "UPDATE",
            Action::Delete => "DELETE",
        }
    }
}

/// Who is writing, in which request: captured in the async handler, because the transaction
/// runs on a blocking thread where the request's task-local context is not visible.
#[derive(Debug, Clone)]
pub struct Writer {
    pub caller: AuthenticatedUser,
    pub request_id: String,
}

impl Writer {
    pub fn new(caller: AuthenticatedUser) -> Self {
        Self {
            caller,
            request_id: request_context::current().request_id,
        }
    }
}

pub fn record(
    connection: &mut DbConnection,
    writer: &Writer,
    action: Action,
    resource: &str,
    record_id: i64,
    before: Option<&Value>,
    after: Option<&Value>,
) -> Result<(), ApiError> {
    audit_events::insert(
        connection,
        &NewAuditEvent {
            occurred_at: billing_persistence::now(),
            user_id: writer.caller.id,
            username: writer.caller.username.clone(),
            action: action.code().to_owned(),
            resource: resource.to_owned(),
            record_id,
            before_state: before.map(Value::to_string),
            after_state: after.map(Value::to_string),
            request_id: writer.request_id.clone(),
        },
    )?;
    Ok(())
}

/// Records the creation of `record` made outside any request (the first administrator at
/// start-up, `billing create-user`), exactly as the API records its own creates: the record as
/// the API shows it, `actor` as who wrote, and `origin` in place of a request id.
pub fn record_created_outside_api<R: Resource>(
    connection: &mut DbConnection,
    actor: AuthenticatedUser,
    origin: &str,
    record: &R::Record,
) -> Result<(), ApiError> {
    let after = serde_json::to_value(record)
        .map_err(|e| ApiError::internal(format!("cannot serialize a record: {e}")))?;
    let writer = Writer {
        caller: actor,
        request_id: origin.to_owned(),
    };
    self::record(
        connection,
        &writer,
        Action::Create,
        R::PATH,
        R::id(record),
        None,
        Some(&after),
    )
}

#[cfg(test)]
mod tests {
    use super::{ACTIONS, Action};

    /// The `action` filter refuses a code outside `ACTIONS`: every action written is in it.
    #[test]
    fn every_action_written_is_a_code_the_filter_accepts() {
        let written = [
            Action::Create,
            Action::Replace,
            Action::Patch,
            Action::Update,
            Action::Delete,
        ]
        .map(Action::code);
        insta::assert_debug_snapshot!(ACTIONS.iter().filter(|code| !written.contains(code)).collect::<Vec<_>>(), @r#"
            [
                "IMPORT",
            ]
        "#);
        assert!(written.iter().all(|code| ACTIONS.contains(code)));
    }
}
