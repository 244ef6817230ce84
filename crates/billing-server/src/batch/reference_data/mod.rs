//! `billing import reference-data DIR` and `billing export reference-data DIR`: the operator's
//! feed, in the tariff CSV format `billing rate --tariff` reads (docs/rating.md), with every
//! column kept (dates, descriptions), so an export imports back unchanged.
//!
//! An import reads and checks every file first and reports **every** bad row with its file and
//! line; then, in one transaction, checks what needs the database (sources exist, references
//! outside the files exist, ids not used by other sources), and writes in multi-row inserts:
//! all of it or nothing. It is the only way the data of sources with `siMaintained = true`
//! changes, and it leaves one audit event (action IMPORT) and one `reload` change, which every
//! running instance follows within a second.

mod export;
mod reading;

/// The audit trail's request id for a feed import (no client may send it: `request_context`).
pub const IMPORT_REQUEST_ID: &str = "cli-import-reference-data";

pub use export::export;
use std::collections::HashSet;
use std::io::{IsTerminal, Write};
use std::path::Path;
use std::time::Instant;

use billing_domain::rating::RatingIndex;
use billing_persistence::audit_events::{self, NewAuditEvent};
use billing_persistence::feed_import::{self, FeedTable};
use billing_persistence::{Database, DbConnection, PersistenceError, rating_changes, users};

use crate::batch::BatchError;
use crate::batch::tariff_csv::FILES;

use reading::{
    CALL_CLASSES, CHARGE_GROUPS, DIALSTRINGS, IGNORED_CLASSES, Problems, ReadFeed, SOURCE_GROUPS,
    read_feed,
};

/// The checks that need the database, inside the import's transaction.
fn check_against_database(
    connection: &mut DbConnection,
    read: &ReadFeed,
    problems: &mut Problems,
) -> Result<(), PersistenceError> {
    let feed = &read.feed;
    let sources = feed.sources();
    let known: HashSet<i64> = feed_import::existing_sources(connection, &sources)?
        .into_iter()
        .collect();
    for group in &feed.source_charge_groups {
        if !known.contains(&group.reference_data_source_id) {
            problems.add(
                FILES[SOURCE_GROUPS].0,
                read.line(SOURCE_GROUPS, group.id),
                "reference_data_source_id",
                format!(
                    "reference data source {} does not exist",
                    group.reference_data_source_id
                ),
            );
        }
    }
    for class in &feed.ignored_call_classes {
        if !known.contains(&class.reference_data_source_id) {
            problems.add(
                FILES[IGNORED_CLASSES].0,
                read.line(IGNORED_CLASSES, class.id),
                "reference_data_source_id",
                format!(
                    "reference data source {} does not exist",
                    class.reference_data_source_id
                ),
            );
        }
    }
    // References to records not in the files must be stored already.
    let categories_in_file: HashSet<i64> = feed.categories.iter().map(|c| c.id).collect();
    let wanted: Vec<i64> = feed
        .charge_groups
        .iter()
        .map(|g| g.charge_group_category_id)
        .filter(|id| !categories_in_file.contains(id))
        .collect();
    let stored: HashSet<i64> =
        billing_persistence::charge_group_categories::existing(connection, &wanted)?
            .into_iter()
            .collect();
    for group in &feed.charge_groups {
        let category = group.charge_group_category_id;
        if !categories_in_file.contains(&category) && !stored.contains(&category) {
            problems.add(
                FILES[CHARGE_GROUPS].0,
                read.line(CHARGE_GROUPS, group.id),
                "charge_group_category_id",
                format!("charge group category {category} is neither in the file nor stored"),
            );
        }
    }
    let groups_in_file: HashSet<i64> = feed.charge_groups.iter().map(|g| g.id).collect();
    let wanted: Vec<i64> = feed
        .source_charge_groups
        .iter()
        .map(|g| g.charge_group_id)
        .filter(|id| !groups_in_file.contains(id))
        .collect();
    let stored: HashSet<i64> = billing_persistence::charge_groups::existing(connection, &wanted)?
        .into_iter()
        .collect();
    for group in &feed.source_charge_groups {
        let charge_group = group.charge_group_id;
        if !groups_in_file.contains(&charge_group) && !stored.contains(&charge_group) {
            problems.add(
                FILES[SOURCE_GROUPS].0,
                read.line(SOURCE_GROUPS, group.id),
                "charge_group_id",
                format!("charge group {charge_group} is neither in the file nor stored"),
            );
        }
    }
    // Ids of records of other sources cannot be taken over.
    let taken = [
        (
            SOURCE_GROUPS,
            FeedTable::SourceChargeGroups,
            feed.source_charge_groups
                .iter()
                .map(|r| r.id)
                .collect::<Vec<_>>(),
        ),
        (
            DIALSTRINGS,
            FeedTable::Dialstrings,
            feed.dialstrings.iter().map(|r| r.id).collect(),
        ),
        (
            CALL_CLASSES,
            FeedTable::CallClasses,
            feed.call_classes.iter().map(|r| r.id).collect(),
        ),
        (
            IGNORED_CLASSES,
            FeedTable::IgnoredCallClasses,
            feed.ignored_call_classes.iter().map(|r| r.id).collect(),
        ),
    ];
    for (file, table, ids) in taken {
        for id in feed_import::taken_ids(connection, table, &ids, &sources)? {
            problems.add(
                FILES[file].0,
                read.line(file, id),
                "id",
                format!("id {id} is used by a record of a source this feed does not hold"),
            );
        }
    }
    Ok(())
}

