//! Field declarations and helpers shared by several resources.

use crate::error::ApiError;
use billing_domain::query::FilterKind;

use billing_auth::AuthenticatedUser;
use billing_persistence::DbConnection;

use crate::machinery::resource::{ApiResult, Field, FieldType, FilterParam, missing_reference};

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

/// 403 (worded by `refusal`) for the first of `sites` outside a restricted caller's contract
/// owners; one query for all of them.
pub fn check_sites_in_scope(
    connection: &mut DbConnection,
    caller: &AuthenticatedUser,
    sites: &[i64],
    refusal: impl Fn(i64) -> String,
) -> ApiResult<()> {
    if caller.contract_owners.is_all() || sites.is_empty() {
        return Ok(());
    }
    let outside = billing_persistence::sites::contract_owners_of(connection, sites)?
        .into_iter()
        .filter(|(_, owner)| !caller.contract_owners.allows(*owner))
        .map(|(site, _)| site)
        .min_by_key(|site| sites.iter().position(|id| id == site));
    match outside {
        Some(site) => Err(ApiError::forbidden(refusal(site))),
        None => Ok(()),
    }
}

/// 403 (worded by `refusal`) when a restricted caller would change a shared record that sites
/// of another owner use; `using` finds those sites, and runs only for a restricted caller.
pub fn check_used_only_in_scope(
    connection: &mut DbConnection,
    caller: &AuthenticatedUser,
    using: impl FnOnce(&mut DbConnection) -> billing_persistence::error::PersistenceResult<Vec<i64>>,
    refusal: impl Fn(i64) -> String,
) -> ApiResult<()> {
    if caller.contract_owners.is_all() {
        return Ok(());
    }
    let sites = using(connection)?;
    check_sites_in_scope(connection, caller, &sites, refusal)
}
