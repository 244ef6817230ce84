//! The rows the triggers keep for every table (`counts::rows_of`, `counts::rows_not_ended`;
//! migration `2026-11-28-000001_table_rows`) are the tables' counts: after the migrations,
//! after multi-row inserts and deletes, after a rolled-back write, after the deltas are folded
//! (PostgreSQL), and after many writers and folders raced, on both backends; and a table added
//! later without its triggers fails here.

mod support;

use support::{Name, Number};

use billing_persistence::{Database, DbConnection, PersistenceError, counts};
use diesel::prelude::*;

const TABLE: &str = "charge_group_categories";

fn query<T: QueryableByName<diesel::sqlite::Sqlite> + QueryableByName<diesel::pg::Pg> + 'static>(
    connection: &mut DbConnection,
    sql: &str,
) -> Vec<T> {
    match connection {
        DbConnection::Sqlite(c) => diesel::sql_query(sql).load(c),
        DbConnection::Postgres(c) => diesel::sql_query(sql).load(c),
    }
    .expect(sql)
}

fn execute(connection: &mut DbConnection, sql: &str) -> QueryResult<usize> {
    match connection {
        DbConnection::Sqlite(c) => diesel::sql_query(sql).execute(c),
        DbConnection::Postgres(c) => diesel::sql_query(sql).execute(c),
    }
}

fn write(database: &Database, sql: &str) {
    database
        .write(|c| Ok::<_, PersistenceError>(execute(c, sql)?))
        .expect(sql);
}

fn counted(connection: &mut DbConnection, table: &str) -> i64 {
    query::<Number>(connection, &format!("SELECT count(*) AS n FROM {table}"))[0].n
}

/// Every table but the bookkeeping ones.
fn tables(connection: &mut DbConnection) -> Vec<String> {
    let sql = match connection {
        DbConnection::Sqlite(_) => {
            "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' \
             AND name NOT LIKE 'search_%' \
             AND name NOT IN ('__diesel_schema_migrations', 'table_changes') ORDER BY 1"
        }
        DbConnection::Postgres(_) => {
            "SELECT tablename::text AS name FROM pg_tables WHERE schemaname = current_schema() \
             AND tablename NOT IN ('__diesel_schema_migrations', 'table_row_deltas') ORDER BY 1"
        }
    };
    query::<Name>(connection, sql)
        .into_iter()
        .map(|n| n.name)
        .collect()
}

/// The tables whose kept rows differ from their count (or that have none): should be none.
fn tables_not_exact(database: &Database) -> Vec<String> {
    database
        .read(|c| {
            let mut wrong = Vec::new();
            for table in tables(c) {
                let kept = counts::rows_of(c, &table)?;
                let count = counted(c, &table);
                if kept != Some(count) {
                    wrong.push(format!("{table}: kept {kept:?}, counted {count}"));
                }
            }
            Ok::<_, PersistenceError>(wrong)
        })
        .expect("read")
}

/// PostgreSQL tables without their three row triggers: should be none.
fn tables_without_row_triggers(database: &Database) -> Vec<String> {
    database
        .read(|c| {
            if let DbConnection::Sqlite(_) = c {
                // SQLite's are the change counters' insert and delete triggers, which
                // `remembered_counts.rs` requires of every table; `tables_not_exact` shows
                // that they count rows.
                return Ok::<_, PersistenceError>(Vec::new());
            }
            Ok(query::<Name>(
                c,
                "SELECT tablename::text AS name FROM pg_tables WHERE schemaname = current_schema() \
                 AND tablename NOT IN ('__diesel_schema_migrations', 'table_row_deltas') \
                 AND (SELECT count(*) FROM pg_trigger g WHERE g.tgrelid = (quote_ident(tablename))::regclass \
                      AND g.tgname IN ('note_rows_inserted_into_' || tablename, \
                                       'note_rows_deleted_from_' || tablename, \
                                       'note_rows_truncated_of_' || tablename)) <> 3 ORDER BY 1",
            )
            .into_iter()
            .map(|n| n.name)
            .collect())
        })
        .expect("read")
}

fn kept(database: &Database) -> i64 {
    database
        .read(|c| counts::rows_of(c, TABLE))
        .expect("read")
        .expect("kept")
}

fn count(database: &Database) -> i64 {
    database
        .read(|c| Ok::<_, PersistenceError>(counted(c, TABLE)))
        .expect("read")
}

fn insert(rows: &[(&str, Option<&str>)]) -> String {
    let values: Vec<String> = rows
        .iter()
        .map(|(name, end)| {
            let end = end.map_or("NULL".to_owned(), |day| format!("'{day}'"));
            format!("('{name}', 'MB', '2020-01-01', {end}, 1)")
        })
        .collect();
    format!(
        "INSERT INTO {TABLE} (name, charging_unit_type, start_date, end_date, version) VALUES {}",
        values.join(", ")
    )
}

