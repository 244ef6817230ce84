//! Reading and checking the feed's files: every bad row reported with its file and line.

use std::collections::{HashMap, HashSet};
use std::path::Path;

use billing_domain::dates::{Validity, parse_date};
use billing_domain::rating::feed::{Feed, FeedCategory, FeedChargeGroup, FeedSourceChargeGroup};
use billing_domain::rating::{
    CallClassRecord, DialstringRecord, IgnoredCallClassRecord, IgnoredServiceIdRecord,
};
use billing_domain::reference_data::ChargingUnitType;
use billing_domain::resources::declaration::Declaration;
use billing_domain::resources::{
    call_classes, charge_group_categories, charge_groups, dialstrings, ignored_call_classes,
    ignored_service_ids, reference_data_source_charge_groups,
};

use crate::batch::BatchError;
use crate::batch::files::open_lines;
use crate::batch::tariff_csv::FILES;

/// The bad rows found, each `file line N: column: message`.
#[derive(Debug, Default)]
pub(super) struct Problems(pub(super) Vec<String>);

impl Problems {
    pub(super) fn add(
        &mut self,
        file: &str,
        line: u64,
        column: &str,
        message: impl std::fmt::Display,
    ) {
        self.0
            .push(format!("{file} line {line}: {column}: {message}"));
    }
}

/// One data line of a file.
pub(super) struct Line<'a> {
    pub(super) file: &'static str,
    pub(super) number: u64,
    pub(super) columns: &'static [&'static str],
    /// The declaration of the file's table: the kinds of its columns.
    pub(super) declaration: &'static Declaration,
    pub(super) record: &'a csv::StringRecord,
    pub(super) problems: &'a mut Problems,
}

impl Line<'_> {
    pub(super) fn text(&mut self, column: &str) -> String {
        let index = self.columns.iter().position(|c| *c == column);
        index
            .and_then(|index| self.record.get(index))
            .unwrap_or_default()
            .to_owned()
    }

    pub(super) fn fail(&mut self, column: &str, message: impl std::fmt::Display) {
        self.problems.add(self.file, self.number, column, message);
    }

    /// An id: 1 to [`LARGEST_IMPORTED_ID`].
    pub(super) fn id(&mut self, column: &str) -> i64 {
        match self.text(column).parse::<i64>() {
            Ok(id) if (1..=LARGEST_IMPORTED_ID).contains(&id) => id,
            _ => {
                self.fail(
                    column,
                    format!("expected an integer from 1 to {LARGEST_IMPORTED_ID}"),
                );
                0
            }
        }
    }

    /// The text of `column`, checked by the rule of its declared kind (an optional member's
    /// may be empty).
    pub(super) fn checked(&mut self, column: &str) -> String {
        let value = self.text(column);
        let Some(member) = self.declaration.member(column) else {
            self.fail(column, "is not a declared member");
            return value;
        };
        let optional = member.access != billing_domain::resources::declaration::Access::Required;
        if optional && value.is_empty() {
            return value;
        }
        if let Err(message) = member.check_text.check(&value) {
            self.fail(column, message);
        }
        value
    }

    pub(super) fn validity(&mut self) -> Validity {
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

/// The largest id a feed may give a record: 2^53 - 1, the largest integer every JSON client
/// reads exactly, which leaves the records the API creates after it room to be numbered (an
/// id of 2^63 - 1 left SQLite no next id, "database or disk is full", and PostgreSQL's
/// sequence out of range).
pub(super) const LARGEST_IMPORTED_ID: i64 = (1 << 53) - 1;

/// Calls `each` for every data line of `file` (a missing file has none); returns how many.
pub(super) fn read_file(
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
        .from_reader(open_lines(&path)?);
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
                    declaration: DECLARATIONS[index],
                    record: &record,
                    problems,
                });
            }
            // A file that cannot be read on (a line past the bound, a disk error) stops the
            // import: the reader would fail the same way again.
            Err(error) if matches!(error.kind(), csv::ErrorKind::Io(_)) => {
                return Err(BatchError(format!("{file} line {}: {error}", number + 1)));
            }
            Err(error) => {
                number += 1;
                problems.add(file, number, "row", error);
            }
        }
    }
}

