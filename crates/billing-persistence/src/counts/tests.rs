use super::*;
use diesel::Connection;
use diesel::RunQueryDsl;
use diesel::sql_types::BigInt;

use super::planned::rows_of_plan;

fn page(page: u32, page_size: u32) -> Option<PageRequest> {
    Some(PageRequest { page, page_size })
}

fn never_counted(_: &mut DbConnection, _: Counting) -> PersistenceResult<i64> {
    panic!("the page said the total")
}

fn sqlite() -> DbConnection {
    let mut sqlite = diesel::SqliteConnection::establish(":memory:").expect("sqlite");
    register_connection_id(&mut sqlite).expect("registered");
    DbConnection::Sqlite(sqlite)
}

#[test]
fn a_plan_gives_the_rows_under_its_aggregate() {
    let plain = r#"[{"Plan": {"Node Type": "Aggregate", "Plan Rows": 1, "Plans": [
        {"Node Type": "Bitmap Heap Scan", "Parallel Aware": false, "Plan Rows": 1969}]}}]"#;
    assert_eq!(rows_of_plan(plain), Some(1969));
    // Finalize Aggregate → Gather (2 workers) → Partial Aggregate → Parallel Seq Scan
    // of 416,667 rows a participant: 2 workers and the leader's 0.4.
    let parallel = r#"[{"Plan": {"Node Type": "Aggregate", "Plan Rows": 1, "Plans": [
        {"Node Type": "Gather", "Workers Planned": 2, "Plan Rows": 2, "Plans": [
        {"Node Type": "Aggregate", "Plan Rows": 1, "Plans": [
        {"Node Type": "Seq Scan", "Parallel Aware": true, "Plan Rows": 416667}]}]}]}}]"#;
    assert_eq!(rows_of_plan(parallel), Some(1_000_001));
    assert_eq!(rows_of_plan("not json"), None);
}

#[test]
fn a_short_or_empty_first_page_gives_the_total_without_counting() {
    let mut connection = sqlite();
    let mut total = |page, loaded| {
        total(
            &mut connection,
            page,
            loaded,
            String::new,
            "t",
            CountPreference::Exact,
            never_counted,
        )
        .expect("total")
    };
    assert_eq!(total(None, 7), 7);
    assert_eq!(total(page(1, 10), 0), 0);
    assert_eq!(total(page(1, 10), 9), 9);
    assert_eq!(total(page(3, 10), 4), 24);
}

#[test]
fn a_full_page_or_a_page_past_the_end_is_counted_once_per_state_of_the_data() {
    use diesel::connection::SimpleConnection;
    let mut connection = sqlite();
    let key = || key("counts_test", &"a full page", &"everyone");
    let counted = std::cell::Cell::new(0);
    let count = |connection: &mut DbConnection, page, loaded| {
        total(
            connection,
            page,
            loaded,
            key,
            "t",
            CountPreference::Exact,
            |_, _| {
                counted.set(counted.get() + 1);
                Ok(40)
            },
        )
        .expect("total")
    };
    assert_eq!(count(&mut connection, page(1, 10), 10), 40);
    assert_eq!(count(&mut connection, page(2, 10), 10), 40);
    assert_eq!(count(&mut connection, page(9, 10), 0), 40, "past the end");
    assert_eq!(counted.get(), 1, "the same data: remembered");
    if let DbConnection::Sqlite(sqlite) = &mut connection {
        sqlite
            .batch_execute("CREATE TABLE t (x INTEGER); INSERT INTO t VALUES (1);")
            .expect("write");
    }
    assert_eq!(count(&mut connection, page(1, 10), 10), 40);
    assert_eq!(counted.get(), 2, "this connection wrote: counted again");
    let mut other = sqlite();
    assert_eq!(count(&mut other, page(1, 10), 10), 40);
    assert_eq!(counted.get(), 3, "another connection: its own token");
}

