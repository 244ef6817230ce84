//! `inventory_items`: the products attached to sites (scoped through the site's customer).

billing_domain::inventory_items!(crate::stored_resource);

/// The first items of site `site_id` (up to `limit`, by id) that start after `date`: ending
/// them on `date` would end them before they start.
pub fn starting_after(
    connection: &mut crate::DbConnection,
    site_id: i64,
    date: chrono::NaiveDate,
    limit: i64,
) -> crate::error::PersistenceResult<Vec<(i64, chrono::NaiveDate)>> {
    use crate::schema::inventory_items as table;
    use diesel::prelude::*;
    Ok(table::table
        .filter(table::site_id.eq(site_id))
        .filter(table::start_date.gt(date))
        .select((table::id, table::start_date))
        .order(table::id)
        .limit(limit)
        .load(connection)?)
}

/// Ends every inventory item of `site_id` that ends after `end_date`, or never, on
/// `end_date` (a site's cascaded end date), moving their versions; gives each changed item as
/// it was before and after.
pub fn end_with_site(
    connection: &mut crate::DbConnection,
    site_id: i64,
    end_date: chrono::NaiveDate,
) -> crate::error::PersistenceResult<Vec<(Row, Row)>> {
    use crate::schema::inventory_items as table;
    use diesel::prelude::*;
    let ending = table::table
        .filter(table::site_id.eq(site_id))
        .filter(table::end_date.gt(end_date).or(table::end_date.is_null()));
    let before: Vec<Row> = ending
        .select(Row::as_select())
        .order(table::id)
        .load(connection)?;
    if before.is_empty() {
        return Ok(Vec::new());
    }
    let ids: Vec<i64> = before.iter().map(|row| row.id).collect();
    let after: Vec<Row> = crate::in_chunks(&ids, |chunk| {
        diesel::update(table::table.filter(table::id.eq_any(chunk)))
            .set((
                table::end_date.eq(end_date),
                table::version.eq(table::version + 1),
            ))
            .execute(connection)?;
        Ok(table::table
            .filter(table::id.eq_any(chunk))
            .select(Row::as_select())
            .order(table::id)
            .load(connection)?)
    })?;
    Ok(before.into_iter().zip(after).collect())
}

/// Whether site `id` has inventory items.
pub fn of_site(
    connection: &mut crate::DbConnection,
    id: i64,
) -> crate::error::PersistenceResult<bool> {
    use crate::schema::inventory_items as table;
    use diesel::prelude::*;
    Ok(diesel::select(diesel::dsl::exists(
        table::table.filter(table::site_id.eq(id)),
    ))
    .get_result(connection)?)
}
