//! `GET /v1/reference-data-summary/{referenceDataSummaryType}/{id}` (docs/api.md "Reference
//! data"): the rows rating would use for a call class, a dialstring or a charge group,
//! with the list conventions (`page` and `pageSize` required, `sort` on any column, `fields`,
//! `X-Total-Count`, `Link`). A row shows every column: those its kind lacks, and unset ones,
//! are null (docs/api.md: unset members are returned as null, never left out).

use actix_web::http::header;
use actix_web::{HttpRequest, HttpResponse, web};
use billing_domain::query::PageRequest;
use billing_domain::roles::Permission;
use billing_persistence::summaries::{COLUMNS, SummaryKind, SummaryOf, SummaryValue, summary};
use serde_json::{Map, Value};

use crate::error::ApiError;
use crate::machinery::list::{ListShape, link_header, parse_list_params_of, project};
use crate::machinery::request::{Caller, path_id, query_pairs};
use crate::machinery::resource::{Field, FieldType};
use crate::state::AppState;

/// The summary types of 4.4.
pub const SUMMARY_TYPES: [&str; 3] = ["CALL_CLASS", "DIALSTRING", "CHARGE_GROUP"];

const fn field_type(kind: SummaryKind) -> FieldType {
    match kind {
        SummaryKind::Id => FieldType::Id,
        SummaryKind::Text => FieldType::Text { min: 0, max: 255 },
        SummaryKind::Date => FieldType::Date,
    }
}

/// A summary row's members, read-only, as the OpenAPI document and `fields` know them.
pub const FIELDS: [Field; COLUMNS.len()] = {
    let mut fields = [Field::read_only("", FieldType::Id, ""); COLUMNS.len()];
    let mut index = 0;
    while index < COLUMNS.len() {
        let (name, kind) = COLUMNS[index];
        fields[index] = Field::read_only(
            name,
            field_type(kind),
            "Null when the row's kind has no such member, or it is unset.",
        )
        .nullable();
        index += 1;
    }
    fields
};

/// Every column sorts.
pub const SORT_KEYS: [&str; COLUMNS.len()] = {
    let mut keys = [""; COLUMNS.len()];
    let mut index = 0;
    while index < COLUMNS.len() {
        keys[index] = COLUMNS[index].0;
        index += 1;
    }
    keys
};

const SHAPE: ListShape = ListShape {
    fields: &FIELDS,
    filters: &[],
    sort_keys: &SORT_KEYS,
};

fn subject(request: &HttpRequest) -> Result<SummaryOf, ApiError> {
    let kind = request.match_info().get("type").unwrap_or_default();
    let id = path_id(request)?;
    match kind {
        "CALL_CLASS" => Ok(SummaryOf::CallClass(id)),
        "DIALSTRING" => Ok(SummaryOf::Dialstring(id)),
        "CHARGE_GROUP" => Ok(SummaryOf::ChargeGroup(id)),
        _ => Err(ApiError::field(
            "referenceDataSummaryType",
            format!("must be one of {}", SUMMARY_TYPES.join(", ")),
        )),
    }
}

fn not_found(of: SummaryOf) -> ApiError {
    let (noun, id) = match of {
        SummaryOf::CallClass(id) => ("call class", id),
        SummaryOf::Dialstring(id) => ("dialstring", id),
        SummaryOf::ChargeGroup(id) => ("charge group", id),
    };
    ApiError::not_found(format!("{noun} {id} does not exist"))
}

fn row_json(values: Vec<(&'static str, SummaryValue)>) -> Value {
    let mut row = Map::new();
    for (name, value) in values {
        let value = match value {
            SummaryValue::Id(Some(id)) => Value::from(id),
            SummaryValue::Text(Some(text)) => Value::from(text),
            SummaryValue::Date(Some(date)) => Value::from(date.format("%Y-%m-%d").to_string()),
            SummaryValue::Id(None) | SummaryValue::Text(None) | SummaryValue::Date(None) => {
                Value::Null
            }
        };
        row.insert(name.to_owned(), value);
    }
    Value::Object(row)
}

pub async fn summary_rows(
    request: HttpRequest,
    state: web::Data<AppState>,
    Caller(caller): Caller,
) -> Result<HttpResponse, ApiError> {
    caller.require(Permission::ReadReferenceData)?;
    let of = subject(&request)?;
    let pairs = query_pairs(&request)?;
    let params = parse_list_params_of(SHAPE, &pairs, true)?;
    let database = state.database.clone();
    let query = params.query.clone();
    let found = web::block(move || database.read(|c| summary(c, of, &query))).await??;
    let (rows, total) = found.ok_or_else(|| not_found(of))?;
    let rows: Vec<Value> = rows.into_iter().map(|row| row_json(row.values())).collect();
    let page = params.query.page.unwrap_or(PageRequest {
        page: 1,
        page_size: 1,
    });
    let mut response = HttpResponse::Ok();
    response.insert_header(("X-Total-Count", total.to_string()));
    if let Some(links) = link_header(&request, &pairs, page, total) {
        response.insert_header((header::LINK, links));
    }
    Ok(response.json(project(rows, &params.fields)))
}
