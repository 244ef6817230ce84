//! `billing_cycles`: the cycles customers are billed on.

billing_domain::billing_cycles!(crate::stored_resource);
