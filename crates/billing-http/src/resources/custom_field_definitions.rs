//! `/v1/custom-field-definitions` (decisions §4): the custom fields sites can carry.

use crate::machinery::declared::Hooks;

pub struct CustomFieldDefinitions;

billing_domain::custom_field_definitions!(
    crate::api_resource,
    CustomFieldDefinitions {
        path: "custom-field-definitions",
        noun: "custom field definition",
        read: ReadCustomers,
        write: WriteCustomers,
        storage: billing_persistence::custom_field_definitions,
    }
);

impl Hooks for CustomFieldDefinitions {}
