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

/// Whether any site's invoice details use template `id` (as invoice, summary or electronic
/// summary template).
pub fn used_by_sites(
    connection: &mut crate::DbConnection,
    id: i64,
) -> crate::error::PersistenceResult<bool> {
    use crate::schema::site_invoice_details as details;
    use diesel::prelude::*;
    // The electronic summary ids are held as "3,5": the id alone, first, last or inside.
    let electronic = details::electronic_summary_template_ids;
    Ok(diesel::select(diesel::dsl::exists(
        details::table.filter(
            details::invoice_template_id
                .eq(id)
                .or(details::invoice_summary_template_id.eq(id))
                .or(electronic.eq(id.to_string()))
                .or(electronic.like(format!("{id},%")))
                .or(electronic.like(format!("%,{id}")))
                .or(electronic.like(format!("%,{id},%"))),
        ),
    ))
    .get_result(connection)?)
}
