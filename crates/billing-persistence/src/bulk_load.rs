//! A table's secondary indexes, foreign keys and row counting, set aside for a bulk load and
//! made again after it, in the same transaction (the feed import of a million dialstrings).
//!
//! Maintaining two indexes, checking a foreign key and counting rows (`counts::rows_of`) row by
//! row cost more than the load itself; building each once over the loaded table costs a
//! fraction of that (docs/performance.md, "Feed import"). What is dropped is read from the
//! database's own catalog, so it is made again exactly as the migrations made it, and a
//! rolled-back import leaves it as it was. The rows are counted once when the counting
//! triggers come back, and the table's change counter moves. On PostgreSQL dropping takes the
//! table's exclusive lock until the commit: readers of the table wait for the import instead
//! of reading the old rows.

use diesel::prelude::*;
use diesel::sql_types::Text;

use crate::DbConnection;
use crate::error::PersistenceResult;

/// What was set aside: the statements that make it again.
#[derive(Debug, Default)]
#[must_use = "the indexes stay dropped unless restored"]
pub struct SetAside {
    restore: Vec<String>,
}

#[derive(QueryableByName)]
struct Named {
    #[diesel(sql_type = Text)]
    name: String,
    #[diesel(sql_type = Text)]
    definition: String,
}

/// Drops `table`'s secondary indexes and row counting triggers and, on PostgreSQL, its foreign
/// keys and its primary key (when no other table's key refers to it). `table` is one of the
/// schema's names, never input.
pub fn set_aside(
    connection: &mut DbConnection,
    table: &'static str,
) -> PersistenceResult<SetAside> {
    let mut restore = Vec::new();
    match connection {
        DbConnection::Postgres(c) => {
            // Its foreign keys, and its primary key unless another table's foreign key needs
            // it (the key first, so that it is made again first): a load that replaces rows
            // keeps their ids, and checking each new id against the deleted rows' entries in
            // the key's index doubled the load (`COPY` 3.6 s → 0.8 s).
            let constraints: Vec<Named> = diesel::sql_query(
                "SELECT conname::text AS name, pg_get_constraintdef(oid) AS definition \
                 FROM pg_constraint WHERE conrelid = $1::regclass AND (contype = 'f' \
                 OR (contype = 'p' AND NOT EXISTS (SELECT 1 FROM pg_constraint r \
                     WHERE r.contype = 'f' AND r.confrelid = $1::regclass))) \
                 ORDER BY contype DESC, conname",
            )
            .bind::<Text, _>(table)
            .load(c)?;
            // Unique constraints' own indexes stay; the primary key's goes with it.
            let indexes: Vec<Named> = diesel::sql_query(
                "SELECT indexname::text AS name, indexdef AS definition FROM pg_indexes \
                 WHERE schemaname = current_schema() AND tablename = $1 AND indexname NOT IN \
                 (SELECT conname FROM pg_constraint WHERE conrelid = $1::regclass) \
                 ORDER BY indexname",
            )
            .bind::<Text, _>(table)
            .load(c)?;
            for key in constraints {
                diesel::sql_query(format!(
                    "ALTER TABLE {table} DROP CONSTRAINT \"{}\"",
                    key.name
                ))
                .execute(c)?;
                restore.push(format!(
                    "ALTER TABLE {table} ADD CONSTRAINT \"{}\" {}",
                    key.name, key.definition
                ));
            }
            for index in indexes {
                diesel::sql_query(format!("DROP INDEX \"{}\"", index.name)).execute(c)?;
                restore.push(index.definition);
            }
            // The row counting triggers (migration `2026-11-28-000001_table_rows`): their
            // transition tables would hold every row loaded or removed.
            for trigger in [
                format!("note_rows_inserted_into_{table}"),
                format!("note_rows_deleted_from_{table}"),
            ] {
                diesel::sql_query(format!("ALTER TABLE {table} DISABLE TRIGGER \"{trigger}\""))
                    .execute(c)?;
                restore.push(format!("ALTER TABLE {table} ENABLE TRIGGER \"{trigger}\""));
            }
            restore.push(format!(
                "DELETE FROM table_row_deltas WHERE name = '{table}'"
            ));
            restore.push(format!(
                "INSERT INTO table_row_deltas (name, delta) SELECT '{table}', count(*) FROM {table}"
            ));
        }
        DbConnection::Sqlite(c) => {
            // Indexes SQLite made itself (for UNIQUE and PRIMARY KEY) have no SQL and stay.
            let indexes: Vec<Named> = diesel::sql_query(
                "SELECT name, sql AS definition FROM sqlite_master \
                 WHERE type = 'index' AND tbl_name = ? AND sql IS NOT NULL ORDER BY name",
            )
            .bind::<Text, _>(table)
            .load(c)?;
            for index in indexes {
                diesel::sql_query(format!("DROP INDEX \"{}\"", index.name)).execute(c)?;
                restore.push(index.definition);
            }
            // The triggers that count the table's rows and changes as rows are inserted or
            // deleted (one statement each per row); updates keep theirs.
            let triggers: Vec<Named> = diesel::sql_query(
                "SELECT name, sql AS definition FROM sqlite_master WHERE type = 'trigger' \
                 AND tbl_name = ? AND name IN ('note_insert_of_' || tbl_name, \
                 'note_delete_of_' || tbl_name) ORDER BY name",
            )
            .bind::<Text, _>(table)
            .load(c)?;
            for trigger in triggers {
                diesel::sql_query(format!("DROP TRIGGER \"{}\"", trigger.name)).execute(c)?;
                restore.push(trigger.definition);
            }
            restore.push(format!(
                "UPDATE table_changes SET changes = changes + 1, \
                 rows = (SELECT count(*) FROM {table}) WHERE name = '{table}'"
            ));
        }
    }
    Ok(SetAside { restore })
}

impl SetAside {
    /// Makes again what [`set_aside`] dropped (checking the foreign keys over every row).
    pub fn restore(self, connection: &mut DbConnection) -> PersistenceResult<()> {
        for statement in self.restore {
            match connection {
                DbConnection::Postgres(c) => diesel::sql_query(statement).execute(c)?,
                DbConnection::Sqlite(c) => diesel::sql_query(statement).execute(c)?,
            };
        }
        Ok(())
    }
}
