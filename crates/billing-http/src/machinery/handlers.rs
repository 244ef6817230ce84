//! The generic handlers: list, exists, get (and HEAD on an item), create, replace, patch and delete for any
//! [`Resource`], and the one function that routes them.

use actix_web::http::StatusCode;
use actix_web::http::header::{self, HeaderValue};
use actix_web::{HttpRequest, HttpResponse, web};
use billing_domain::ValidationErrors;
use billing_domain::query::PageRequest;
use serde_json::Value;

use super::audit::{self, Action};
use super::idempotency::{self, StoredResponse};
use super::list::{link_header, parse_list_params, project};
use super::members::{self, Origin};
use super::patch;
use super::request::{
    BodyKind, Caller, IfMatch, ReadCaller, check_if_match, deserialize, if_match, path_id,
    query_pairs, read_json, reject_query, validate,
};
use super::resource::{Access, Resource, WriteRequest, not_found};
use crate::error::ApiError;
use crate::state::AppState;

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
    serde_json::to_value(value)
        .map_err(|e| ApiError::internal(format!("cannot serialize a response: {e}")))
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

/// The record `id` as it is now: 404 when missing, 412 when `If-Match` no longer matches.
fn current<R: Resource>(
    connection: &mut billing_persistence::DbConnection,
    caller: &billing_auth::AuthenticatedUser,
    id: i64,
    condition: &IfMatch,
) -> Result<R::Record, ApiError> {
    let record = R::find(connection, caller, id)?.ok_or_else(|| not_found::<R>(id))?;
    check_if_match(condition, &R::entity_tag(&record))?;
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
    let embedded = R::EMBEDDED
        .iter()
        .map(|member| member.take(&mut body, prefix))
        .collect::<Result<Vec<_>, _>>()?;
    Ok((parse_input::<R>(body, prefix, Origin::Client)?, embedded))
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
    // member (or the part holding it) is already named.
    if let Ok(input) = deserialize::<R::Input>(checked)
        && let Err(rules) = validate_named::<R>(&input)
        && let Ok(rule_errors) = rules.into_field_errors()
    {
        let named: Vec<String> = errors.errors.iter().map(|e| e.field.clone()).collect();
        for error in rule_errors {
            let covered = named.iter().any(|field| {
                error.field == *field
                    || error.field.starts_with(&format!("{field}."))
                    || error.field.starts_with(&format!("{field}["))
            });
            if !covered {
                errors.errors.push(error);
            }
        }
    }
    Err(ApiError::validation(errors).within(prefix))
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

pub async fn list<R: Resource>(
    request: HttpRequest,
    state: web::Data<AppState>,
    caller: ReadCaller,
) -> Handled {
    let parsed = query_pairs(&request).and_then(|pairs| {
        let params = parse_list_params::<R>(&pairs, true)?;
        Ok((pairs, params))
    });
    let ((records, total), (pairs, params)) = caller
        .read(&state, R::READ, parsed, |c, caller, (_, params)| {
            R::list(c, caller, &params.query)
        })
        .await?;
    // Without `fields`, the records are written straight to JSON text: through a
    // `serde_json::Value` per record, half the time of a page of 100 went to building and
    // writing those values.
    let body = match &params.fields {
        None => serde_json::to_vec(&records),
        Some(_) => {
            let rows = records.iter().map(to_json).collect::<Result<Vec<_>, _>>()?;
            serde_json::to_vec(&project(rows, &params.fields))
        }
    }
    .map_err(|e| ApiError::internal(format!("cannot serialize a response: {e}")))?;
    let page = params.query.page.unwrap_or(PageRequest {
        page: 1,
        page_size: 1,
    });
    let mut response = HttpResponse::Ok();
    response.insert_header(("X-Total-Count", total.to_string()));
    if let Some(links) = link_header(&request, &pairs, page, total) {
        response.insert_header((header::LINK, links));
    }
    Ok(response.content_type("application/json").body(body))
}

pub async fn exists<R: Resource>(
    request: HttpRequest,
    state: web::Data<AppState>,
    caller: ReadCaller,
) -> Handled {
    let parsed = query_pairs(&request).and_then(|pairs| {
        let mut params = parse_list_params::<R>(&pairs, false)?;
        params.query.page = Some(PageRequest {
            page: 1,
            page_size: 1,
        });
        params.query.sort.clear();
        Ok(params)
    });
    let ((_, total), _) = caller
        .read(&state, R::READ, parsed, |c, caller, params| {
            R::list(c, caller, &params.query)
        })
        .await?;
    let status = if total > 0 {
        StatusCode::OK
    } else {
        StatusCode::NOT_FOUND
    };
    Ok(HttpResponse::build(status)
        .insert_header(("X-Total-Count", total.to_string()))
        .finish())
}

pub async fn get<R: Resource>(
    request: HttpRequest,
    state: web::Data<AppState>,
    caller: ReadCaller,
) -> Handled {
    let parsed = reject_query(&request).and_then(|()| path_id(&request));
    let (record, _) = caller
        .read_one(&state, R::READ, parsed, |c, caller, id| {
            R::find(c, caller, *id)?.ok_or_else(|| not_found::<R>(*id))
        })
        .await?;
    // Written straight from the record: no intermediate JSON value.
    let body = serde_json::to_vec(&record)
        .map_err(|e| ApiError::internal(format!("cannot serialize a response: {e}")))?;
    Ok(with_etag(
        HttpResponse::Ok()
            .content_type("application/json")
            .body(body),
        &R::entity_tag(&record),
    ))
}

pub async fn create<R: Resource>(
    request: HttpRequest,
    state: web::Data<AppState>,
    Caller(caller): Caller,
    payload: web::Payload,
) -> Handled {
    caller.require(R::WRITE)?;
    let writer = audit::Writer::new(caller.clone());
    reject_query(&request)?;
    let key = idempotency::key(&request)?;
    let (body, bytes) = read_json(&request, payload, BodyKind::Json, &state.limits).await?;
    let fingerprint = idempotency::fingerprint(&request, &bytes);
    let values = match &body {
        Value::Array(elements) => elements.iter().flat_map(write_only_values::<R>).collect(),
        single => write_only_values::<R>(single),
    };
    let (parsed, many) = match body {
        Value::Array(elements) if R::OPERATIONS.bulk_create => {
            check_bulk_size(&elements)?;
            // Every element is checked, so one answer names every broken field of the batch.
            let mut parsed = Vec::with_capacity(elements.len());
            let mut errors = Vec::new();
            for (index, element) in elements.into_iter().enumerate() {
                match parse_create::<R>(element, &format!("[{index}]")) {
                    Ok(one) => parsed.push(one),
                    Err(error) => errors.extend(error.into_field_errors()?),
                }
            }
            if !errors.is_empty() {
                return Err(ApiError::validation(ValidationErrors { errors }));
            }
            (parsed, true)
        }
        single => (vec![parse_create::<R>(single, "")?], false),
    };
    let (mut inputs, embedded): (Vec<_>, Vec<_>) = parsed.into_iter().unzip();
    for (member, elements) in R::EMBEDDED.iter().zip(embedded.iter().flatten()) {
        if !elements.is_empty() {
            caller.require(member.permission)?;
        }
    }
    // Slow work (password hashing) happens here, before the transaction opens.
    let prepared = R::prepare(&state, values).await?;
    for (index, input) in inputs.iter_mut().enumerate() {
        let element = if many {
            format!("[{index}]")
        } else {
            String::new()
        };
        R::attach_prepared(input, &prepared).map_err(|e| e.within(&element))?;
    }
    let database = state.database.clone();
    let stored = web::block(move || {
        database.write(|c| {
            if let Some(key) = &key {
                // A concurrent request with the same key waits here for this one to commit,
                // then finds its response below instead of racing it to the insert.
                idempotency::serialize(c, caller.id, key)?;
                if let Some(stored) = idempotency::replay(c, caller.id, key, &fingerprint)? {
                    return Ok((stored, true, None));
                }
            }
            let mut records = Vec::with_capacity(inputs.len());
            let mut shown = Vec::with_capacity(inputs.len());
            // Cloned: on PostgreSQL a transaction that lost a race runs again (`Database::write`).
            for (index, (input, embedded)) in inputs.iter().zip(&embedded).enumerate() {
                let element = if many {
                    format!("[{index}]")
                } else {
                    String::new()
                };
                let record =
                    R::create(c, &caller, input.clone()).map_err(|e| e.within(&element))?;
                let mut json = to_json(&record)?;
                audit::record(
                    c,
                    &writer,
                    Action::Create,
                    R::PATH,
                    R::id(&record),
                    None,
                    Some(&json),
                )?;
                // Records created inside this one (a customer's sites) follow it, and the
                // response shows them under their member.
                for (member, elements) in R::EMBEDDED.iter().zip(embedded) {
                    let created = member.create_all(
                        c,
                        &writer,
                        R::id(&record),
                        elements.clone(),
                        &element,
                    )?;
                    json[member.member] = Value::Array(created);
                }
                records.push(record);
                shown.push(json);
            }
            // Shown in this response only (an API key's secret): not stored for a replay.
            let once = if many {
                None
            } else {
                records.first().and_then(R::shown_once)
            };
            let (body, location, etag) = if many {
                (Value::Array(shown), None, None)
            } else {
                let (record, json) = records
                    .first()
                    .zip(shown.pop())
                    .ok_or_else(|| ApiError::internal("create returned nothing"))?;
                let location = format!("/v1/{}/{}", R::PATH, R::id(record));
                (json, Some(location), Some(R::entity_tag(record)))
            };
            let response = StoredResponse {
                status: R::CREATED_STATUS,
                body: body.to_string(),
                location,
                etag,
            };
            if let Some(key) = &key {
                idempotency::remember(c, caller.id, key.clone(), fingerprint.clone(), &response)?;
            }
            Ok::<_, ApiError>((response, false, once))
        })
    })
    .await??;
    committed::<R>(&state).await;
    let (response, replayed, once) = stored;
    let status = StatusCode::from_u16(response.status).unwrap_or(StatusCode::CREATED);
    let mut builder = HttpResponse::build(status);
    builder.content_type("application/json");
    if let Some(location) = &response.location {
        builder.insert_header((header::LOCATION, location.as_str()));
    }
    if let Some(etag) = &response.etag {
        builder.insert_header((header::ETAG, etag.as_str()));
    }
    if replayed {
        builder.insert_header(("Idempotent-Replayed", "true"));
    }
    let body = match once {
        None => response.body,
        Some((member, value)) => {
            let mut shown: Value = serde_json::from_str(&response.body)
                .map_err(|e| ApiError::internal(format!("cannot read a response back: {e}")))?;
            shown[member] = Value::String(value);
            shown.to_string()
        }
    };
    Ok(builder.body(body))
}

/// What every write on one record starts with: the permission, who writes, no query
/// parameters, the path id, `If-Match` and the resource's declared headers.
struct ItemWrite {
    writer: audit::Writer,
    id: i64,
    condition: IfMatch,
    request: WriteRequest,
}

/// The resource's declared headers the request sent: `true` or `false`, anything else is a
/// 400 naming the header.
fn declared_headers<R: Resource>(
    request: &HttpRequest,
) -> Result<Vec<(&'static str, bool)>, ApiError> {
    let mut flags = Vec::new();
    for header in R::HEADERS {
        let Some(value) = request.headers().get(header.name) else {
            continue;
        };
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
            condition: if_match(request)?,
            request: WriteRequest {
                flags: declared_headers::<R>(request)?,
                patched_paths: None,
                request_id: crate::request_context::current().request_id,
            },
        })
    }
}

