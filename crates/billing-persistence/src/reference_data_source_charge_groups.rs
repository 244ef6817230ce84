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

/// True when any source charge group still links to charge group `charge_group_id`.
pub fn references_charge_group(
    connection: &mut crate::DbConnection,
    charge_group_id: i64,
) -> crate::error::PersistenceResult<bool> {
    use crate::schema::reference_data_source_charge_groups as table;
    use diesel::prelude::*;
    Ok(diesel::select(diesel::dsl::exists(
        table::table.filter(table::charge_group_id.eq(charge_group_id)),
    ))
    .get_result(connection)?)
}

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

/// True when dialstrings or call classes still rate as source charge group `id`.
pub fn rated_by(
    connection: &mut crate::DbConnection,
    id: i64,
) -> crate::error::PersistenceResult<bool> {
    use crate::schema::{call_classes, dialstrings};
    use diesel::prelude::*;
    let dialstring: bool = diesel::select(diesel::dsl::exists(
        dialstrings::table.filter(dialstrings::reference_data_source_charge_group_id.eq(id)),
    ))
    .get_result(connection)?;
    Ok(dialstring
        || diesel::select(diesel::dsl::exists(
            call_classes::table.filter(call_classes::reference_data_source_charge_group_id.eq(id)),
        ))
        .get_result(connection)?)
}