/// Progress on stderr: a line rewritten in place on a terminal, one line per file otherwise.
struct Progress {
    terminal: bool,
    started: Instant,
}

impl Progress {
    fn report(&self, what: &str, done: usize, total: usize) {
        let seconds = self.started.elapsed().as_secs_f64();
        if self.terminal {
            eprint!("\r\x1b[2K{what}: {done}/{total} rows written ({seconds:.1} s)");
            if done == total {
                eprintln!();
            }
        } else if done == total {
            eprintln!("{what}: {total} rows written ({seconds:.1} s)");
        }
        let _ = std::io::stderr().flush();
    }
}

/// Why an import stopped: the bad rows (every one) or a failure of the run.
#[derive(Debug)]
pub enum ImportError {
    Rows(Vec<String>),
    Failed(String),
    Storage(PersistenceError),
}

impl From<PersistenceError> for ImportError {
    fn from(error: PersistenceError) -> Self {
        ImportError::Storage(error)
    }
}

impl billing_persistence::StorageError for ImportError {
    fn storage_fault(&self) -> Option<billing_persistence::StorageFault> {
        match self {
            ImportError::Storage(storage) => storage.fault(),
            _ => None,
        }
    }
}

impl From<BatchError> for ImportError {
    fn from(error: BatchError) -> Self {
        ImportError::Failed(error.0)
    }
}

/// `billing import reference-data DIR` as `username` (see the module documentation); returns
/// the summary to print.
pub fn import(
    database: &Database,
    directory: &Path,
    username: &str,
) -> Result<String, ImportError> {
    let started = Instant::now();
    let mut problems = Problems::default();
    eprintln!("reading {}", directory.display());
    let read = read_feed(directory, &mut problems)?;
    // The engine must be able to hold each source the feed holds: refused before writing.
    if problems.0.is_empty()
        && let Err(error) = RatingIndex::build(&read.feed.tariff())
    {
        return Err(ImportError::Failed(format!(
            "the rating index cannot hold the feed: {error}"
        )));
    }
    eprintln!(
        "read {} rows in {:.1} s; checking against the database",
        read.feed.categories.len()
            + read.feed.charge_groups.len()
            + read.feed.source_charge_groups.len()
            + read.feed.dialstrings.len()
            + read.feed.call_classes.len()
            + read.feed.ignored_call_classes.len()
            + read.feed.ignored_service_ids.len(),
        started.elapsed().as_secs_f64()
    );
    let progress = Progress {
        terminal: std::io::stderr().is_terminal(),
        started,
    };
    // Imports take turns (on PostgreSQL a lock of the server; SQLite's writers take turns
    // anyway): each one starts after the one before has committed.
    let _turn = database.lock_exclusively(billing_persistence::IMPORT_LOCK_KEY)?;
    // The tables it reads and writes are locked first, so it needs no serializable snapshot
    // (`feed_import::lock_tables`).
    let counts = database.write_guarded_by_locks(|c| {
        feed_import::lock_tables(c, &read.feed)?;
        let user = users::find_by_username(c, username)?
            .filter(|user| user.active)
            .ok_or_else(|| {
                ImportError::Failed(format!("no active user {username} to record the import as"))
            })?;
        check_against_database(c, &read, &mut problems)?;
        if !problems.0.is_empty() {
            return Err(ImportError::Rows(std::mem::take(&mut problems.0)));
        }
        let counts = feed_import::import(c, &read.feed, |what, done, total| {
            progress.report(what, done, total)
        })?;
        let summary = serde_json::json!({
            "directory": directory.display().to_string(),
            "referenceDataSourceIds": read.feed.sources(),
            "chargeGroupCategories": counts.categories,
            "chargeGroups": counts.charge_groups,
            "referenceDataSourceChargeGroups": counts.source_charge_groups,
            "dialstrings": counts.dialstrings,
            "callClasses": counts.call_classes,
            "ignoredCallClasses": counts.ignored_call_classes,
            "ignoredServiceIds": counts.ignored_service_ids,
            "replacedRecords": counts.removed,
        });
        let change = rating_changes::latest(c)?.max(1);
        audit_events::insert(
            c,
            &NewAuditEvent {
                occurred_at: billing_persistence::now(),
                user_id: user.id,
                username: user.username,
                action: billing_http::machinery::audit::IMPORT.into(),
                resource: billing_http::machinery::audit::IMPORT_RESOURCE.into(),
                record_id: change,
                before_state: None,
                after_state: Some(summary.to_string()),
                request_id: IMPORT_REQUEST_ID.into(),
            },
        )?;
        Ok(counts)
    })?;
    if !problems.0.is_empty() {
        return Err(ImportError::Rows(problems.0));
    }
    Ok(format!(
        "imported in {:.1} s (one transaction): {} charge group categories, {} charge groups, \
         {} source charge groups, {} dialstrings, {} call classes, {} ignored call classes, \
         {} ignored service ids; {} records of the imported sources replaced; sources {:?}\n",
        started.elapsed().as_secs_f64(),
        counts.categories,
        counts.charge_groups,
        counts.source_charge_groups,
        counts.dialstrings,
        counts.call_classes,
        counts.ignored_call_classes,
        counts.ignored_service_ids,
        counts.removed,
        read.feed.sources(),
    ))
}
