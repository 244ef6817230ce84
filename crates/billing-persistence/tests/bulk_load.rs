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
    // PostgreSQL: the primary key too (no other table's key refers to dialstrings; SQLite's
    // is the rowid).
    if postgres {
        assert!(
            before.iter().any(|d| d.contains("dialstrings_pkey")),
            "{before:?}"
        );
        assert!(
            !during.iter().any(|d| d.contains("dialstrings_pkey")),
            "{during:?}"
        );
    }
    assert_eq!(now(database), before);
    // Rows loaded and removed while the counting triggers were away: counted when they come
    // back, and the table's change counter has moved (a remembered total is not reused).
    let changes = |c: &mut DbConnection| -> String {
        let counters = match c {
            DbConnection::Sqlite(s) => diesel::sql_query(
                "SELECT CAST(changes AS TEXT) AS definition FROM table_changes WHERE name = 'dialstrings'",
            )
            .load::<Definition>(s),
            DbConnection::Postgres(p) => diesel::sql_query(
                "SELECT CAST(last_value AS TEXT) AS definition FROM changes_of_dialstrings",
            )
            .load::<Definition>(p),
        };
        counters.expect("the change counter")[0].definition.clone()
    };
    let (kept, counted, changed) = database
        .write(|c| {
            let execute = |c: &mut DbConnection, sql: &str| match c {
                DbConnection::Sqlite(s) => diesel::sql_query(sql).execute(s),
                DbConnection::Postgres(p) => diesel::sql_query(sql).execute(p),
            };
            for sql in [
                "INSERT INTO currencies (code, symbol, major_currency_name, minor_currency_name, \
                 major_currency_format, minor_currency_format, sales_tax_name) \
                 VALUES ('GBP', '£', 'Pound', 'Penny', '£#', '#p', 'VAT')",
                "INSERT INTO locales (country_code, currency_id) SELECT 'GB', id FROM currencies",
                "INSERT INTO reference_data_sources (name, locale_id, si_maintained) \
                 SELECT 'Feed', id, false FROM locales",
                "INSERT INTO charge_group_categories (name, charging_unit_type, start_date) \
                 VALUES ('Calls', 'DURATION', '2026-01-01')",
                "INSERT INTO charge_groups (name, charge_group_category_id, start_date) \
                 SELECT 'Local', id, '2026-01-01' FROM charge_group_categories",
                "INSERT INTO reference_data_source_charge_groups (name, code, charge_group_id, \
                 reference_data_source_id, start_date) SELECT 'Local', 'L', g.id, s.id, \
                 '2026-01-01' FROM charge_groups g, reference_data_sources s",
                "INSERT INTO dialstrings (dialstring, reference_data_source_charge_group_id, \
                 start_date) SELECT '44', id, '2026-01-01' FROM reference_data_source_charge_groups",
            ] {
                execute(c, sql)?;
            }
            let changes_before = changes(c);
            let set_aside = bulk_load::set_aside(c, "dialstrings")?;
            // Loaded and removed as an import does: many rows, then some of them.
            for sql in [
                "INSERT INTO dialstrings (dialstring, reference_data_source_charge_group_id, \
                 start_date) SELECT '44' || c.code, d.reference_data_source_charge_group_id, \
                 '2026-01-01' FROM dialstrings d, countries c",
                "DELETE FROM dialstrings WHERE dialstring LIKE '44A%'",
            ] {
                execute(c, sql)?;
            }
            set_aside.restore(c)?;
            let counted: i64 = billing_persistence::schema::dialstrings::table
                .count()
                .get_result(c)?;
            Ok::<_, PersistenceError>((
                billing_persistence::counts::rows_of(c, "dialstrings")?,
                counted,
                changes(c) != changes_before,
            ))
        })
        .expect("write");
    assert!(counted > 100, "{counted}");
    assert_eq!(kept, Some(counted));
    assert!(changed, "the change counter moved");
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
