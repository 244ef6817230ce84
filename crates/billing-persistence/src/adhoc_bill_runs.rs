//! `adhoc_bill_runs`: bill runs for chosen sites (their site ids are owned rows).

billing_domain::adhoc_bill_runs!(crate::stored_resource);