pub async fn replace<R: Resource>(
    request: HttpRequest,
    state: web::Data<AppState>,
    Caller(caller): Caller,
    payload: web::Payload,
) -> Handled {
    let ItemWrite {
        writer,
        id,
        condition,
        request: write_request,
    } = ItemWrite::of::<R>(&request, &caller)?;
    let (body, _) = read_json(&request, payload, BodyKind::Json, &state.limits).await?;
    let input = parse_input::<R>(body, "", Origin::Client)?;
    let database = state.database.clone();
    let record = web::block(move || {
        database.write(|c| {
            let current = current::<R>(c, &caller, id, &condition)?;
            let before = to_json(&current)?;
            replace_recorded::<R>(
                c,
                &writer,
                Action::Replace,
                &current,
                &before,
                input.clone(),
                &write_request,
            )?
            .ok_or_else(|| lost_race(condition.is_some()))
        })
    })
    .await??;
    committed::<R>(&state).await;
    record_response::<R>(&record)
}

pub async fn patch<R: Resource>(
    request: HttpRequest,
    state: web::Data<AppState>,
    Caller(caller): Caller,
    payload: web::Payload,
) -> Handled {
    let ItemWrite {
        writer,
        id,
        condition,
        request: mut write_request,
    } = ItemWrite::of::<R>(&request, &caller)?;
    let (body, _) = read_json(&request, payload, BodyKind::JsonPatch, &state.limits).await?;
    let operations = patch::parse_patch(body, R::FIELDS)?;
    write_request.patched_paths = Some(patch::changed_paths(&operations, R::FIELDS));
    let prepared = R::prepare(&state, patch::write_only_values(&operations, R::FIELDS)).await?;
    let max_document_bytes = state.limits.body_bytes;
    let database = state.database.clone();
    let record = web::block(move || {
        database.write(|c| {
            let current = current::<R>(c, &caller, id, &condition)?;
            let before = to_json(&current)?;
            let mut document = before.clone();
            patch::apply(&mut document, &operations, max_document_bytes)?;
            patch::strip_read_only(&mut document, R::FIELDS);
            let mut input = parse_input::<R>(document, "", Origin::Stored)?;
            R::attach_prepared(&mut input, &prepared)?;
            replace_recorded::<R>(
                c,
                &writer,
                Action::Patch,
                &current,
                &before,
                input,
                &write_request,
            )?
            .ok_or_else(|| lost_race(condition.is_some()))
        })
    })
    .await??;
    committed::<R>(&state).await;
    record_response::<R>(&record)
}

