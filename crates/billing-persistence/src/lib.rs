//! Storage for the billing service: one Diesel codebase on SQLite (the embedded default) and
//! PostgreSQL, chosen at run time by the database URL.
//!
//! **Only this crate knows Diesel and SQL.** It takes domain drafts and returns rows; it never
//! sees HTTP. Money and rates are stored as scaled integers, never floats.

pub mod bulk_load;
pub mod connection;
pub mod counts;
pub mod error;
pub mod feed_import;
#[macro_use]
pub mod list;
pub mod references;
pub mod schema;
pub mod scratch;
pub mod search;
pub mod summaries;

pub mod adhoc_bill_runs;
pub mod api_keys;
pub mod audit_events;
pub mod billing_cycles;
pub mod call_classes;
pub mod charge_group_categories;
pub mod charge_groups;
mod children;
pub mod contract_owners;
pub mod countries;
pub mod currencies;
pub mod currency_rates;
pub mod custom_field_definitions;
pub mod customers;
pub mod dialstrings;
pub mod idempotency;
pub mod ignored_call_classes;
pub mod ignored_service_ids;
pub mod in_force;
pub mod inventory_items;
pub mod invoice_templates;
pub mod locales;
pub mod payment_provider_mandates;
pub mod rating_changes;
pub mod rating_data;
pub mod reference_data_source_charge_groups;
pub mod reference_data_sources;
pub mod refresh_tokens;
pub mod sign_in_attempts;
pub mod sites;
pub mod tax_bands;
pub mod users;
mod write_turns;

pub use children::*;

pub use connection::{
    Backend, Database, DatabaseConfig, DbConnection, IMPORT_LOCK_KEY, Opened, PoolStatus, Pooled,
    ServeClaim, SessionLock, StartLock, WRITE_ATTEMPTS, claim_for_serving,
    create_owner_only_directory, run_undone_unless,
};
pub use error::{PersistenceError, StorageError, StorageFault};

/// A declared table's storage, derived from its declaration by the one parser of the grammar
/// (`billing_declare`): invoke as `billing_domain::charge_groups!(crate::stored_resource)` in
/// the module named after the table (`stored_child` for an owned child table).
pub use billing_declare::{nested_sort_arms, stored_child, stored_resource};

// The code `stored_resource!` writes names this crate by its name, here as elsewhere.
extern crate self as billing_persistence;

/// The most values one statement binds in an `IN (…)` list. SQLite refuses a statement with
/// more than 32,766 bound values; this leaves room for the statement's other parameters, and
/// PostgreSQL's 65,535 is further still.
pub const MAX_IN_LIST: usize = 10_000;

/// Runs `query` once for each slice of at most [`MAX_IN_LIST`] of `values` and puts their rows
/// together (in slice order): an `IN (…)` over any number of values.
pub fn in_chunks<V, R>(
    values: &[V],
    mut query: impl FnMut(&[V]) -> error::PersistenceResult<Vec<R>>,
) -> error::PersistenceResult<Vec<R>> {
    let mut rows = Vec::new();
    for chunk in values.chunks(MAX_IN_LIST) {
        rows.extend(query(chunk)?);
    }
    Ok(rows)
}

/// The current time as stored: UTC, truncated to microseconds so both backends agree.
pub fn now() -> chrono::NaiveDateTime {
    use chrono::{SubsecRound, Utc};
    Utc::now().naive_utc().trunc_subsecs(6)
}
