//! `customers`: who is contracted with a contract owner (scoped by `contract_owner_id`).

billing_domain::customers!(crate::stored_resource);

/// Whether any customer is contracted with contract owner `id`.
pub fn with_contract_owner(
    connection: &mut crate::DbConnection,
    id: i64,
) -> crate::error::PersistenceResult<bool> {
    use crate::schema::customers;
    use diesel::prelude::*;
    Ok(diesel::select(diesel::dsl::exists(
        customers::table.filter(customers::contract_owner_id.eq(id)),
    ))
    .get_result(connection)?)
}

/// Whether any customer is billed on billing cycle `id`.
pub fn with_billing_cycle(
    connection: &mut crate::DbConnection,
    id: i64,
) -> crate::error::PersistenceResult<bool> {
    use crate::schema::customers;
    use diesel::prelude::*;
    Ok(diesel::select(diesel::dsl::exists(
        customers::table.filter(customers::billing_cycle_id.eq(id)),
    ))
    .get_result(connection)?)
}