pub async fn delete<R: Resource>(
    request: HttpRequest,
    state: web::Data<AppState>,
    Caller(caller): Caller,
) -> Handled {
    let ItemWrite {
        writer,
        id,
        condition,
        ..
    } = ItemWrite::of::<R>(&request, &caller)?;
    let database = state.database.clone();
    web::block(move || {
        database.write(|c| {
            let current = current::<R>(c, &caller, id, &condition)?;
            if !R::delete(c, &caller, &current)? {
                return Err(lost_race(condition.is_some()));
            }
            let before = to_json(&current)?;
            audit::record(c, &writer, Action::Delete, R::PATH, id, Some(&before), None)
        })
    })
    .await??;
    committed::<R>(&state).await;
    Ok(HttpResponse::NoContent().finish())
}

pub async fn bulk_update<R: Resource>(
    request: HttpRequest,
    state: web::Data<AppState>,
    Caller(caller): Caller,
    payload: web::Payload,
) -> Handled {
    caller.require(R::WRITE)?;
    let writer = audit::Writer::new(caller.clone());
    reject_query(&request)?;
    let (body, _) = read_json(&request, payload, BodyKind::Json, &state.limits).await?;
    let Value::Array(elements) = body else {
        return Err(ApiError::field(
            "body",
            "must be an array of objects, each with the id of the record to change",
        ));
    };
    check_bulk_size(&elements)?;
    let values = elements.iter().flat_map(write_only_values::<R>).collect();
    let prepared = R::prepare(&state, values).await?;
    let mut changes = Vec::with_capacity(elements.len());
    for (index, element) in elements.into_iter().enumerate() {
        let element_name = format!("[{index}]");
        let Value::Object(mut members) = element else {
            return Err(ApiError::field(element_name, "must be an object"));
        };
        let id = members
            .remove("id")
            .and_then(|id| id.as_i64())
            .filter(|id| *id >= 1);
        let id = id.ok_or_else(|| {
            ApiError::field("id", "is required: the id (>= 1) of the record to change")
                .within(&element_name)
        })?;
        let members = Value::Object(members);
        check_body_members::<R>(&members, &element_name, false, Origin::Client)?;
        changes.push((index, id, members));
    }
    let database = state.database.clone();
    let records = web::block(move || {
        database.write(|c| {
            let mut records = Vec::with_capacity(changes.len());
            for (index, id, members) in changes.iter().cloned() {
                let element = format!("[{index}]");
                let current =
                    current::<R>(c, &caller, id, &None).map_err(|e| e.within(&element))?;
                let before = to_json(&current)?;
                let mut document = before.clone();
                if let (Value::Object(map), Value::Object(members)) = (&mut document, members) {
                    map.extend(members);
                }
                patch::strip_read_only(&mut document, R::FIELDS);
                let mut input = parse_input::<R>(document, &element, Origin::Stored)?;
                R::attach_prepared(&mut input, &prepared).map_err(|e| e.within(&element))?;
                let record = replace_recorded::<R>(
                    c,
                    &writer,
                    Action::Update,
                    &current,
                    &before,
                    input,
                    &WriteRequest {
                        request_id: writer.request_id.clone(),
                        ..WriteRequest::default()
                    },
                )
                .and_then(|record| record.ok_or_else(|| lost_race(false)))
                .map_err(|e| e.within(&element))?;
                records.push(record);
            }
            Ok::<_, ApiError>(records)
        })
    })
    .await??;
    committed::<R>(&state).await;
    Ok(HttpResponse::Ok().json(to_json(&records)?))
}

