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
use billing_domain::error::ValidationErrors;

type Create = fn(&mut DbConnection, &Writer, Value, &str) -> Result<Value, ApiError>;
/// The member checks of an embedded body (no database: those run when it is created).
type Check = fn(Value, &str) -> Result<(), ApiError>;
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
    check: Check,
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
            check: |body, prefix| parse_input::<E>(body, prefix, Origin::Client).map(drop),
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
    /// members) and checks it: an array of at most [`MAX_BULK_ELEMENTS`] objects, each naming
    /// the parent as 0 and passing its resource's member checks. Every broken element and
    /// member is put in `errors` (with the parent's own, one answer); `prefix` names the body
    /// (`[2]` in a bulk create).
    pub fn take(
        &self,
        body: &mut Value,
        prefix: &str,
        errors: &mut ValidationErrors,
    ) -> Result<Vec<Value>, ApiError> {
        let Some(taken) = body.as_object_mut().and_then(|map| map.remove(self.member)) else {
            return Ok(Vec::new());
        };
        let name = join(prefix, self.member);
        let Value::Array(elements) = taken else {
            errors.push(name, "must be an array of objects");
            return Ok(Vec::new());
        };
        if elements.len() > MAX_BULK_ELEMENTS {
            errors.push(
                name,
                format!(
                    "holds at most {MAX_BULK_ELEMENTS} elements (got {})",
                    elements.len()
                ),
            );
            return Ok(Vec::new());
        }
        for (index, element) in elements.iter().enumerate() {
            let at = format!("{name}[{index}]");
            let Value::Object(members) = element else {
                errors.push(at, "must be an object");
                continue;
            };
            let parent = format!("{at}.{}", self.parent_member);
            match members.get(self.parent_member) {
                None => errors.push(parent, "is required: 0, as the parent is being created"),
                Some(id) if id.as_i64() != Some(0) => {
                    errors.push(parent, "must be 0: the record being created is the parent")
                }
                Some(_) => {}
            }
            // The member checks as its own create makes them, with a parent id that exists
            // in no answer (the parent member's own error is the one above).
            let mut placeholder = element.clone();
            placeholder[self.parent_member] = Value::from(1);
            if let Err(error) = (self.check)(placeholder, &at) {
                errors.errors.extend(error.into_field_errors()?);
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
