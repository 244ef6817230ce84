//! Reading: a page of a list (`GET` and `HEAD` on the collection) and one record (`GET` and
//! `HEAD` on an item).

use super::*;

use billing_auth::AuthenticatedUser;
use billing_domain::query::ListQuery;
use billing_persistence::DbConnection;

use crate::machinery::resource::ApiResult;

use crate::machinery::page_body::PageBody;

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
    // The page is written on the blocking pool with its read: a page of 1,000 large records
    // takes seconds to write, which on an async worker would hold every other request of it
    // (`/health/live` too).
    let ((body, total, counted), (pairs, params, stated)) = caller
        .read(&state, R::READ, parsed, |c, caller, (_, params, _)| {
            let ((records, total), counted) = list_counted::<R>(c, caller, &params.query)?;
            Ok((page_json(records, &params.fields)?, total, counted))
        })
        .await?;
    let page = params.query.page.unwrap_or(PageRequest {
        page: 1,
        page_size: 1,
    });
    let page_body = PageBody::new(body, share);
    let mut response = HttpResponse::Ok();
    // Compressed, the answer takes the page's share along (`compression.rs`).
    response.extensions_mut().insert(page_body.answer());
    response.insert_header(("X-Total-Count", total.to_string()));
    applied(&state, stated.map(|_| counted), &mut response);
    if let Some(links) = link_header(&request, &pairs, page, total) {
        response.insert_header((header::LINK, links));
    }
    Ok(response.content_type("application/json").body(page_body))
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
    let (((_, total), counted), (_, stated)) = caller
        .read(&state, R::READ, parsed, |c, caller, (params, _)| {
            list_counted::<R>(c, caller, &params.query)
        })
        .await?;
    let status = if total > 0 {
        StatusCode::OK
    } else {
        StatusCode::NOT_FOUND
    };
    let mut response = HttpResponse::build(status);
    response.insert_header(("X-Total-Count", total.to_string()));
    applied(&state, stated.map(|_| counted), &mut response);
    // No `Content-Length`: a HEAD may send only the length its GET's body would have.
    Ok(response.body(actix_web::body::None::new()))
}

/// A page of records, its total, and the count preference the total was found by.
type CountedPage<R> = ((Vec<<R as Resource>::Record>, i64), CountPreference);

/// A page and its total, with the count preference it was counted by. A caller limited to some
/// contract owners is always counted exactly: PostgreSQL's estimate is drawn from every owner's
/// rows, and would tell them roughly how many records the others have.
fn list_counted<R: Resource>(
    connection: &mut DbConnection,
    caller: &AuthenticatedUser,
    query: &ListQuery,
) -> ApiResult<CountedPage<R>> {
    if query.count == CountPreference::Exact || caller.contract_owners.is_all() {
        return Ok((R::list(connection, caller, query)?, query.count));
    }
    let exact = ListQuery {
        count: CountPreference::Exact,
        ..query.clone()
    };
    Ok((R::list(connection, caller, &exact)?, CountPreference::Exact))
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
    let parsed = reject_query(&request)
        .and_then(|()| path_id(&request))
        .and_then(|id| Ok((id, if_none_match(&request)?)));
    // The record's share of what lists may hold at once, as a page of one, kept until the
    // connection takes the answer: many clients reading a large record and not taking it
    // would otherwise hold it many times over.
    let share = state.list_budget.take(R::FIELDS, 1).await;
    let (record, (_, condition)) = caller
        .read_one(&state, R::READ, parsed, |c, caller, (id, _)| {
            R::find(c, caller, *id)?.ok_or_else(|| not_found::<R>(*id))
        })
        .await?;
    let tag = R::entity_tag(&record);
    // The client's copy is current (RFC 9110 §13.1.2): no body, the tag again.
    if none_match_names(&condition, &tag) {
        return Ok(with_etag(HttpResponse::NotModified().finish(), &tag));
    }
    // Written straight from the record: no intermediate JSON value.
    let body = serde_json::to_vec(&record).map_err(not_written)?;
    let page_body = PageBody::new(body, Some(share));
    let mut response = HttpResponse::Ok();
    response.extensions_mut().insert(page_body.answer());
    Ok(with_etag(
        response.content_type("application/json").body(page_body),
        &tag,
    ))
}

/// A page's JSON. Without `fields`, the records are written straight to JSON text: through a
/// `serde_json::Value` per record, half the time of a page of 100 went to building and
/// writing those values. With `fields`, each record is projected and written in turn, so the
/// page holds its records and the text, never a third copy of every record as values.
fn page_json<T: serde::Serialize>(
    records: Vec<T>,
    fields: &Option<Vec<String>>,
) -> Result<Vec<u8>, ApiError> {
    let Some(_) = fields else {
        return serde_json::to_vec(&records).map_err(not_written);
    };
    let mut out = vec![b'['];
    for (index, record) in records.into_iter().enumerate() {
        if index > 0 {
            out.push(b',');
        }
        let row = project(vec![to_json(&record)?], fields).pop();
        serde_json::to_writer(&mut out, &row).map_err(not_written)?;
    }
    out.push(b']');
    Ok(out)
}
