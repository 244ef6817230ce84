//! Keeps the tables' row counts cheap to read: on PostgreSQL each statement that inserts or
//! deletes rows adds a delta row (`billing_persistence::counts::rows_of`), and this folds
//! them into one row per table every [`FOLD_EVERY`], whether or not anyone lists the table.

use std::time::Duration;

use actix_web::web;

use crate::state::AppState;

pub const FOLD_EVERY: Duration = Duration::from_secs(60);

/// Folds the deltas every [`FOLD_EVERY`] on the current actix system until it stops
/// (PostgreSQL only: SQLite keeps one counter row per table).
pub fn follow(state: web::Data<AppState>) {
    if state.database.backend() != billing_persistence::Backend::Postgres {
        return;
    }
    actix_web::rt::spawn(async move {
        let mut ticks = actix_web::rt::time::interval(FOLD_EVERY);
        loop {
            ticks.tick().await;
            let shared = state.clone();
            let outcome = web::block(move || {
                shared
                    .database
                    .read(billing_persistence::counts::fold_row_deltas)
            })
            .await;
            match outcome {
                Ok(Ok(())) => {}
                Ok(Err(error)) => tracing::warn!(%error, "the row counts could not be folded"),
                Err(error) => tracing::warn!(%error, "the row counts' folder did not run"),
            }
        }
    });
}
