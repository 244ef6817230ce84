//! `like:` (a case-insensitive substring) on a text column, and the indexes that serve it
//! for the names and references people search (docs/api.md, "Lists").
//!
//! The rows are always those of `lower(column) LIKE '%value%'` (Rust's lower-casing on SQLite,
//! the database's on PostgreSQL; without `lower` when the value has no letter). What differs
//! is how they are found among a million:
//!
//! - **PostgreSQL**: a trigram index (`pg_trgm`) on `lower(column)` serves that very expression
//!   (migration `2026-11-27-000001`).
//! - **SQLite**: an FTS5 table with the trigram tokenizer per searched column
//!   (`search_<table>_<column>`, kept by triggers) gives the candidates, which the exact
//!   comparison then checks. FTS5 folds case by its own Unicode tables, which are not Rust's,
//!   so it can vouch only for text that is plain ASCII: the rows holding any other character
//!   are added to the candidates from a partial index (`<table>_<column>_not_ascii`), and a
//!   value of fewer than 3 characters (which a trigram index cannot look up) reads the table.

use diesel::QueryResult;
use diesel::backend::Backend;
use diesel::expression::{AppearsOnTable, Expression, SelectableExpression, ValidGrouping};
use diesel::pg::Pg;
use diesel::query_builder::{AstPass, QueryFragment, QueryId};
use diesel::serialize::ToSql;
use diesel::sql_types::HasSqlType;
use diesel::sql_types::{Bool, Text};
use diesel::sqlite::Sqlite;

use crate::connection::MultiBackend;
use crate::list::{folding_is_moot, literal_pattern};

/// The searched columns: `(table, column)`. Each has its trigram index on PostgreSQL and its
/// FTS5 table and partial index on SQLite (a test checks both against this list).
pub const SEARCHED: [(&str, &str); 10] = [
    ("charge_group_categories", "name"),
    ("charge_groups", "name"),
    ("contract_owners", "name"),
    ("customers", "customer_name"),
    ("customers", "customer_reference"),
    ("reference_data_source_charge_groups", "name"),
    ("reference_data_sources", "name"),
    ("sites", "site_name"),
    ("sites", "site_reference"),
    ("users", "username"),
];

/// The FTS5 table of a searched column on SQLite.
pub fn search_table(table: &str, column: &str) -> String {
    format!("search_{table}_{column}")
}

/// `like:value` on `column`; `path` is the column as `stringify!` writes it
/// (`sites :: site_name`), which says whether it is searched.
pub fn containing<C>(column: C, path: &str, value: &str) -> Containing<C> {
    let lowered = billing_domain::query::lower_case(value);
    let (table, name) = table_and_column(path);
    let search = SEARCHED
        .iter()
        .find(|(t, c)| *t == table && *c == name)
        .filter(|_| lowered.chars().count() >= 3)
        .map(|&(table, column)| Search {
            table,
            column,
            phrase: format!("\"{}\"", lowered.replace('"', "\"\"")),
        });
    Containing {
        column,
        fold: !folding_is_moot(value),
        pattern: literal_pattern(&lowered),
        as_given: literal_pattern(value),
        search,
    }
}

/// The last two segments of `a :: b :: table :: column`.
fn table_and_column(path: &str) -> (&str, &str) {
    let mut segments = path.rsplit("::").map(str::trim);
    let column = segments.next().unwrap_or_default();
    let table = segments.next().unwrap_or_default();
    (table, column)
}

/// The filter [`containing`] makes.
#[derive(Debug, Clone)]
pub struct Containing<C> {
    column: C,
    /// Compare `lower(column)`: the value has a letter.
    fold: bool,
    /// `%value%`, lower-cased (by Rust, as SQLite's `lower` is) and escaped with `\`.
    pattern: String,
    /// `%value%` as given, escaped: PostgreSQL lowers it with its own `lower`, as it lowers
    /// the column (its `lower` and Rust's differ on a few letters, such as `İ`).
    as_given: String,
    search: Option<Search>,
}

#[derive(Debug, Clone)]
struct Search {
    table: &'static str,
    column: &'static str,
    /// The lower-cased value as an FTS5 phrase.
    phrase: String,
}

impl<C> Expression for Containing<C> {
    type SqlType = Bool;
}

