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

use std::collections::{HashMap, HashSet};
use std::io::{IsTerminal, Write};
use std::path::Path;
use std::time::Instant;

use billing_domain::dates::{Validity, parse_date};
use billing_domain::kinds::{Kind, Text};
use billing_domain::rating::feed::{Feed, FeedCategory, FeedChargeGroup, FeedSourceChargeGroup};
use billing_domain::rating::{
    CallClassRecord, DialstringRecord, IgnoredCallClassRecord, IgnoredServiceIdRecord, RatingIndex,
};
use billing_domain::reference_data::ChargingUnitType;
use billing_persistence::audit_events::{self, NewAuditEvent};
use billing_persistence::rating_data::{self, FeedTable};
use billing_persistence::{Database, DbConnection, PersistenceError, rating_changes, users};

use super::BatchError;
use super::tariff_csv::FILES;

/// The bad rows found, each `file line N: column: message`.
#[derive(Debug, Default)]
struct Problems(Vec<String>);

impl Problems {
    fn add(&mut self, file: &str, line: u64, column: &str, message: impl std::fmt::Display) {
        self.0
            .push(format!("{file} line {line}: {column}: {message}"));
    }
}

/// One data line of a file.
struct Line<'a> {
    file: &'static str,
    number: u64,
    columns: &'static [&'static str],
    record: &'a csv::StringRecord,
    problems: &'a mut Problems,
}

impl Line<'_> {
    fn text(&mut self, column: &str) -> String {
        let index = self.columns.iter().position(|c| *c == column);
        index
            .and_then(|index| self.record.get(index))
            .unwrap_or_default()
            .to_owned()
    }

    fn fail(&mut self, column: &str, message: impl std::fmt::Display) {
        self.problems.add(self.file, self.number, column, message);
    }

    fn id(&mut self, column: &str) -> i64 {
        match self.text(column).parse::<i64>() {
            Ok(id) if id >= 1 => id,
            _ => {
                self.fail(column, "expected an integer >= 1");
                0
            }
        }
    }

    fn checked<K: Kind<Value = String>>(&mut self, column: &str) -> String {
        let value = self.text(column);
        if let Err(message) = K::check(&value) {
            self.fail(column, message);
        }
        value
    }

    fn validity(&mut self) -> Validity {
        let fallback = Validity::starting(chrono::NaiveDate::MIN);
        let Some(start) = parse_date(&self.text("start_date")) else {
            self.fail("start_date", "expected yyyy-MM-dd");
            return fallback;
        };
        let end = match self.text("end_date").as_str() {
            "" => None,
            text => match parse_date(text) {
                Some(date) => Some(date),
                None => {
                    self.fail("end_date", "expected yyyy-MM-dd or nothing");
                    return fallback;
                }
            },
        };
        Validity::new(start, end).unwrap_or_else(|_| {
            self.fail("end_date", "must not be before start_date");
            fallback
        })
    }
}

