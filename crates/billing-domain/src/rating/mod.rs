//! Rating: which charge group a usage record falls in.
//!
//! Order (docs/api.md "Reference data"): an ignored service id or an ignored call class in force on the date
//! makes the record IGNORED; else the longest dialstring of the source that prefixes the dialled
//! number and is in force on the date makes it DIALSTRING; else the call class in force makes
//! it CALL_CLASS; else it is UNRATED.
//!
//! [`engine::RatingIndex`] answers from memory and takes one change at a time without a
//! rebuild; [`engine::SharedRatingIndex`] lets many threads read while one writes.
//! [`naive`] is the obvious linear scan, kept as the reference the engine is tested against;
//! [`reference`](mod@reference) holds the [`Rater`] trait and a hash-map reference fast enough to check whole
//! batch runs (`billing rate --reference`);
//! [`synthetic`] makes deterministic tariffs and usage for tests and benchmarks.

pub mod engine;
pub mod feed;
pub mod model;
pub mod naive;
pub mod number;
mod prefetch;
pub mod reference;
pub mod synthetic;
pub mod tariff_files;
mod trie;

pub use engine::{RatingIndex, SharedRatingIndex};
pub use model::*;
pub use reference::{PrefixMapRater, Rater};
