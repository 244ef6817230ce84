//! The list conventions in SQL: filters and sort keys applied to boxed queries.
//!
//! Each table declares, once, which parameter maps to which column and how; the macros here
//! expand those declarations into Diesel calls that run on both backends.

use billing_domain::query::{Filter, TextFilter, lower_case};

diesel::define_sql_function! {
    /// SQL `lower`. Full Unicode on both backends: PostgreSQL folds by the database's ctype
    /// (UTF-8), and SQLite's built-in (ASCII only) is replaced on every connection by
    /// [`register_unicode_lower`].
    fn lower(value: diesel::sql_types::Text) -> diesel::sql_types::Text;
}

diesel::define_sql_function! {
    /// The same SQL `lower`, declared for NULL too: the signature the SQLite replacement is
    /// registered with, so a NULL column gives NULL instead of an error.
    #[sql_name = "lower"]
    fn lower_nullable(
        value: diesel::sql_types::Nullable<diesel::sql_types::Text>,
    ) -> diesel::sql_types::Nullable<diesel::sql_types::Text>;
}

/// Replaces SQLite's built-in `lower(text)`, which folds ASCII letters only, by
/// [`lower_case`] (every Unicode letter), so `like:école` finds "École" as on PostgreSQL.
/// An application-defined function overrides the built-in of the same name and arity; it must
/// be registered on every connection.
pub fn register_unicode_lower(
    connection: &mut diesel::SqliteConnection,
) -> diesel::QueryResult<()> {
    lower_nullable_utils::register_impl(connection, |value: Option<String>| {
        value.map(|text| lower_case(&text))
    })
}

/// True when a `like:` value has no character that case folding could touch (only ASCII
/// digits, punctuation and spaces): `lower(column) LIKE p` then matches exactly the rows
/// `column LIKE p` matches, since folding never makes, removes or moves such a character, and
/// the column is compared as it is stored, without calling `lower` on every row (on SQLite a
/// Rust function: about half the cost of `like:` over a large table).
pub fn folding_is_moot(value: &str) -> bool {
    value
        .bytes()
        .all(|byte| byte.is_ascii() && !byte.is_ascii_alphabetic() && !byte.is_ascii_control())
}

/// A `LIKE` pattern matching `value` as a literal substring, as given; escape char `\`.
pub fn literal_pattern(value: &str) -> String {
    let mut pattern = String::with_capacity(value.len() + 2);
    pattern.push('%');
    for c in value.chars() {
        if matches!(c, '%' | '_' | '\\') {
            pattern.push('\\');
        }
        pattern.push(c);
    }
    pattern.push('%');
    pattern
}

/// Unwraps the text filter of a parameter declared as text.
pub fn text_filter(filter: &Filter) -> Option<&TextFilter> {
    match filter {
        Filter::Text(text) => Some(text),
        _ => None,
    }
}

/// Applies every filter of `$filters` to the boxed `$query`; arms map parameter names to a
/// kind (`text`, `role_codes`, `id`, `boolean`, `date`, `nullable_date`, `date_time`, `id_in`) and column.
#[macro_export]
macro_rules! apply_filters {
    ($query:expr, $filters:expr, { $($name:literal => $kind:ident($($column:tt)+)),* $(,)? }) => {{
        let mut query = $query;
        for filter in $filters {
            query = match filter.field {
                $($name => $crate::filter_column!($kind, query, ($($column)+), &filter.filter, $name),)*
                other => return Err($crate::PersistenceError::UnknownField(other.to_owned())),
            };
        }
        query
    }};
}