/// Calls `each` for every data line of `file` (a missing file has none); returns how many.
fn read_file(
    directory: &Path,
    index: usize,
    problems: &mut Problems,
    mut each: impl FnMut(&mut Line<'_>),
) -> Result<u64, BatchError> {
    let (file, columns) = FILES[index];
    let path = directory.join(file);
    if !path.exists() {
        return Ok(0);
    }
    let mut reader = csv::ReaderBuilder::new()
        .has_headers(true)
        .flexible(true)
        .from_path(&path)
        .map_err(|e| BatchError(format!("{}: {e}", path.display())))?;
    let header: Vec<String> = match reader.headers() {
        Ok(header) => header.iter().map(str::to_owned).collect(),
        Err(error) => {
            problems.add(file, 1, "header", error);
            return Ok(0);
        }
    };
    if header != columns {
        problems.add(file, 1, "header", format!("expected {}", columns.join(",")));
        return Ok(0);
    }
    let mut record = csv::StringRecord::new();
    let mut number = 1u64;
    loop {
        match reader.read_record(&mut record) {
            Ok(false) => return Ok(number - 1),
            Ok(true) => {
                number += 1;
                if record.len() != columns.len() {
                    problems.add(
                        file,
                        number,
                        "row",
                        format!("expected {} fields, found {}", columns.len(), record.len()),
                    );
                    continue;
                }
                each(&mut Line {
                    file,
                    number,
                    columns,
                    record: &record,
                    problems,
                });
            }
            Err(error) => {
                number += 1;
                problems.add(file, number, "row", error);
            }
        }
    }
}

/// A feed read from a directory, with the line of every record for later errors.
struct ReadFeed {
    feed: Feed,
    /// `(file index, id) → line`.
    lines: HashMap<(usize, i64), u64>,
}

impl ReadFeed {
    fn line(&self, file: usize, id: i64) -> u64 {
        self.lines.get(&(file, id)).copied().unwrap_or(0)
    }
}

const CATEGORIES: usize = 0;
const CHARGE_GROUPS: usize = 1;
const SOURCE_GROUPS: usize = 2;
const DIALSTRINGS: usize = 3;
const CALL_CLASSES: usize = 4;
const IGNORED_CLASSES: usize = 5;
const IGNORED_SERVICES: usize = 6;

/// Reads every file, checking each row on its own and the references between files.
fn read_feed(directory: &Path, problems: &mut Problems) -> Result<ReadFeed, BatchError> {
    if !directory.is_dir() {
        return Err(BatchError(format!(
            "{} is not a directory",
            directory.display()
        )));
    }
    let mut feed = Feed::default();
    let mut lines: HashMap<(usize, i64), u64> = HashMap::new();
    let mut note = |problems: &mut Problems, file: usize, id: i64, line: u64| {
        if id == 0 {
            return;
        }
        if let Some(first) = lines.insert((file, id), line) {
            problems.add(
                FILES[file].0,
                line,
                "id",
                format!("id {id} is already on line {first}"),
            );
        }
    };
    read_file(directory, CATEGORIES, problems, |line| {
        let id = line.id("id");
        let name = line.checked::<Text<1, 50>>("name");
        let unit_text = line.text("charging_unit_type");
        let unit = ChargingUnitType::parse("charging_unit_type", &unit_text);
        if unit.is_err() {
            line.fail("charging_unit_type", "expected DURATION, MB or ONE_OFF");
        }
        let validity = line.validity();
        note(line.problems, CATEGORIES, id, line.number);
        if let Ok(charging_unit_type) = unit {
            feed.categories.push(FeedCategory {
                id,
                name,
                charging_unit_type,
                validity,
            });
        }
    })?;
    read_file(directory, CHARGE_GROUPS, problems, |line| {
        let record = FeedChargeGroup {
            id: line.id("id"),
            name: line.checked::<Text<1, 255>>("name"),
            charge_group_category_id: line.id("charge_group_category_id"),
            validity: line.validity(),
        };
        note(line.problems, CHARGE_GROUPS, record.id, line.number);
        feed.charge_groups.push(record);
    })?;
    read_file(directory, SOURCE_GROUPS, problems, |line| {
        let record = FeedSourceChargeGroup {
            id: line.id("id"),
            name: line.checked::<Text<1, 255>>("name"),
            code: line.checked::<Text<1, 255>>("code"),
            charge_group_id: line.id("charge_group_id"),
            reference_data_source_id: line.id("reference_data_source_id"),
            validity: line.validity(),
        };
        note(line.problems, SOURCE_GROUPS, record.id, line.number);
        feed.source_charge_groups.push(record);
    })?;
    let groups: HashSet<i64> = feed.source_charge_groups.iter().map(|g| g.id).collect();
    let group_of = |line: &mut Line<'_>| {
        let group = line.id("reference_data_source_charge_group_id");
        if group != 0 && !groups.contains(&group) {
            line.fail(
                "reference_data_source_charge_group_id",
                format!(
                    "source charge group {group} is not in {}",
                    FILES[SOURCE_GROUPS].0
                ),
            );
        }
        group
    };
    read_file(directory, DIALSTRINGS, problems, |line| {
        let id = line.id("id");
        let dialstring = line.text("dialstring");
        if !(2..=15).contains(&dialstring.len()) || !dialstring.bytes().all(|b| b.is_ascii_digit())
        {
            line.fail("dialstring", "expected 2 to 15 digits");
        }
        let record = DialstringRecord {
            id,
            dialstring,
            source_charge_group_id: group_of(line),
            validity: line.validity(),
        };
        note(line.problems, DIALSTRINGS, record.id, line.number);
        feed.dialstrings.push(record);
    })?;
    read_file(directory, CALL_CLASSES, problems, |line| {
        let record = CallClassRecord {
            id: line.id("id"),
            call_class: line.checked::<Text<1, 255>>("call_class"),
            source_charge_group_id: group_of(line),
            validity: line.validity(),
        };
        note(line.problems, CALL_CLASSES, record.id, line.number);
        feed.call_classes.push(record);
    })?;
    read_file(directory, IGNORED_CLASSES, problems, |line| {
        let record = IgnoredCallClassRecord {
            id: line.id("id"),
            call_class: line.checked::<Text<1, 255>>("call_class"),
            reference_data_source_id: line.id("reference_data_source_id"),
            validity: line.validity(),
        };
        note(line.problems, IGNORED_CLASSES, record.id, line.number);
        feed.ignored_call_classes.push(record);
    })?;
    read_file(directory, IGNORED_SERVICES, problems, |line| {
        let id = line.id("id");
        let service_id = line.checked::<Text<1, 255>>("service_id");
        let description = line.text("description");
        if !description.is_empty() {
            if let Err(message) = Text::<1, 255>::check(&description) {
                line.fail("description", message);
            }
            feed.ignored_service_id_descriptions.insert(id, description);
        }
        let record = IgnoredServiceIdRecord {
            id,
            service_id,
            validity: line.validity(),
        };
        note(line.problems, IGNORED_SERVICES, record.id, line.number);
        feed.ignored_service_ids.push(record);
    })?;
    Ok(ReadFeed { feed, lines })
}

