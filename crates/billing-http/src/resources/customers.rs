//! `/v1/customers` (docs/api.md "Sites"): scoped by contract owner; the sub-brand, when given, must be
//! one of the contract owner's.

use billing_auth::AuthenticatedUser;
use billing_persistence::{DbConnection, contract_owner_sub_brands};

use crate::error::ApiError;
use crate::machinery::declared::Declared;
use crate::machinery::resource::{ApiResult, Resource};

pub struct Customers;

#[crate::declared_resource(
    billing_domain::customers,
    path: "customers",
    noun: "customer",
    read: ReadCustomers,
    write: WriteCustomers,
    storage: billing_persistence::customers,
    embedded: &[crate::machinery::embedded::Embedded::of::<
        crate::resources::sites::Sites,
    >(
        "sites",
        billing_domain::resources::sites::names::customer_id,
    )],
)]
impl Resource for Customers {
    fn check_write(
        connection: &mut DbConnection,
        _: &AuthenticatedUser,
        _: Option<&Record>,
        changes: &<Self as Declared>::Changes,
    ) -> ApiResult<()> {
        if let Some(sub_brand) = changes.contract_owner_sub_brand_id
            && !contract_owner_sub_brands::is_element_of(
                connection,
                changes.contract_owner_id,
                sub_brand,
            )?
        {
            return Err(ApiError::field(
                billing_domain::resources::customers::names::contract_owner_sub_brand_id,
                format!(
                    "sub-brand {sub_brand} is not one of contract owner {}'s sub-brands",
                    changes.contract_owner_id
                ),
            ));
        }
        Ok(())
    }
}
