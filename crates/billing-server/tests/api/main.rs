//! One integration test binary; its modules mirror the routes. Every test runs against the
//! real server on port 0 with a fresh database, on SQLite and (with TEST_DATABASE_URL) on
//! PostgreSQL.

#[macro_use]
mod support;

mod api_keys;
mod audit_events;
mod authentication;
mod batch_agreement;
mod body_budget;
mod browsers;
mod charge_groups;
mod cli;
mod console;
mod contract_owners;
mod conventions;
mod conventions_writes;
mod currencies_and_locales;
mod customers;
mod declared_queries;
mod deploy_recipes;
mod first_start;
mod fuzzing_findings;
mod hostile;
mod operations;
mod owner_scope;
mod patch_bounds;
mod pipelining;
mod races;
mod rated_records;
mod rating_lookups;
mod reference_data_import;
mod reference_data_source_charge_groups;
mod reference_data_sources;
mod review_findings;
mod scale_out;
mod server_process;
mod site_lists;
mod site_rules;
mod sites;
mod users;
