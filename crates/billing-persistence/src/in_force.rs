//! The same value twice in force in one source on one date (decisions §3: it would make rating
//! ambiguous). The check and the write that follows it must not interleave with another
//! writer's: on SQLite every write transaction is `BEGIN IMMEDIATE` (writers run one at a
//! time); on PostgreSQL [`lock_source`] takes the source's row lock, so writers of one source
//! queue and the second sees the first's row.

use chrono::NaiveDate;
use diesel::prelude::*;

use crate::DbConnection;
use crate::error::PersistenceResult;
use crate::schema::reference_data_sources;

/// Holds source `source_id`'s row lock until the transaction ends (PostgreSQL; SQLite's write
/// transactions are already exclusive).
pub fn lock_source(connection: &mut DbConnection, source_id: i64) -> PersistenceResult<()> {
    if let DbConnection::Postgres(postgres) = connection {
        reference_data_sources::table
            .find(source_id)
            .select(reference_data_sources::id)
            .for_update()
            .load::<i64>(postgres)?;
    }
    Ok(())
}

/// A record's place in rating: its value, its source and its dates; `except` is the record
/// itself when it is being replaced.
pub struct InForce<'a> {
    pub value: &'a str,
    pub source_id: i64,
    pub start_date: NaiveDate,
    pub end_date: Option<NaiveDate>,
    pub except: Option<i64>,
}

/// Declares `conflicting(connection, &InForce) -> Option<id>` for a table whose `$column`
/// holds the value and whose source charge group gives the source.
macro_rules! in_force_conflict {
    ($table:ident, $column:ident) => {
        /// The id of another record with the same value in force in the same source on a
        /// date the given one covers, if any.
        pub fn conflicting(
            connection: &mut $crate::DbConnection,
            record: &$crate::in_force::InForce<'_>,
        ) -> $crate::error::PersistenceResult<Option<i64>> {
            use crate::schema::{reference_data_source_charge_groups as groups, $table};
            use diesel::prelude::*;
            let mut query = $table::table
                .inner_join(groups::table)
                .filter(groups::reference_data_source_id.eq(record.source_id))
                .filter($table::$column.eq(record.value))
                .filter(
                    $table::end_date
                        .is_null()
                        .or($table::end_date.ge(record.start_date)),
                )
                .select($table::id)
                .into_boxed();
            if let Some(end) = record.end_date {
                query = query.filter($table::start_date.le(end));
            }
            if let Some(except) = record.except {
                query = query.filter($table::id.ne(except));
            }
            Ok(query.first::<i64>(connection).optional()?)
        }
    };
}
pub(crate) use in_force_conflict;