#[macro_export]
#[doc(hidden)]
macro_rules! filter_column {
    (text, $query:ident, ($column:expr), $filter:expr, $name:expr) => {{
        use billing_domain::query::TextFilter;
        match $crate::list::text_filter($filter) {
            Some(TextFilter::Equals(value)) => $query.filter($column.eq(value.clone())),
            Some(TextFilter::AnyOf(values)) => $query.filter($column.eq_any(values.clone())),
            Some(TextFilter::Contains(value)) => $query.filter($crate::search::containing(
                $column,
                stringify!($column),
                value,
            )),
            None => return Err($crate::PersistenceError::UnknownField($name.to_owned())),
        }
    }};
    // A user's roles, held as their codes joined by commas: a filter names roles the user
    // holds, so it compares the column with every list holding one (`RoleCodes::held_lists`),
    // never with the joined text.
    (role_codes, $query:ident, ($column:expr), $filter:expr, $name:expr) => {{
        use billing_domain::query::TextFilter;
        use billing_domain::users::RoleCodes;
        match $crate::list::text_filter($filter) {
            Some(TextFilter::Equals(code)) => {
                $query.filter($column.eq_any(RoleCodes::held_lists(|held| held == code)))
            }
            Some(TextFilter::AnyOf(codes)) => {
                $query.filter($column.eq_any(RoleCodes::held_lists(|held| {
                    codes.iter().any(|code| code == held)
                })))
            }
            Some(filter @ TextFilter::Contains(_)) => {
                $query.filter($column.eq_any(RoleCodes::held_lists(|held| filter.matches(held))))
            }
            None => return Err($crate::PersistenceError::UnknownField($name.to_owned())),
        }
    }};
    // An optional text column: a value matches only where the column is set.
    (nullable_text, $query:ident, ($column:expr), $filter:expr, $name:expr) => {{
        use billing_domain::query::TextFilter;
        match $crate::list::text_filter($filter) {
            Some(TextFilter::Equals(value)) => $query.filter($column.eq(value.clone())),
            Some(TextFilter::AnyOf(values)) => $query.filter($column.eq_any(values.clone())),
            // NULL is never LIKE anything: an unset column does not match.
            Some(TextFilter::Contains(value)) => $query.filter($crate::search::containing(
                $column,
                stringify!($column),
                value,
            )),
            None => return Err($crate::PersistenceError::UnknownField($name.to_owned())),
        }
    }};
    // An exact decimal stored as scaled units; the filter arrives in the same units.
    (decimal, $query:ident, ($column:expr), $filter:expr, $name:expr) => {{
        use billing_domain::query::DecimalFilter;
        match $filter {
            billing_domain::query::Filter::Decimal(DecimalFilter::Equals(units)) => {
                $query.filter($column.eq(*units))
            }
            billing_domain::query::Filter::Decimal(DecimalFilter::Below(units)) => {
                $query.filter($column.lt(*units))
            }
            billing_domain::query::Filter::Decimal(DecimalFilter::Above(units)) => {
                $query.filter($column.gt(*units))
            }
            _ => return Err($crate::PersistenceError::UnknownField($name.to_owned())),
        }
    }};
    (id, $query:ident, ($column:expr), $filter:expr, $name:expr) => {
        match $filter {
            billing_domain::query::Filter::Id(id) => $query.filter($column.eq(*id)),
            _ => return Err($crate::PersistenceError::UnknownField($name.to_owned())),
        }
    };
    (boolean, $query:ident, ($column:expr), $filter:expr, $name:expr) => {
        match $filter {
            billing_domain::query::Filter::Boolean(value) => $query.filter($column.eq(*value)),
            _ => return Err($crate::PersistenceError::UnknownField($name.to_owned())),
        }
    };
    // `id_in(column, |value: bool| subquery)`: the column is among the ids the subquery selects.
    (id_in, $query:ident, ($column:expr, $subquery:expr), $filter:expr, $name:expr) => {
        match $filter {
            billing_domain::query::Filter::Boolean(value) => {
                $query.filter($column.eq_any(($subquery)(*value)))
            }
            _ => return Err($crate::PersistenceError::UnknownField($name.to_owned())),
        }
    };
    // A text member of an owned child: the record's id is among the owners of the child rows
    // whose column matches (`mandateStatus` of a site's invoice details). Each arm builds its
    // own subquery (a boxed subquery cannot run on the multi-backend connection).
    (child_text, $query:ident, ($column:expr, $child:ident . $owner:ident . $member:ident), $filter:expr, $name:expr) => {{
        use billing_domain::query::TextFilter;
        use $crate::schema::$child as child;
        match $crate::list::text_filter($filter) {
            Some(TextFilter::Equals(value)) => $query.filter(
                $column.eq_any(
                    child::table
                        .filter(child::$member.eq(value.clone()))
                        .select(child::$owner),
                ),
            ),
            Some(TextFilter::AnyOf(values)) => $query.filter(
                $column.eq_any(
                    child::table
                        .filter(child::$member.eq_any(values.clone()))
                        .select(child::$owner),
                ),
            ),
            Some(TextFilter::Contains(value)) => $query.filter(
                $column.eq_any(
                    child::table
                        .filter($crate::search::containing(
                            child::$member,
                            stringify!(child::$member),
                            value,
                        ))
                        .select(child::$owner),
                ),
            ),
            None => return Err($crate::PersistenceError::UnknownField($name.to_owned())),
        }
    }};
    // An id member of an owned child (`invoiceTemplateId` of a site's invoice details).
    (child_id, $query:ident, ($column:expr, $child:ident . $owner:ident . $member:ident), $filter:expr, $name:expr) => {
        match $filter {
            billing_domain::query::Filter::Id(id) => $query.filter(
                $column.eq_any(
                    $crate::schema::$child::table
                        .filter($crate::schema::$child::$member.eq(*id))
                        .select($crate::schema::$child::$owner),
                ),
            ),
            _ => return Err($crate::PersistenceError::UnknownField($name.to_owned())),
        }
    };
    // A date filter on the day of a child's optional date-time (`mandateCreatedDate`), in UTC.
    (child_day, $query:ident, ($column:expr, $child:ident . $owner:ident . $member:ident), $filter:expr, $name:expr) => {{
        use billing_domain::query::{DateFilter, Filter};
        use $crate::schema::$child as child;
        // The day's first and last instants (not the next day's first: after 9999-12-31 it is
        // year 10000, which SQLite compares as text and sorts before every other date).
        const LAST_INSTANT: chrono::NaiveTime =
            match chrono::NaiveTime::from_hms_nano_opt(23, 59, 59, 999_999_999) {
                Some(instant) => instant,
                None => chrono::NaiveTime::MIN,
            };
        let start = |day: &chrono::NaiveDate| day.and_time(chrono::NaiveTime::MIN);
        let last = |day: &chrono::NaiveDate| day.and_time(LAST_INSTANT);
        match $filter {
            Filter::Date(DateFilter::On(day)) => $query.filter(
                $column.eq_any(
                    child::table
                        .filter(
                            child::$member
                                .ge(start(day))
                                .and(child::$member.le(last(day))),
                        )
                        .select(child::$owner),
                ),
            ),
            Filter::Date(DateFilter::Before(day)) => $query.filter(
                $column.eq_any(
                    child::table
                        .filter(child::$member.lt(start(day)))
                        .select(child::$owner),
                ),
            ),
            Filter::Date(DateFilter::After(day)) => $query.filter(
                $column.eq_any(
                    child::table
                        .filter(child::$member.gt(last(day)))
                        .select(child::$owner),
                ),
            ),
            // After the day or no date at all, which a record without the child has too: not
            // one of the records whose child's date is on or before the day.
            Filter::Date(DateFilter::AfterOrOpen(day)) => $query.filter(
                $column.ne_all(
                    child::table
                        .filter(child::$member.le(last(day)))
                        .select(child::$owner),
                ),
            ),
            _ => return Err($crate::PersistenceError::UnknownField($name.to_owned())),
        }
    }};
    // An id member of the record a column names (`billingCycleId` of a site's customer).
    (parent_id, $query:ident, ($column:expr, $parent:ident . $member:ident), $filter:expr, $name:expr) => {
        match $filter {
            billing_domain::query::Filter::Id(id) => $query.filter(
                $column.eq_any(
                    $crate::schema::$parent::table
                        .filter($crate::schema::$parent::$member.eq(*id))
                        .select($crate::schema::$parent::id),
                ),
            ),
            _ => return Err($crate::PersistenceError::UnknownField($name.to_owned())),
        }
    };
    // `true`: rows whose end date (the column) is today (UTC) or later, or none; `false`: all.
    (active_today, $query:ident, ($column:expr), $filter:expr, $name:expr) => {
        match $filter {
            billing_domain::query::Filter::Boolean(true) => {
                let today = chrono::Utc::now().date_naive();
                $query.filter($column.ge(today).or($column.is_null()))
            }
            billing_domain::query::Filter::Boolean(false) => $query,
            _ => return Err($crate::PersistenceError::UnknownField($name.to_owned())),
        }
    };
    (date, $query:ident, ($column:expr), $filter:expr, $name:expr) => {{
        use billing_domain::query::{DateFilter, Filter};
        match $filter {
            Filter::Date(DateFilter::On(day)) => $query.filter($column.eq(*day)),
            Filter::Date(DateFilter::Before(day)) => $query.filter($column.lt(*day)),
            Filter::Date(DateFilter::After(day) | DateFilter::AfterOrOpen(day)) => {
                $query.filter($column.gt(*day))
            }
            _ => return Err($crate::PersistenceError::UnknownField($name.to_owned())),
        }
    }};
    (nullable_date, $query:ident, ($column:expr), $filter:expr, $name:expr) => {{
        use billing_domain::query::{DateFilter, Filter};
        match $filter {
            Filter::Date(DateFilter::On(day)) => $query.filter($column.eq(*day)),
            Filter::Date(DateFilter::Before(day)) => $query.filter($column.lt(*day)),
            Filter::Date(DateFilter::After(day)) => $query.filter($column.gt(*day)),
            Filter::Date(DateFilter::AfterOrOpen(day)) => {
                $query.filter($column.gt(*day).or($column.is_null()))
            }
            _ => return Err($crate::PersistenceError::UnknownField($name.to_owned())),
        }
    }};
    (date_time, $query:ident, ($column:expr), $filter:expr, $name:expr) => {{
        use billing_domain::query::{DateTimeFilter, Filter};
        match $filter {
            Filter::DateTime(DateTimeFilter::Within { from, until }) => {
                $query.filter($column.ge(*from)).filter($column.lt(*until))
            }
            Filter::DateTime(DateTimeFilter::Before(at)) => $query.filter($column.lt(*at)),
            Filter::DateTime(DateTimeFilter::After(at)) => $query.filter($column.gt(*at)),
            _ => return Err($crate::PersistenceError::UnknownField($name.to_owned())),
        }
    }};
}

