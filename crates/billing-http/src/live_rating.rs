//! The rating index the service answers `POST /v1/rating/lookups` from: built from the database
//! at start (every source), then kept current from the change log (`rating_changes`).
//!
//! - A write of rating data through the API records its change (the record before and after,
//!   as the API shows it) in its own transaction, from the resource's hooks
//!   ([`record_change`]). A rolled-back write records nothing.
//! - After the commit, the same request applies every change past the last one this instance
//!   applied ([`LiveRating::catch_up`], from `Resource::after_commit`) before it answers: the
//!   next request rates with the write. One record at a time, no rebuild.
//! - Every instance also polls the change log ([`follow`], every 250 ms), so a change made
//!   through another instance on the same database is rated here within a second.
//! - A `reload` change (a feed import), a change the index refuses, or a follower idle for
//!   longer than [`RELOAD_WHEN_IDLE`] (its next change may have been pruned) loads everything
//!   again from one snapshot, built beside the index in use and swapped in.
//! - A source whose dialstrings do not fit the engine's limit is left out of the index and
//!   marked full: lookups naming it answer 507 until a reload finds it fits again.

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Mutex, RwLock, RwLockReadGuard};
use std::time::{Duration, Instant};

use actix_web::web;
use billing_domain::dates::Validity;
use billing_domain::rating::feed::Labels;
use billing_domain::rating::{
    CallClassRecord, ChangeError, ChargeGroup, ChargeGroupCategory, DialstringRecord,
    IgnoredCallClassRecord, IgnoredServiceIdRecord, RatingIndex, SourceChargeGroup,
};
use billing_domain::reference_data::ChargingUnitType;
use billing_persistence::rating_changes::{self, ChangeRow};
use billing_persistence::rating_data::{self, Snapshot};
use billing_persistence::{Database, DbConnection, PersistenceError};
use chrono::NaiveDate;
use serde::Deserialize;

use crate::error::ApiError;
use crate::machinery::resource::ApiResult;
use crate::state::AppState;

/// How often every instance looks for changes made elsewhere.
pub const POLL_EVERY: Duration = Duration::from_millis(250);
/// How long the change log keeps a change.
pub const KEEP_CHANGES: Duration = Duration::from_secs(60 * 60);
/// A follower that has not caught up for this long reloads instead (its next change may
/// have been pruned meanwhile): well inside [`KEEP_CHANGES`].
pub const RELOAD_WHEN_IDLE: Duration = Duration::from_secs(10 * 60);
/// Changes read from the log per query.
const PAGE: i64 = 1000;

/// The index, what a lookup shows beside it, and the sources left out because they are full.
#[derive(Debug, Default)]
pub struct Live {
    pub index: RatingIndex,
    pub labels: Labels,
    /// Source id → why it is not in the index (its dialstrings exceed the engine's limit).
    pub full: BTreeMap<i64, String>,
}

#[derive(Debug)]
struct Follower {
    last_change: i64,
    caught_up_at: Instant,
}

/// The live rating index of one instance (see the module documentation).
#[derive(Debug)]
pub struct LiveRating {
    live: RwLock<Live>,
    follower: Mutex<Follower>,
    word_limit: Option<usize>,
    /// Times the index was loaded again whole since start-up (`/metrics`).
    reloads: AtomicU64,
}

#[derive(Debug, thiserror::Error)]
pub enum LoadError {
    #[error(transparent)]
    Storage(#[from] PersistenceError),
    #[error("the stored reference data cannot be indexed: {0}")]
    Index(ChangeError),
}

/// Builds the index of a snapshot; a source over the word limit is left out and marked full.
fn build(snapshot: &Snapshot, word_limit: Option<usize>) -> Result<Live, LoadError> {
    let mut tariff = snapshot.feed.tariff();
    let mut full = BTreeMap::new();
    loop {
        let built = match word_limit {
            Some(words) => RatingIndex::build_with_word_limit(&tariff, words),
            None => RatingIndex::build(&tariff),
        };
        match built {
            Ok(index) => {
                return Ok(Live {
                    index,
                    labels: snapshot.feed.labels(snapshot.source_names.clone()),
                    full,
                });
            }
            Err(error @ ChangeError::Capacity { source_id, .. }) => {
                tracing::error!(%error, source_id, "a source is left out of the rating index");
                full.insert(source_id, error.to_string());
                let groups: std::collections::HashSet<i64> = tariff
                    .source_charge_groups
                    .iter()
                    .filter(|group| group.reference_data_source_id == source_id)
                    .map(|group| group.id)
                    .collect();
                tariff
                    .dialstrings
                    .retain(|record| !groups.contains(&record.source_charge_group_id));
            }
            Err(error) => return Err(LoadError::Index(error)),
        }
    }
}

impl LiveRating {
    /// Loads every source's rating data from `database`. `word_limit` lowers the engine's
    /// per-source limit (tests reach it).
    pub fn load(database: &Database, word_limit: Option<usize>) -> Result<Self, LoadError> {
        let snapshot = database.read(rating_data::load)?;
        let live = build(&snapshot, word_limit)?;
        Ok(Self {
            live: RwLock::new(live),
            follower: Mutex::new(Follower {
                last_change: snapshot.last_change,
                caught_up_at: Instant::now(),
            }),
            word_limit,
            reloads: AtomicU64::new(0),
        })
    }

