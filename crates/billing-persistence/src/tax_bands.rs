//! `tax_bands`: named tax rates in force between dates (the rate in 0.0001 % units).

billing_domain::tax_bands!(crate::stored_resource);
