//! `currencies` (ISO 4217 codes with display names and formats).

billing_domain::currencies!(crate::stored_resource);

/// Whether any currency rate converts from or to currency `id`.
pub fn in_rates(
    connection: &mut crate::DbConnection,
    id: i64,
) -> crate::error::PersistenceResult<bool> {
    use crate::schema::currency_rates;
    use diesel::prelude::*;
    Ok(diesel::select(diesel::dsl::exists(
        currency_rates::table.filter(
            currency_rates::from_currency_id
                .eq(id)
                .or(currency_rates::to_currency_id.eq(id)),
        ),
    ))
    .get_result(connection)?)
}
