//! `GET /v1/audit-events` (docs/operations.md): the trail of every write, for administrators.
//! Read-only; written by the machinery in the same transaction as each write.

use billing_auth::AuthenticatedUser;
use billing_domain::query::{FilterKind, ListQuery};
use billing_domain::roles::Permission;
use billing_persistence::DbConnection;
use billing_persistence::audit_events::{self, AuditEventRow};
use chrono::NaiveDateTime;
use serde::Serialize;
use serde_json::Value;

use super::common::{ID, NoInput};
use crate::machinery::audit::ACTIONS;
use crate::machinery::resource::{
    ApiResult, Field, FieldType, FilterParam, Operations, Resource, page,
};
use crate::machinery::serde_dates::serialize_date_time;

#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct AuditEvent {
    pub id: i64,
    #[serde(serialize_with = "serialize_date_time")]
    pub occurred_at: NaiveDateTime,
    pub user_id: i64,
    pub username: String,
    pub action: String,
    pub resource: String,
    pub record_id: i64,
    pub before: Option<Value>,
    pub after: Option<Value>,
    pub request_id: String,
}

fn parse_state(text: Option<String>) -> Option<Value> {
    text.map(|text| serde_json::from_str(&text).unwrap_or(Value::String(text)))
}

impl From<AuditEventRow> for AuditEvent {
    fn from(row: AuditEventRow) -> Self {
        Self {
            id: row.id,
            occurred_at: row.occurred_at,
            user_id: row.user_id,
            username: row.username,
            action: row.action,
            resource: row.resource,
            record_id: row.record_id,
            before: parse_state(row.before_state),
            after: parse_state(row.after_state),
            request_id: row.request_id,
        }
    }
}

pub struct AuditEvents;

impl Resource for AuditEvents {
    const PATH: &'static str = "audit-events";
    const NOUN: &'static str = "audit event";
    const DESCRIPTION: &'static str = "Every write through the API: who, when, which record, its state before and after \
        (as the API returns it; write-only secrets never appear) and the request id. Read-only; administrators only.";
    const READ: Permission = Permission::ReadAudit;
    const WRITE: Permission = Permission::ReadAudit;
    const OPERATIONS: Operations = Operations::READ_ONLY;
    const FIELDS: &'static [Field] = &[
        ID,
        Field::read_only(
            "occurredAt",
            FieldType::DateTime,
            "When the write committed (UTC).",
        ),
        Field::read_only("userId", FieldType::Id, "Who wrote."),
        Field::read_only(
            "username",
            FieldType::Text { min: 1, max: 100 },
            "Their username at the time.",
        ),
        Field::read_only(
            "action",
            FieldType::Enum(ACTIONS),
            "What was done (IMPORT: a `billing import reference-data` run, resource `reference-data`).",
        ),
        Field::read_only(
            "resource",
            FieldType::Text { min: 1, max: 100 },
            "The collection, e.g. charge-groups.",
        ),
        Field::read_only("recordId", FieldType::Id, "The id of the record written."),
        Field::read_only(
            "before",
            FieldType::Json,
            "The record before the write; null for a create.",
        )
        .nullable(),
        Field::read_only(
            "after",
            FieldType::Json,
            "The record after the write; null for a delete.",
        )
        .nullable(),
        Field::read_only(
            "requestId",
            FieldType::Text { min: 1, max: 200 },
            "The X-Request-Id of the write.",
        ),
    ];
    fn filters() -> &'static [FilterParam] {
        const FILTERS: &[FilterParam] = &[
            FilterParam::new(
                "resource",
                FilterKind::Code {
                    codes: &super::AUDITED,
                },
                "Filter on the collection.",
            ),
            FilterParam::new("recordId", FilterKind::Id, "Filter on the record id."),
            FilterParam::new("userId", FilterKind::Id, "Filter on who wrote."),
            FilterParam::new(
                "action",
                FilterKind::Code { codes: ACTIONS },
                "Filter on the action.",
            ),
            FilterParam::new("requestId", FilterKind::String, "Filter on the request id."),
            FilterParam::new("occurredAt", FilterKind::DateTime, "Filter on the time."),
        ];
        FILTERS
    }

    fn sort_keys() -> &'static [&'static str] {
        &["id", "occurredAt", "resource"]
    }

    type Record = AuditEvent;
    type Input = NoInput;

    fn list(
        connection: &mut DbConnection,
        _: &AuthenticatedUser,
        query: &ListQuery,
    ) -> ApiResult<(Vec<AuditEvent>, i64)> {
        Ok(page(audit_events::list(connection, query)?))
    }

    fn find(
        connection: &mut DbConnection,
        _: &AuthenticatedUser,
        id: i64,
    ) -> ApiResult<Option<AuditEvent>> {
        Ok(audit_events::find(connection, id)?.map(AuditEvent::from))
    }
}

/// Audit events never change: always version 1.
impl crate::machinery::resource::Versioned for AuditEvent {
    fn id(&self) -> i64 {
        self.id
    }

    fn version(&self) -> i64 {
        1
    }
}