/// The terms of an `ORDER BY`, gathered one by one (`then_order_by`, as on a query) and given
/// to the query once (`order_by`). Diesel's own `then_order_by` on a boxed query nests each new
/// term in a pair with the ones before, and writing a pair walks its first half twice (once to
/// ask whether it is empty), so the SQL of `n` terms took 2^n walks: a `sort` naming every
/// member of a site never finished. Here each term is walked once.
pub struct OrderTerms<DB: diesel::backend::Backend> {
    terms: Vec<Box<dyn diesel::query_builder::QueryFragment<DB> + Send>>,
}

impl<DB: diesel::backend::Backend> OrderTerms<DB> {
    pub fn new() -> Self {
        Self { terms: Vec::new() }
    }

    /// Adds `term` after the terms so far.
    pub fn then_order_by<Term>(mut self, term: Term) -> Self
    where
        Term: diesel::query_builder::QueryFragment<DB> + Send + 'static,
    {
        self.terms.push(Box::new(term));
        self
    }
}

impl<DB: diesel::backend::Backend> Default for OrderTerms<DB> {
    fn default() -> Self {
        Self::new()
    }
}

impl<DB: diesel::backend::Backend> diesel::query_builder::QueryFragment<DB> for OrderTerms<DB> {
    fn walk_ast<'b>(
        &'b self,
        mut out: diesel::query_builder::AstPass<'_, 'b, DB>,
    ) -> diesel::QueryResult<()> {
        for (index, term) in self.terms.iter().enumerate() {
            if index > 0 {
                out.push_sql(", ");
            }
            term.walk_ast(out.reborrow())?;
        }
        Ok(())
    }
}

