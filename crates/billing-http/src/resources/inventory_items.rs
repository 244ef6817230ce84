//! `/v1/inventory-items` (docs/api.md "Sites"): products attached to sites, scoped through the site's
//! customer; a site patch with `cascade_end_date: true` ends them with the site.

use crate::machinery::declared::Hooks;

pub struct InventoryItems;

billing_domain::inventory_items!(
    crate::api_resource,
    InventoryItems {
        path: "inventory-items",
        noun: "inventory item",
        read: ReadCustomers,
        write: WriteCustomers,
        storage: billing_persistence::inventory_items,
    }
);

impl Hooks for InventoryItems {}
