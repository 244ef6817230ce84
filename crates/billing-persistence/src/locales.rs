//! `locales`: a country and a currency used together.

billing_domain::locales!(crate::stored_resource);

/// True when a locale uses currency `currency_id`.
pub fn uses_currency(
    connection: &mut crate::DbConnection,
    currency_id: i64,
) -> crate::error::PersistenceResult<bool> {
    use crate::schema::locales;
    use diesel::prelude::*;
    Ok(diesel::select(diesel::dsl::exists(
        locales::table.filter(locales::currency_id.eq(currency_id)),
    ))
    .get_result(connection)?)
}

/// True when a reference data source uses locale `locale_id`.
pub fn is_used_by_source(
    connection: &mut crate::DbConnection,
    locale_id: i64,
) -> crate::error::PersistenceResult<bool> {
    use crate::schema::reference_data_sources;
    use diesel::prelude::*;
    Ok(diesel::select(diesel::dsl::exists(
        reference_data_sources::table.filter(reference_data_sources::locale_id.eq(locale_id)),
    ))
    .get_result(connection)?)
}
