//! `reference_data_sources`: where reference data comes from.

billing_domain::reference_data_sources!(crate::stored_resource);

/// True when the source still has charge groups.
pub fn has_charge_groups(
    connection: &mut crate::DbConnection,
    id: i64,
) -> crate::error::PersistenceResult<bool> {
    use crate::schema::reference_data_source_charge_groups;
    use diesel::prelude::*;
    Ok(diesel::select(diesel::dsl::exists(
        reference_data_source_charge_groups::table
            .filter(reference_data_source_charge_groups::reference_data_source_id.eq(id)),
    ))
    .get_result(connection)?)
}
