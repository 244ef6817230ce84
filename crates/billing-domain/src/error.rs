//! The one error type of the domain: a list of field errors.

use std::fmt;

/// One broken rule, named by the JSON path of the field it concerns (`locale.country.code`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FieldError {
    pub field: String,
    pub message: String,
}

impl FieldError {
    pub fn new(field: impl Into<String>, message: impl Into<String>) -> Self {
        Self {
            field: field.into(),
            message: message.into(),
        }
    }
}

/// Every rule a value broke; never empty when returned as an error.
#[derive(Debug, Clone, PartialEq, Eq, Default, thiserror::Error)]
pub struct ValidationErrors {
    pub errors: Vec<FieldError>,
}

impl ValidationErrors {
    /// The messages alone, joined by `; ` (for a kind's rule, whose caller names the field).
    pub fn messages(self) -> String {
        self.errors
            .into_iter()
            .map(|error| error.message)
            .collect::<Vec<_>>()
            .join("; ")
    }

    pub fn single(field: impl Into<String>, message: impl Into<String>) -> Self {
        Self {
            errors: vec![FieldError::new(field, message)],
        }
    }

    pub fn push(&mut self, field: impl Into<String>, message: impl Into<String>) {
        self.errors.push(FieldError::new(field, message));
    }

    /// Records the error of `result` (if any) and hands back its value.
    pub fn collect<T>(&mut self, result: Result<T, ValidationErrors>) -> Option<T> {
        match result {
            Ok(value) => Some(value),
            Err(mut other) => {
                self.errors.append(&mut other.errors);
                None
            }
        }
    }

    pub fn is_empty(&self) -> bool {
        self.errors.is_empty()
    }

    /// `Ok(value)` when no error was recorded.
    pub fn into_result<T>(self, value: impl FnOnce() -> T) -> Result<T, ValidationErrors> {
        if self.errors.is_empty() {
            Ok(value())
        } else {
            Err(self)
        }
    }
}

impl fmt::Display for ValidationErrors {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let parts: Vec<String> = self
            .errors
            .iter()
            .map(|e| format!("{}: {}", e.field, e.message))
            .collect();
        f.write_str(&parts.join("; "))
    }
}
