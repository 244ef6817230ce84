//! `charge_groups`: what a call is charged as, within a category.

billing_domain::charge_groups!(crate::stored_resource);

/// True when a charge group is in category `category_id`.
pub fn in_category(
    connection: &mut crate::DbConnection,
    category_id: i64,
) -> crate::error::PersistenceResult<bool> {
    use crate::schema::charge_groups;
    use diesel::prelude::*;
    Ok(diesel::select(diesel::dsl::exists(
        charge_groups::table.filter(charge_groups::charge_group_category_id.eq(category_id)),
    ))
    .get_result(connection)?)
}
