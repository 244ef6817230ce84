//! `POST /v1/rating/lookups` (docs/api.md "Reference data"): rates up to 10,000 usage items against one
//! reference data source on one date, from the live in-memory index (`crate::live_rating`).
//!
//! Per item: `outcome` (DIALSTRING, CALL_CLASS, IGNORED, UNRATED) and the summary-row members
//! (docs/api.md "Reference data") of the match; a malformed dialled number is an `error` of that item alone.
//! A body that breaks the request's shape is 400 naming the member (`items[3].callClass`).

use actix_web::http::header::ContentType;
use actix_web::{HttpMessage, HttpRequest, HttpResponse, web};
use billing_domain::ValidationErrors;
use billing_domain::rating::RatingRequest;
use billing_domain::roles::Permission;

use super::rating_lookup_answer::AnswerWriter;
use super::rating_lookup_body::{BodyError, Lookup, parse};
use crate::error::ApiError;
use crate::live_rating::Live;
use crate::machinery::body::{BodyKind, not_json, read_body};
use crate::machinery::body_budget::BodyShare;
use crate::machinery::page_body::PageBody;
use crate::machinery::request::{Caller, reject_query};
use crate::state::AppState;

/// The most items one request may rate.
pub const MAX_ITEMS: usize = 10_000;
/// The longest `callClass` and `serviceId` (the longest stored value is 255 characters).
pub const MAX_TEXT_CHARS: usize = 255;
/// The longest `dialledNumber` (only its first 15 digits can match).
pub const MAX_NUMBER_CHARS: usize = 64;
/// The body limit of this route, whatever the service-wide one: 10,000 items with every
/// member at its longest in ASCII (`{"dialledNumber":…64,"callClass":…255,"serviceId":…255}`,
/// 625 bytes) take 6.25 MB; 8 MiB leaves room for spacing and some escaped or non-ASCII text.
/// The body is read into typed items as it is parsed (`rating_lookup_body`), so what a request
/// holds is bounded by this, whatever it sends.
pub const BODY_LIMIT_BYTES: usize = 8 * 1024 * 1024;

/// The members of a request and of an item, each named once.
pub const SOURCE: &str = "referenceDataSourceId";
pub const DIALLED_NUMBER: &str = "dialledNumber";
pub const CALL_CLASS: &str = "callClass";
pub const SERVICE_ID: &str = "serviceId";

/// The outcomes, as the OpenAPI document lists them.
pub const OUTCOMES: [&str; 4] = ["DIALSTRING", "CALL_CLASS", "IGNORED", "UNRATED"];

/// Rates the items against the live index: 400 for an unknown source, 507 for a source the
/// index had to leave out because it is full.
fn rate(live: &Live, lookup: &Lookup) -> Result<Vec<u8>, ApiError> {
    if !live.labels.source_names.contains_key(&lookup.source) {
        return Err(ApiError::field(
            SOURCE,
            format!("reference data source {} does not exist", lookup.source),
        ));
    }
    if let Some(reason) = live.full.get(&lookup.source) {
        return Err(ApiError::insufficient_storage(reason.clone()));
    }
    let requests: Vec<RatingRequest<'_>> = lookup
        .items
        .iter()
        .map(|item| RatingRequest {
            reference_data_source_id: lookup.source,
            date: lookup.date,
            dialled_number: item.dialled_number.as_deref(),
            call_class: item.call_class.as_deref(),
            service_id: item.service_id.as_deref(),
        })
        .collect();
    let mut ratings = Vec::with_capacity(requests.len());
    live.index.rate_many(&requests, &mut ratings);
    let mut answer = AnswerWriter::new(live, lookup.source, lookup.date, requests.len());
    for (request, rating) in requests.iter().zip(&ratings) {
        answer.result(request, rating);
    }
    Ok(answer.finish())
}

pub async fn lookups(
    request: HttpRequest,
    state: web::Data<AppState>,
    Caller(caller): Caller,
    payload: web::Payload,
) -> Result<HttpResponse, ApiError> {
    caller.require(Permission::ReadReferenceData)?;
    reject_query(&request)?;
    let bytes = read_body(
        &request,
        payload,
        BodyKind::Json,
        BODY_LIMIT_BYTES,
        state.limits.body_timeout,
        answer_bytes,
    )
    .await?;
    let lookup = match parse(&bytes, chrono::Utc::now().date_naive()) {
        Ok(lookup) => lookup,
        Err(BodyError::Syntax(error)) => return Err(not_json(error)),
        Err(BodyError::Fields(errors)) => {
            return Err(ApiError::validation(ValidationErrors { errors }));
        }
    };
    drop(bytes);
    // Rating 10,000 items takes a few milliseconds: off the async workers.
    let answer = web::block(move || rate(&state.rating.read(), &lookup)).await??;
    // The body's share of the budget, which counted the answer, stays with the answer until
    // the client has taken it.
    let share = request
        .extensions_mut()
        .remove::<BodyShare>()
        .map(|BodyShare(share)| share);
    let answer = PageBody::new(answer, share);
    let mut response = HttpResponse::Ok();
    response.extensions_mut().insert(answer.answer());
    Ok(response.content_type(ContentType::json()).body(answer))
}

/// The shortest item (`{"callClass":"a"}` and a comma).
const SHORTEST_ITEM_BYTES: usize = 18;
/// The most one item's result takes (`rating_lookup_answer`): its fixed members (names, ids,
/// dates: under 1 KiB) and five texts of at most 255 characters, each at most 3 bytes in
/// UTF-8 (letters beyond U+FFFF are refused) or 2 escaped, with its quotes: the source, source
/// charge group, charge group and category names, and the call class it echoes. A result
/// with short names takes about 600 bytes; the share shrinks to the answer once written.
const RESULT_BYTES: usize = 1024 + 5 * (3 * MAX_TEXT_CHARS + 2);

/// What the answer to a body of `body_bytes` takes at most: its most items' results. Counted
/// in the body budget with the body (`body_budget`), so that many lookups at once cannot
/// hold answers of gigabytes.
fn answer_bytes(body_bytes: usize) -> usize {
    (body_bytes / SHORTEST_ITEM_BYTES + 1)
        .min(MAX_ITEMS)
        .saturating_mul(RESULT_BYTES)
}