impl<DB: diesel::backend::Backend> diesel::Expression for OrderTerms<DB> {
    type SqlType = diesel::expression::expression_types::NotSelectable;
}

/// Every term comes from a table's own declaration (its columns, or subqueries correlated to
/// it), so the whole appears on the table it orders.
impl<QS, DB: diesel::backend::Backend> diesel::AppearsOnTable<QS> for OrderTerms<DB> {}

/// Orders the boxed `$query` by `$sort` keys (kinds `plain` and `nullable`: NULL sorts as the
/// largest value on both backends), then by `$id` so pages are stable.
#[macro_export]
macro_rules! apply_sort {
    ($query:expr, $sort:expr, $id:expr, { $($name:literal => $kind:ident($column:expr)),* $(,)? }) => {{
        let mut terms = $crate::list::OrderTerms::new();
        for key in $sort {
            terms = match key.field {
                $($name => $crate::sort_column!($kind, terms, $column, key.descending),)*
                other => return Err($crate::PersistenceError::UnknownField(other.to_owned())),
            };
        }
        $query.order_by(terms.then_order_by($id.asc()))
    }};
}

#[macro_export]
#[doc(hidden)]
macro_rules! sort_column {
    (plain, $query:ident, $column:expr, $descending:expr) => {
        if $descending {
            $query.then_order_by($column.desc())
        } else {
            $query.then_order_by($column.asc())
        }
    };
    (nullable, $query:ident, $column:expr, $descending:expr) => {
        if $descending {
            $query
                .then_order_by($column.is_null().desc())
                .then_order_by($column.desc())
        } else {
            $query
                .then_order_by($column.is_null().asc())
                .then_order_by($column.asc())
        }
    };
}

