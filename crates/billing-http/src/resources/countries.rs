//! `GET /v1/countries`: the ISO 3166-1 list shipped with the service; read-only.

use billing_auth::AuthenticatedUser;
use billing_domain::query::ListQuery;
use billing_domain::roles::Permission;
use billing_persistence::DbConnection;
use billing_persistence::countries::{self, CountryRow};
use serde::Serialize;

use super::common::NoInput;

use crate::machinery::resource::{
    ApiResult, Field, FieldType, FilterParam, Operations, Resource, page,
};

#[derive(Debug, Clone, Serialize)]
pub struct Country {
    pub code: String,
    pub name: String,
}

impl From<CountryRow> for Country {
    fn from(row: CountryRow) -> Self {
        Self {
            code: row.code,
            name: row.name,
        }
    }
}

pub const CODE: Field = Field::read_only(
    "code",
    FieldType::Pattern {
        pattern: "^[A-Z]{2}$",
        min: 2,
        max: 2,
        example: "GB",
    },
    "ISO 3166-1 alpha-2 code.",
);
pub const NAME: Field = Field::read_only(
    "name",
    FieldType::Text { min: 1, max: 50 },
    "Short English name.",
);

pub struct Countries;

impl Resource for Countries {
    const PATH: &'static str = "countries";
    const NOUN: &'static str = "country";
    const DESCRIPTION: &'static str =
        "ISO 3166-1 countries, shipped with the service. Read-only; look one up with ?code=GB.";
    const READ: Permission = Permission::ReadReferenceData;
    const WRITE: Permission = Permission::WriteReferenceData;
    const OPERATIONS: Operations = Operations {
        get: false,
        ..Operations::READ_ONLY
    };
    const FIELDS: &'static [Field] = &[CODE, NAME];

    fn filters() -> &'static [FilterParam] {
        super::common::CODE_AND_NAME_FILTERS
    }

    fn sort_keys() -> &'static [&'static str] {
        &["code", "name"]
    }

    type Record = Country;
    type Input = NoInput;

    fn list(
        connection: &mut DbConnection,
        _: &AuthenticatedUser,
        query: &ListQuery,
    ) -> ApiResult<(Vec<Country>, i64)> {
        Ok(page(countries::list(connection, query)?))
    }

    fn find(_: &mut DbConnection, _: &AuthenticatedUser, _: i64) -> ApiResult<Option<Country>> {
        Ok(None)
    }
}

/// What a record showing a country holds (a locale's `country`).
pub type Record = Country;

/// Locales show their country whole; a body names it by code.
impl crate::machinery::shown::ShownRecord for Country {
    type Key = String;
    const NOUN: &'static str = "country";
    const KEY: &'static str = "code";
    const FIELDS: &'static [Field] = &[CODE, NAME];

    fn key(&self) -> String {
        self.code.clone()
    }

    fn load(connection: &mut DbConnection, codes: &[String]) -> ApiResult<Vec<Country>> {
        Ok(countries::find_many(connection, codes)?
            .into_iter()
            .map(Country::from)
            .collect())
    }

    /// The shipped list never changes: nothing for an entity tag.
    fn shown_versions(&self) -> Vec<i64> {
        Vec::new()
    }
}

/// Countries are keyed by code and never change: no numeric id, always version 1.
impl crate::machinery::resource::Versioned for Country {
    fn id(&self) -> i64 {
        0
    }

    fn version(&self) -> i64 {
        1
    }
}
