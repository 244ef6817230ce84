//! Field declarations and helpers shared by several resources.

use billing_domain::query::FilterKind;

use crate::error::ApiError;
use crate::machinery::resource::{Field, FieldType, FilterParam, missing_reference};

pub const ID: Field = Field::read_only("id", FieldType::Id, "Internal identifier.");
pub const START_DATE: Field = Field::required(
    "startDate",
    FieldType::Date,
    "The date the record applies from (yyyy-MM-dd).",
);
pub const END_DATE: Field = Field::optional(
    "endDate",
    FieldType::Date,
    "The last date the record applies on; null when open-ended. Not before startDate.",
);

pub const START_DATE_FILTER: FilterParam =
    FilterParam::new("startDate", FilterKind::Date, "Filter on startDate.");
pub const END_DATE_FILTER: FilterParam = FilterParam::new(
    "endDate",
    FilterKind::Date,
    "Filter on endDate; gtn: also matches open-ended records.",
);

/// 400 naming `field` unless the referenced record exists.
pub fn require_reference(found: bool, field: &str, noun: &str, id: i64) -> Result<(), ApiError> {
    if found {
        Ok(())
    } else {
        Err(missing_reference(field, noun, id))
    }
}

/// The input of a read-only resource: never accepted (no write route exists).
#[derive(Debug, serde::Deserialize, garde::Validate)]
#[serde(deny_unknown_fields)]
pub struct NoInput {}