    /// Times the index was loaded again whole since start-up: a feed import, a change it
    /// could not apply in place, a source that was full, or a follower idle too long.
    pub fn reloads(&self) -> u64 {
        self.reloads.load(Ordering::Relaxed)
    }

    /// The index as it is now; hold the guard for a whole batch of lookups.
    pub fn read(&self) -> RwLockReadGuard<'_, Live> {
        self.live
            .read()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// Applies every change recorded after the last one applied, in order; reloads when one
    /// asks for it or cannot be applied. Returns how many changes were read.
    pub fn catch_up(&self, database: &Database) -> Result<usize, LoadError> {
        let mut follower = self
            .follower
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        if follower.caught_up_at.elapsed() > RELOAD_WHEN_IDLE {
            self.reload(database, &mut follower)?;
            return Ok(0);
        }
        let mut read = 0;
        let mut reload = false;
        loop {
            let after = follower.last_change;
            let rows = database.read(|c| rating_changes::after(c, after, PAGE))?;
            read += rows.len();
            if rows
                .iter()
                .any(|row| row.resource == rating_changes::RELOAD)
            {
                reload = true;
                break;
            }
            let mut live = self
                .live
                .write()
                .unwrap_or_else(|poisoned| poisoned.into_inner());
            for row in &rows {
                if let Err(error) = apply(&mut live, row) {
                    tracing::warn!(change = row.id, resource = %row.resource, %error, "reloading the rating index");
                    reload = true;
                    break;
                }
                follower.last_change = row.id;
            }
            drop(live);
            if reload || rows.len() < PAGE as usize {
                break;
            }
        }
        // A source left out because it was full comes back once its data fits again.
        if reload || (read > 0 && !self.read().full.is_empty()) {
            self.reload(database, &mut follower)?;
        }
        follower.caught_up_at = Instant::now();
        Ok(read)
    }

    /// Loads everything again from one snapshot, beside the index in use, then swaps.
    fn reload(&self, database: &Database, follower: &mut Follower) -> Result<(), LoadError> {
        let snapshot = database.read(rating_data::load)?;
        let live = build(&snapshot, self.word_limit)?;
        *self
            .live
            .write()
            .unwrap_or_else(|poisoned| poisoned.into_inner()) = live;
        follower.last_change = snapshot.last_change;
        follower.caught_up_at = Instant::now();
        self.reloads.fetch_add(1, Ordering::Relaxed);
        Ok(())
    }

