//! What still refers to a row, so that a delete a foreign key refuses can say so.

use diesel::connection::{Connection, TransactionManager};
use diesel::prelude::*;
use diesel::sql_types::{BigInt, Bool, Text};

use crate::DbConnection;
use crate::error::{PersistenceError, PersistenceResult};

/// Runs `delete` (the DELETE of row `id` of `table`, after its owned children, in tables
/// `owned`) in a savepoint. When a foreign key refuses it, the savepoint is rolled back (the
/// transaction stays usable, PostgreSQL's too, and the children are back) and the error names
/// the other tables whose rows still refer to the row ([`PersistenceError::StillReferenced`]):
/// what every resource's delete answers with 409, from the database's own foreign keys. A
/// delete that succeeds pays one savepoint.
pub fn delete_row(
    connection: &mut DbConnection,
    table: &'static str,
    id: i64,
    owned: &[&str],
    delete: impl FnOnce(&mut DbConnection) -> PersistenceResult<usize>,
) -> PersistenceResult<usize> {
    type Manager = <DbConnection as Connection>::TransactionManager;
    Manager::begin_transaction(connection)?;
    match delete(connection) {
        Ok(count) => {
            Manager::commit_transaction(connection)?;
            Ok(count)
        }
        Err(error) => {
            Manager::rollback_transaction(connection)?;
            match error {
                PersistenceError::ForeignKeyViolation { .. } => {
                    let mut by = referring_tables(connection, table, id)?;
                    by.retain(|referring| !owned.contains(&referring.as_str()));
                    Err(PersistenceError::StillReferenced { table, id, by })
                }
                other => Err(other),
            }
        }
    }
}

#[derive(QueryableByName)]
struct ForeignKey {
    #[diesel(sql_type = Text)]
    table_name: String,
    #[diesel(sql_type = Text)]
    column_name: String,
}

#[derive(QueryableByName)]
struct Found {
    #[diesel(sql_type = Bool)]
    found: bool,
}

/// The tables (sorted, each once) with a row whose foreign key points to row `id` of `table`,
/// read from the database's own catalog.
pub fn referring_tables(
    connection: &mut DbConnection,
    table: &str,
    id: i64,
) -> PersistenceResult<Vec<String>> {
    const SQLITE_KEYS: &str = "SELECT m.name AS table_name, k.\"from\" AS column_name \
         FROM sqlite_master m JOIN pragma_foreign_key_list(m.name) k \
         WHERE m.type = 'table' AND k.\"table\" = ? AND (k.\"to\" IS NULL OR k.\"to\" = 'id')";
    const POSTGRES_KEYS: &str = "SELECT r.relname::text AS table_name, a.attname::text AS column_name \
         FROM pg_constraint c JOIN pg_class r ON r.oid = c.conrelid \
         JOIN pg_attribute a ON a.attrelid = c.conrelid AND a.attnum = c.conkey[1] \
         WHERE c.contype = 'f' AND c.confrelid = to_regclass($1)::oid \
         AND array_length(c.conkey, 1) = 1";
    let keys: Vec<ForeignKey> = match connection {
        DbConnection::Sqlite(sqlite) => diesel::sql_query(SQLITE_KEYS)
            .bind::<Text, _>(table)
            .load(sqlite)?,
        DbConnection::Postgres(postgres) => diesel::sql_query(POSTGRES_KEYS)
            .bind::<Text, _>(table)
            .load(postgres)?,
    };
    let mut referring = Vec::new();
    for key in keys {
        // Names from the catalog, quoted: never text from a request.
        let sql = format!(
            "SELECT EXISTS (SELECT 1 FROM \"{}\" WHERE \"{}\" = {}) AS found",
            key.table_name.replace('"', "\"\""),
            key.column_name.replace('"', "\"\""),
            if matches!(connection, DbConnection::Sqlite(_)) {
                "?"
            } else {
                "$1"
            }
        );
        let found: Found = match connection {
            DbConnection::Sqlite(sqlite) => diesel::sql_query(&sql)
                .bind::<BigInt, _>(id)
                .get_result(sqlite)?,
            DbConnection::Postgres(postgres) => diesel::sql_query(&sql)
                .bind::<BigInt, _>(id)
                .get_result(postgres)?,
        };
        if found.found && !referring.contains(&key.table_name) {
            referring.push(key.table_name);
        }
    }
    referring.sort();
    Ok(referring)
}
