//! `charge_group_categories`: how charge groups are grouped and measured.

billing_domain::charge_group_categories!(crate::stored_resource);
