//! The operator's feed import (`billing import reference-data`): replaces the rating data of
//! the feed's sources in bulk, all or nothing (PostgreSQL `COPY`, SQLite multi-row inserts,
//! indexes set aside while a large feed loads: `bulk_load`).

use billing_domain::dates::Validity;
use billing_domain::rating::feed::Feed;
use chrono::NaiveDate;
use diesel::connection::SimpleConnection;
use diesel::prelude::*;

use crate::DbConnection;
use crate::bulk_load;
use crate::error::PersistenceResult;
use crate::rating_changes;
use crate::schema::{
    call_classes, charge_group_categories, charge_groups, dialstrings, ignored_call_classes,
    ignored_service_ids, reference_data_source_charge_groups as source_groups,
    reference_data_sources,
};

/// Rows per multi-row `INSERT` of an import (5 to 7 values each: well under both backends'
/// limits on bound values).
pub const BATCH_ROWS: usize = 1000;
/// The fewest dialstrings in a feed for which the import may set the table's indexes aside
/// (see `set_aside_pays`).
pub const SET_ASIDE_FROM_ROWS: usize = 1000;
const DIALSTRINGS: &str = "dialstrings";

/// The ids among `ids` of existing reference data sources.
pub fn existing_sources(connection: &mut DbConnection, ids: &[i64]) -> PersistenceResult<Vec<i64>> {
    crate::in_chunks(ids, |chunk| {
        Ok(reference_data_sources::table
            .filter(reference_data_sources::id.eq_any(chunk))
            .select(reference_data_sources::id)
            .load(connection)?)
    })
}

/// Locks, on PostgreSQL, every table an import reads to check the feed or writes, until the
/// commit: writers of those tables wait for the import (and it for them, if they came first),
/// readers go on (except of `dialstrings` when the feed is large enough for its indexes to be
/// set aside: `bulk_load` needs that table alone). So the import runs at `READ COMMITTED`
/// (`Database::write_guarded_by_locks`): nothing it checked can change before it commits. At
/// `SERIALIZABLE` a large import's reads took so many predicate locks that, beside a busy
/// server's other transactions, PostgreSQL ran out of shared memory for them and the import
/// failed. SQLite's writers take turns anyway. Call it first in the transaction.
pub fn lock_tables(connection: &mut DbConnection, feed: &Feed) -> PersistenceResult<()> {
    let DbConnection::Postgres(postgres) = connection else {
        return Ok(());
    };
    // The strongest lock first, so that a writer of the other tables that also reads
    // dialstrings cannot hold it up halfway.
    let dialstrings_mode = if feed.dialstrings.len() >= SET_ASIDE_FROM_ROWS {
        "ACCESS EXCLUSIVE"
    } else {
        "SHARE ROW EXCLUSIVE"
    };
    postgres.batch_execute(&format!(
        "LOCK TABLE {DIALSTRINGS} IN {dialstrings_mode} MODE; \
         LOCK TABLE charge_group_categories, charge_groups, reference_data_sources, \
         reference_data_source_charge_groups, call_classes, ignored_call_classes, \
         ignored_service_ids IN SHARE ROW EXCLUSIVE MODE"
    ))?;
    Ok(())
}

/// The tables an import writes, for naming ids that collide with records it would not replace.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FeedTable {
    SourceChargeGroups,
    Dialstrings,
    CallClasses,
    IgnoredCallClasses,
}

/// The ids among `ids` of records of `table` that belong to sources other than `sources`
/// (an import replaces only its own sources' records, so those ids are taken).
pub fn taken_ids(
    connection: &mut DbConnection,
    table: FeedTable,
    ids: &[i64],
    sources: &[i64],
) -> PersistenceResult<Vec<i64>> {
    let mut taken = Vec::new();
    for chunk in ids.chunks(BATCH_ROWS) {
        let found: Vec<i64> = match table {
            FeedTable::SourceChargeGroups => source_groups::table
                .filter(source_groups::id.eq_any(chunk))
                .filter(source_groups::reference_data_source_id.ne_all(sources))
                .select(source_groups::id)
                .load(connection)?,
            FeedTable::Dialstrings => dialstrings::table
                .inner_join(source_groups::table)
                .filter(dialstrings::id.eq_any(chunk))
                .filter(source_groups::reference_data_source_id.ne_all(sources))
                .select(dialstrings::id)
                .load(connection)?,
            FeedTable::CallClasses => call_classes::table
                .inner_join(source_groups::table)
                .filter(call_classes::id.eq_any(chunk))
                .filter(source_groups::reference_data_source_id.ne_all(sources))
                .select(call_classes::id)
                .load(connection)?,
            FeedTable::IgnoredCallClasses => ignored_call_classes::table
                .filter(ignored_call_classes::id.eq_any(chunk))
                .filter(ignored_call_classes::reference_data_source_id.ne_all(sources))
                .select(ignored_call_classes::id)
                .load(connection)?,
        };
        taken.extend(found);
    }
    Ok(taken)
}

