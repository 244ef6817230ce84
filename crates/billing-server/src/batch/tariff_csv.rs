//! The tariff as CSV files in a directory (documented in docs/rating.md). Every file has a
//! header row; a missing file means no records of that kind. Any malformed line stops the load
//! with the file, line and field named.

use std::path::Path;

use billing_domain::dates::Validity;
use billing_domain::rating::engine::Tariff;
use billing_domain::rating::tariff_files::read_tariff;

use super::BatchError;
use super::files::{create_directory, csv_file, open_lines};

pub use billing_domain::rating::tariff_files::FILES;

/// Loads every file of a tariff directory ([`billing_domain::rating::tariff_files`] reads
/// them).
pub fn load(directory: &Path) -> Result<Tariff, BatchError> {
    if !directory.is_dir() {
        return Err(BatchError(format!(
            "{} is not a directory",
            directory.display()
        )));
    }
    refuse_unknown_files(directory)?;
    read_tariff(|file| {
        let path = directory.join(file);
        if !path.exists() {
            return Ok(None);
        }
        open_lines(&path).map(Some).map_err(|e| e.0)
    })
    .map_err(|e| BatchError(e.0))
}

/// Refuses a directory holding a file that is none of [`FILES`]: a misnamed file
/// (`Dialstrings.csv`, `dialstrings.csv.txt`) would be passed over, and the file it was meant
/// to be read as missing, which means no records of its kind (an import would remove every
/// dialstring of the sources it names). Hidden files (`.DS_Store`) are passed over.
pub fn refuse_unknown_files(directory: &Path) -> Result<(), BatchError> {
    let mut unknown = Vec::new();
    for entry in std::fs::read_dir(directory)
        .map_err(|e| BatchError(format!("{}: {e}", directory.display())))?
    {
        let name = entry
            .map_err(|e| BatchError(format!("{}: {e}", directory.display())))?
            .file_name()
            .to_string_lossy()
            .into_owned();
        if !name.starts_with('.') && !FILES.iter().any(|(file, _)| *file == name) {
            unknown.push(name);
        }
    }
    if unknown.is_empty() {
        return Ok(());
    }
    unknown.sort();
    let known: Vec<&str> = FILES.iter().map(|(file, _)| *file).collect();
    Err(BatchError(format!(
        "{}: {} {} not one of the tariff files ({}): rename or remove {}",
        directory.display(),
        unknown.join(", "),
        if unknown.len() == 1 { "is" } else { "are" },
        known.join(", "),
        if unknown.len() == 1 { "it" } else { "them" },
    )))
}

/// Writes a tariff as the CSV files [`load`] reads.
pub fn save(tariff: &Tariff, directory: &Path) -> Result<(), BatchError> {
    create_directory(directory)?;
    let open = |file: &str| {
        let columns = FILES
            .iter()
            .find(|(name, _)| *name == file)
            .map(|(_, c)| *c)
            .unwrap_or_default();
        csv_file(directory, file, columns)
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

    /// Two lines with one id stand for one record twice: which of them rating used was left
    /// to the order of the lines.
    #[test]
    fn an_id_on_two_lines_of_a_file_is_refused() {
        let directory = scratch("duplicate_id");
        save(&synthetic::tariff(20, 1, 5), &directory).expect("saved");
        let file = directory.join("source_charge_groups.csv");
        let text = std::fs::read_to_string(&file).expect("read");
        let first_record = text.lines().nth(1).expect("a record");
        let second_record = text.lines().nth(2).expect("a record");
        let lines = text.lines().count();
        // The first repeat in the file's order is named, not the smallest id repeated.
        std::fs::write(&file, format!("{text}{second_record}\n{first_record}\n")).expect("write");
        assert_eq!(
            load(&directory).unwrap_err().to_string(),
            format!(
                "source_charge_groups.csv line {}: id: already on line 3",
                lines + 1
            )
        );
        let _ = std::fs::remove_dir_all(directory);
    }

    /// A misnamed file is refused, not passed over (its kind would read as having no records).
    #[test]
    fn a_file_that_is_none_of_the_tariff_files_is_refused() {
        let directory = scratch("misnamed");
        save(&synthetic::tariff(20, 1, 5), &directory).expect("saved");
        std::fs::rename(
            directory.join("dialstrings.csv"),
            directory.join("Dialstrings.csv"),
        )
        .expect("rename");
        std::fs::write(directory.join(".DS_Store"), "").expect("hidden");
        let refused = load(&directory).unwrap_err().to_string();
        assert!(
            refused.ends_with("Dialstrings.csv is not one of the tariff files (charge_group_categories.csv, charge_groups.csv, source_charge_groups.csv, dialstrings.csv, call_classes.csv, ignored_call_classes.csv, ignored_service_ids.csv): rename or remove it"),
            "{refused}"
        );
        std::fs::rename(
            directory.join("Dialstrings.csv"),
            directory.join("dialstrings.csv"),
        )
        .expect("rename");
        assert!(load(&directory).is_ok(), "hidden files are passed over");
        let _ = std::fs::remove_dir_all(directory);
    }
}