/// A feed read from a directory, with the line of every record for later errors.
pub(super) struct ReadFeed {
    pub(super) feed: Feed,
    /// `(file index, id) → line`.
    pub(super) lines: HashMap<(usize, i64), u64>,
}

impl ReadFeed {
    pub(super) fn line(&self, file: usize, id: i64) -> u64 {
        self.lines.get(&(file, id)).copied().unwrap_or(0)
    }
}

/// The declaration of each file's table, by the index of [`FILES`].
pub(super) const DECLARATIONS: [&Declaration; 7] = [
    &charge_group_categories::DECLARATION,
    &charge_groups::DECLARATION,
    &reference_data_source_charge_groups::DECLARATION,
    &dialstrings::DECLARATION,
    &call_classes::DECLARATION,
    &ignored_call_classes::DECLARATION,
    &ignored_service_ids::DECLARATION,
];

pub(super) const CATEGORIES: usize = 0;
pub(super) const CHARGE_GROUPS: usize = 1;
pub(super) const SOURCE_GROUPS: usize = 2;
pub(super) const DIALSTRINGS: usize = 3;
pub(super) const CALL_CLASSES: usize = 4;
pub(super) const IGNORED_CLASSES: usize = 5;
pub(super) const IGNORED_SERVICES: usize = 6;

/// Reads every file, checking each row on its own and the references between files.
pub(super) fn read_feed(directory: &Path, problems: &mut Problems) -> Result<ReadFeed, BatchError> {
    if !directory.is_dir() {
        return Err(BatchError(format!(
            "{} is not a directory",
            directory.display()
        )));
    }
    crate::batch::tariff_csv::refuse_unknown_files(directory)?;
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
        let name = line.checked("name");
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
            name: line.checked("name"),
            charge_group_category_id: line.id("charge_group_category_id"),
            validity: line.validity(),
        };
        note(line.problems, CHARGE_GROUPS, record.id, line.number);
        feed.charge_groups.push(record);
    })?;
    read_file(directory, SOURCE_GROUPS, problems, |line| {
        let record = FeedSourceChargeGroup {
            id: line.id("id"),
            name: line.checked("name"),
            code: line.checked("code"),
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
        let dialstring = line.checked("dialstring");
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
            call_class: line.checked("call_class"),
            source_charge_group_id: group_of(line),
            validity: line.validity(),
        };
        note(line.problems, CALL_CLASSES, record.id, line.number);
        feed.call_classes.push(record);
    })?;
    read_file(directory, IGNORED_CLASSES, problems, |line| {
        let record = IgnoredCallClassRecord {
            id: line.id("id"),
            call_class: line.checked("call_class"),
            reference_data_source_id: line.id("reference_data_source_id"),
            validity: line.validity(),
        };
        note(line.problems, IGNORED_CLASSES, record.id, line.number);
        feed.ignored_call_classes.push(record);
    })?;
    read_file(directory, IGNORED_SERVICES, problems, |line| {
        let id = line.id("id");
        let service_id = line.checked("service_id");
        let description = line.checked("description");
        if !description.is_empty() {
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

#[cfg(test)]
mod tests {
    use super::*;

    /// A file's columns are its table's: `id`, then the declared members in order.
    #[test]
    fn each_file_has_its_declared_columns() {
        for ((file, columns), declaration) in FILES.iter().zip(DECLARATIONS) {
            let declared: Vec<&str> = std::iter::once("id")
                .chain(declaration.members.iter().map(|member| member.column))
                .collect();
            assert_eq!(*columns, declared.as_slice(), "{file}");
        }
    }
}
