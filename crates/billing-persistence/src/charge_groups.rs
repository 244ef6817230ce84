//! `charge_groups`: what a call is charged as, within a category.

billing_domain::charge_groups!(crate::stored_resource);
