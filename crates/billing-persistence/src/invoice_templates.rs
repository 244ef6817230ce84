//! `invoice_templates`: the layouts invoices are printed with.

billing_domain::invoice_templates!(crate::stored_resource);

/// The type of each of `ids` that exists (one query).
pub fn types_of(
    connection: &mut crate::DbConnection,
    ids: &[i64],
) -> crate::error::PersistenceResult<Vec<(i64, String)>> {
    use crate::schema::invoice_templates as table;
    use diesel::prelude::*;
    crate::in_chunks(ids, |chunk| {
        Ok(table::table
            .filter(table::id.eq_any(chunk))
            .select((table::id, table::r#type))
            .load(connection)?)
    })
}
