//! The same value twice in force in one source on one date (docs/api.md "Reference data": it would make rating
//! ambiguous). Two paths can bring it about: writing a record (its value, dates or source
//! charge group) and moving a source charge group, with its records, to another source; each
//! is checked here. The check and the write that follows it cannot interleave with another
//! writer's: `Database::write` runs writers one at a time on SQLite and serializably on
//! PostgreSQL.

use chrono::NaiveDate;

/// A record's place in rating: its value, its source and its dates; `except` is the record
/// itself when it is being replaced.
pub struct InForce<'a> {
    pub value: &'a str,
    pub source_id: i64,
    pub start_date: NaiveDate,
    pub end_date: Option<NaiveDate>,
    pub except: Option<i64>,
}

/// Declares, for a table whose `$column` holds the value and whose source charge group gives
/// the source, `conflicting(connection, &InForce) -> Option<id>` and
/// `conflicting_on_move(connection, group, source) -> Option<(value, id)>`.
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

        /// A value of source charge group `group_id` that another group of source
        /// `source_id` already has in force on a date both cover, with that other record's
        /// id: what moving the group to that source would make ambiguous.
        pub fn conflicting_on_move(
            connection: &mut $crate::DbConnection,
            group_id: i64,
            source_id: i64,
        ) -> $crate::error::PersistenceResult<Option<(String, i64)>> {
            use crate::schema::{reference_data_source_charge_groups as groups, $table};
            use diesel::prelude::*;
            let other = diesel::alias!(crate::schema::$table as other_records);
            let overlapping = other
                .field($table::end_date)
                .is_null()
                .or(other
                    .field($table::end_date)
                    .ge($table::start_date.nullable())
                    .assume_not_null())
                .and(
                    $table::end_date.is_null().or(other
                        .field($table::start_date)
                        .nullable()
                        .le($table::end_date)
                        .assume_not_null()),
                );
            Ok($table::table
                .inner_join(
                    other.on(other.field($table::$column).eq($table::$column).and(
                        other
                            .field($table::reference_data_source_charge_group_id)
                            .ne(group_id),
                    )),
                )
                .inner_join(
                    groups::table
                        .on(groups::id
                            .eq(other.field($table::reference_data_source_charge_group_id))),
                )
                .filter($table::reference_data_source_charge_group_id.eq(group_id))
                .filter(groups::reference_data_source_id.eq(source_id))
                .filter(overlapping)
                .select(($table::$column, other.field($table::id)))
                .first::<(String, i64)>(connection)
                .optional()?)
        }
    };
}
pub(crate) use in_force_conflict;
