//! `PUT` and `PATCH` on an item: a record replaced or patched, under `If-Match`.

use super::*;

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
    let (body, _) = read_json(&request, payload, BodyKind::Json, &state.limits, |bytes| {
        change_holds::<R>(bytes, 1)
    })
    .await?;
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
            .ok_or_else(|| lost_race(condition.any()))
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
    let (body, _) = read_json(
        &request,
        payload,
        BodyKind::JsonPatch,
        &state.limits,
        |bytes| change_holds::<R>(bytes, 1),
    )
    .await?;
    let operations = patch::parse_patch(body, R::FIELDS)?;
    write_request.patched_paths = Some(patch::changed_paths(&operations, R::FIELDS));
    let secrets = patch::write_only_values(&operations, R::FIELDS);
    let prepared = R::prepare(&state, secrets).await?;
    let max_document_bytes = state.limits.body_bytes;
    let database = state.database.clone();
    let record = web::block(move || {
        database.write(|c| {
            let current = current::<R>(c, &caller, id, &condition)?;
            let before = to_json(&current)?;
            let mut document = before.clone();
            patch::apply(&mut document, &operations, R::FIELDS, max_document_bytes)?;
            // A write-only value left in the document (added, not removed again) or a declared
            // header (cascade_end_date) asks for work beyond what the record shows: written.
            let sets_more =
                !write_only_values::<R>(&document).is_empty() || !write_request.flags.is_empty();
            patch::strip_read_only(&mut document, R::FIELDS);
            let mut input = parse_input::<R>(document, "", Origin::Stored)?;
            R::attach_prepared(&mut input, &prepared)?;
            let write = |c: &mut billing_persistence::DbConnection, current: &R::Record| {
                replace_recorded::<R>(
                    c,
                    &writer,
                    Action::Patch,
                    current,
                    &before,
                    input,
                    &write_request,
                )?
                .ok_or_else(|| lost_race(condition.any()))
            };
            written_unless_unchanged::<R>(c, current, &before, sets_more, write)
        })
    })
    .await??;
    committed::<R>(&state).await;
    record_response::<R>(&record)
}