    /// [`Self::catch_up`] for `Resource::after_commit`: the write has committed whatever
    /// happens, so a failure is logged (the poller retries within [`POLL_EVERY`]).
    pub fn after_commit(state: &AppState) {
        if let Err(error) = state.rating.catch_up(&state.database) {
            tracing::error!(%error, "the rating index could not catch up after a write");
        }
    }
}

/// Records a change of rating data in the current transaction (see the module documentation):
/// `resource` is the API path of the record, `before` and `after` its JSON forms.
pub fn record_change<T: serde::Serialize>(
    connection: &mut DbConnection,
    resource: &str,
    id: i64,
    before: Option<&T>,
    after: Option<&T>,
) -> ApiResult<()> {
    let text = |record: Option<&T>| {
        record
            .map(serde_json::to_string)
            .transpose()
            .map_err(|e| ApiError::internal(format!("cannot record a rating change: {e}")))
    };
    rating_changes::record(
        connection,
        resource,
        id,
        text(before)?.as_deref(),
        text(after)?.as_deref(),
    )?;
    Ok(())
}

/// Catches up every [`POLL_EVERY`] (changes made through other instances or an import) and
/// prunes changes older than [`KEEP_CHANGES`] every minute, on the current actix system
/// until it stops.
pub fn follow(state: web::Data<AppState>) {
    actix_web::rt::spawn(async move {
        let mut ticks = actix_web::rt::time::interval(POLL_EVERY);
        let mut polls: u64 = 0;
        loop {
            ticks.tick().await;
            polls += 1;
            let shared = state.clone();
            let prune = polls.is_multiple_of(240);
            let outcome = web::block(move || {
                if prune {
                    let cutoff = billing_persistence::now()
                        - chrono::Duration::from_std(KEEP_CHANGES).unwrap_or_default();
                    shared
                        .database
                        .write(|c| rating_changes::prune(c, cutoff))?;
                }
                shared.rating.catch_up(&shared.database)
            })
            .await;
            match outcome {
                Ok(Ok(_)) => {}
                Ok(Err(error)) => tracing::warn!(%error, "the rating index could not catch up"),
                Err(error) => tracing::warn!(%error, "the rating follower did not run"),
            }
        }
    });
}

// The records as the API shows them (and the change log keeps them).

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct Dated {
    start_date: NaiveDate,
    end_date: Option<NaiveDate>,
}

impl Dated {
    fn validity(&self) -> Result<Validity, ApplyError> {
        Validity::new(self.start_date, self.end_date)
            .map_err(|_| ApplyError::Unreadable("an end date before the start date".into()))
    }
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct DialstringJson {
    id: i64,
    dialstring: String,
    reference_data_source_charge_group_id: i64,
    #[serde(flatten)]
    dates: Dated,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct CallClassJson {
    id: i64,
    call_class: String,
    reference_data_source_charge_group_id: i64,
    #[serde(flatten)]
    dates: Dated,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct IgnoredCallClassJson {
    id: i64,
    call_class: String,
    reference_data_source_id: i64,
    #[serde(flatten)]
    dates: Dated,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct IgnoredServiceIdJson {
    id: i64,
    service_id: String,
    #[serde(flatten)]
    dates: Dated,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct SourceChargeGroupJson {
    id: i64,
    name: String,
    code: String,
    charge_group_id: i64,
    reference_data_source_id: i64,
    #[serde(flatten)]
    dates: Dated,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct ChargeGroupJson {
    id: i64,
    name: String,
    charge_group_category_id: i64,
    #[serde(flatten)]
    dates: Dated,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct CategoryJson {
    id: i64,
    name: String,
    charging_unit_type: String,
    #[serde(flatten)]
    dates: Dated,
}

#[derive(Deserialize)]
struct SourceJson {
    id: i64,
    name: String,
}

/// Why a change could not be applied: the index reloads.
#[derive(Debug, thiserror::Error)]
enum ApplyError {
    #[error("unreadable change: {0}")]
    Unreadable(String),
    #[error(transparent)]
    Index(#[from] ChangeError),
}

fn parse<T: serde::de::DeserializeOwned>(text: &Option<String>) -> Result<Option<T>, ApplyError> {
    text.as_deref()
        .map(serde_json::from_str)
        .transpose()
        .map_err(|e| ApplyError::Unreadable(e.to_string()))
}

fn dialstring(json: DialstringJson) -> Result<DialstringRecord, ApplyError> {
    Ok(DialstringRecord {
        id: json.id,
        dialstring: json.dialstring,
        source_charge_group_id: json.reference_data_source_charge_group_id,
        validity: json.dates.validity()?,
    })
}

fn call_class(json: CallClassJson) -> Result<CallClassRecord, ApplyError> {
    Ok(CallClassRecord {
        id: json.id,
        call_class: json.call_class,
        source_charge_group_id: json.reference_data_source_charge_group_id,
        validity: json.dates.validity()?,
    })
}

fn ignored_call_class(json: IgnoredCallClassJson) -> Result<IgnoredCallClassRecord, ApplyError> {
    Ok(IgnoredCallClassRecord {
        id: json.id,
        call_class: json.call_class,
        reference_data_source_id: json.reference_data_source_id,
        validity: json.dates.validity()?,
    })
}

fn ignored_service_id(json: IgnoredServiceIdJson) -> Result<IgnoredServiceIdRecord, ApplyError> {
    Ok(IgnoredServiceIdRecord {
        id: json.id,
        service_id: json.service_id,
        validity: json.dates.validity()?,
    })
}

/// Applies one change of the log to the index and its labels.
fn apply(live: &mut Live, row: &ChangeRow) -> Result<(), ApplyError> {
    let Live { index, labels, .. } = live;
    let (before, after) = (&row.before_state, &row.after_state);
    match row.resource.as_str() {
        "dialstrings" => {
            let before = parse::<DialstringJson>(before)?
                .map(dialstring)
                .transpose()?;
            let after = parse::<DialstringJson>(after)?
                .map(dialstring)
                .transpose()?;
            match (before, after) {
                (Some(before), Some(after)) => index.replace_dialstring(&before, &after)?,
                (Some(before), None) => {
                    index.remove_dialstring(&before);
                }
                (None, Some(after)) => index.add_dialstring(&after)?,
                (None, None) => {}
            }
        }
        "call-classes" => {
            if let Some(before) = parse::<CallClassJson>(before)?
                .map(call_class)
                .transpose()?
            {
                index.remove_call_class(&before);
            }
            if let Some(after) = parse::<CallClassJson>(after)?.map(call_class).transpose()? {
                index.add_call_class(&after)?;
            }
        }
        "ignored-call-classes" => {
            if let Some(before) = parse::<IgnoredCallClassJson>(before)?
                .map(ignored_call_class)
                .transpose()?
            {
                index.remove_ignored_call_class(&before);
            }
            if let Some(after) = parse::<IgnoredCallClassJson>(after)?
                .map(ignored_call_class)
                .transpose()?
            {
                index.add_ignored_call_class(&after);
            }
        }
        "ignored-service-ids" => {
            if let Some(before) = parse::<IgnoredServiceIdJson>(before)?
                .map(ignored_service_id)
                .transpose()?
            {
                index.remove_ignored_service_id(&before);
            }
            if let Some(after) = parse::<IgnoredServiceIdJson>(after)?
                .map(ignored_service_id)
                .transpose()?
            {
                index.add_ignored_service_id(&after);
            }
        }
        "reference-data-source-charge-groups" => match parse::<SourceChargeGroupJson>(after)? {
            Some(group) => {
                labels
                    .source_charge_group_dates
                    .insert(group.id, group.dates.validity()?);
                index.upsert_source_charge_group(SourceChargeGroup {
                    id: group.id,
                    name: group.name,
                    code: group.code,
                    charge_group_id: group.charge_group_id,
                    reference_data_source_id: group.reference_data_source_id,
                })?;
            }
            None => {
                labels.source_charge_group_dates.remove(&row.record_id);
                index.remove_source_charge_group(row.record_id)?;
            }
        },
        "charge-groups" => match parse::<ChargeGroupJson>(after)? {
            Some(group) => {
                labels
                    .charge_group_dates
                    .insert(group.id, group.dates.validity()?);
                index.upsert_charge_group(ChargeGroup {
                    id: group.id,
                    name: group.name,
                    charge_group_category_id: group.charge_group_category_id,
                });
            }
            None => {
                labels.charge_group_dates.remove(&row.record_id);
                index.remove_charge_group(row.record_id);
            }
        },
        "charge-group-categories" => match parse::<CategoryJson>(after)? {
            Some(category) => {
                let charging_unit_type =
                    ChargingUnitType::parse("chargingUnitType", &category.charging_unit_type)
                        .map_err(|_| ApplyError::Unreadable(category.charging_unit_type.clone()))?;
                labels
                    .category_dates
                    .insert(category.id, category.dates.validity()?);
                index.upsert_category(ChargeGroupCategory {
                    id: category.id,
                    name: category.name,
                    charging_unit_type,
                });
            }
            None => {
                labels.category_dates.remove(&row.record_id);
                index.remove_category(row.record_id);
            }
        },
        "reference-data-sources" => match parse::<SourceJson>(after)? {
            Some(source) => {
                labels.source_names.insert(source.id, source.name);
            }
            None => {
                labels.source_names.remove(&row.record_id);
            }
        },
        other => return Err(ApplyError::Unreadable(format!("resource {other}"))),
    }
    Ok(())
}
