//! `custom_field_definitions`: the custom fields sites can carry.

billing_domain::custom_field_definitions!(crate::stored_resource);

/// The label of each of `ids` that exists (one query).
pub fn labels_of(
    connection: &mut crate::DbConnection,
    ids: &[i64],
) -> crate::error::PersistenceResult<Vec<(i64, String)>> {
    use crate::schema::custom_field_definitions as table;
    use diesel::prelude::*;
    crate::in_chunks(ids, |chunk| {
        Ok(table::table
            .filter(table::id.eq_any(chunk))
            .select((table::id, table::label))
            .load(connection)?)
    })
}

/// Gives the sites that carry definition `id` its new `label` (their versions move, so their
/// ETags change with their bodies).
pub fn relabel_sites(
    connection: &mut crate::DbConnection,
    id: i64,
    label: &str,
) -> crate::error::PersistenceResult<()> {
    use crate::schema::{site_assigned_custom_fields as assigned, sites};
    use diesel::prelude::*;
    diesel::update(
        sites::table.filter(
            sites::id.eq_any(
                assigned::table
                    .filter(assigned::custom_field_definition_id.eq(id))
                    .filter(assigned::label.ne(label).or(assigned::label.is_null()))
                    .select(assigned::site_id),
            ),
        ),
    )
    .set(sites::version.eq(sites::version + 1))
    .execute(connection)?;
    diesel::update(assigned::table.filter(assigned::custom_field_definition_id.eq(id)))
        .set(assigned::label.eq(label))
        .execute(connection)?;
    Ok(())
}
