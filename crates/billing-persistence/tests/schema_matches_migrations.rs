//! `src/schema.rs` says what the tables are; the migrations make them. This test migrates a
//! fresh database on each backend, reads back every table's columns (name, type, nullability,
//! in order) and fails when they differ from the definitions: the declared tables' as their
//! declarations define them (`stored_resource!`, `stored_child!`), the others' as written in
//! `schema.rs`. With `Selectable` rows checked for both backends (`check_for_backend`), a
//! declaration and the migrations cannot drift apart.

mod support;

use std::collections::BTreeMap;

use billing_persistence::{Database, DbConnection};
use diesel::prelude::*;
use diesel::sql_types::{BigInt, Text};

type Tables = BTreeMap<String, Vec<String>>;

/// A declared table's `stored_columns()`: its name and `["column -> Type", …]`.
type StoredColumns = fn() -> (&'static str, Vec<String>);

/// Every declared table's columns, as its declaration defines them. A table left out of this
/// list fails the tests below (the migrations make it, nothing here defines it).
const DECLARED_TABLES: [StoredColumns; 30] = [
    billing_persistence::adhoc_bill_run_sites::stored_columns,
    billing_persistence::adhoc_bill_runs::stored_columns,
    billing_persistence::billing_cycles::stored_columns,
    billing_persistence::call_classes::stored_columns,
    billing_persistence::charge_group_categories::stored_columns,
    billing_persistence::charge_groups::stored_columns,
    billing_persistence::contract_owner_sub_brands::stored_columns,
    billing_persistence::contract_owners::stored_columns,
    billing_persistence::currencies::stored_columns,
    billing_persistence::currency_rates::stored_columns,
    billing_persistence::custom_field_definitions::stored_columns,
    billing_persistence::customers::stored_columns,
    billing_persistence::dialstrings::stored_columns,
    billing_persistence::ignored_call_classes::stored_columns,
    billing_persistence::ignored_service_ids::stored_columns,
    billing_persistence::inventory_items::stored_columns,
    billing_persistence::invoice_templates::stored_columns,
    billing_persistence::locales::stored_columns,
    billing_persistence::payment_provider_mandates::stored_columns,
    billing_persistence::reference_data_source_charge_groups::stored_columns,
    billing_persistence::reference_data_sources::stored_columns,
    billing_persistence::site_addresses::stored_columns,
    billing_persistence::site_assigned_custom_fields::stored_columns,
    billing_persistence::site_contacts::stored_columns,
    billing_persistence::site_invoice_addresses::stored_columns,
    billing_persistence::site_invoice_details::stored_columns,
    billing_persistence::sites::stored_columns,
    billing_persistence::tax_bands::stored_columns,
    billing_persistence::user_contract_owners::stored_columns,
    billing_persistence::users::stored_columns,
];

/// `table -> ["column -> Type", …]`: the declared tables and those `schema.rs` writes by hand.
fn declared() -> Tables {
    let mut tables = written_by_hand();
    for stored_columns in DECLARED_TABLES {
        let (table, columns) = stored_columns();
        assert!(
            tables.insert(table.to_owned(), columns).is_none(),
            "{table} is both declared and written by hand"
        );
    }
    tables
}

/// `table -> ["column -> Type", …]` of the tables `schema.rs` writes by hand.
fn written_by_hand() -> Tables {
    let text = include_str!("../src/schema.rs");
    let mut tables = Tables::new();
    let mut current: Option<String> = None;
    // `#[sql_name = "password_hash"]` names the next column's SQL name.
    let mut sql_name: Option<String> = None;
    for line in text.lines() {
        let trimmed = line.trim();
        if let Some(name) = trimmed
            .strip_prefix("#[sql_name = \"")
            .and_then(|rest| rest.strip_suffix("\"]"))
        {
            sql_name = Some(name.to_owned());
        } else if let Some(name) = trimmed.strip_suffix('{').map(str::trim)
            && let Some((table, key)) = name.split_once(' ')
            && key.starts_with('(')
            && line.starts_with("    ")
            && !line.starts_with("        ")
        {
            current = Some(table.to_owned());
            tables.insert(table.to_owned(), Vec::new());
        } else if let (Some(table), Some((column, kind))) = (&current, trimmed.split_once(" -> ")) {
            let column_type = kind.trim_end_matches(',').to_owned();
            if let Some(columns) = tables.get_mut(table) {
                let column = column.strip_prefix("r#").unwrap_or(column);
                let column = sql_name.take().unwrap_or_else(|| column.to_owned());
                columns.push(format!("{column} -> {column_type}"));
            }
        } else if trimmed == "}" && line.starts_with("    }") {
            current = None;
        }
    }
    tables
}

#[derive(QueryableByName)]
struct SqliteTable {
    #[diesel(sql_type = Text)]
    name: String,
}

#[derive(QueryableByName)]
struct SqliteColumn {
    #[diesel(sql_type = Text)]
    name: String,
    #[diesel(sql_type = Text)]
    r#type: String,
    #[diesel(sql_type = BigInt)]
    notnull: i64,
    #[diesel(sql_type = BigInt)]
    pk: i64,
}

#[derive(QueryableByName)]
struct PostgresColumn {
    #[diesel(sql_type = Text)]
    table_name: String,
    #[diesel(sql_type = Text)]
    column_name: String,
    #[diesel(sql_type = Text)]
    data_type: String,
    #[diesel(sql_type = Text)]
    is_nullable: String,
}

fn diesel_type(sql: &str, primary_key: bool) -> String {
    match sql.to_ascii_lowercase().as_str() {
        "integer" if primary_key => "BigInt",
        "bigint" => "BigInt",
        "integer" => "Integer",
        "text" => "Text",
        "boolean" => "Bool",
        "date" => "Date",
        "timestamp" | "timestamp without time zone" => "Timestamp",
        other => panic!("a column type schema.rs has no mapping for: {other}"),
    }
    .to_owned()
}

fn column(name: &str, sql: &str, nullable: bool, primary_key: bool) -> String {
    let kind = diesel_type(sql, primary_key);
    if nullable {
        format!("{name} -> Nullable<{kind}>")
    } else {
        format!("{name} -> {kind}")
    }
}

fn migrated(connection: &mut DbConnection) -> Tables {
    let mut tables = Tables::new();
    match connection {
        DbConnection::Sqlite(sqlite) => {
            // `table_changes` is SQLite's change and row counters, kept by triggers and read
            // by `counts/` with its own SQL, and `search_…` its FTS5 tables (`search.rs`):
            // neither is in schema.rs.
            let names: Vec<SqliteTable> = diesel::sql_query(
                "SELECT name FROM sqlite_master WHERE type = 'table' \
                 AND name NOT LIKE 'sqlite_%' AND name <> '__diesel_schema_migrations' \
                 AND name <> 'table_changes' AND name NOT LIKE 'search_%'",
            )
            .load(sqlite)
            .expect("tables");
            for table in names {
                let columns: Vec<SqliteColumn> = diesel::sql_query(format!(
                    "SELECT name, type, \"notnull\", pk FROM pragma_table_info('{}') ORDER BY cid",
                    table.name
                ))
                .load(sqlite)
                .expect("columns");
                let columns = columns
                    .iter()
                    .map(|c| column(&c.name, &c.r#type, c.notnull == 0 && c.pk == 0, c.pk == 1))
                    .collect();
                tables.insert(table.name, columns);
            }
        }
        DbConnection::Postgres(postgres) => {
            // `table_row_deltas` is PostgreSQL's row counters (`counts/`), not in schema.rs.
            let columns: Vec<PostgresColumn> = diesel::sql_query(
                "SELECT table_name::text, column_name::text, data_type::text, is_nullable::text \
                 FROM information_schema.columns WHERE table_schema = 'public' \
                 AND table_name NOT IN ('__diesel_schema_migrations', 'table_row_deltas') \
                 ORDER BY table_name, ordinal_position",
            )
            .load(postgres)
            .expect("columns");
            for c in columns {
                tables.entry(c.table_name).or_default().push(column(
                    &c.column_name,
                    &c.data_type,
                    c.is_nullable == "YES",
                    false,
                ));
            }
        }
    }
    tables
}

fn tables_of(database: &Database) -> Tables {
    database
        .read(|c| Ok::<_, billing_persistence::PersistenceError>(migrated(c)))
        .expect("read")
}

#[test]
fn schema_rs_matches_the_sqlite_migrations() {
    support::on_sqlite(1, |database| assert_eq!(tables_of(database), declared()));
}

#[test]
fn schema_rs_matches_the_postgres_migrations() {
    support::on_postgres(1, |database| assert_eq!(tables_of(database), declared()));
}

#[test]
fn the_schema_parser_reads_tables() {
    let tables = written_by_hand();
    insta::assert_snapshot!(tables["sign_in_attempts"].join("\n"), @r"
    id -> BigInt
    throttle_key -> Text
    attempted_at -> Timestamp
    ");
}

#[test]
fn a_declared_table_is_defined_by_its_declaration() {
    let tables = declared();
    insta::assert_snapshot!(tables["charge_groups"].join("\n"), @r"
    id -> BigInt
    name -> Text
    charge_group_category_id -> BigInt
    start_date -> Date
    end_date -> Nullable<Date>
    version -> BigInt
    ");
    // An owned child: its parent's column and its place in the list, no version.
    insta::assert_snapshot!(tables["site_addresses"].join("\n"), @r"
    id -> BigInt
    site_id -> BigInt
    ordinal -> BigInt
    business_name -> Nullable<Text>
    address1 -> Text
    address2 -> Nullable<Text>
    address3 -> Nullable<Text>
    town -> Text
    county -> Nullable<Text>
    postcode -> Text
    country -> Text
    ");
    // A password is kept as its hash, in `<member>_hash`.
    assert!(tables["users"].contains(&"password_hash -> Text".to_owned()));
}
