//! `/v1/inventory-items` (docs/api.md "Sites"): products attached to sites, scoped through the site's
//! customer; a site patch with `cascade_end_date: true` ends them with the site.

use crate::machinery::resource::Resource;

pub struct InventoryItems;

#[crate::declared_resource(
    billing_domain::inventory_items,
    path: "inventory-items",
    noun: "inventory item",
    read: ReadCustomers,
    write: WriteCustomers,
    storage: billing_persistence::inventory_items,
)]
impl Resource for InventoryItems {}
