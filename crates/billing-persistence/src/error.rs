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
    /// No connection could be had in time, the database was busy, or the connection was lost
    /// (the server closed it, restarted or cannot be reached). Worth retrying later.
    #[error("database unavailable: {0}")]
    Unavailable(String),
    /// The transaction lost a race with a concurrent one (PostgreSQL: a serialization failure
    /// or a deadlock) and was rolled back; running it again may succeed. `Database::write`
    /// does so a few times before giving this up.
    #[error("the write conflicted with a concurrent one: {0}")]
    WriteConflict(String),
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
                        PersistenceError::WriteConflict(info.message().to_owned())
                    }
                    _ if info.message().contains("deadlock detected") => {
                        PersistenceError::WriteConflict(info.message().to_owned())
                    }
                    DatabaseErrorKind::ClosedConnection => {
                        PersistenceError::Unavailable(info.message().to_owned())
                    }
                    _ if is_lost_connection(info.message())
                        || is_exhausted(info.message())
                        || info.message().contains("database is locked") =>
                    {
                        PersistenceError::Unavailable(info.message().to_owned())
                    }
                    _ => PersistenceError::Query(error),
                }
            }
            DieselError::BrokenTransactionManager => {
                PersistenceError::Unavailable("the connection's transaction state is broken".into())
            }
            _ => PersistenceError::Query(error),
        }
    }
}

/// What libpq and PostgreSQL say when the connection went away mid-request: the server
/// closed it (restart, `pg_terminate_backend`, a proxy), is shutting down or starting up, or
/// cannot be reached. Such a request is answered 503, never 500, and the connection is not
/// handed out again.
fn is_lost_connection(message: &str) -> bool {
    const SIGNS: [&str; 8] = [
        "server closed the connection",
        "terminating connection",
        "no connection to the server",
        "connection to server",
        "could not receive data from server",
        "could not send data to server",
        "the database system is",
        "SSL SYSCALL error",
    ];
    SIGNS.iter().any(|sign| message.contains(sign))
}

/// What PostgreSQL and SQLite say when the database is short of something for the moment
/// (PostgreSQL's class 53, "insufficient resources": shared memory for locks, memory,
/// connection slots, disk; SQLite's full disk; a statement or lock wait that ran out of time).
/// The request did nothing and may be tried again later: 503 with `Retry-After`, not 500.
fn is_exhausted(message: &str) -> bool {
    const SIGNS: [&str; 8] = [
        "out of shared memory",
        "out of memory",
        "too many connections",
        "remaining connection slots",
        "No space left on device",
        "could not extend file",
        "database or disk is full",
        "canceling statement due to",
    ];
    SIGNS.iter().any(|sign| message.contains(sign))
}

/// The storage faults an error of any layer may carry, for [`Database`](crate::Database) to
/// act on: a lost race is run again, a lost connection is not pooled again.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StorageFault {
    /// [`PersistenceError::WriteConflict`].
    WriteConflict,
    /// [`PersistenceError::Unavailable`]: busy, timed out or lost.
    Unavailable,
}

impl PersistenceError {
    pub fn fault(&self) -> Option<StorageFault> {
        match self {
            PersistenceError::WriteConflict(_) => Some(StorageFault::WriteConflict),
            PersistenceError::Unavailable(_) => Some(StorageFault::Unavailable),
            _ => None,
        }
    }
}

/// An error type work on a connection may return: it can be made from a storage error, and
/// it still says which storage fault (if any) it came from, whatever it became on the way.
pub trait StorageError: From<PersistenceError> {
    fn storage_fault(&self) -> Option<StorageFault>;
}

impl StorageError for PersistenceError {
    fn storage_fault(&self) -> Option<StorageFault> {
        self.fault()
    }
}

impl From<r2d2::Error> for PersistenceError {
    fn from(error: r2d2::Error) -> Self {
        PersistenceError::Unavailable(error.to_string())
    }
}

pub type PersistenceResult<T> = Result<T, PersistenceError>;

#[cfg(test)]
mod tests {
    use super::*;

    fn from_database(message: &str) -> PersistenceError {
        DieselError::DatabaseError(DatabaseErrorKind::Unknown, Box::new(message.to_owned())).into()
    }

    #[test]
    fn a_database_short_of_resources_is_unavailable_not_a_fault() {
        for message in [
            "out of shared memory",
            "sorry, too many clients already: too many connections for role \"billing\"",
            "remaining connection slots are reserved for non-replication superuser connections",
            "could not extend file \"base/16384/2619\": No space left on device",
            "database or disk is full",
            "canceling statement due to lock timeout",
        ] {
            assert_eq!(
                from_database(message).fault(),
                Some(StorageFault::Unavailable),
                "{message}"
            );
        }
        assert_eq!(
            from_database("syntax error at or near \"SELEC\"").fault(),
            None
        );
    }
}
