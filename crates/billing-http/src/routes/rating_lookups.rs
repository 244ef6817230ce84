//! `POST /v1/rating/lookups` (docs/api.md "Reference data"): rates up to 10,000 usage items against one
//! reference data source on one date, from the live in-memory index (`crate::live_rating`).
//!
//! Per item: `outcome` (DIALSTRING, CALL_CLASS, IGNORED, UNRATED) and the summary-row members
//! (docs/api.md "Reference data") of the match; a malformed dialled number is an `error` of that item alone.
//! A body that breaks the request's shape is 400 naming the member (`items[3].callClass`).

use actix_web::{HttpRequest, HttpResponse, web};
use billing_domain::ValidationErrors;
use billing_domain::rating::{DayRange, Matched, Rating, RatingRequest, date_of};
use billing_domain::roles::Permission;
use serde_json::{Map, Value, json};

use super::rating_lookup_body::{BodyError, Lookup, parse};
use crate::error::ApiError;
use crate::live_rating::Live;
use crate::machinery::request::{BodyKind, Caller, not_json, read_body, reject_query};
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

fn dates(into: &mut Map<String, Value>, prefix: &str, range: Option<DayRange>) {
    if let Some(range) = range {
        into.insert(
            format!("{prefix}StartDate"),
            json!(date_of(range.start).map(|d| d.to_string())),
        );
        into.insert(
            format!("{prefix}EndDate"),
            json!(date_of(range.end).map(|d| d.to_string())),
        );
    }
}

fn validity_range(validity: Option<&billing_domain::dates::Validity>) -> Option<DayRange> {
    validity.map(DayRange::from_validity)
}

/// One item's answer: the outcome and the 2.4 members of the match.
fn result(live: &Live, request: &RatingRequest<'_>, rating: &Rating) -> Value {
    let mut row = Map::new();
    row.insert("outcome".into(), json!(rating.outcome.code()));
    let range = live.index.matched_range(request, rating);
    let source = request.reference_data_source_id;
    let show_source = |row: &mut Map<String, Value>| {
        row.insert(SOURCE.into(), json!(source));
        row.insert(
            "referenceDataSourceName".into(),
            json!(live.labels.source_names.get(&source)),
        );
    };
    match rating.matched {
        Matched::None => return Value::Object(row),
        Matched::IgnoredServiceId { id } => {
            row.insert("ignoredRecordType".into(), json!("SERVICE_ID"));
            row.insert("ignoredRecordId".into(), json!(id));
            row.insert("serviceId".into(), json!(request.service_id));
            dates(&mut row, "ignoredRecord", range);
            return Value::Object(row);
        }
        Matched::IgnoredCallClass { id } => {
            row.insert("ignoredRecordType".into(), json!("CALL_CLASS"));
            row.insert("ignoredRecordId".into(), json!(id));
            row.insert("callClass".into(), json!(request.call_class));
            dates(&mut row, "ignoredRecord", range);
            show_source(&mut row);
            return Value::Object(row);
        }
        Matched::Dialstring { id, length } => {
            let number = request.number().ok().flatten();
            row.insert("dialstringId".into(), json!(id));
            row.insert(
                "dialstring".into(),
                json!(number.map(|n| n.prefix_text(usize::from(length)))),
            );
            dates(&mut row, "dialstring", range);
        }
        Matched::CallClass { id } => {
            row.insert("callClassId".into(), json!(id));
            row.insert("callClass".into(), json!(request.call_class));
            dates(&mut row, CALL_CLASS, range);
        }
    }
    let Some(group) = rating
        .source_charge_group_id
        .and_then(|id| live.index.source_charge_group(id))
    else {
        return Value::Object(row);
    };
    row.insert("referenceDataSourceChargeGroupId".into(), json!(group.id));
    row.insert(
        "referenceDataSourceChargeGroupName".into(),
        json!(group.name),
    );
    dates(
        &mut row,
        "referenceDataSourceChargeGroup",
        validity_range(live.labels.source_charge_group_dates.get(&group.id)),
    );
    show_source(&mut row);
    row.insert("chargeGroupId".into(), json!(group.charge_group_id));
    if let Some(charge_group) = live.index.charge_group(group.charge_group_id) {
        row.insert("chargeGroupName".into(), json!(charge_group.name));
        dates(
            &mut row,
            "chargeGroup",
            validity_range(live.labels.charge_group_dates.get(&charge_group.id)),
        );
        let category_id = charge_group.charge_group_category_id;
        row.insert("chargeGroupCategoryId".into(), json!(category_id));
        if let Some(category) = live.index.category(category_id) {
            row.insert("chargeGroupCategoryName".into(), json!(category.name));
            row.insert(
                "chargeGroupCategoryChargingUnitType".into(),
                json!(category.charging_unit_type.code()),
            );
            dates(
                &mut row,
                "chargeGroupCategory",
                validity_range(live.labels.category_dates.get(&category_id)),
            );
        }
    }
    Value::Object(row)
}

/// Rates the items against the live index: 400 for an unknown source, 507 for a source the
/// index had to leave out because it is full.
fn rate(live: &Live, lookup: &Lookup) -> Result<Vec<Value>, ApiError> {
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
    Ok(requests
        .iter()
        .zip(ratings)
        .map(|(request, rating)| match rating {
            Ok(rating) => result(live, request, &rating),
            Err(error) => {
                json!({ "error": { "field": "dialledNumber", "message": error.to_string() } })
            }
        })
        .collect())
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
    let results = web::block(move || {
        let live = state.rating.read();
        rate(&live, &lookup).map(|results| (lookup, results))
    })
    .await??;
    let (lookup, results) = results;
    Ok(HttpResponse::Ok().json(json!({
        "referenceDataSourceId": lookup.source,
        "date": lookup.date.to_string(),
        "results": results,
    })))
}