/// Declares `pub fn list(connection, query) -> (rows, total)`: one select and, unless the page
/// says the total, one count with the same filters (see [`crate::counts`]).
#[macro_export]
macro_rules! define_list {
    (
        source: $source:expr,
        select: $select:expr,
        row: $row:ty,
        id: $id:expr,
        filters: { $($filters:tt)* },
        sort: { $($sorts:tt)* } $(,)?
    ) => {
        /// One page of rows matching the query, and how many rows match in all.
        pub fn list(
            connection: &mut $crate::DbConnection,
            query: &billing_domain::query::ListQuery,
        ) -> $crate::error::PersistenceResult<(Vec<$row>, i64)> {
            let filtered = $crate::apply_filters!($source.select($select).into_boxed(), &query.filters, { $($filters)* });
            let mut sorted = $crate::apply_sort!(filtered, &query.sort, $id, { $($sorts)* });
            if let Some(page) = query.page {
                sorted = sorted.limit(page.limit()).offset(page.offset());
            }
            let rows = sorted.load::<$row>(connection)?;
            let total = $crate::counts::total(
                connection,
                query.page,
                rows.len(),
                || $crate::counts::key(stringify!($source), &query.filters, &()),
                $crate::counts::table_of(stringify!($source)),
                query.count,
                |connection, counting| {
                    let counted = $crate::apply_filters!($source.count().into_boxed(), &query.filters, { $($filters)* });
                    match counting {
                        $crate::counts::Counting::Rows => Ok(counted.get_result(connection)?),
                        $crate::counts::Counting::Plan => $crate::counts::planned_rows(connection, counted),
                    }
                },
            )?;
            Ok((rows, total))
        }
    };
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sqlite_lower_folds_every_unicode_letter_once_registered() {
        use diesel::prelude::*;
        let mut connection = diesel::SqliteConnection::establish(":memory:").expect("sqlite");
        let lowered = |connection: &mut diesel::SqliteConnection, value: Option<&str>| {
            diesel::select(lower_nullable(value.map(str::to_owned)))
                .get_result::<Option<String>>(connection)
                .expect("select")
        };
        assert_eq!(
            lowered(&mut connection, Some("ÉCOLE")).as_deref(),
            Some("École"),
            "the built-in folds ASCII only"
        );
        register_unicode_lower(&mut connection).expect("registered");
        assert_eq!(
            lowered(&mut connection, Some("ÉCOLE Ω")).as_deref(),
            Some("école ω")
        );
        assert_eq!(lowered(&mut connection, None), None);
        let text: String = diesel::select(lower("STRAẞE"))
            .get_result(&mut connection)
            .expect("select");
        assert_eq!(text, "straße");
    }

    #[test]
    fn folding_is_moot_only_without_letters_or_non_ascii() {
        for value in ["9", "07700 900-1/#", "-/.,#+%_\\"] {
            assert!(folding_is_moot(value), "{value}");
        }
        for value in ["a9", "9Z", "50% off", "£9", "9\u{307}", "ǅ", "\t9"] {
            assert!(!folding_is_moot(value), "{value}");
        }
    }

    #[test]
    fn order_terms_are_written_once_each() {
        use crate::schema::charge_groups;
        use diesel::prelude::*;
        // Sixty-four terms: with Diesel's nested pairs this took 2^64 walks.
        let mut terms = OrderTerms::<diesel::sqlite::Sqlite>::new();
        for _ in 0..32 {
            terms = terms
                .then_order_by(charge_groups::end_date.is_null().desc())
                .then_order_by(charge_groups::end_date.desc());
        }
        let query = charge_groups::table
            .select(charge_groups::id)
            .into_boxed()
            .order_by(terms.then_order_by(charge_groups::id.asc()));
        let sql = diesel::debug_query::<diesel::sqlite::Sqlite, _>(&query).to_string();
        assert_eq!(sql.matches("DESC").count(), 64, "{sql}");
        assert!(
            sql.contains("DESC, (`charge_groups`.`end_date` IS NULL) DESC"),
            "{sql}"
        );
        assert!(
            sql.ends_with("`charge_groups`.`id` ASC -- binds: []"),
            "{sql}"
        );
    }

    #[test]
    fn literal_pattern_escapes_wildcards() {
        insta::assert_snapshot!(literal_pattern(&lower_case("50%_Off\\")), @r"%50\%\_off\\%");
    }
}
