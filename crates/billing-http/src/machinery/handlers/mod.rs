//! The generic handlers, one file per use case: `read.rs` (list, HEAD, get), `create.rs`,
//! `change.rs` (replace, patch), `delete.rs`, `bulk.rs` (a collection's PATCH), and
//! `routes.rs` (`register::<R>()`, which routes them for any [`Resource`]). What they share
//! (parsing a body, ETags, the stored response of an idempotent create) is here.

mod bulk;
mod change;
mod create;
mod delete;
mod holds;
mod read;
mod routes;

pub use bulk::bulk_update;
pub use change::{patch, replace};
pub use create::create;
pub use delete::delete;
pub use read::{exists, get, list};
pub use routes::{method_not_allowed, register};

use actix_web::http::StatusCode;
use actix_web::http::header::{self, HeaderValue};
use actix_web::{HttpRequest, HttpResponse, web};
use billing_domain::ValidationErrors;
use billing_domain::query::{CountPreference, PageRequest};
use serde_json::Value;

use super::audit::{self, Action};
use super::body::{BodyKind, deserialize, read_json, validate};
use super::idempotency::{self, StoredResponse};
use super::list::{PREFERENCE_APPLIED, count_preference, link_header, parse_list_params, project};
use super::members::{self, Origin};
use super::patch;
use super::request::{
    Caller, Preconditions, ReadCaller, if_none_match, none_match_names, path_id, query_pairs,
    reject_query,
};
use super::resource::{Access, Resource, WriteRequest, not_found};
use crate::error::ApiError;
use crate::state::AppState;
use holds::{before_parsed, change_holds, create_holds, hold_while_handled};

type Handled = Result<HttpResponse, ApiError>;

/// The most elements a bulk body (an array to `POST`, or to `PATCH` on a collection) may hold:
/// each may need a password hashed (about 25 ms of one core), and the whole body is one
/// transaction.
pub const MAX_BULK_ELEMENTS: usize = 100;

fn check_bulk_size(elements: &[Value]) -> Result<(), ApiError> {
    if elements.is_empty() || elements.len() > MAX_BULK_ELEMENTS {
        return Err(ApiError::field(
            "body",
            format!(
                "the array must hold 1 to {MAX_BULK_ELEMENTS} elements (got {})",
                elements.len()
            ),
        ));
    }
    Ok(())
}

/// The string values a body object gives the write-only fields of `R` (passwords).
fn write_only_values<R: Resource>(object: &Value) -> Vec<String> {
    R::FIELDS
        .iter()
        .filter(|field| field.access == Access::WriteOnly)
        .filter_map(|field| object.get(field.name)?.as_str().map(str::to_owned))
        .collect()
}

fn to_json<T: serde::Serialize>(value: &T) -> Result<Value, ApiError> {
    serde_json::to_value(value).map_err(not_written)
}

/// The 500 of an answer that could not be written as JSON.
fn not_written(error: serde_json::Error) -> ApiError {
    ApiError::internal(format!("cannot serialize a response: {error}"))
}

/// 400 naming `If-Match` or `If-None-Match` when the request carries one: a write on a
/// collection has no version to compare them with, and ignoring them would leave the client
/// believing its write was guarded.
fn refuse_preconditions(request: &HttpRequest, words: &str) -> Result<(), ApiError> {
    match ["If-Match", "If-None-Match"]
        .into_iter()
        .find(|name| request.headers().contains_key(*name))
    {
        Some(name) => Err(ApiError::field(name, words)),
        None => Ok(()),
    }
}

/// What runs once a write of `R` committed, before its response leaves:
/// [`Resource::committed`] here, then [`Resource::after_commit`] on a blocking thread.
async fn committed<R: Resource>(state: &web::Data<AppState>) {
    R::committed(state);
    let state = state.clone();
    if let Err(error) = web::block(move || R::after_commit(&state)).await {
        tracing::error!(%error, resource = R::PATH, "the after-commit work did not run");
    }
}

/// The answer when a record changed between read and write: 412 if the client asked for a
/// precondition, else 409.
fn lost_race(conditional: bool) -> ApiError {
    if conditional {
        ApiError::precondition_failed("the record changed while the request was processed")
    } else {
        ApiError::conflict("the record was changed by another request at the same time; retry")
    }
}

fn with_etag(mut response: HttpResponse, tag: &str) -> HttpResponse {
    if let Ok(value) = HeaderValue::from_str(tag) {
        response.headers_mut().insert(header::ETAG, value);
    }
    response
}

