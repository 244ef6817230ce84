//! Pure billing rules and the types that carry them.
//!
//! **This crate does no I/O.** It knows no database, no web framework and no clock of its own:
//! callers pass today's date in. Batch jobs depend on it directly.
//!
//! Values are parsed, not validated: a [`text::BoundedText`], a [`codes::CountryCode`] or a
//! [`dates::Validity`] cannot exist in a wrong state, so code that holds one needs no re-check.
//!
//! Every resource of the service is declared once in [`resources`]; each declared table's
//! module has the documents a batch job parses, with every broken rule named by its JSON path:
//!
//! ```
//! use billing_domain::resources::{Document, tax_bands};
//!
//! let body = serde_json::json!({"name": "Standard rate", "rate": 20, "startDate": "2026-01-01"});
//! let band = tax_bands::Parsed::from_json(&body, "").expect("a valid tax band");
//! assert_eq!(band.rate, 200_000); // exact: 20 in units of 0.0001
//!
//! let broken = serde_json::json!({"name": "", "rate": 120, "startDate": "2026-02-30"});
//! let errors = tax_bands::Parsed::from_json(&broken, "").unwrap_err();
//! assert_eq!(
//!     errors.to_string(),
//!     "startDate: must be a date, yyyy-MM-dd; name: must be 1 to 50 characters long (got 0); \
//!      rate: must be between 0 and 100"
//! );
//! ```
//!
//! A whole site body, with the rules across its parts: [`sites::check_site_body`].

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

// The code `billing_declare::declare!` writes names this crate by its name, here as elsewhere.
extern crate self as billing_domain;