#[derive(Insertable, AsChangeset)]
#[diesel(table_name = charge_group_categories, treat_none_as_default_value = false, treat_none_as_null = true)]
struct CategoryRow<'a> {
    id: i64,
    name: &'a str,
    charging_unit_type: &'a str,
    start_date: NaiveDate,
    end_date: Option<NaiveDate>,
}

#[derive(Insertable, AsChangeset)]
#[diesel(table_name = charge_groups, treat_none_as_default_value = false, treat_none_as_null = true)]
struct ChargeGroupRow<'a> {
    id: i64,
    name: &'a str,
    charge_group_category_id: i64,
    start_date: NaiveDate,
    end_date: Option<NaiveDate>,
}

#[derive(Insertable, AsChangeset)]
#[diesel(table_name = ignored_service_ids, treat_none_as_default_value = false, treat_none_as_null = true)]
struct IgnoredServiceIdRow<'a> {
    id: i64,
    service_id: &'a str,
    description: Option<&'a str>,
    start_date: NaiveDate,
    end_date: Option<NaiveDate>,
}

#[derive(Insertable)]
#[diesel(table_name = source_groups, treat_none_as_default_value = false)]
struct SourceChargeGroupRow<'a> {
    id: i64,
    name: &'a str,
    code: &'a str,
    charge_group_id: i64,
    reference_data_source_id: i64,
    start_date: NaiveDate,
    end_date: Option<NaiveDate>,
}

#[derive(Insertable)]
#[diesel(table_name = dialstrings, treat_none_as_default_value = false)]
struct DialstringRow<'a> {
    id: i64,
    dialstring: &'a str,
    reference_data_source_charge_group_id: i64,
    start_date: NaiveDate,
    end_date: Option<NaiveDate>,
}

#[derive(Insertable)]
#[diesel(table_name = call_classes, treat_none_as_default_value = false)]
struct CallClassRow<'a> {
    id: i64,
    call_class: &'a str,
    reference_data_source_charge_group_id: i64,
    start_date: NaiveDate,
    end_date: Option<NaiveDate>,
}

#[derive(Insertable)]
#[diesel(table_name = ignored_call_classes, treat_none_as_default_value = false)]
struct IgnoredCallClassRow<'a> {
    id: i64,
    call_class: &'a str,
    reference_data_source_id: i64,
    start_date: NaiveDate,
    end_date: Option<NaiveDate>,
}

/// Inserts `rows`: on PostgreSQL with one `COPY` (its bulk path, in binary), on SQLite in
/// multi-row statements of [`BATCH_ROWS`]; both on the concrete connection (a bulk insert
/// does not go through the multi-backend connection). Reports each batch.
macro_rules! insert_in_batches {
    ($connection:expr, $table:expr, $rows:expr, $progress:expr, $name:expr) => {{
        let rows = $rows;
        match &mut *$connection {
            DbConnection::Postgres(c) => {
                if !rows.is_empty() {
                    diesel::copy_from($table)
                        .from_insertable(&rows[..])
                        .execute(c)?;
                }
                $progress($name, rows.len(), rows.len());
            }
            DbConnection::Sqlite(c) => {
                let mut done = 0;
                for chunk in rows.chunks(BATCH_ROWS) {
                    diesel::insert_into($table).values(chunk).execute(c)?;
                    done += chunk.len();
                    $progress($name, done, rows.len());
                }
            }
        }
    }};
}