/// The methods a path answers, for `Allow` and 405.
fn allowed(methods: &[(&'static str, bool)]) -> String {
    methods
        .iter()
        .filter(|(_, on)| *on)
        .map(|(method, _)| *method)
        .collect::<Vec<_>>()
        .join(", ")
}

pub fn method_not_allowed(allow: String) -> actix_web::Route {
    web::route().to(move || {
        let allow = allow.clone();
        async move { Err::<HttpResponse, ApiError>(ApiError::method_not_allowed(&allow)) }
    })
}

/// Routes `R` under the current scope: the collection and, when it has ids, the item, both in
/// a scope of their own (`/charge-groups`). A scope's path has no parameter, so the router
/// compares it as text; without it every item path of the resources routed before (`/{id}`)
/// was tried as a regular expression first: about 30,000 instructions a request, a seventh of
/// an authenticated GET by id.
///
/// The item is the scope's default service ([`item`]), not a `/{id}` resource: a path
/// parameter makes the router run a regular expression on every item request (about 10,000
/// instructions, a sixth of a get by id), where splitting the rest of the path is a few dozen.
pub fn register<R: Resource>(config: &mut web::ServiceConfig) {
    let ops = R::OPERATIONS;
    let mut collection = web::resource("")
        .route(web::get().to(list::<R>))
        .route(web::head().to(exists::<R>));
    if ops.create {
        collection = collection.route(web::post().to(create::<R>));
    }
    if ops.bulk_update {
        collection = collection.route(web::patch().to(bulk_update::<R>));
    }
    let allow = allowed(&[
        ("GET", true),
        ("HEAD", true),
        ("POST", ops.create),
        ("PATCH", ops.bulk_update),
    ]);
    let scope = web::scope(&format!("/{}", R::PATH))
        .service(collection.default_service(method_not_allowed(allow)));
    if !ops.get {
        config.service(scope);
        return;
    }
    config.service(scope.default_service(web::to(item::<R>)));
}

/// The methods an item of `R` answers, for `Allow` and 405.
fn item_methods<R: Resource>() -> String {
    let ops = R::OPERATIONS;
    allowed(&[
        ("GET", true),
        ("HEAD", true),
        ("PUT", ops.replace),
        ("PATCH", ops.patch),
        ("DELETE", ops.delete),
    ])
}

/// `/{path}/{id}` of `R`, reached as its scope's default service: the rest of the path must be
/// one segment (the id, read by [`path_id`]), else this is the unknown route's 404. Each method
/// goes to its handler with the extractors its signature names, in the same order; HEAD
/// answers as GET does (status, ETag, Content-Type, Content-Length; actix sends no body for a
/// HEAD request); any other method is 405 with `Allow`, before the caller is checked.
async fn item<R: Resource>(request: HttpRequest, payload: web::Payload) -> Handled {
    use actix_web::FromRequest;
    use actix_web::http::Method;
    let one_segment = request
        .match_info()
        .unprocessed()
        .strip_prefix('/')
        .is_some_and(|id| !id.is_empty() && !id.contains('/'));
    if !one_segment {
        return Err(crate::unknown_route(&request));
    }
    // The router matched no pattern: the request log and metrics name the route from this.
    actix_web::HttpMessage::extensions_mut(&request)
        .insert(crate::request_context::ItemRoute(R::PATH));
    let ops = R::OPERATIONS;
    let method = request.method().clone();
    let answered = match method {
        Method::GET | Method::HEAD => true,
        Method::PUT => ops.replace,
        Method::PATCH => ops.patch,
        Method::DELETE => ops.delete,
        _ => false,
    };
    if !answered {
        return Err(ApiError::method_not_allowed(&item_methods::<R>()));
    }
    let state = web::Data::<AppState>::extract(&request)
        .await
        .map_err(|_| ApiError::internal("application state missing"))?;
    if matches!(method, Method::GET | Method::HEAD) {
        let caller = ReadCaller::extract(&request).await?;
        return get::<R>(request, state, caller).await;
    }
    let caller = Caller::extract(&request).await?;
    match method {
        Method::PUT => replace::<R>(request, state, caller, payload).await,
        Method::PATCH => patch::<R>(request, state, caller, payload).await,
        _ => delete::<R>(request, state, caller).await,
    }
}
