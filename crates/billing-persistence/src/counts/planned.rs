//! The PostgreSQL planner's estimate of a count, for `Prefer: count=planned|estimated`.

use diesel::query_builder::{AstPass, Query, QueryFragment, QueryId};
use diesel::sql_types::Text;
use diesel::{QueryResult, RunQueryDsl};

use crate::DbConnection;
use crate::connection::MultiBackend;
use crate::error::PersistenceResult;

/// `EXPLAIN (FORMAT JSON)` of a query, which PostgreSQL answers with its plan as one JSON text.
#[derive(Debug, Clone)]
pub struct Explain<Q>(pub Q);

impl<Q> QueryId for Explain<Q> {
    type QueryId = ();
    const HAS_STATIC_QUERY_ID: bool = false;
}

impl<Q> Query for Explain<Q> {
    type SqlType = Text;
}

impl<Q: QueryFragment<MultiBackend>> QueryFragment<MultiBackend> for Explain<Q> {
    fn walk_ast<'b>(&'b self, mut out: AstPass<'_, 'b, MultiBackend>) -> QueryResult<()> {
        out.push_sql("EXPLAIN (FORMAT JSON) ");
        self.0.walk_ast(out.reborrow())
    }
}

impl<Q> RunQueryDsl<DbConnection> for Explain<Q> {}

/// The PostgreSQL planner's estimate of the rows `count_query` (a `SELECT COUNT(*)`) counts,
/// without running it: the estimate of the plan under the aggregate, times the workers'
/// share when the scan is parallel (the planner's own divisor: the workers, plus the leader's
/// part, 1 − 0.3 a worker).
pub fn planned_rows<Q>(connection: &mut DbConnection, count_query: Q) -> PersistenceResult<i64>
where
    Explain<Q>:
        QueryFragment<MultiBackend> + diesel::query_dsl::LoadQuery<'static, DbConnection, String>,
{
    let text: String = Explain(count_query).get_result(connection)?;
    Ok(rows_of_plan(&text).unwrap_or(0))
}

/// The rows under the aggregate of an `EXPLAIN (FORMAT JSON)` plan (see [`planned_rows`]).
pub(super) fn rows_of_plan(text: &str) -> Option<i64> {
    let plans: serde_json::Value = serde_json::from_str(text).ok()?;
    let mut node = plans.get(0)?.get("Plan")?;
    let mut workers = 0.0;
    while let "Aggregate" | "Gather" | "Gather Merge" = node.get("Node Type")?.as_str()? {
        if let Some(planned) = node.get("Workers Planned").and_then(|w| w.as_f64()) {
            workers = planned;
        }
        node = node.get("Plans")?.get(0)?;
    }
    let mut rows = node.get("Plan Rows")?.as_f64()?;
    if workers > 0.0 && node.get("Parallel Aware").and_then(|p| p.as_bool()) == Some(true) {
        rows *= workers + (1.0 - 0.3 * workers).max(0.0);
    }
    Some(rows.round() as i64)
}
