//! `PATCH` on a collection: many records changed in one transaction, all or nothing.

use super::*;

pub async fn bulk_update<R: Resource>(
    request: HttpRequest,
    state: web::Data<AppState>,
    Caller(caller): Caller,
    payload: web::Payload,
) -> Handled {
    caller.require(R::WRITE)?;
    let writer = audit::Writer::new(caller.clone());
    reject_query(&request)?;
    // A version is a record's: a precondition on the batch would have none to compare with,
    // and ignoring it would leave the client believing its write was guarded.
    refuse_preconditions(
        &request,
        "a bulk update takes no precondition (each record has its own version); change the records one by one to guard each",
    )?;
    let (body, text) = read_json(
        &request,
        payload,
        BodyKind::BulkChanges,
        &state.limits,
        before_parsed,
    )
    .await?;
    let body_bytes = text.len();
    drop(text);
    let Value::Array(elements) = body else {
        return Err(ApiError::field(
            "body",
            "must be an array of objects, each with the id of the record to change",
        ));
    };
    check_bulk_size(&elements)?;
    let holds = change_holds::<R>(body_bytes, elements.len());
    let values = elements.iter().flat_map(write_only_values::<R>).collect();
    let prepared = R::prepare(&state, values).await?;
    let mut changes = Vec::with_capacity(elements.len());
    for (index, element) in elements.into_iter().enumerate() {
        let element_name = format!("[{index}]");
        let Value::Object(mut members) = element else {
            return Err(ApiError::field(element_name, "must be an object"));
        };
        let id = match members.remove("id") {
            None | Some(Value::Null) => Err(ApiError::field(
                "id",
                "is required: the id (>= 1) of the record to change",
            )),
            Some(id) => id.as_i64().filter(|id| *id >= 1).ok_or_else(|| {
                ApiError::field(
                    "id",
                    "must be an integer >= 1 (the id of the record to change)",
                )
            }),
        }
        .map_err(|e| e.within(&element_name))?;
        // One change per record: a second would be checked against the first's stale view.
        if let Some((first, _, _)) = changes.iter().find(|(_, seen, _)| *seen == id) {
            return Err(ApiError::field(
                "id",
                format!("names the same record as element [{first}]: change each record once"),
            )
            .within(&element_name));
        }
        let members = Value::Object(members);
        check_body_members::<R>(&members, &element_name, false, Origin::Client)?;
        changes.push((index, id, members));
    }
    hold_while_handled(&request, &state, holds).await?;
    let database = state.database.clone();
    let records = web::block(move || {
        database.write(|c| {
            let mut records = Vec::with_capacity(changes.len());
            for (index, id, members) in changes.iter().cloned() {
                let element = format!("[{index}]");
                let current = current::<R>(c, &caller, id, &Preconditions::default())
                    .map_err(|e| e.within(&element))?;
                let before = to_json(&current)?;
                let sets_more = !write_only_values::<R>(&members).is_empty();
                let mut document = before.clone();
                if let (Value::Object(map), Value::Object(members)) = (&mut document, members) {
                    map.extend(members);
                }
                patch::strip_read_only(&mut document, R::FIELDS);
                let mut input = parse_input::<R>(document, &element, Origin::Stored)?;
                R::attach_prepared(&mut input, &prepared).map_err(|e| e.within(&element))?;
                let write = |c: &mut billing_persistence::DbConnection, current: &R::Record| {
                    replace_recorded::<R>(
                        c,
                        &writer,
                        Action::Update,
                        current,
                        &before,
                        input,
                        &WriteRequest {
                            request_id: writer.request_id.clone(),
                            ..WriteRequest::default()
                        },
                    )
                    .and_then(|record| record.ok_or_else(|| lost_race(false)))
                    .map_err(|e| e.within(&element))
                };
                records.push(written_unless_unchanged::<R>(
                    c, current, &before, sets_more, write,
                )?);
            }
            Ok::<_, ApiError>(records)
        })
    })
    .await??;
    committed::<R>(&state).await;
    Ok(HttpResponse::Ok().json(to_json(&records)?))
}
