//! `reference_data_source_charge_groups`: a source's own charge groups, each linked to exactly
//! one charge group and one reference data source.

billing_domain::reference_data_source_charge_groups!(
    crate::stored_resource,
    extra_filters {
        si_maintained => id_in(
            reference_data_source_charge_groups::reference_data_source_id,
            |value: bool| crate::schema::reference_data_sources::table
                .select(crate::schema::reference_data_sources::id)
                .filter(crate::schema::reference_data_sources::si_maintained.eq(value))
        ),
    }
);

/// The source of source charge group `id`, if it exists.
pub fn source_of(
    connection: &mut crate::DbConnection,
    id: i64,
) -> crate::error::PersistenceResult<Option<i64>> {
    use crate::schema::reference_data_source_charge_groups as table;
    use diesel::prelude::*;
    Ok(table::table
        .find(id)
        .select(table::reference_data_source_id)
        .first(connection)
        .optional()?)
}
