//! `custom_field_definitions`: the custom fields sites can carry.

billing_domain::custom_field_definitions!(crate::stored_resource);
