//! Records of another resource created inside a create (docs/api.md "Sites": `POST /v1/customers`
//! may carry `sites`, each with `customerId: 0`): the parent is created, then each embedded
//! body, with the parent's new id in its parent member, exactly as its own `POST` would create
//! it (member checks at every depth, rules, scope, audit), all in the parent's transaction.

use billing_persistence::DbConnection;
use serde_json::Value;

use super::audit::{self, Action, Writer};
use super::handlers::{MAX_BULK_ELEMENTS, parse_input};
use super::members::Origin;
use super::resource::{Field, Resource};
use crate::error::ApiError;

type Create = fn(&mut DbConnection, &Writer, Value, &str) -> Result<Value, ApiError>;
/// Whether the caller sees the embedded record `id` (403 outside their contract owners).
type Visible =
    fn(&mut DbConnection, &billing_auth::AuthenticatedUser, i64) -> Result<bool, ApiError>;

/// A member of a create body holding records of another resource (`sites`).
#[derive(Clone, Copy)]
pub struct Embedded {
    /// The member of the parent's body: `sites`.
    pub member: &'static str,
    /// The embedded record's member that names the parent: `customerId` (0 in the body).
    pub parent_member: &'static str,
    /// The embedded resource, for documentation: its noun and fields.
    pub noun: &'static str,
    pub fields: &'static [Field],
    pub permission: billing_domain::roles::Permission,
    create: Create,
    visible: Visible,
}

impl std::fmt::Debug for Embedded {
    fn fmt(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        formatter
            .debug_struct("Embedded")
            .field("member", &self.member)
            .field("parent_member", &self.parent_member)
            .finish()
    }
}

impl Embedded {
    pub const fn of<E: Resource>(member: &'static str, parent_member: &'static str) -> Self {
        Self {
            member,
            parent_member,
            noun: E::NOUN,
            fields: E::FIELDS,
            permission: E::WRITE,
            create: create::<E>,
            visible: |connection, caller, id| Ok(E::find(connection, caller, id)?.is_some()),
        }
    }

    /// Whether `caller` may read the embedded record `id`: false when it is gone, 403 when it
    /// is outside their contract owners (an `Idempotency-Key` replay shows no more than that).
    pub fn visible(
        &self,
        connection: &mut DbConnection,
        caller: &billing_auth::AuthenticatedUser,
        id: i64,
    ) -> Result<bool, ApiError> {
        (self.visible)(connection, caller, id)
    }

    /// Takes this member out of a create body (so the parent's own checks see only its own
    /// members) and checks its shape: an array of at most [`MAX_BULK_ELEMENTS`] objects, each
    /// naming the parent as 0. `prefix` names the body (`[2]` in a bulk create).
    pub fn take(&self, body: &mut Value, prefix: &str) -> Result<Vec<Value>, ApiError> {
        let Some(taken) = body.as_object_mut().and_then(|map| map.remove(self.member)) else {
            return Ok(Vec::new());
        };
        let name = join(prefix, self.member);
        let Value::Array(elements) = taken else {
            return Err(ApiError::field(name, "must be an array of objects"));
        };
        if elements.len() > MAX_BULK_ELEMENTS {
            return Err(ApiError::field(
                name,
                format!(
                    "holds at most {MAX_BULK_ELEMENTS} elements (got {})",
                    elements.len()
                ),
            ));
        }
        for (index, element) in elements.iter().enumerate() {
            let zero = element
                .get(self.parent_member)
                .and_then(Value::as_i64)
                .is_some_and(|id| id == 0);
            if !zero {
                return Err(ApiError::field(
                    format!("{name}[{index}].{}", self.parent_member),
                    "must be 0: the record being created is the parent",
                ));
            }
        }
        Ok(elements)
    }

    /// Creates `elements` under the parent `parent_id` and gives them as responses show them.
    pub fn create_all(
        &self,
        connection: &mut DbConnection,
        writer: &Writer,
        parent_id: i64,
        elements: Vec<Value>,
        prefix: &str,
    ) -> Result<Vec<Value>, ApiError> {
        let name = join(prefix, self.member);
        let mut created = Vec::with_capacity(elements.len());
        for (index, mut element) in elements.into_iter().enumerate() {
            element[self.parent_member] = Value::from(parent_id);
            created.push((self.create)(
                connection,
                writer,
                element,
                &format!("{name}[{index}]"),
            )?);
        }
        Ok(created)
    }
}

fn join(prefix: &str, member: &str) -> String {
    if prefix.is_empty() {
        member.to_owned()
    } else {
        format!("{prefix}.{member}")
    }
}

/// Creates one record of `E` from `body` as its own `POST` would, audited; errors are named
/// within `prefix` (`sites[1].siteAddress.town`).
fn create<E: Resource>(
    connection: &mut DbConnection,
    writer: &Writer,
    body: Value,
    prefix: &str,
) -> Result<Value, ApiError> {
    let input = parse_input::<E>(body, prefix, Origin::Client)?;
    let record = E::create(connection, &writer.caller, input).map_err(|e| e.within(prefix))?;
    let shown = serde_json::to_value(&record)
        .map_err(|e| ApiError::internal(format!("cannot serialize a record: {e}")))?;
    audit::record(
        connection,
        writer,
        Action::Create,
        E::PATH,
        E::id(&record),
        None,
        Some(&shown),
    )?;
    Ok(shown)
}
