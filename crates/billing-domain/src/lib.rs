//! Pure billing rules and the types that carry them.
//!
//! **This crate does no I/O.** It knows no database, no web framework and no clock of its own:
//! callers pass today's date in. Batch jobs depend on it directly.
//!
//! Values are parsed, not validated: a [`text::BoundedText`], a [`codes::CountryCode`] or a
//! [`dates::Validity`] cannot exist in a wrong state, so code that holds one needs no re-check.

pub mod codes;
pub mod countries;
pub mod currency_codes;
pub mod customers;
pub mod dates;
pub mod error;
pub mod kinds;
pub mod money;
pub mod query;
pub mod rating;
pub mod reference_data;
pub mod resources;
pub mod roles;
pub mod rules;
pub mod sites;
pub mod text;
pub mod users;

pub use error::{FieldError, ValidationErrors};
