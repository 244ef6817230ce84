//! Every searched column (`search::SEARCHED`) has what serves its `like:`: on PostgreSQL its
//! trigram index, on SQLite its FTS5 table, the three triggers that keep it and the partial
//! index of non-ASCII rows; and the migrations make no such thing for a column not listed.

mod support;

use support::Name;

use billing_persistence::search::{SEARCHED, search_table};
use billing_persistence::{Database, DbConnection, PersistenceError};
use diesel::prelude::*;

fn names(connection: &mut DbConnection, sql: &str) -> Vec<String> {
    let found: Vec<Name> = match connection {
        DbConnection::Sqlite(c) => diesel::sql_query(sql).load(c),
        DbConnection::Postgres(c) => diesel::sql_query(sql).load(c),
    }
    .expect("the catalog");
    let mut names: Vec<String> = found.into_iter().map(|n| n.name).collect();
    names.sort();
    names
}

fn expected(parts: impl Fn(&str, &str) -> Vec<String>) -> Vec<String> {
    let mut all: Vec<String> = SEARCHED.iter().flat_map(|(t, c)| parts(t, c)).collect();
    all.sort();
    all
}

fn check(database: &Database) {
    let found = database
        .read(|c| {
            Ok::<_, PersistenceError>(match c {
                DbConnection::Postgres(_) => names(
                    c,
                    "SELECT indexname::text AS name FROM pg_indexes \
                     WHERE indexname LIKE '%\\_trgm\\_idx'",
                ),
                DbConnection::Sqlite(_) => names(
                    c,
                    "SELECT name FROM sqlite_master WHERE (type = 'table' AND sql LIKE 'CREATE VIRTUAL TABLE%') \
                     OR (type = 'trigger' AND name LIKE 'search\\_%' ESCAPE '\\') \
                     OR (type = 'index' AND name LIKE '%\\_not\\_ascii' ESCAPE '\\')",
                ),
            })
        })
        .expect("read");
    let postgres = database
        .read(|c| Ok::<_, PersistenceError>(matches!(c, DbConnection::Postgres(_))))
        .expect("read");
    let wanted = if postgres {
        expected(|t, c| vec![format!("{t}_{c}_trgm_idx")])
    } else {
        expected(|t, c| {
            let fts = search_table(t, c);
            vec![
                fts.clone(),
                format!("{fts}_insert"),
                format!("{fts}_delete"),
                format!("{fts}_update"),
                format!("{t}_{c}_not_ascii"),
            ]
        })
    };
    assert_eq!(found, wanted);
}

#[test]
fn sqlite_has_a_search_table_for_every_searched_column() {
    support::on_sqlite(1, check);
}

#[test]
fn postgres_has_a_trigram_index_for_every_searched_column() {
    support::on_postgres(1, check);
}
