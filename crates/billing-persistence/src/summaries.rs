//! Reference data summaries (docs/api.md "Reference data"): one row per dialstring or call
//! class with the records above it (source charge group, source, charge group, category), and
//! for a charge group one row per dialstring and call class of each of its source charge
//! groups, or one row of a group's own fields when it rates neither. One query per page and
//! one count, whatever the number of rows: the three kinds of row are a `UNION ALL`.
//!
//! Every column is declared once below: its JSON name (derived), its kind and its SQL.

use chrono::NaiveDate;
use diesel::prelude::*;
use diesel::sql_types::BigInt;

use crate::DbConnection;
use crate::error::{PersistenceError, PersistenceResult};
use billing_domain::query::ListQuery;

/// What a summary is of.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SummaryOf {
    CallClass(i64),
    Dialstring(i64),
    ChargeGroup(i64),
}

/// The kind of a summary column.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SummaryKind {
    Id,
    Text,
    Date,
}

/// A column's value.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SummaryValue {
    Id(Option<i64>),
    Text(Option<String>),
    Date(Option<NaiveDate>),
}

/// The SQL type of each kind of column (every column may be NULL in some rows).
mod sql {
    use diesel::sql_types::{BigInt, Nullable};
    pub type Id = Nullable<BigInt>;
    pub type Text = Nullable<diesel::sql_types::Text>;
    pub type Date = Nullable<diesel::sql_types::Date>;
}

/// The Rust type of each kind of column.
mod rust {
    pub type Id = Option<i64>;
    pub type Text = Option<String>;
    pub type Date = Option<chrono::NaiveDate>;
}

macro_rules! summary_columns {
    ($($field:ident : $kind:ident = $sql:literal,)*) => {
        /// One summary row; columns a row's kind does not have are `None`.
        #[derive(Debug, Clone, PartialEq, Eq, QueryableByName)]
        pub struct SummaryRow {
            $(
                #[diesel(sql_type = sql::$kind)]
                pub $field: rust::$kind,
            )*
        }

        /// Every column: its JSON name and kind, in order.
        pub const COLUMNS: &[(&str, SummaryKind)] =
            &[$((billing_domain::json_name!($field), SummaryKind::$kind),)*];

        impl SummaryRow {
            /// The columns' values, in the order of [`COLUMNS`].
            pub fn values(&self) -> Vec<(&'static str, SummaryValue)> {
                vec![$((billing_domain::json_name!($field), SummaryValue::$kind(self.$field.clone())),)*]
            }
        }

        /// The select list of one branch: a call-class or dialstring column outside its own
        /// branch is a typed NULL.
        fn select_list(branch: Branch) -> String {
            let columns: Vec<String> = vec![$(branch.column($sql, stringify!($field), summary_cast(SummaryKind::$kind)),)*];
            columns.join(", ")
        }

        /// The SQL column of a JSON name (for `sort`), if it is one.
        fn column_of(name: &str) -> Option<&'static str> {
            match name {
                $(n if n == billing_domain::json_name!($field) => Some(stringify!($field)),)*
                _ => None,
            }
        }
    };
}

summary_columns! {
    charge_group_id: Id = "cg.id",
    charge_group_name: Text = "cg.name",
    charge_group_start_date: Date = "cg.start_date",
    charge_group_end_date: Date = "cg.end_date",
    charge_group_category_id: Id = "cat.id",
    charge_group_category_name: Text = "cat.name",
    charge_group_category_charging_unit_type: Text = "cat.charging_unit_type",
    charge_group_category_start_date: Date = "cat.start_date",
    charge_group_category_end_date: Date = "cat.end_date",
    reference_data_source_id: Id = "s.id",
    reference_data_source_name: Text = "s.name",
    reference_data_source_charge_group_id: Id = "g.id",
    reference_data_source_charge_group_name: Text = "g.name",
    reference_data_source_charge_group_start_date: Date = "g.start_date",
    reference_data_source_charge_group_end_date: Date = "g.end_date",
    call_class_id: Id = "cc.id",
    call_class: Text = "cc.call_class",
    call_class_start_date: Date = "cc.start_date",
    call_class_end_date: Date = "cc.end_date",
    dialstring_id: Id = "d.id",
    dialstring: Text = "d.dialstring",
    dialstring_start_date: Date = "d.start_date",
    dialstring_end_date: Date = "d.end_date",
}

fn summary_cast(kind: SummaryKind) -> &'static str {
    match kind {
        SummaryKind::Id => "BIGINT",
        SummaryKind::Text => "TEXT",
        SummaryKind::Date => "DATE",
    }
}

/// The three kinds of row.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Branch {
    CallClass,
    Dialstring,
    GroupOnly,
}

/// The records above a source charge group `g`.
const ABOVE_GROUP: &str = "JOIN reference_data_sources s ON s.id = g.reference_data_source_id \
    JOIN charge_groups cg ON cg.id = g.charge_group_id \
    JOIN charge_group_categories cat ON cat.id = cg.charge_group_category_id";

impl Branch {
    fn column(self, sql: &str, alias: &str, cast: &str) -> String {
        let foreign = match self {
            Branch::CallClass => sql.starts_with("d."),
            Branch::Dialstring => sql.starts_with("cc."),
            Branch::GroupOnly => sql.starts_with("d.") || sql.starts_with("cc."),
        };
        if foreign {
            format!("CAST(NULL AS {cast}) AS {alias}")
        } else {
            format!("{sql} AS {alias}")
        }
    }

