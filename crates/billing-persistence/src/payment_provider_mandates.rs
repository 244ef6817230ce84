//! `payment_provider_mandates`: the mandates known to the platform, unique per provider.

billing_domain::payment_provider_mandates!(crate::stored_resource);

/// The mandate of `provider` with `reference`, if there is one.
pub fn find_by_reference(
    connection: &mut crate::DbConnection,
    provider: &str,
    reference: &str,
) -> crate::error::PersistenceResult<Option<Row>> {
    use crate::schema::payment_provider_mandates as table;
    use diesel::prelude::*;
    Ok(table::table
        .filter(table::provider.eq(provider))
        .filter(table::mandate_reference.eq(reference))
        .select(Row::as_select())
        .first(connection)
        .optional()?)
}
