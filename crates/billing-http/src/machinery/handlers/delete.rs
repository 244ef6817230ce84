//! `DELETE` on an item.

use super::*;

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
                return Err(lost_race(condition.any()));
            }
            let before = to_json(&current)?;
            audit::record(c, &writer, Action::Delete, R::PATH, id, Some(&before), None)
        })
    })
    .await??;
    committed::<R>(&state).await;
    Ok(HttpResponse::NoContent().finish())
}