    /// `SELECT … FROM … WHERE <subject> = <placeholder>` for this branch.
    fn select(self, subject: &str, placeholder: &str) -> String {
        let (from, own) = match self {
            Branch::CallClass => (
                "call_classes cc JOIN reference_data_source_charge_groups g \
                 ON g.id = cc.reference_data_source_charge_group_id",
                "",
            ),
            Branch::Dialstring => (
                "dialstrings d JOIN reference_data_source_charge_groups g \
                 ON g.id = d.reference_data_source_charge_group_id",
                "",
            ),
            Branch::GroupOnly => (
                "reference_data_source_charge_groups g",
                " AND NOT EXISTS (SELECT 1 FROM dialstrings x \
                   WHERE x.reference_data_source_charge_group_id = g.id) \
                 AND NOT EXISTS (SELECT 1 FROM call_classes y \
                   WHERE y.reference_data_source_charge_group_id = g.id)",
            ),
        };
        format!(
            "SELECT {} FROM {from} {ABOVE_GROUP} WHERE {subject} = {placeholder}{own}",
            select_list(self)
        )
    }
}

/// The rows of a summary page and how many rows there are in all; `None` when the record the
/// summary is of does not exist. An unknown sort key is an error (the http layer passes only
/// the columns' names).
pub fn summary(
    connection: &mut DbConnection,
    of: SummaryOf,
    query: &ListQuery,
) -> PersistenceResult<Option<(Vec<SummaryRow>, i64)>> {
    use crate::schema::{call_classes, charge_groups, dialstrings};
    let (exists, branches, subject, id): (bool, &[Branch], &str, i64) = match of {
        SummaryOf::CallClass(id) => (
            diesel::select(diesel::dsl::exists(call_classes::table.find(id)))
                .get_result(connection)?,
            &[Branch::CallClass],
            "cc.id",
            id,
        ),
        SummaryOf::Dialstring(id) => (
            diesel::select(diesel::dsl::exists(dialstrings::table.find(id)))
                .get_result(connection)?,
            &[Branch::Dialstring],
            "d.id",
            id,
        ),
        SummaryOf::ChargeGroup(id) => (
            diesel::select(diesel::dsl::exists(charge_groups::table.find(id)))
                .get_result(connection)?,
            &[Branch::CallClass, Branch::Dialstring, Branch::GroupOnly],
            "cg.id",
            id,
        ),
    };
    if !exists {
        return Ok(None);
    }
    let mut order = Vec::new();
    for key in &query.sort {
        let column = column_of(key.field)
            .ok_or_else(|| PersistenceError::UnknownField(key.field.to_owned()))?;
        // NULL sorts as the largest value, as on every list.
        order.push(if key.descending {
            format!("({column} IS NULL) DESC, {column} DESC")
        } else {
            format!("({column} IS NULL), {column}")
        });
    }
    order.push(
        "reference_data_source_charge_group_id, (call_class_id IS NULL), call_class_id, \
         (dialstring_id IS NULL), dialstring_id"
            .to_owned(),
    );
    let postgres = matches!(connection, DbConnection::Postgres(_));
    let placeholder = |n: usize| {
        if postgres {
            format!("${n}")
        } else {
            "?".to_owned()
        }
    };
    let union: Vec<String> = branches
        .iter()
        .enumerate()
        .map(|(index, branch)| branch.select(subject, &placeholder(index + 1)))
        .collect();
    let union = union.join(" UNION ALL ");
    let count_sql = format!("SELECT COUNT(*) AS total FROM ({union}) summary_rows");
    let (limit, offset) = query
        .page
        .map_or((i64::MAX, 0), |page| (page.limit(), page.offset()));
    let page_sql = format!(
        "SELECT * FROM ({union}) summary_rows ORDER BY {} LIMIT {} OFFSET {}",
        order.join(", "),
        placeholder(branches.len() + 1),
        placeholder(branches.len() + 2)
    );
    macro_rules! run {
        ($connection:expr, $backend:ty) => {{
            let mut count = diesel::sql_query(&count_sql).into_boxed::<$backend>();
            for _ in branches {
                count = count.bind::<BigInt, _>(id);
            }
            let total = count.get_result::<Total>($connection)?.total;
            if total == 0 || offset >= total {
                return Ok(Some((Vec::new(), total)));
            }
            let mut page = diesel::sql_query(&page_sql).into_boxed::<$backend>();
            for _ in branches {
                page = page.bind::<BigInt, _>(id);
            }
            let rows = page
                .bind::<BigInt, _>(limit)
                .bind::<BigInt, _>(offset)
                .load::<SummaryRow>($connection)?;
            Ok(Some((rows, total)))
        }};
    }
    match connection {
        DbConnection::Sqlite(sqlite) => run!(sqlite, diesel::sqlite::Sqlite),
        DbConnection::Postgres(postgres) => run!(postgres, diesel::pg::Pg),
    }
}

#[derive(QueryableByName)]
struct Total {
    #[diesel(sql_type = BigInt)]
    total: i64,
}
