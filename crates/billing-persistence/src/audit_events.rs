//! `audit_events`: who changed what, when, with the record before and after (as JSON text).

use chrono::NaiveDateTime;
use diesel::prelude::*;

use crate::schema::audit_events;

#[derive(Debug, Clone, PartialEq, Queryable)]
pub struct AuditEventRow {
    pub id: i64,
    pub occurred_at: NaiveDateTime,
    pub user_id: i64,
    pub username: String,
    pub action: String,
    pub resource: String,
    pub record_id: i64,
    pub before_state: Option<String>,
    pub after_state: Option<String>,
    pub request_id: String,
}

#[derive(Debug, Insertable)]
#[diesel(table_name = audit_events)]
pub struct NewAuditEvent {
    pub occurred_at: NaiveDateTime,
    pub user_id: i64,
    pub username: String,
    pub action: String,
    pub resource: String,
    pub record_id: i64,
    pub before_state: Option<String>,
    pub after_state: Option<String>,
    pub request_id: String,
}

pub fn insert(
    connection: &mut crate::DbConnection,
    event: &NewAuditEvent,
) -> crate::error::PersistenceResult<()> {
    diesel::insert_into(audit_events::table)
        .values(event)
        .execute(connection)?;
    Ok(())
}

pub fn find(
    connection: &mut crate::DbConnection,
    id: i64,
) -> crate::error::PersistenceResult<Option<AuditEventRow>> {
    Ok(audit_events::table
        .find(id)
        .first::<AuditEventRow>(connection)
        .optional()?)
}

crate::define_list! {
    source: audit_events::table,
    select: audit_events::all_columns,
    row: AuditEventRow,
    id: audit_events::id,
    filters: {
        "resource" => text(audit_events::resource),
        "recordId" => id(audit_events::record_id),
        "userId" => id(audit_events::user_id),
        "action" => text(audit_events::action),
        "requestId" => text(audit_events::request_id),
        "occurredAt" => date_time(audit_events::occurred_at),
    },
    sort: {
        "id" => plain(audit_events::id),
        "occurredAt" => plain(audit_events::occurred_at),
        "resource" => plain(audit_events::resource),
    },
}
