//! Reading: a page of a list (`GET` and `HEAD` on the collection) and one record (`GET` and
//! `HEAD` on an item).

use super::*;

pub async fn list<R: Resource>(
    request: HttpRequest,
    state: web::Data<AppState>,
    caller: ReadCaller,
) -> Handled {
    let parsed = query_pairs(&request).and_then(|pairs| {
        let mut params = parse_list_params::<R>(&pairs, true)?;
        let stated = count_preference(&request)?;
        params.query.count = stated.unwrap_or_default();
        Ok((pairs, params, stated))
    });
    // The page's share of what lists may hold at once, kept until the connection takes its answer.
    let page_size = parsed
        .as_ref()
        .ok()
        .and_then(|(_, params, _)| params.query.page);
    let share = match page_size {
        Some(page) => Some(state.list_budget.take(R::FIELDS, page.page_size).await),
        None => None,
    };
    let ((records, total), (pairs, params, stated)) = caller
        .read(&state, R::READ, parsed, |c, caller, (_, params, _)| {
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
    applied(&state, stated, &mut response);
    if let Some(links) = link_header(&request, &pairs, page, total) {
        response.insert_header((header::LINK, links));
    }
    drop(records);
    Ok(response
        .content_type("application/json")
        .body(PageBody { body, share }))
}

pub async fn exists<R: Resource>(
    request: HttpRequest,
    state: web::Data<AppState>,
    caller: ReadCaller,
) -> Handled {
    let parsed = query_pairs(&request).and_then(|pairs| {
        let mut params = parse_list_params::<R>(&pairs, false)?;
        let stated = count_preference(&request)?;
        params.query.count = stated.unwrap_or_default();
        params.query.page = Some(PageRequest {
            page: 1,
            page_size: 1,
        });
        params.query.sort.clear();
        Ok((params, stated))
    });
    let ((_, total), (_, stated)) = caller
        .read(&state, R::READ, parsed, |c, caller, (params, _)| {
            R::list(c, caller, &params.query)
        })
        .await?;
    let status = if total > 0 {
        StatusCode::OK
    } else {
        StatusCode::NOT_FOUND
    };
    let mut response = HttpResponse::build(status);
    response.insert_header(("X-Total-Count", total.to_string()));
    applied(&state, stated, &mut response);
    Ok(response.finish())
}

/// `Preference-Applied: count=…` when the request stated a count preference: the one that
/// was applied (SQLite has no planner estimate and always counts: `count=exact`).
fn applied(
    state: &AppState,
    stated: Option<CountPreference>,
    response: &mut actix_web::HttpResponseBuilder,
) {
    if let Some(count) = stated {
        let count = match state.database.backend() {
            billing_persistence::Backend::Sqlite => CountPreference::Exact,
            billing_persistence::Backend::Postgres => count,
        };
        response.insert_header((PREFERENCE_APPLIED, format!("count={}", count.code())));
    }
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

/// A page's JSON, holding its share of the list budget until the connection takes it: a
/// client that stops reading then holds its own answer, never every other list's turn.
struct PageBody {
    body: Vec<u8>,
    share: Option<tokio::sync::OwnedSemaphorePermit>,
}

impl actix_web::body::MessageBody for PageBody {
    type Error = std::convert::Infallible;

    fn size(&self) -> actix_web::body::BodySize {
        actix_web::body::BodySize::Sized(self.body.len() as u64)
    }

    fn poll_next(
        self: std::pin::Pin<&mut Self>,
        _: &mut std::task::Context<'_>,
    ) -> std::task::Poll<Option<Result<actix_web::web::Bytes, Self::Error>>> {
        let this = self.get_mut();
        this.share = None;
        let body = std::mem::take(&mut this.body);
        std::task::Poll::Ready((!body.is_empty()).then(|| Ok(actix_web::web::Bytes::from(body))))
    }
}
