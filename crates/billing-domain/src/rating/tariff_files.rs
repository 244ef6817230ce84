//! A tariff as CSV files (documented in docs/rating.md), read from whatever the caller opens:
//! this crate does no I/O, so a batch job passes a function that opens a file by name (a
//! directory's, an archive's…). Every file has a header row; a missing file means no records
//! of that kind. Any malformed line stops the read with the file, line and field named.
//! [`read_usage`] reads a usage file's rows as rating requests.

use std::io::Read;

use super::engine::Tariff;
use super::*;
use crate::dates::{Validity, parse_date};
use crate::reference_data::ChargingUnitType;

/// What stopped a read: the file, line and field, in words.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct TariffFileError(pub String);

type BatchError = TariffFileError;

fn error(message: String) -> TariffFileError {
    TariffFileError(message)
}

/// The files of a tariff directory and their columns, in order.
pub const FILES: [(&str, &[&str]); 7] = [
    (
        "charge_group_categories.csv",
        &["id", "name", "charging_unit_type", "start_date", "end_date"],
    ),
    (
        "charge_groups.csv",
        &[
            "id",
            "name",
            "charge_group_category_id",
            "start_date",
            "end_date",
        ],
    ),
    (
        "source_charge_groups.csv",
        &[
            "id",
            "name",
            "code",
            "charge_group_id",
            "reference_data_source_id",
            "start_date",
            "end_date",
        ],
    ),
    (
        "dialstrings.csv",
        &[
            "id",
            "dialstring",
            "reference_data_source_charge_group_id",
            "start_date",
            "end_date",
        ],
    ),
    (
        "call_classes.csv",
        &[
            "id",
            "call_class",
            "reference_data_source_charge_group_id",
            "start_date",
            "end_date",
        ],
    ),
    (
        "ignored_call_classes.csv",
        &[
            "id",
            "call_class",
            "reference_data_source_id",
            "start_date",
            "end_date",
        ],
    ),
    (
        "ignored_service_ids.csv",
        &["id", "service_id", "description", "start_date", "end_date"],
    ),
];

/// One data line, with what is needed to name its fields in errors.
struct Line<'a> {
    file: &'a str,
    number: u64,
    columns: &'a [&'a str],
    record: &'a csv::StringRecord,
}

impl Line<'_> {
    fn fail(&self, column: &str, message: impl std::fmt::Display) -> BatchError {
        error(format!(
            "{} line {}: {column}: {message}",
            self.file, self.number
        ))
    }

    fn text(&self, column: &str) -> Result<&str, BatchError> {
        let index = self
            .columns
            .iter()
            .position(|c| *c == column)
            .unwrap_or(usize::MAX);
        self.record
            .get(index)
            .ok_or_else(|| self.fail(column, "missing"))
    }

    fn id(&self, column: &str) -> Result<i64, BatchError> {
        match self.text(column)?.parse::<i64>() {
            Ok(id) if id >= 1 => Ok(id),
            _ => Err(self.fail(column, "expected an integer >= 1")),
        }
    }

    fn validity(&self) -> Result<Validity, BatchError> {
        let start = parse_date(self.text("start_date")?)
            .ok_or_else(|| self.fail("start_date", "expected yyyy-MM-dd"))?;
        let end = match self.text("end_date")? {
            "" => None,
            text => Some(
                parse_date(text)
                    .ok_or_else(|| self.fail("end_date", "expected yyyy-MM-dd or nothing"))?,
            ),
        };
        Validity::new(start, end).map_err(|e| {
            self.fail(
                "end_date",
                e.errors
                    .first()
                    .map_or("invalid", |f| f.message.as_str())
                    .to_owned(),
            )
        })
    }
}