/// Runs `write` and keeps what it wrote, unless the written record shows what `before` did in
/// every member a body can write and `sets_more` is false (no write-only value given, no
/// declared header asking for work beyond the record): such a write changed nothing (an empty
/// patch, only `test`s, values as stored, a role added twice or ids in another order), so it
/// was checked as any write is (scope, rules, version) and is undone: the record keeps its
/// version and `updatedDate`, no audit event is written, and other clients' ETags stay good
/// (docs/api.md "Concurrency"). `current` is then the answer.
fn written_unless_unchanged<R: Resource>(
    connection: &mut billing_persistence::DbConnection,
    current: R::Record,
    before: &Value,
    sets_more: bool,
    write: impl FnOnce(
        &mut billing_persistence::DbConnection,
        &R::Record,
    ) -> Result<R::Record, ApiError>,
) -> Result<R::Record, ApiError> {
    let changes_something = |record: &R::Record| {
        sets_more || to_json(record).map_or(true, |after| !same_content::<R>(before, &after))
    };
    let written = billing_persistence::run_undone_unless(
        connection,
        |c| write(c, &current),
        changes_something,
    )?;
    Ok(written.unwrap_or(current))
}

/// Whether two JSON forms of a record of `R` agree in every member a body can write (the
/// read-only ones, its id, stamps and what is read from other records, are left aside).
fn same_content<R: Resource>(before: &Value, after: &Value) -> bool {
    R::FIELDS
        .iter()
        .filter(|field| field.access == Access::ReadWrite)
        .all(|field| before.get(field.name) == after.get(field.name))
}

/// The record `id` as it is now: 404 when missing, 412 when `If-Match` no longer matches or
/// `If-None-Match` names it.
fn current<R: Resource>(
    connection: &mut billing_persistence::DbConnection,
    caller: &billing_auth::AuthenticatedUser,
    id: i64,
    condition: &Preconditions,
) -> Result<R::Record, ApiError> {
    let record = R::find(connection, caller, id)?.ok_or_else(|| not_found::<R>(id))?;
    condition.check(&R::entity_tag(&record))?;
    Ok(record)
}

/// Replaces `current` (whose JSON form is `before`) by `input` and records the change;
/// `None` when another writer changed the record first (nothing is recorded).
fn replace_recorded<R: Resource>(
    connection: &mut billing_persistence::DbConnection,
    writer: &audit::Writer,
    action: Action,
    current: &R::Record,
    before: &Value,
    input: R::Input,
    request: &WriteRequest,
) -> Result<Option<R::Record>, ApiError> {
    let Some(record) = R::replace(connection, &writer.caller, current, input, request)? else {
        return Ok(None);
    };
    let after = to_json(&record)?;
    audit::record(
        connection,
        writer,
        action,
        R::PATH,
        R::id(&record),
        Some(before),
        Some(&after),
    )?;
    Ok(Some(record))
}

/// 200 with the record and its `ETag`.
fn record_response<R: Resource>(record: &R::Record) -> Handled {
    Ok(with_etag(
        HttpResponse::Ok().json(to_json(record)?),
        &R::entity_tag(record),
    ))
}

/// Refuses members a body may not carry, at every depth: unknown names, read-only fields
/// (owned elements' ids too, unless the document came from the stored record) and, when
/// `required`, missing required members.
fn check_body_members<R: Resource>(
    body: &Value,
    prefix: &str,
    required: bool,
    origin: Origin,
) -> Result<(), ApiError> {
    let mut errors = ValidationErrors::default();
    member_errors::<R>(body, prefix, required, origin, &mut errors)?;
    errors
        .into_result(|| ())
        .map_err(|errors| ApiError::validation(errors).within(prefix))
}

/// The member checks of [`check_body_members`], pushed onto `errors`; `Err` when the body is
/// not an object at all.
fn member_errors<R: Resource>(
    body: &Value,
    prefix: &str,
    required: bool,
    origin: Origin,
    errors: &mut ValidationErrors,
) -> Result<(), ApiError> {
    let Value::Object(map) = body else {
        return Err(ApiError::field(
            if prefix.is_empty() { "body" } else { prefix },
            "must be a JSON object",
        ));
    };
    members::check_object(map, R::FIELDS, "", required, origin, errors);
    Ok(())
}

/// A create body → its input and, for each member of `R::EMBEDDED`, the embedded bodies it
/// carried (taken out before the body is checked as `R`'s).
fn parse_create<R: Resource>(
    mut body: Value,
    prefix: &str,
) -> Result<(R::Input, Vec<Vec<Value>>), ApiError> {
    let mut errors = ValidationErrors::default();
    let embedded = R::EMBEDDED
        .iter()
        .map(|member| member.take(&mut body, prefix, &mut errors))
        .collect::<Result<Vec<_>, _>>()?;
    // The parent's errors and the embedded bodies' come back in one answer.
    let mut all = match parse_input::<R>(body, prefix, Origin::Client) {
        Ok(input) if errors.is_empty() => return Ok((input, embedded)),
        Ok(_) => Vec::new(),
        Err(error) => error.into_field_errors()?,
    };
    all.extend(errors.errors);
    Err(ApiError::validation(ValidationErrors { errors: all }))
}

