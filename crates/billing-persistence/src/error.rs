//! The one error enum of the storage layer. Diesel errors are translated here, once.

use diesel::result::{DatabaseErrorKind, Error as DieselError};

#[derive(Debug, thiserror::Error)]
pub enum PersistenceError {
    /// A unique constraint refused the row; `constraint` names it (or the message on SQLite).
    #[error("unique constraint violated: {constraint}")]
    UniqueViolation { constraint: String },
    /// A row still refers to the one being removed, or a reference points nowhere.
    #[error("foreign key constraint violated: {constraint}")]
    ForeignKeyViolation { constraint: String },
    /// A delete was refused because rows of the tables `by` still refer to row `id` of
    /// `table` (see `references::delete_row`).
    #[error("row {id} of {table} is still referred to by {by:?}")]
    StillReferenced {
        table: &'static str,
        id: i64,
        by: Vec<String>,
    },
    /// No connection could be had in time, or the database was busy.
    #[error("database unavailable: {0}")]
    Unavailable(String),
    /// A list query named a parameter this table does not know: a programming error.
    #[error("unknown list parameter {0}")]
    UnknownField(String),
    #[error("cannot connect to the database: {0}")]
    Connection(String),
    #[error("migration failed: {0}")]
    Migration(String),
    #[error("stored data is invalid: {0}")]
    Corrupt(String),
    #[error(transparent)]
    Query(DieselError),
}

impl From<DieselError> for PersistenceError {
    fn from(error: DieselError) -> Self {
        match &error {
            DieselError::DatabaseError(kind, info) => {
                let constraint = info
                    .constraint_name()
                    .map_or_else(|| info.message().to_owned(), str::to_owned);
                match kind {
                    DatabaseErrorKind::UniqueViolation => {
                        PersistenceError::UniqueViolation { constraint }
                    }
                    DatabaseErrorKind::ForeignKeyViolation => {
                        PersistenceError::ForeignKeyViolation { constraint }
                    }
                    DatabaseErrorKind::SerializationFailure => {
                        PersistenceError::Unavailable(info.message().to_owned())
                    }
                    _ if info.message().contains("database is locked") => {
                        PersistenceError::Unavailable(info.message().to_owned())
                    }
                    _ => PersistenceError::Query(error),
                }
            }
            _ => PersistenceError::Query(error),
        }
    }
}

impl From<r2d2::Error> for PersistenceError {
    fn from(error: r2d2::Error) -> Self {
        PersistenceError::Unavailable(error.to_string())
    }
}

pub type PersistenceResult<T> = Result<T, PersistenceError>;
