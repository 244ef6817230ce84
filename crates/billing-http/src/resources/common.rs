//! Field declarations and helpers shared by several resources.

use crate::error::ApiError;
use billing_domain::query::FilterKind;

use crate::machinery::resource::{Field, FieldType, FilterParam, missing_reference};

pub const ID: Field = Field::read_only("id", FieldType::Id, "Internal identifier.");

/// The filters of a fixed list of codes with names (countries, roles).
pub const CODE_AND_NAME_FILTERS: &[FilterParam] = &[
    FilterParam::new("code", FilterKind::String, "Filter on the code."),
    FilterParam::new("name", FilterKind::String, "Filter on the name."),
];
/// 400 naming `field` unless the referenced record exists.
pub fn require_reference(found: bool, field: &str, noun: &str, id: i64) -> Result<(), ApiError> {
    if found {
        Ok(())
    } else {
        Err(missing_reference(field, noun, id))
    }
}

/// The input of a read-only resource: never accepted (no write route exists).
#[derive(Debug, Clone, serde::Deserialize, garde::Validate)]
#[serde(deny_unknown_fields)]
pub struct NoInput {}
