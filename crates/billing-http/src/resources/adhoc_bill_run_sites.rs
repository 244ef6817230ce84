//! The site ids of an ad hoc bill run (served only inside the run, as `siteIds`).

billing_domain::adhoc_bill_run_sites!(crate::api_child);
