//! `POST` on a collection: one record created (with `Idempotency-Key`, replayed).

use super::*;

pub async fn create<R: Resource>(
    request: HttpRequest,
    state: web::Data<AppState>,
    Caller(caller): Caller,
    payload: web::Payload,
) -> Handled {
    caller.require(R::WRITE)?;
    let writer = audit::Writer::new(caller.clone());
    reject_query(&request)?;
    refuse_preconditions(
        &request,
        "a create takes no precondition: the record it makes has no version yet (to make a create safe to send again, give it an Idempotency-Key)",
    )?;
    let key = idempotency::key(&request)?;
    let (body, text) = read_json(
        &request,
        payload,
        BodyKind::Json,
        &state.limits,
        before_parsed,
    )
    .await?;
    let holds = create_holds::<R>(text.len(), &body);
    drop(text);
    let fingerprint = match &key {
        Some(_) => idempotency::fingerprint(
            &request,
            &body,
            &state.auth.derived_key(idempotency::KEY_PURPOSE),
        ),
        None => String::new(),
    };
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
    hold_while_handled(&request, &state, holds).await?;
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
                    replay_shows_only_what_a_get_would::<R>(c, &caller, &stored)?;
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
    // What the answer holds was counted before the write from its body (`holds.rs`).
    debug_assert!(
        response.body.len() <= holds,
        "{} answered {} bytes, counted {holds}",
        R::PATH,
        response.body.len()
    );
    let body = match once {
        None => response.body,
        Some((member, value)) => {
            // A credential: no cache keeps it (as the sign-in's tokens).
            builder.insert_header((header::CACHE_CONTROL, "no-store"));
            let mut shown: Value = serde_json::from_str(&response.body)
                .map_err(|e| ApiError::internal(format!("cannot read a response back: {e}")))?;
            shown[member] = Value::String(value);
            shown.to_string()
        }
    };
    Ok(builder.body(body))
}

/// A replay shows the records the first response created, and those created inside them (a
/// customer's sites): only while the caller may still read each, as a `GET` of it would be
/// answered — 403 outside their contract owners, 404 when it is gone or no longer theirs to see
/// (another user's API key, once they may no longer manage others').
fn replay_shows_only_what_a_get_would<R: Resource>(
    connection: &mut billing_persistence::DbConnection,
    caller: &billing_auth::AuthenticatedUser,
    stored: &StoredResponse,
) -> Result<(), ApiError> {
    let body: Value = serde_json::from_str(&stored.body)
        .map_err(|_| ApiError::internal("a stored response is not JSON"))?;
    let records = match &body {
        Value::Array(records) => records.iter().collect(),
        record => vec![record],
    };
    let gone = |noun: &str, id: i64| {
        ApiError::not_found(format!(
            "the {noun} {id} this Idempotency-Key created no longer exists, or is not yours to see"
        ))
    };
    for record in records {
        let Some(id) = record.get("id").and_then(Value::as_i64) else {
            continue;
        };
        if R::find(connection, caller, id)?.is_none() {
            return Err(gone(R::NOUN, id));
        }
        for member in R::EMBEDDED {
            let elements = record.get(member.member).and_then(Value::as_array);
            for element in elements.into_iter().flatten() {
                if let Some(id) = element.get("id").and_then(Value::as_i64)
                    && !member.visible(connection, caller, id)?
                {
                    return Err(gone(member.noun, id));
                }
            }
        }
    }
    Ok(())
}