#[test]
fn a_commit_on_another_connection_to_the_same_file_is_seen() {
    use diesel::connection::SimpleConnection;
    let path = std::env::temp_dir().join(format!(
        "billing_counts_{}.db",
        uuid::Uuid::new_v4().simple()
    ));
    let open = || {
        let mut sqlite =
            diesel::SqliteConnection::establish(path.to_str().expect("utf-8")).expect("sqlite");
        register_connection_id(&mut sqlite).expect("registered");
        sqlite
            .batch_execute("PRAGMA journal_mode = WAL; CREATE TABLE IF NOT EXISTS t (x INTEGER);")
            .expect("set up");
        sqlite
    };
    let (mut reader, mut writer) = (DbConnection::Sqlite(open()), open());
    let mut counted = 0;
    let mut count = |connection: &mut DbConnection| {
        total(
            connection,
            page(1, 1),
            1,
            || key("counts_test_file", &"", &""),
            "t",
            CountPreference::Exact,
            |_, _| {
                counted += 1;
                Ok(counted)
            },
        )
        .expect("total")
    };
    assert_eq!(count(&mut reader), 1);
    assert_eq!(count(&mut reader), 1, "nothing committed");
    writer
        .batch_execute("INSERT INTO t VALUES (1)")
        .expect("write");
    assert_eq!(count(&mut reader), 2, "another connection committed");
    assert_eq!(count(&mut reader), 2);
    drop((reader, writer));
    for suffix in ["", "-wal", "-shm"] {
        let _ = std::fs::remove_file(format!("{}{suffix}", path.display()));
    }
}

/// `SELECT count(*) FROM t` as the count of a full page of key `key`.
fn count_of_t(connection: &mut DbConnection, key: &'static str) -> i64 {
    total(
        connection,
        page(1, 1),
        1,
        || super::key(key, &"", &""),
        "t",
        CountPreference::Exact,
        |connection, _| {
            Ok(diesel::dsl::sql::<BigInt>("SELECT count(*) FROM t").get_result(connection)?)
        },
    )
    .expect("total")
}

#[test]
fn a_count_taken_in_a_transaction_that_rolls_back_is_not_used_again() {
    use diesel::connection::{AnsiTransactionManager, SimpleConnection, TransactionManager};
    let mut connection = sqlite();
    if let DbConnection::Sqlite(sqlite) = &mut connection {
        sqlite
            .batch_execute("CREATE TABLE t (x INTEGER)")
            .expect("table");
    }
    let key = "counts_test_rolled_back";
    assert_eq!(count_of_t(&mut connection, key), 0);
    let DbConnection::Sqlite(sqlite) = &mut connection else {
        unreachable!()
    };
    AnsiTransactionManager::begin_transaction(sqlite).expect("begin");
    sqlite
        .batch_execute("INSERT INTO t VALUES (1)")
        .expect("write");
    assert_eq!(
        count_of_t(&mut connection, key),
        1,
        "its own uncommitted row"
    );
    let DbConnection::Sqlite(sqlite) = &mut connection else {
        unreachable!()
    };
    AnsiTransactionManager::rollback_transaction(sqlite).expect("rollback");
    assert_eq!(
        count_of_t(&mut connection, key),
        0,
        "the row was rolled back"
    );
}

#[test]
fn a_count_taken_in_an_open_postgres_transaction_is_not_given_to_others() {
    use diesel::connection::{AnsiTransactionManager, SimpleConnection, TransactionManager};
    let Ok(server) = std::env::var("TEST_DATABASE_URL") else {
        return;
    };
    let name = format!("billing_counts_{}", uuid::Uuid::new_v4().simple());
    let url = crate::scratch::create_postgres_database(&server, &name).expect("database");
    let open = || DbConnection::Postgres(diesel::PgConnection::establish(&url).expect("pg"));
    let (mut writer, mut reader) = (open(), open());
    if let DbConnection::Postgres(pg) = &mut writer {
        pg.batch_execute("CREATE TABLE t (x INTEGER)")
            .expect("table");
        AnsiTransactionManager::begin_transaction(pg).expect("begin");
        pg.batch_execute("INSERT INTO t VALUES (1)").expect("write");
    }
    let key = "counts_test_uncommitted";
    assert_eq!(count_of_t(&mut writer, key), 1, "its own uncommitted row");
    let seen = count_of_t(&mut reader, key);
    drop((writer, reader));
    let _ = crate::scratch::drop_postgres_database(&server, &name);
    assert_eq!(seen, 0, "another connection sees no uncommitted row");
}

#[test]
fn a_connection_without_an_identity_is_always_counted() {
    let mut connection =
        DbConnection::Sqlite(diesel::SqliteConnection::establish(":memory:").expect("sqlite"));
    let mut counted = 0;
    for _ in 0..2 {
        total(
            &mut connection,
            page(1, 10),
            10,
            || key("counts_test_unnamed", &"", &""),
            "t",
            CountPreference::Exact,
            |_, _| {
                counted += 1;
                Ok(12)
            },
        )
        .expect("total");
    }
    assert_eq!(counted, 2);
}