/// Reads `file` (from `open`: `Ok(None)` when it does not exist), calling `each` for every
/// data line.
fn read_file<R: Read>(
    open: &mut impl FnMut(&str) -> Result<Option<R>, String>,
    file: &str,
    columns: &[&str],
    mut each: impl FnMut(&Line<'_>) -> Result<(), BatchError>,
) -> Result<(), BatchError> {
    let Some(source) = open(file).map_err(|e| error(format!("{file}: {e}")))? else {
        return Ok(());
    };
    let mut reader = csv::ReaderBuilder::new()
        .has_headers(true)
        .from_reader(source);
    let header: Vec<String> = reader
        .headers()
        .map_err(|e| error(format!("{file}: {e}")))?
        .iter()
        .map(str::to_owned)
        .collect();
    if header != columns {
        return Err(error(format!(
            "{file} line 1: expected the header {}",
            columns.join(",")
        )));
    }
    let mut record = csv::StringRecord::new();
    let mut number = 1u64;
    // Every file's first column is its id: a second line with one would stand for the same
    // record twice (which of them rating used was left to the order of the lines).
    let mut ids: Vec<(i64, u64)> = Vec::new();
    loop {
        match reader.read_record(&mut record) {
            Ok(false) => return refuse_repeated_ids(file, ids),
            Ok(true) => {
                number += 1;
                if record.len() != columns.len() {
                    return Err(error(format!(
                        "{file} line {number}: expected {} fields, found {}",
                        columns.len(),
                        record.len()
                    )));
                }
                let line = Line {
                    file,
                    number,
                    columns,
                    record: &record,
                };
                ids.push((line.id("id")?, number));
                each(&line)?;
            }
            Err(e) => return Err(error(format!("{file} line {}: {e}", number + 1))),
        }
    }
}

/// Refuses the first line (in the file's order) whose id an earlier line of `file` has; `ids`
/// are `(id, line)`. Sorted once at the end: 16 bytes a line, where a map by id took twice
/// that and more (tens of millions of dialstrings).
fn refuse_repeated_ids(file: &str, mut ids: Vec<(i64, u64)>) -> Result<(), BatchError> {
    ids.sort_unstable();
    let repeated = ids
        .windows(2)
        .filter(|pair| pair[0].0 == pair[1].0)
        .map(|pair| (pair[1].1, pair[0].1))
        .min();
    match repeated {
        Some((line, first)) => Err(error(format!(
            "{file} line {line}: id: already on line {first}"
        ))),
        None => Ok(()),
    }
}

/// Reads every file of a tariff ([`FILES`]), each opened by `open` (`Ok(None)`: no such file).
pub fn read_tariff<R: Read>(
    mut open: impl FnMut(&str) -> Result<Option<R>, String>,
) -> Result<Tariff, TariffFileError> {
    let mut tariff = Tariff::default();
    let [
        categories,
        groups,
        source_groups,
        dialstrings,
        call_classes,
        ignored_classes,
        ignored_services,
    ] = FILES;
    read_file(&mut open, categories.0, categories.1, |line| {
        let unit = ChargingUnitType::parse("charging_unit_type", line.text("charging_unit_type")?)
            .map_err(|_| line.fail("charging_unit_type", "expected DURATION, MB or ONE_OFF"))?;
        line.validity()?;
        tariff.categories.push(ChargeGroupCategory {
            id: line.id("id")?,
            name: line.text("name")?.to_owned(),
            charging_unit_type: unit,
        });
        Ok(())
    })?;
    read_file(&mut open, groups.0, groups.1, |line| {
        line.validity()?;
        tariff.charge_groups.push(ChargeGroup {
            id: line.id("id")?,
            name: line.text("name")?.to_owned(),
            charge_group_category_id: line.id("charge_group_category_id")?,
        });
        Ok(())
    })?;
    read_file(&mut open, source_groups.0, source_groups.1, |line| {
        line.validity()?;
        tariff.source_charge_groups.push(SourceChargeGroup {
            id: line.id("id")?,
            name: line.text("name")?.to_owned(),
            code: line.text("code")?.to_owned(),
            charge_group_id: line.id("charge_group_id")?,
            reference_data_source_id: line.id("reference_data_source_id")?,
        });
        Ok(())
    })?;
    let known_groups: std::collections::HashSet<i64> =
        tariff.source_charge_groups.iter().map(|g| g.id).collect();
    read_file(&mut open, dialstrings.0, dialstrings.1, |line| {
        let text = line.text("dialstring")?;
        if !(2..=15).contains(&text.len()) || !text.bytes().all(|b| b.is_ascii_digit()) {
            return Err(line.fail("dialstring", "expected 2 to 15 digits"));
        }
        let group = line.id("reference_data_source_charge_group_id")?;
        if !known_groups.contains(&group) {
            return Err(line.fail(
                "reference_data_source_charge_group_id",
                format!("source charge group {group} is not in {}", source_groups.0),
            ));
        }
        tariff.dialstrings.push(DialstringRecord {
            id: line.id("id")?,
            dialstring: text.to_owned(),
            source_charge_group_id: group,
            validity: line.validity()?,
        });
        Ok(())
    })?;
    read_file(&mut open, call_classes.0, call_classes.1, |line| {
        let group = line.id("reference_data_source_charge_group_id")?;
        if !known_groups.contains(&group) {
            return Err(line.fail(
                "reference_data_source_charge_group_id",
                format!("source charge group {group} is not in {}", source_groups.0),
            ));
        }
        tariff.call_classes.push(CallClassRecord {
            id: line.id("id")?,
            call_class: line.text("call_class")?.to_owned(),
            source_charge_group_id: group,
            validity: line.validity()?,
        });
        Ok(())
    })?;
    read_file(&mut open, ignored_classes.0, ignored_classes.1, |line| {
        tariff.ignored_call_classes.push(IgnoredCallClassRecord {
            id: line.id("id")?,
            call_class: line.text("call_class")?.to_owned(),
            reference_data_source_id: line.id("reference_data_source_id")?,
            validity: line.validity()?,
        });
        Ok(())
    })?;
    read_file(&mut open, ignored_services.0, ignored_services.1, |line| {
        tariff.ignored_service_ids.push(IgnoredServiceIdRecord {
            id: line.id("id")?,
            service_id: line.text("service_id")?.to_owned(),
            validity: line.validity()?,
        });
        Ok(())
    })?;
    Ok(tariff)
}

/// The columns a usage file must have, in any order (other columns are ignored).
pub const USAGE_COLUMNS: [&str; 5] = [
    "reference_data_source_id",
    "date",
    "dialled_number",
    "call_class",
    "service_id",
];

/// Reads a usage CSV file, calling `each` with every row's line number and its rating
/// request, or the reason the row cannot be rated. `Err` when the header lacks a column of
/// [`USAGE_COLUMNS`] or the file cannot be read as CSV.
pub fn read_usage(
    source: impl Read,
    mut each: impl FnMut(u64, Result<RatingRequest<'_>, String>),
) -> Result<(), TariffFileError> {
    let mut reader = csv::ReaderBuilder::new()
        .has_headers(true)
        .from_reader(source);
    let header = reader
        .headers()
        .map_err(|e| error(format!("usage: {e}")))?
        .clone();
    let mut at = [0; 5];
    for (place, column) in at.iter_mut().zip(USAGE_COLUMNS) {
        *place = header
            .iter()
            .position(|name| name == column)
            .ok_or_else(|| error(format!("usage line 1: no column {column}")))?;
    }
    let mut record = csv::StringRecord::new();
    let mut number = 1u64;
    while reader
        .read_record(&mut record)
        .map_err(|e| error(format!("usage line {}: {e}", number + 1)))?
    {
        number += 1;
        let field = |index: usize| record.get(at[index]).unwrap_or_default();
        let source = field(0).parse::<i64>().ok().filter(|id| *id >= 1);
        let request = match (source, parse_date(field(1))) {
            (None, _) => Err("reference_data_source_id: expected an integer >= 1".to_owned()),
            (_, None) => Err("date: expected yyyy-MM-dd".to_owned()),
            (Some(source), Some(date)) => Ok(RatingRequest {
                reference_data_source_id: source,
                date,
                dialled_number: Some(field(2)),
                call_class: Some(field(3)),
                service_id: Some(field(4)),
            }),
        };
        each(number, request);
    }
    Ok(())
}
