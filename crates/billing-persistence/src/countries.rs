//! `countries`: the ISO 3166-1 list, seeded by the first migration; read-only.

use diesel::prelude::*;

use crate::schema::countries;

#[derive(Debug, Clone, PartialEq, Queryable)]
pub struct CountryRow {
    pub code: String,
    pub name: String,
}

crate::define_list! {
    source: countries::table,
    select: countries::all_columns,
    row: CountryRow,
    id: countries::code,
    filters: {
        "code" => text(countries::code),
        "name" => text(countries::name),
    },
    sort: {
        "code" => plain(countries::code),
        "name" => plain(countries::name),
    },
}

pub fn find(
    connection: &mut crate::DbConnection,
    code: &str,
) -> crate::error::PersistenceResult<Option<CountryRow>> {
    Ok(countries::table
        .find(code)
        .first::<CountryRow>(connection)
        .optional()?)
}

/// The countries with these codes (those that exist): one query.
pub fn find_many(
    connection: &mut crate::DbConnection,
    codes: &[String],
) -> crate::error::PersistenceResult<Vec<CountryRow>> {
    if codes.is_empty() {
        return Ok(Vec::new());
    }
    crate::in_chunks(codes, |chunk| {
        Ok(countries::table
            .filter(countries::code.eq_any(chunk))
            .load::<CountryRow>(connection)?)
    })
}
