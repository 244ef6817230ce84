//! Records of other resources shown whole inside a record: a locale shows its country and its
//! currency, a source shows its locale (docs/api.md "Reference data"). The declaration says it once per member,
//! `currency_id: required Id shown_as(currency, currencies)`: the table stores the key, a
//! response shows the referenced record under `currency`, a body gives `{"currency": {"id": 3}}`
//! (the record's other members may be sent back as they were read and are ignored), filters
//! and sort keys are named `currency`, and the `ETag` is made of every shown record's version
//! too, so it changes whenever the body would. A page of records loads each shown table once.

use std::collections::HashMap;
use std::fmt::{Debug, Display};
use std::hash::Hash;

use billing_persistence::DbConnection;
use serde::{Serialize, Serializer};

use super::resource::{ApiResult, Field, missing_reference};

/// A record that other records show whole.
pub trait ShownRecord: Serialize + Clone + Debug + Sized {
    /// What the referring table stores: an id, or a code.
    type Key: Clone + Eq + Hash + Debug + Display;
    /// The record in words (`currency`), for "currency 9 does not exist".
    const NOUN: &'static str;
    /// The member of the shown object a body gives: `id`, or `code`.
    const KEY: &'static str;
    /// The shown object's members (a body may send them back; only [`Self::KEY`] is read).
    const FIELDS: &'static [Field];

    fn key(&self) -> Self::Key;

    /// The records with these keys, in one query per table, with what they show themselves.
    fn load(connection: &mut DbConnection, keys: &[Self::Key]) -> ApiResult<Vec<Self>>;

    /// The versions of every stored row this record's JSON form shows (see `Versioned`).
    fn shown_versions(&self) -> Vec<i64>;
}

/// A member showing another resource's record: the stored key, and the record once loaded.
#[derive(Debug, Clone)]
pub struct Shown<R: ShownRecord> {
    pub key: R::Key,
    pub record: Option<R>,
}

impl<R: ShownRecord> Shown<R> {
    /// The member of a stored row, before its record is loaded.
    pub fn of(key: R::Key) -> Self {
        Self { key, record: None }
    }
}

/// Two members are the same when they show the same record.
impl<R: ShownRecord> PartialEq for Shown<R> {
    fn eq(&self, other: &Self) -> bool {
        self.key == other.key
    }
}

impl<R: ShownRecord> Serialize for Shown<R> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match &self.record {
            Some(record) => record.serialize(serializer),
            None => Err(serde::ser::Error::custom(format!(
                "{} {} was not loaded",
                R::NOUN,
                self.key
            ))),
        }
    }
}

/// A required (`Shown`) or optional (`Option<Shown>`) shown member.
pub trait ShownMember {
    type Record: ShownRecord;
    fn shown(&mut self) -> Option<&mut Shown<Self::Record>>;
    fn key(&self) -> Option<&<Self::Record as ShownRecord>::Key>;
    /// Appends the versions the member's record shows.
    fn versions(&self, into: &mut Vec<i64>);
}

impl<R: ShownRecord> ShownMember for Shown<R> {
    type Record = R;

    fn shown(&mut self) -> Option<&mut Shown<R>> {
        Some(self)
    }

    fn key(&self) -> Option<&R::Key> {
        Some(&self.key)
    }

    fn versions(&self, into: &mut Vec<i64>) {
        if let Some(record) = &self.record {
            into.extend(record.shown_versions());
        }
    }
}

impl<R: ShownRecord> ShownMember for Option<Shown<R>> {
    type Record = R;

    fn shown(&mut self) -> Option<&mut Shown<R>> {
        self.as_mut()
    }

    fn key(&self) -> Option<&R::Key> {
        self.as_ref().map(|shown| &shown.key)
    }

    fn versions(&self, into: &mut Vec<i64>) {
        if let Some(shown) = self {
            shown.versions(into);
        }
    }
}

/// Loads the records one member of every record of a page shows: one query, whatever the
/// page's size.
pub fn fill<P, M: ShownMember>(
    connection: &mut DbConnection,
    page: &mut [P],
    member: impl Fn(&mut P) -> &mut M,
) -> ApiResult<()> {
    let mut keys: Vec<<M::Record as ShownRecord>::Key> = Vec::new();
    for record in page.iter_mut() {
        if let Some(key) = member(record).key()
            && !keys.contains(key)
        {
            keys.push(key.clone());
        }
    }
    if keys.is_empty() {
        return Ok(());
    }
    let loaded: HashMap<_, _> = M::Record::load(connection, &keys)?
        .into_iter()
        .map(|record| (record.key(), record))
        .collect();
    for record in page.iter_mut() {
        if let Some(shown) = member(record).shown() {
            shown.record = loaded.get(&shown.key).cloned();
        }
    }
    Ok(())
}

/// 400 naming `currency.id` unless the record a body's member names exists.
pub fn check_exists<R: ShownRecord>(
    connection: &mut DbConnection,
    member: &str,
    key: &R::Key,
) -> ApiResult<()> {
    if R::load(connection, std::slice::from_ref(key))?.is_empty() {
        return Err(missing_reference(
            &format!("{member}.{}", R::KEY),
            R::NOUN,
            key,
        ));
    }
    Ok(())
}
