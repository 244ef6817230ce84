//! The data rating reads, as a whole, loaded in one consistent snapshot: the service's index
//! at start, `billing rate --database`, `billing export reference-data`. The operator's feed
//! import, which replaces it source by source, is `feed_import`.

use std::collections::HashMap;

use billing_domain::dates::Validity;
use billing_domain::rating::feed::{Feed, FeedCategory, FeedChargeGroup, FeedSourceChargeGroup};
use billing_domain::rating::{
    CallClassRecord, DialstringRecord, IgnoredCallClassRecord, IgnoredServiceIdRecord,
};
use billing_domain::reference_data::ChargingUnitType;
use chrono::NaiveDate;
use diesel::prelude::*;

use crate::DbConnection;
use crate::error::{PersistenceError, PersistenceResult};
use crate::rating_changes;
use crate::schema::{
    call_classes, charge_group_categories, charge_groups, dialstrings, ignored_call_classes,
    ignored_service_ids, reference_data_source_charge_groups as source_groups,
    reference_data_sources,
};

/// Everything rating reads, as of one moment.
#[derive(Debug, Clone, Default)]
pub struct Snapshot {
    pub feed: Feed,
    pub source_names: HashMap<i64, String>,
    /// The latest change-log row the snapshot includes: an index built from it applies the
    /// rows after this one.
    pub last_change: i64,
}

/// An end date as stored: `None` for an open end.
type EndDate = Option<NaiveDate>;

fn validity(start: NaiveDate, end: Option<NaiveDate>) -> PersistenceResult<Validity> {
    Validity::new(start, end).map_err(|_| {
        PersistenceError::Corrupt(format!(
            "a record ends ({end:?}) before it starts ({start})"
        ))
    })
}

/// Loads everything rating reads in one read-only transaction that sees one snapshot
/// (REPEATABLE READ on PostgreSQL; a SQLite read transaction already does), ordered by id.
pub fn load(connection: &mut DbConnection) -> PersistenceResult<Snapshot> {
    connection.transaction(|c| {
        if let DbConnection::Postgres(postgres) = c {
            diesel::sql_query("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY")
                .execute(postgres)?;
        }
        let last_change = rating_changes::latest(c)?;
        let mut feed = Feed::default();
        let rows: Vec<(i64, String, String, NaiveDate, Option<NaiveDate>)> =
            charge_group_categories::table
                .select((
                    charge_group_categories::id,
                    charge_group_categories::name,
                    charge_group_categories::charging_unit_type,
                    charge_group_categories::start_date,
                    charge_group_categories::end_date,
                ))
                .order(charge_group_categories::id)
                .load(c)?;
        for (id, name, unit, start, end) in rows {
            let charging_unit_type = ChargingUnitType::parse("chargingUnitType", &unit)
                .map_err(|_| PersistenceError::Corrupt(format!("charging unit type {unit}")))?;
            feed.categories.push(FeedCategory {
                id,
                name,
                charging_unit_type,
                validity: validity(start, end)?,
            });
        }
        let rows: Vec<(i64, String, i64, NaiveDate, Option<NaiveDate>)> = charge_groups::table
            .select((
                charge_groups::id,
                charge_groups::name,
                charge_groups::charge_group_category_id,
                charge_groups::start_date,
                charge_groups::end_date,
            ))
            .order(charge_groups::id)
            .load(c)?;
        for (id, name, charge_group_category_id, start, end) in rows {
            feed.charge_groups.push(FeedChargeGroup {
                id,
                name,
                charge_group_category_id,
                validity: validity(start, end)?,
            });
        }
        let rows: Vec<(i64, String, String, i64, i64, NaiveDate, EndDate)> = source_groups::table
            .select((
                source_groups::id,
                source_groups::name,
                source_groups::code,
                source_groups::charge_group_id,
                source_groups::reference_data_source_id,
                source_groups::start_date,
                source_groups::end_date,
            ))
            .order(source_groups::id)
            .load(c)?;
        for (id, name, code, charge_group_id, reference_data_source_id, start, end) in rows {
            feed.source_charge_groups.push(FeedSourceChargeGroup {
                id,
                name,
                code,
                charge_group_id,
                reference_data_source_id,
                validity: validity(start, end)?,
            });
        }
        let rows: Vec<(i64, String, i64, NaiveDate, Option<NaiveDate>)> = dialstrings::table
            .select((
                dialstrings::id,
                dialstrings::dialstring,
                dialstrings::reference_data_source_charge_group_id,
                dialstrings::start_date,
                dialstrings::end_date,
            ))
            .order(dialstrings::id)
            .load(c)?;
        feed.dialstrings.reserve(rows.len());
        for (id, dialstring, source_charge_group_id, start, end) in rows {
            feed.dialstrings.push(DialstringRecord {
                id,
                dialstring,
                source_charge_group_id,
                validity: validity(start, end)?,
            });
        }
        let rows: Vec<(i64, String, i64, NaiveDate, Option<NaiveDate>)> = call_classes::table
            .select((
                call_classes::id,
                call_classes::call_class,
                call_classes::reference_data_source_charge_group_id,
                call_classes::start_date,
                call_classes::end_date,
            ))
            .order(call_classes::id)
            .load(c)?;
        for (id, call_class, source_charge_group_id, start, end) in rows {
            feed.call_classes.push(CallClassRecord {
                id,
                call_class,
                source_charge_group_id,
                validity: validity(start, end)?,
            });
        }
        let rows: Vec<(i64, String, i64, NaiveDate, Option<NaiveDate>)> =
            ignored_call_classes::table
                .select((
                    ignored_call_classes::id,
                    ignored_call_classes::call_class,
                    ignored_call_classes::reference_data_source_id,
                    ignored_call_classes::start_date,
                    ignored_call_classes::end_date,
                ))
                .order(ignored_call_classes::id)
                .load(c)?;
        for (id, call_class, reference_data_source_id, start, end) in rows {
            feed.ignored_call_classes.push(IgnoredCallClassRecord {
                id,
                call_class,
                reference_data_source_id,
                validity: validity(start, end)?,
            });
        }
        let rows: Vec<(i64, String, Option<String>, NaiveDate, EndDate)> =
            ignored_service_ids::table
                .select((
                    ignored_service_ids::id,
                    ignored_service_ids::service_id,
                    ignored_service_ids::description,
                    ignored_service_ids::start_date,
                    ignored_service_ids::end_date,
                ))
                .order(ignored_service_ids::id)
                .load(c)?;
        for (id, service_id, description, start, end) in rows {
            if let Some(description) = description {
                feed.ignored_service_id_descriptions.insert(id, description);
            }
            feed.ignored_service_ids.push(IgnoredServiceIdRecord {
                id,
                service_id,
                validity: validity(start, end)?,
            });
        }
        let source_names = reference_data_sources::table
            .select((reference_data_sources::id, reference_data_sources::name))
            .load::<(i64, String)>(c)?
            .into_iter()
            .collect();
        Ok(Snapshot {
            feed,
            source_names,
            last_change,
        })
    })
}