/// Body → input: members checked, types checked (naming the field), garde rules checked. All
/// of a body's errors come back in one answer: unknown, missing and read-only members, members
/// of the wrong JSON type, and the rules of the members that are well typed.
pub fn parse_input<R: Resource>(
    body: Value,
    prefix: &str,
    origin: Origin,
) -> Result<R::Input, ApiError> {
    let mut errors = ValidationErrors::default();
    member_errors::<R>(&body, prefix, true, origin, &mut errors)?;
    let mut checked = body;
    if let Value::Object(map) = &mut checked {
        members::check_types(map, R::FIELDS, "", &mut errors);
        members::lift_shown(map, R::FIELDS, &mut errors);
    }
    if errors.is_empty() {
        let input: R::Input = deserialize(checked).map_err(|error| error.within(prefix))?;
        validate_named::<R>(&input).map_err(|error| error.within(prefix))?;
        return Ok(input);
    }
    // The members left are well typed: their rules are checked too, and reported unless a
    // member (or the part holding it) is already named. A list with an element named whole
    // was checked without it: its rules would name the elements after it from the wrong place
    // (`[1]` for the third) or find it too short, so only those before it are reported.
    if let Ok(input) = deserialize::<R::Input>(checked)
        && let Err(rules) = validate_named::<R>(&input)
        && let Ok(rule_errors) = rules.into_field_errors()
    {
        let named: Vec<String> = errors.errors.iter().map(|e| e.field.clone()).collect();
        let removed: Vec<(&str, usize)> =
            named.iter().filter_map(|field| element_of(field)).collect();
        for error in rule_errors {
            let covered = named.iter().any(|field| {
                error.field == *field
                    || error.field.starts_with(&format!("{field}."))
                    || error.field.starts_with(&format!("{field}["))
            }) || removed.iter().any(|(list, first)| {
                error.field == *list
                    || error
                        .field
                        .strip_prefix(&format!("{list}["))
                        .and_then(|rest| rest.split_once(']'))
                        .is_some_and(|(index, _)| index.parse().is_ok_and(|i: usize| i >= *first))
            });
            if !covered {
                errors.errors.push(error);
            }
        }
    }
    Err(ApiError::validation(errors).within(prefix))
}

/// `list[3]` → the list and the element's place; `None` for a path that does not end there.
fn element_of(path: &str) -> Option<(&str, usize)> {
    let (list, index) = path.strip_suffix(']')?.rsplit_once('[')?;
    Some((list, index.parse().ok()?))
}

/// garde's checks of an input, each error named by the body's path (a shown record's key is
/// `currency.id`, not the input's `currencyId`).
fn validate_named<R: Resource>(input: &R::Input) -> Result<(), ApiError> {
    validate(input).map_err(|error| match error.into_field_errors() {
        Ok(fields) => {
            let mut errors = ValidationErrors { errors: fields };
            members::shown_paths(&mut errors, R::FIELDS);
            ApiError::validation(errors)
        }
        Err(error) => error,
    })
}

/// What every write on one record starts with: the permission, who writes, no query
/// parameters, the path id, `If-Match`/`If-None-Match` and the resource's declared headers.
struct ItemWrite {
    writer: audit::Writer,
    id: i64,
    condition: Preconditions,
    request: WriteRequest,
}

/// The resource's declared headers the request sent: `true` or `false` once, anything else
/// (a second value too, which could say the opposite) is a 400 naming the header.
fn declared_headers<R: Resource>(
    request: &HttpRequest,
) -> Result<Vec<(&'static str, bool)>, ApiError> {
    let mut flags = Vec::new();
    for header in R::HEADERS {
        let mut values = request.headers().get_all(header.name);
        let Some(value) = values.next() else {
            continue;
        };
        if values.next().is_some() {
            return Err(ApiError::field(header.name, "the header must be sent once"));
        }
        let value = match value.to_str() {
            Ok("true") => true,
            Ok("false") => false,
            _ => {
                return Err(ApiError::field(
                    header.name,
                    "the header must be true or false",
                ));
            }
        };
        flags.push((header.name, value));
    }
    Ok(flags)
}

impl ItemWrite {
    fn of<R: Resource>(
        request: &HttpRequest,
        caller: &billing_auth::AuthenticatedUser,
    ) -> Result<Self, ApiError> {
        caller.require(R::WRITE)?;
        reject_query(request)?;
        Ok(Self {
            writer: audit::Writer::new(caller.clone()),
            id: path_id(request)?,
            condition: Preconditions::of(request)?,
            request: WriteRequest {
                flags: declared_headers::<R>(request)?,
                patched_paths: None,
                request_id: crate::request_context::current().request_id,
            },
        })
    }
}