fn writes_keep_them_exact(database: &Database) {
    assert_eq!(tables_without_row_triggers(database), Vec::<String>::new());
    assert_eq!(tables_not_exact(database), Vec::<String>::new());
    let before = count(database);
    write(
        database,
        &insert(&[
            ("ended", Some("2001-01-01")),
            ("ending", Some("2999-01-01")),
            ("open", None),
            ("open too", None),
        ]),
    );
    assert_eq!(kept(database), before + 4);
    write(database, &format!("UPDATE {TABLE} SET name = name || '!'"));
    assert_eq!(kept(database), before + 4);
    write(
        database,
        &format!("DELETE FROM {TABLE} WHERE name IN ('open!', 'open too!')"),
    );
    assert_eq!(kept(database), before + 2);
    // A write that fails after inserting: its rows and their count go together.
    let failed = database.write(|c| {
        execute(c, &insert(&[("rolled back", None)]))?;
        Err::<(), _>(PersistenceError::Corrupt("on purpose".into()))
    });
    assert!(failed.is_err());
    assert_eq!(kept(database), before + 2);
    assert_eq!(kept(database), count(database));
    // Not ended: no end date, or one today or later.
    let (not_ended, expected) = database
        .read(|c| {
            let not_ended = counts::rows_not_ended(c, TABLE, "end_date")?;
            let today = chrono::Utc::now().date_naive();
            let expected = query::<Number>(
                c,
                &format!(
                    "SELECT count(*) AS n FROM {TABLE} WHERE end_date IS NULL OR end_date >= '{today}'"
                ),
            )[0]
            .n;
            Ok::<_, PersistenceError>((not_ended, expected))
        })
        .expect("read");
    assert_eq!(not_ended, Some(expected));
    assert_eq!(tables_not_exact(database), Vec::<String>::new());
}

/// PostgreSQL: a reader that finds many deltas folds them into one row, and the service's
/// fold leaves one row per table; the rows stay exact.
fn deltas_are_folded(database: &Database) {
    let deltas = |database: &Database, table: Option<&str>| {
        database
            .read(|c| {
                let sql = match table {
                    Some(table) => {
                        format!("SELECT count(*) AS n FROM table_row_deltas WHERE name = '{table}'")
                    }
                    None => "SELECT count(*) - count(DISTINCT name) AS n FROM table_row_deltas"
                        .to_owned(),
                };
                Ok::<_, PersistenceError>(query::<Number>(c, &sql)[0].n)
            })
            .expect("read")
    };
    let rounds = counts::FOLD_FROM + 4;
    for round in 0..rounds {
        write(database, &insert(&[(&format!("fold {round}"), None)]));
    }
    assert!(deltas(database, Some(TABLE)) > counts::FOLD_FROM);
    assert_eq!(kept(database), count(database));
    assert_eq!(deltas(database, Some(TABLE)), 1, "folded by the reader");
    assert_eq!(kept(database), count(database));
    write(
        database,
        &format!("DELETE FROM {TABLE} WHERE name LIKE 'fold %'"),
    );
    database
        .read(counts::fold_row_deltas)
        .expect("the service's fold");
    assert_eq!(deltas(database, None), 0, "one row per table");
    assert_eq!(tables_not_exact(database), Vec::<String>::new());
}

/// Many writers released together, inserting, deleting and rolling back, while readers fold:
/// the kept rows are the count afterwards.
fn racing_writers_keep_them_exact(database: &Database) {
    const WRITERS: usize = 8;
    const ROUNDS: usize = 40;
    let start = std::sync::Barrier::new(WRITERS + 1);
    let committed = std::sync::atomic::AtomicUsize::new(0);
    std::thread::scope(|scope| {
        for writer in 0..WRITERS {
            let (start, committed) = (&start, &committed);
            scope.spawn(move || {
                start.wait();
                for round in 0..ROUNDS {
                    let name = format!("race {writer} {round}");
                    // On PostgreSQL a write that keeps losing its race (the deletes scan the
                    // table) gives up, as a 409 would: what commits must still be counted.
                    for sql in [
                        insert(&[(&name, None), (&format!("{name}+"), None)]),
                        format!("DELETE FROM {TABLE} WHERE name = '{name}'"),
                    ] {
                        let done = database.write(|c| Ok::<_, PersistenceError>(execute(c, &sql)?));
                        if done.is_ok() {
                            committed.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                        }
                    }
                    let _ = database.write(|c| {
                        execute(c, &insert(&[(&format!("{name} undone"), None)]))?;
                        Err::<(), _>(PersistenceError::Corrupt("on purpose".into()))
                    });
                }
            });
        }
        let start = &start;
        scope.spawn(move || {
            start.wait();
            for _ in 0..ROUNDS {
                database
                    .read(|c| {
                        counts::rows_of(c, TABLE)?;
                        counts::fold_row_deltas(c)
                    })
                    .ok();
            }
        });
    });
    assert!(
        committed.into_inner() > WRITERS * ROUNDS,
        "most writes committed"
    );
    assert_eq!(kept(database), count(database));
    assert_eq!(tables_not_exact(database), Vec::<String>::new());
}

#[test]
fn sqlite_kept_rows_are_the_counts() {
    support::on_sqlite(12, |database| {
        writes_keep_them_exact(database);
        racing_writers_keep_them_exact(database);
    });
}

#[test]
fn postgres_kept_rows_are_the_counts() {
    support::on_postgres(12, |database| {
        writes_keep_them_exact(database);
        deltas_are_folded(database);
        racing_writers_keep_them_exact(database);
    });
}