/// Inserts the rows whose ids are new and updates the others (records of tables every source
/// shares, which other data may reference and so are never deleted by an import).
macro_rules! upsert {
    ($connection:expr, $table:ident, $rows:expr, $progress:expr, $name:expr) => {{
        let rows = $rows;
        let ids: Vec<i64> = rows.iter().map(|row| row.id).collect();
        let existing: std::collections::HashSet<i64> = crate::in_chunks(&ids, |chunk| {
            Ok($table::table
                .filter($table::id.eq_any(chunk))
                .select($table::id)
                .load::<i64>(&mut *$connection)?)
        })?
        .into_iter()
        .collect();
        let (updates, inserts): (Vec<_>, Vec<_>) =
            rows.into_iter().partition(|row| existing.contains(&row.id));
        for row in &updates {
            diesel::update($table::table.find(row.id))
                .set((row, $table::version.eq($table::version + 1)))
                .execute(&mut *$connection)?;
        }
        insert_in_batches!($connection, $table::table, inserts, $progress, $name);
    }};
}

/// Whether the import drops the secondary indexes of `dialstrings` (and on PostgreSQL its
/// foreign key) and makes them again after the load (`bulk_load`): when the feed brings at
/// least [`SET_ASIDE_FROM_ROWS`] dialstrings and at least as many as the sources it leaves
/// alone hold. Building an index then goes over at most twice the rows loaded, which costs
/// less than maintaining it row by row (a 1,000,000-row load: 9 s with them, 3 s without,
/// plus 3 s to make them again); a small feed beside a large table keeps them.
fn set_aside_pays(
    connection: &mut DbConnection,
    feed: &Feed,
    sources: &[i64],
) -> PersistenceResult<bool> {
    let loaded = feed.dialstrings.len();
    if loaded < SET_ASIDE_FROM_ROWS {
        return Ok(false);
    }
    let kept: i64 = dialstrings::table
        .inner_join(source_groups::table)
        .filter(source_groups::reference_data_source_id.ne_all(sources))
        .count()
        .get_result(connection)?;
    Ok(i64::try_from(loaded).unwrap_or(i64::MAX) >= kept)
}

/// What an import changed, per file.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ImportCounts {
    pub categories: usize,
    pub charge_groups: usize,
    pub source_charge_groups: usize,
    pub dialstrings: usize,
    pub call_classes: usize,
    pub ignored_call_classes: usize,
    pub ignored_service_ids: usize,
    /// Records of the imported sources that were there before and are not in the feed.
    pub removed: usize,
}

