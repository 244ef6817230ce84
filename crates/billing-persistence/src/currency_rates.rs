//! `currency_rates` (docs/api.md "Reference data").

billing_domain::currency_rates!(crate::stored_resource);