impl<C: AppearsOnTable<QS>, QS> AppearsOnTable<QS> for Containing<C> {}

impl<C: SelectableExpression<QS>, QS> SelectableExpression<QS> for Containing<C> {}

impl<C: ValidGrouping<()>> ValidGrouping<()> for Containing<C> {
    type IsAggregate = C::IsAggregate;
}

impl<C> QueryId for Containing<C> {
    type QueryId = ();
    const HAS_STATIC_QUERY_ID: bool = false;
}

impl<C> Containing<C> {
    /// The SQL on `backend`: SQLite's candidates from the search index first (when the column
    /// is searched), then `lower(column) LIKE pattern`.
    fn write<'b, DB>(&'b self, mut out: AstPass<'_, 'b, DB>, backend: Side) -> QueryResult<()>
    where
        DB: Backend + HasSqlType<Text>,
        C: QueryFragment<DB>,
        String: ToSql<Text, DB>,
    {
        let candidates = match (backend, &self.search) {
            (Side::Sqlite, Some(search)) => Some(search),
            _ => None,
        };
        out.push_sql("(");
        if let Some(search) = candidates {
            let fts = search_table(search.table, search.column);
            out.push_sql(&format!(
                "\"{table}\".\"id\" IN (SELECT rowid FROM \"{fts}\" WHERE \"{fts}\" MATCH ",
                table = search.table
            ));
            out.push_bind_param::<Text, String>(&search.phrase)?;
            out.push_sql(&format!(
                " UNION SELECT \"id\" FROM \"{table}\" WHERE \"{column}\" GLOB '*[^ -~]*') AND ",
                table = search.table,
                column = search.column
            ));
        }
        if self.fold {
            out.push_sql("lower(");
            self.column.walk_ast(out.reborrow())?;
            out.push_sql(")");
        } else {
            self.column.walk_ast(out.reborrow())?;
        }
        out.push_sql(" LIKE ");
        match backend {
            Side::Postgres if self.fold => {
                out.push_sql("lower(");
                out.push_bind_param::<Text, String>(&self.as_given)?;
                out.push_sql(")");
            }
            _ => out.push_bind_param::<Text, String>(&self.pattern)?,
        }
        out.push_sql(" ESCAPE '\\')");
        Ok(())
    }
}

/// Which database the SQL is for.
#[derive(Debug, Clone, Copy)]
enum Side {
    Postgres,
    Sqlite,
}

impl<C: QueryFragment<MultiBackend>> QueryFragment<MultiBackend> for Containing<C> {
    fn walk_ast<'b>(&'b self, out: AstPass<'_, 'b, MultiBackend>) -> QueryResult<()> {
        let side = match out.backend() {
            MultiBackend::Postgres(_) => Side::Postgres,
            MultiBackend::Sqlite(_) => Side::Sqlite,
        };
        self.write(out, side)
    }
}

// A subquery (a member of an owned record, `mandateReference=like:…`) is written for each
// backend on its own.
impl<C: QueryFragment<Pg>> QueryFragment<Pg> for Containing<C> {
    fn walk_ast<'b>(&'b self, out: AstPass<'_, 'b, Pg>) -> QueryResult<()> {
        self.write(out, Side::Postgres)
    }
}

impl<C: QueryFragment<Sqlite>> QueryFragment<Sqlite> for Containing<C> {
    fn walk_ast<'b>(&'b self, out: AstPass<'_, 'b, Sqlite>) -> QueryResult<()> {
        self.write(out, Side::Sqlite)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_column_path_names_its_table_and_column() {
        assert_eq!(
            table_and_column("sites :: site_name"),
            ("sites", "site_name")
        );
        assert_eq!(
            table_and_column("crate :: schema :: users :: username"),
            ("users", "username")
        );
    }

    #[test]
    fn short_values_and_other_columns_are_not_searched() {
        let searched = |path, value| containing((), path, value).search.is_some();
        assert!(searched("sites :: site_name", "abc"));
        assert!(searched("sites :: site_name", "ÉCo"));
        assert!(!searched("sites :: site_name", "ab"));
        assert!(!searched("sites :: town", "abc"));
        assert_eq!(
            containing((), "sites :: site_name", "a\"b")
                .search
                .map(|s| s.phrase),
            Some("\"a\"\"b\"".to_owned())
        );
    }
}
