//! `bulk_load`: a table's secondary indexes (and on PostgreSQL its foreign keys) are dropped
//! for a load and made again exactly as they were; a rolled-back load leaves them as they
//! were; a foreign key made again checks every row loaded without it.

mod support;

use billing_persistence::bulk_load;
use billing_persistence::{Database, DbConnection, PersistenceError};
use diesel::prelude::*;
use diesel::sql_types::Text;

#[derive(QueryableByName, Debug, PartialEq, Eq, PartialOrd, Ord)]
struct Definition {
    #[diesel(sql_type = Text)]
    definition: String,
}

/// Every index and constraint of `dialstrings`, as the catalog states them.
fn structures(connection: &mut DbConnection) -> Vec<String> {
    let mut found: Vec<Definition> = match connection {
        DbConnection::Postgres(c) => diesel::sql_query(
            "SELECT indexdef AS definition FROM pg_indexes WHERE tablename = 'dialstrings' \
             UNION ALL SELECT conname::text || ' ' || pg_get_constraintdef(oid) FROM pg_constraint \
             WHERE conrelid = 'dialstrings'::regclass",
        )
        .load(c),
        DbConnection::Sqlite(c) => diesel::sql_query(
            "SELECT name || ' ' || COALESCE(sql, '') AS definition FROM sqlite_master \
             WHERE tbl_name = 'dialstrings' AND type = 'index'",
        )
        .load(c),
    }
    .expect("the catalog");
    found.sort();
    found.into_iter().map(|d| d.definition).collect()
}

fn now(database: &Database) -> Vec<String> {
    database
        .read(|c| Ok::<_, PersistenceError>(structures(c)))
        .expect("read")
}

fn check(database: &Database, postgres: bool) {
    let before = now(database);
    assert!(
        before
            .iter()
            .any(|d| d.contains("dialstrings_dialstring_idx")),
        "{before:?}"
    );
    // Set aside, then made again: the same as before.
    let during = database
        .write(|c| {
            let set_aside = bulk_load::set_aside(c, "dialstrings")?;
            let during = structures(c);
            set_aside.restore(c)?;
            Ok::<_, PersistenceError>(during)
        })
        .expect("write");
    assert!(
        !during
            .iter()
            .any(|d| d.contains("dialstrings_dialstring_idx")),
        "{during:?}"
    );
    assert!(
        !during.iter().any(|d| d.contains("FOREIGN KEY")),
        "{during:?}"
    );
    assert_eq!(now(database), before);
    // Set aside and rolled back: the same as before.
    let refused = database.write(|c| {
        let _set_aside = bulk_load::set_aside(c, "dialstrings")?;
        Err::<(), _>(PersistenceError::Corrupt("rolled back on purpose".into()))
    });
    assert!(refused.is_err());
    assert_eq!(now(database), before);
    if postgres {
        // A row loaded while the foreign key was away, pointing nowhere: making the key
        // again refuses it, and nothing stays.
        let refused = database.write(|c| {
            let set_aside = bulk_load::set_aside(c, "dialstrings")?;
            if let DbConnection::Postgres(pg) = c {
                diesel::sql_query(
                    "INSERT INTO dialstrings (dialstring, reference_data_source_charge_group_id, \
                     start_date) VALUES ('44', 999, '2026-01-01')",
                )
                .execute(pg)?;
            }
            set_aside.restore(c)
        });
        assert!(
            matches!(refused, Err(PersistenceError::ForeignKeyViolation { .. })),
            "{refused:?}"
        );
        assert_eq!(now(database), before);
    }
}

#[test]
fn sqlite_indexes_come_back_as_they_were() {
    support::on_sqlite(1, |database| check(database, false));
}

#[test]
fn postgres_indexes_and_foreign_keys_come_back_as_they_were() {
    support::on_postgres(1, |database| check(database, true));
}
