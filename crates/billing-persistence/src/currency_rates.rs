//! `currency_rates` (decisions §3).

billing_domain::currency_rates!(crate::stored_resource);