/// The checks that need the database, inside the import's transaction.
fn check_against_database(
    connection: &mut DbConnection,
    read: &ReadFeed,
    problems: &mut Problems,
) -> Result<(), PersistenceError> {
    let feed = &read.feed;
    let sources = feed.sources();
    let known: HashSet<i64> = rating_data::existing_sources(connection, &sources)?
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
        for id in rating_data::taken_ids(connection, table, &ids, &sources)? {
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
    let counts = database.write(|c| {
        let user = users::find_by_username(c, username)?
            .filter(|user| user.active)
            .ok_or_else(|| {
                ImportError::Failed(format!("no active user {username} to record the import as"))
            })?;
        check_against_database(c, &read, &mut problems)?;
        if !problems.0.is_empty() {
            return Err(ImportError::Rows(std::mem::take(&mut problems.0)));
        }
        let counts = rating_data::import(c, &read.feed, |what, done, total| {
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
                action: "IMPORT".into(),
                resource: "reference-data".into(),
                record_id: change,
                before_state: None,
                after_state: Some(summary.to_string()),
                request_id: "cli-import-reference-data".into(),
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

/// `billing export reference-data DIR`: everything rating reads, as of one snapshot, in the
/// files `import` and `billing rate --tariff` read (ordered by id).
pub fn export(database: &Database, directory: &Path) -> Result<String, BatchError> {
    let started = Instant::now();
    let snapshot = database
        .read(rating_data::load)
        .map_err(|e: PersistenceError| BatchError(e.to_string()))?;
    let feed = &snapshot.feed;
    std::fs::create_dir_all(directory)?;
    let open = |index: usize| -> Result<csv::Writer<std::fs::File>, BatchError> {
        let (file, columns) = FILES[index];
        let mut writer = csv::Writer::from_path(directory.join(file))?;
        writer.write_record(columns)?;
        Ok(writer)
    };
    let dates = |validity: &Validity| {
        (
            validity.start_date().to_string(),
            validity
                .end_date()
                .map(|d| d.to_string())
                .unwrap_or_default(),
        )
    };
    let mut writer = open(CATEGORIES)?;
    for c in &feed.categories {
        let (start, end) = dates(&c.validity);
        writer.write_record([
            c.id.to_string().as_str(),
            &c.name,
            c.charging_unit_type.code(),
            &start,
            &end,
        ])?;
    }
    writer.flush()?;
    let mut writer = open(CHARGE_GROUPS)?;
    for g in &feed.charge_groups {
        let (start, end) = dates(&g.validity);
        writer.write_record([
            g.id.to_string().as_str(),
            &g.name,
            &g.charge_group_category_id.to_string(),
            &start,
            &end,
        ])?;
    }
    writer.flush()?;
    let mut writer = open(SOURCE_GROUPS)?;
    for g in &feed.source_charge_groups {
        let (start, end) = dates(&g.validity);
        writer.write_record([
            g.id.to_string().as_str(),
            &g.name,
            &g.code,
            &g.charge_group_id.to_string(),
            &g.reference_data_source_id.to_string(),
            &start,
            &end,
        ])?;
    }
    writer.flush()?;
    let mut writer = open(DIALSTRINGS)?;
    for d in &feed.dialstrings {
        let (start, end) = dates(&d.validity);
        writer.write_record([
            d.id.to_string().as_str(),
            &d.dialstring,
            &d.source_charge_group_id.to_string(),
            &start,
            &end,
        ])?;
    }
    writer.flush()?;
    let mut writer = open(CALL_CLASSES)?;
    for c in &feed.call_classes {
        let (start, end) = dates(&c.validity);
        writer.write_record([
            c.id.to_string().as_str(),
            &c.call_class,
            &c.source_charge_group_id.to_string(),
            &start,
            &end,
        ])?;
    }
    writer.flush()?;
    let mut writer = open(IGNORED_CLASSES)?;
    for c in &feed.ignored_call_classes {
        let (start, end) = dates(&c.validity);
        writer.write_record([
            c.id.to_string().as_str(),
            &c.call_class,
            &c.reference_data_source_id.to_string(),
            &start,
            &end,
        ])?;
    }
    writer.flush()?;
    let mut writer = open(IGNORED_SERVICES)?;
    for s in &feed.ignored_service_ids {
        let (start, end) = dates(&s.validity);
        let description = feed
            .ignored_service_id_descriptions
            .get(&s.id)
            .map_or("", String::as_str);
        writer.write_record([
            s.id.to_string().as_str(),
            &s.service_id,
            description,
            &start,
            &end,
        ])?;
    }
    writer.flush()?;
    Ok(format!(
        "exported {} dialstrings, {} call classes, {} source charge groups, {} charge groups, \
         {} categories, {} ignored call classes, {} ignored service ids to {} in {:.1} s\n",
        feed.dialstrings.len(),
        feed.call_classes.len(),
        feed.source_charge_groups.len(),
        feed.charge_groups.len(),
        feed.categories.len(),
        feed.ignored_call_classes.len(),
        feed.ignored_service_ids.len(),
        directory.display(),
        started.elapsed().as_secs_f64()
    ))
}