/// Writes `feed` in the current transaction: categories, charge groups and ignored service
/// ids are inserted or updated by id; the source charge groups, dialstrings, call classes and
/// ignored call classes of every source the feed names are replaced by the feed's (ids kept).
/// Then a `reload` change is recorded so every running instance reloads its index. The caller
/// has checked the feed (references, ids not taken) and runs this in one write transaction.
pub fn import(
    connection: &mut DbConnection,
    feed: &Feed,
    mut progress: impl FnMut(&str, usize, usize),
) -> PersistenceResult<ImportCounts> {
    // First, before any row is locked: on PostgreSQL this takes the table's own lock.
    let sources = feed.sources();
    let dialstrings_set_aside = if set_aside_pays(connection, feed, &sources)? {
        Some(bulk_load::set_aside(connection, DIALSTRINGS)?)
    } else {
        None
    };
    let groups_of_sources = source_groups::table
        .filter(source_groups::reference_data_source_id.eq_any(&sources))
        .select(source_groups::id);
    let mut removed = diesel::delete(dialstrings::table.filter(
        dialstrings::reference_data_source_charge_group_id.eq_any(groups_of_sources.clone()),
    ))
    .execute(connection)?;
    removed += diesel::delete(
        call_classes::table
            .filter(call_classes::reference_data_source_charge_group_id.eq_any(groups_of_sources)),
    )
    .execute(connection)?;
    removed += diesel::delete(
        ignored_call_classes::table
            .filter(ignored_call_classes::reference_data_source_id.eq_any(&sources)),
    )
    .execute(connection)?;
    removed += diesel::delete(
        source_groups::table.filter(source_groups::reference_data_source_id.eq_any(&sources)),
    )
    .execute(connection)?;
    let dates = |validity: &Validity| (validity.start_date(), validity.end_date());
    let connection = &mut *connection;
    upsert!(
        connection,
        charge_group_categories,
        feed.categories
            .iter()
            .map(|c| {
                let (start_date, end_date) = dates(&c.validity);
                CategoryRow {
                    id: c.id,
                    name: &c.name,
                    charging_unit_type: c.charging_unit_type.code(),
                    start_date,
                    end_date,
                }
            })
            .collect::<Vec<_>>(),
        progress,
        "charge_group_categories"
    );
    upsert!(
        connection,
        charge_groups,
        feed.charge_groups
            .iter()
            .map(|g| {
                let (start_date, end_date) = dates(&g.validity);
                ChargeGroupRow {
                    id: g.id,
                    name: &g.name,
                    charge_group_category_id: g.charge_group_category_id,
                    start_date,
                    end_date,
                }
            })
            .collect::<Vec<_>>(),
        progress,
        "charge_groups"
    );
    upsert!(
        connection,
        ignored_service_ids,
        feed.ignored_service_ids
            .iter()
            .map(|s| {
                let (start_date, end_date) = dates(&s.validity);
                IgnoredServiceIdRow {
                    id: s.id,
                    service_id: &s.service_id,
                    description: feed
                        .ignored_service_id_descriptions
                        .get(&s.id)
                        .map(String::as_str),
                    start_date,
                    end_date,
                }
            })
            .collect::<Vec<_>>(),
        progress,
        "ignored_service_ids"
    );
    insert_in_batches!(
        connection,
        source_groups::table,
        feed.source_charge_groups
            .iter()
            .map(|g| {
                let (start_date, end_date) = dates(&g.validity);
                SourceChargeGroupRow {
                    id: g.id,
                    name: &g.name,
                    code: &g.code,
                    charge_group_id: g.charge_group_id,
                    reference_data_source_id: g.reference_data_source_id,
                    start_date,
                    end_date,
                }
            })
            .collect::<Vec<_>>(),
        progress,
        "source_charge_groups"
    );
    insert_in_batches!(
        connection,
        dialstrings::table,
        feed.dialstrings
            .iter()
            .map(|d| {
                let (start_date, end_date) = dates(&d.validity);
                DialstringRow {
                    id: d.id,
                    dialstring: &d.dialstring,
                    reference_data_source_charge_group_id: d.source_charge_group_id,
                    start_date,
                    end_date,
                }
            })
            .collect::<Vec<_>>(),
        progress,
        DIALSTRINGS
    );
    if let Some(set_aside) = dialstrings_set_aside {
        set_aside.restore(connection)?;
        let rows = feed.dialstrings.len();
        progress("dialstrings (indexes made again)", rows, rows);
    }
    insert_in_batches!(
        connection,
        call_classes::table,
        feed.call_classes
            .iter()
            .map(|c| {
                let (start_date, end_date) = dates(&c.validity);
                CallClassRow {
                    id: c.id,
                    call_class: &c.call_class,
                    reference_data_source_charge_group_id: c.source_charge_group_id,
                    start_date,
                    end_date,
                }
            })
            .collect::<Vec<_>>(),
        progress,
        "call_classes"
    );
    insert_in_batches!(
        connection,
        ignored_call_classes::table,
        feed.ignored_call_classes
            .iter()
            .map(|c| {
                let (start_date, end_date) = dates(&c.validity);
                IgnoredCallClassRow {
                    id: c.id,
                    call_class: &c.call_class,
                    reference_data_source_id: c.reference_data_source_id,
                    start_date,
                    end_date,
                }
            })
            .collect::<Vec<_>>(),
        progress,
        "ignored_call_classes"
    );
    if let DbConnection::Postgres(postgres) = connection {
        // Rows came with their ids: move each sequence past them so API creates go on after.
        for table in [
            "charge_group_categories",
            "charge_groups",
            "reference_data_source_charge_groups",
            "dialstrings",
            "call_classes",
            "ignored_call_classes",
            "ignored_service_ids",
        ] {
            diesel::sql_query(format!(
                "SELECT setval(pg_get_serial_sequence('{table}', 'id'), \
                 COALESCE(MAX(id), 0) + 1, false) FROM {table}"
            ))
            .execute(postgres)?;
        }
    }
    rating_changes::record(connection, rating_changes::RELOAD, 0, None, None)?;
    Ok(ImportCounts {
        categories: feed.categories.len(),
        charge_groups: feed.charge_groups.len(),
        source_charge_groups: feed.source_charge_groups.len(),
        dialstrings: feed.dialstrings.len(),
        call_classes: feed.call_classes.len(),
        ignored_call_classes: feed.ignored_call_classes.len(),
        ignored_service_ids: feed.ignored_service_ids.len(),
        removed,
    })
}
