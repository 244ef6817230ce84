//! The tariff as CSV files in a directory (documented in docs/rating.md). Every file has a
//! header row; a missing file means no records of that kind. Any malformed line stops the load
//! with the file, line and field named.

use std::path::Path;

use billing_domain::dates::{Validity, parse_date};
use billing_domain::rating::engine::Tariff;
use billing_domain::rating::*;
use billing_domain::reference_data::ChargingUnitType;

use super::BatchError;

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
        BatchError(format!(
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

/// Reads `file` of `directory`, calling `each` for every data line.
fn read_file(
    directory: &Path,
    file: &str,
    columns: &[&str],
    mut each: impl FnMut(&Line<'_>) -> Result<(), BatchError>,
) -> Result<(), BatchError> {
    let path = directory.join(file);
    if !path.exists() {
        return Ok(());
    }
    let mut reader = csv::ReaderBuilder::new()
        .has_headers(true)
        .from_path(&path)
        .map_err(|e| BatchError(format!("{}: {e}", path.display())))?;
    let header: Vec<String> = reader
        .headers()
        .map_err(|e| BatchError(format!("{file}: {e}")))?
        .iter()
        .map(str::to_owned)
        .collect();
    if header != columns {
        return Err(BatchError(format!(
            "{file} line 1: expected the header {}",
            columns.join(",")
        )));
    }
    let mut record = csv::StringRecord::new();
    let mut number = 1u64;
    loop {
        match reader.read_record(&mut record) {
            Ok(false) => return Ok(()),
            Ok(true) => {
                number += 1;
                if record.len() != columns.len() {
                    return Err(BatchError(format!(
                        "{file} line {number}: expected {} fields, found {}",
                        columns.len(),
                        record.len()
                    )));
                }
                each(&Line {
                    file,
                    number,
                    columns,
                    record: &record,
                })?;
            }
            Err(error) => return Err(BatchError(format!("{file} line {}: {error}", number + 1))),
        }
    }
}

/// Loads every file of a tariff directory.
pub fn load(directory: &Path) -> Result<Tariff, BatchError> {
    if !directory.is_dir() {
        return Err(BatchError(format!(
            "{} is not a directory",
            directory.display()
        )));
    }
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
    read_file(directory, categories.0, categories.1, |line| {
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
    read_file(directory, groups.0, groups.1, |line| {
        line.validity()?;
        tariff.charge_groups.push(ChargeGroup {
            id: line.id("id")?,
            name: line.text("name")?.to_owned(),
            charge_group_category_id: line.id("charge_group_category_id")?,
        });
        Ok(())
    })?;
    read_file(directory, source_groups.0, source_groups.1, |line| {
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
    read_file(directory, dialstrings.0, dialstrings.1, |line| {
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
    read_file(directory, call_classes.0, call_classes.1, |line| {
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
    read_file(directory, ignored_classes.0, ignored_classes.1, |line| {
        tariff.ignored_call_classes.push(IgnoredCallClassRecord {
            id: line.id("id")?,
            call_class: line.text("call_class")?.to_owned(),
            reference_data_source_id: line.id("reference_data_source_id")?,
            validity: line.validity()?,
        });
        Ok(())
    })?;
    read_file(directory, ignored_services.0, ignored_services.1, |line| {
        tariff.ignored_service_ids.push(IgnoredServiceIdRecord {
            id: line.id("id")?,
            service_id: line.text("service_id")?.to_owned(),
            validity: line.validity()?,
        });
        Ok(())
    })?;
    Ok(tariff)
}

/// Writes a tariff as the CSV files [`load`] reads.
pub fn save(tariff: &Tariff, directory: &Path) -> Result<(), BatchError> {
    std::fs::create_dir_all(directory)?;
    let open = |file: &str| -> Result<csv::Writer<std::fs::File>, BatchError> {
        let columns = FILES
            .iter()
            .find(|(name, _)| *name == file)
            .map(|(_, c)| *c)
            .unwrap_or_default();
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
    let always = ("2024-01-01".to_owned(), String::new());
    let mut writer = open("charge_group_categories.csv")?;
    for c in &tariff.categories {
        writer.write_record([
            c.id.to_string(),
            c.name.clone(),
            c.charging_unit_type.code().to_owned(),
            always.0.clone(),
            always.1.clone(),
        ])?;
    }
    writer.flush()?;
    let mut writer = open("charge_groups.csv")?;
    for g in &tariff.charge_groups {
        writer.write_record([
            g.id.to_string(),
            g.name.clone(),
            g.charge_group_category_id.to_string(),
            always.0.clone(),
            always.1.clone(),
        ])?;
    }
    writer.flush()?;
    let mut writer = open("source_charge_groups.csv")?;
    for g in &tariff.source_charge_groups {
        writer.write_record([
            g.id.to_string(),
            g.name.clone(),
            g.code.clone(),
            g.charge_group_id.to_string(),
            g.reference_data_source_id.to_string(),
            always.0.clone(),
            always.1.clone(),
        ])?;
    }
    writer.flush()?;
    let mut writer = open("dialstrings.csv")?;
    for d in &tariff.dialstrings {
        let (start, end) = dates(&d.validity);
        writer.write_record([
            d.id.to_string(),
            d.dialstring.clone(),
            d.source_charge_group_id.to_string(),
            start,
            end,
        ])?;
    }
    writer.flush()?;
    let mut writer = open("call_classes.csv")?;
    for c in &tariff.call_classes {
        let (start, end) = dates(&c.validity);
        writer.write_record([
            c.id.to_string(),
            c.call_class.clone(),
            c.source_charge_group_id.to_string(),
            start,
            end,
        ])?;
    }
    writer.flush()?;
    let mut writer = open("ignored_call_classes.csv")?;
    for c in &tariff.ignored_call_classes {
        let (start, end) = dates(&c.validity);
        writer.write_record([
            c.id.to_string(),
            c.call_class.clone(),
            c.reference_data_source_id.to_string(),
            start,
            end,
        ])?;
    }
    writer.flush()?;
    let mut writer = open("ignored_service_ids.csv")?;
    for s in &tariff.ignored_service_ids {
        let (start, end) = dates(&s.validity);
        writer.write_record([
            s.id.to_string(),
            s.service_id.clone(),
            String::new(),
            start,
            end,
        ])?;
    }
    writer.flush()?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use billing_domain::rating::synthetic;

    use super::*;

    fn scratch(name: &str) -> std::path::PathBuf {
        std::env::temp_dir().join(format!("billing_tariff_{name}_{}", std::process::id()))
    }

    #[test]
    fn a_saved_tariff_loads_back_the_same() {
        let directory = scratch("round_trip");
        let tariff = synthetic::tariff(200, 2, 5);
        save(&tariff, &directory).expect("saved");
        let loaded = load(&directory).expect("loaded");
        assert_eq!(loaded.dialstrings, tariff.dialstrings);
        assert_eq!(loaded.call_classes, tariff.call_classes);
        assert_eq!(loaded.source_charge_groups, tariff.source_charge_groups);
        let _ = std::fs::remove_dir_all(directory);
    }

    #[test]
    fn a_malformed_tariff_stops_with_file_line_and_field() {
        let directory = scratch("malformed");
        save(&synthetic::tariff(20, 1, 5), &directory).expect("saved");
        let file = directory.join("dialstrings.csv");
        let mut text = std::fs::read_to_string(&file).expect("read");
        text.push_str("999,44x,1,2026-01-01,\n");
        std::fs::write(&file, &text).expect("write");
        insta::assert_snapshot!(load(&directory).unwrap_err(), @"dialstrings.csv line 22: dialstring: expected 2 to 15 digits");
        std::fs::write(
            &file,
            text.replace("999,44x,1,2026-01-01,", "999,44,1,2026-02-01,2026-01-01"),
        )
        .expect("write");
        insta::assert_snapshot!(load(&directory).unwrap_err(), @"dialstrings.csv line 22: end_date: must not be before startDate");
        std::fs::write(
            &file,
            text.replace("999,44x,1,2026-01-01,", "999,44,777,2026-01-01,"),
        )
        .expect("write");
        insta::assert_snapshot!(load(&directory).unwrap_err(), @"dialstrings.csv line 22: reference_data_source_charge_group_id: source charge group 777 is not in source_charge_groups.csv");
        std::fs::write(&file, text.replace("999,44x,1,2026-01-01,\n", "")).expect("write");
        std::fs::write(directory.join("call_classes.csv"), "id,class\n").expect("write");
        insta::assert_snapshot!(load(&directory).unwrap_err(), @"call_classes.csv line 1: expected the header id,call_class,reference_data_source_charge_group_id,start_date,end_date");
        let _ = std::fs::remove_dir_all(directory);
    }
}
