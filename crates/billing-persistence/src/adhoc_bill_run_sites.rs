//! `adhoc_bill_run_sites`: the sites of an ad hoc bill run, written only with it.

billing_domain::adhoc_bill_run_sites!(crate::stored_child, parent: adhoc_bill_run_id);

/// Whether any ad hoc bill run bills site `id`.
pub fn bill_site(
    connection: &mut crate::DbConnection,
    id: i64,
) -> crate::error::PersistenceResult<bool> {
    use crate::schema::adhoc_bill_run_sites as table;
    use diesel::prelude::*;
    Ok(diesel::select(diesel::dsl::exists(
        table::table.filter(table::site_id.eq(id)),
    ))
    .get_result(connection)?)
}
