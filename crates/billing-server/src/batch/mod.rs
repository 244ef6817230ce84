//! Batch jobs on the rating engine, outside the HTTP service: reading a tariff from CSV files,
//! rating a usage CSV as a stream, and generating synthetic tariffs and usage.

pub mod csv_out;
pub mod files;
pub mod generate;
pub mod rate;
pub mod reference_data;
pub mod tariff_csv;

/// A batch failure that stops the run, with a message for the operator.
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
pub struct BatchError(pub String);

impl From<std::io::Error> for BatchError {
    fn from(error: std::io::Error) -> Self {
        BatchError(error.to_string())
    }
}

impl From<csv::Error> for BatchError {
    fn from(error: csv::Error) -> Self {
        BatchError(error.to_string())
    }
}
