//! `billing export reference-data DIR`.

use std::path::Path;
use std::time::Instant;

use billing_domain::dates::Validity;
use billing_persistence::rating_data::{self};
use billing_persistence::{Database, PersistenceError};

use crate::batch::BatchError;
use crate::batch::files::{create_directory, csv_file};
use crate::batch::tariff_csv::FILES;

use super::reading::{
    CALL_CLASSES, CATEGORIES, CHARGE_GROUPS, DIALSTRINGS, IGNORED_CLASSES, IGNORED_SERVICES,
    SOURCE_GROUPS,
};

/// `billing export reference-data DIR`: everything rating reads, as of one snapshot, in the
/// files `import` and `billing rate --tariff` read (ordered by id).
pub fn export(database: &Database, directory: &Path) -> Result<String, BatchError> {
    let started = Instant::now();
    let snapshot = database
        .read(rating_data::load)
        .map_err(|e: PersistenceError| BatchError(e.to_string()))?;
    let feed = &snapshot.feed;
    create_directory(directory)?;
    let open = |index: usize| {
        let (file, columns) = FILES[index];
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
