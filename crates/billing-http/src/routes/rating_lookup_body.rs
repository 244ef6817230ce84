//! The body of `POST /v1/rating/lookups`, read straight from its bytes into typed items.
//!
//! Nothing is built that the request may not keep: no `serde_json::Value` of the whole body,
//! unknown members and wrongly typed values are skipped without being stored, and the items
//! are counted while they are read, so a body of two million items stops at item 10,001 having
//! held at most 10,000 small items (docs/api.md, "Rating"). Every broken member is
//! named by its path (the first 100 of them), as a `Value` walk would name them.

use std::fmt;

use billing_domain::FieldError;
use billing_domain::dates::parse_date;
use chrono::NaiveDate;
use serde::de::{self, DeserializeSeed, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};

use crate::machinery::repeated_members::REPEATED;

use super::rating_lookups::{
    CALL_CLASS, DIALLED_NUMBER, MAX_ITEMS, MAX_NUMBER_CHARS, MAX_TEXT_CHARS, SERVICE_ID, SOURCE,
};

/// The most broken members one answer names.
pub const MAX_ERRORS: usize = 100;

/// One usage item: each member absent or null is "not given".
#[derive(Debug, Default, PartialEq, Eq)]
pub struct Item {
    pub dialled_number: Option<String>,
    pub call_class: Option<String>,
    pub service_id: Option<String>,
}

/// A checked body.
#[derive(Debug, PartialEq, Eq)]
pub struct Lookup {
    pub source: i64,
    pub date: NaiveDate,
    pub items: Vec<Item>,
}

/// What a body could not be: not JSON at all, or JSON whose members break the rules.
#[derive(Debug)]
pub enum BodyError {
    Syntax(serde_json::Error),
    Fields(Vec<FieldError>),
}

/// Reads and checks a body; `today` is the date when the body gives none.
pub fn parse(bytes: &[u8], today: NaiveDate) -> Result<Lookup, BodyError> {
    let mut state = State::default();
    let mut deserializer = serde_json::Deserializer::from_slice(bytes);
    let read = Shaped(BodySeed { state: &mut state })
        .deserialize(&mut deserializer)
        .and_then(|()| deserializer.end());
    if let Err(error) = read {
        // A custom error is ours: the reading stopped at a limit, already noted as a field
        // error. Anything else is the JSON itself.
        if !state.stopped {
            return Err(BodyError::Syntax(error));
        }
    }
    let State {
        mut errors,
        source,
        date,
        items,
        seen_items,
        ..
    } = state;
    if !seen_items && !errors.iter().any(|e| e.field == "items") {
        errors.push(FieldError::new("items", "is required"));
    }
    let source = match source {
        Some(source) => source,
        None => {
            if !errors.iter().any(|e| e.field == SOURCE) {
                errors.push(FieldError::new(SOURCE, "is required"));
            }
            0
        }
    };
    if !errors.is_empty() {
        errors.truncate(MAX_ERRORS);
        return Err(BodyError::Fields(errors));
    }
    Ok(Lookup {
        source,
        date: date.unwrap_or(today),
        items,
    })
}

#[derive(Default)]
struct State {
    errors: Vec<FieldError>,
    source: Option<i64>,
    date: Option<NaiveDate>,
    items: Vec<Item>,
    seen_items: bool,
    /// The reading was stopped on purpose (too many items or errors).
    stopped: bool,
}

impl State {
    fn error(&mut self, field: impl Into<String>, message: impl Into<String>) {
        self.errors.push(FieldError::new(field, message));
    }

    /// Stops the reading once [`MAX_ERRORS`] are noted: the answer names no more.
    fn check_error_count<E: de::Error>(&mut self) -> Result<(), E> {
        if self.errors.len() >= MAX_ERRORS {
            self.stopped = true;
            return Err(E::custom("too many errors"));
        }
        Ok(())
    }
}

/// A member's value as far as a check needs it; arrays and objects are skipped unread.
enum Scalar {
    Null,
    Integer(i64),
    Text(String),
    Other,
}

struct ScalarVisitor;

impl<'de> Visitor<'de> for ScalarVisitor {
    type Value = Scalar;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a JSON value")
    }
    fn visit_unit<E>(self) -> Result<Scalar, E> {
        Ok(Scalar::Null)
    }
    fn visit_none<E>(self) -> Result<Scalar, E> {
        Ok(Scalar::Null)
    }
    fn visit_bool<E>(self, _: bool) -> Result<Scalar, E> {
        Ok(Scalar::Other)
    }
    fn visit_i64<E>(self, value: i64) -> Result<Scalar, E> {
        Ok(Scalar::Integer(value))
    }
    fn visit_u64<E>(self, value: u64) -> Result<Scalar, E> {
        Ok(i64::try_from(value).map_or(Scalar::Other, Scalar::Integer))
    }
    fn visit_f64<E>(self, _: f64) -> Result<Scalar, E> {
        Ok(Scalar::Other)
    }
    fn visit_str<E>(self, value: &str) -> Result<Scalar, E> {
        Ok(Scalar::Text(value.to_owned()))
    }
    fn visit_string<E>(self, value: String) -> Result<Scalar, E> {
        Ok(Scalar::Text(value))
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Scalar, A::Error> {
        while seq.next_element::<IgnoredAny>()?.is_some() {}
        Ok(Scalar::Other)
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Scalar, A::Error> {
        match map.next_key::<Name<'de>>()? {
            Some(Name(key)) if key == NUMBER_TOKEN => {
                let Name(digits) = map.next_value::<Name<'de>>()?;
                Ok(digits.parse().map_or(Scalar::Other, Scalar::Integer))
            }
            Some(_) => {
                map.next_value::<IgnoredAny>()?;
                while map.next_entry::<IgnoredAny, IgnoredAny>()?.is_some() {}
                Ok(Scalar::Other)
            }
            None => Ok(Scalar::Other),
        }
    }
}

/// How serde_json (with `arbitrary_precision`) hands a number to `deserialize_any`: as a map
/// of this one key to the number's digits. A visitor of objects must tell it from an object.
const NUMBER_TOKEN: &str = "$serde_json::private::Number";

impl<'de> de::Deserialize<'de> for Scalar {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        // With `arbitrary_precision`, numbers arrive as a map unless asked for by type.
        deserializer.deserialize_any(ScalarVisitor)
    }
}

/// A member name, borrowed from the body when it can be.
struct Name<'a>(std::borrow::Cow<'a, str>);

impl<'de> de::Deserialize<'de> for Name<'de> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct NameVisitor;
        impl<'de> Visitor<'de> for NameVisitor {
            type Value = Name<'de>;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a member name")
            }
            fn visit_borrowed_str<E>(self, value: &'de str) -> Result<Name<'de>, E> {
                Ok(Name(std::borrow::Cow::Borrowed(value)))
            }
            fn visit_str<E>(self, value: &str) -> Result<Name<'de>, E> {
                Ok(Name(std::borrow::Cow::Owned(value.to_owned())))
            }
        }
        deserializer.deserialize_str(NameVisitor)
    }
}

/// A part of the body that must have one JSON shape, read by [`Shaped`]: an object (`object`)
/// or an array (`array`). Any other value is skipped and answered by `wrong_shape`, once.
trait OneShape<'de>: Sized {
    /// What the part must be, for serde's own messages.
    const EXPECTING: &'static str;

    fn object<A: MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
        while map.next_entry::<IgnoredAny, IgnoredAny>()?.is_some() {}
        self.wrong_shape()
    }

    fn array<A: SeqAccess<'de>>(self, mut seq: A) -> Result<(), A::Error> {
        while seq.next_element::<IgnoredAny>()?.is_some() {}
        self.wrong_shape()
    }

    /// `null`: the wrong shape, unless the part says otherwise.
    fn null<E: de::Error>(self) -> Result<(), E> {
        self.wrong_shape()
    }

    fn wrong_shape<E: de::Error>(self) -> Result<(), E>;
}

/// Reads a [`OneShape`] part from whatever value comes.
struct Shaped<S>(S);

impl<'de, S: OneShape<'de>> DeserializeSeed<'de> for Shaped<S> {
    type Value = ();
    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<(), D::Error> {
        deserializer.deserialize_any(self)
    }
}

impl<'de, S: OneShape<'de>> Visitor<'de> for Shaped<S> {
    type Value = ();

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(S::EXPECTING)
    }

    fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<(), A::Error> {
        self.0.object(map)
    }
    fn visit_seq<A: SeqAccess<'de>>(self, seq: A) -> Result<(), A::Error> {
        self.0.array(seq)
    }
    fn visit_unit<E: de::Error>(self) -> Result<(), E> {
        self.0.null()
    }
    fn visit_str<E: de::Error>(self, _: &str) -> Result<(), E> {
        self.0.wrong_shape()
    }
    fn visit_bool<E: de::Error>(self, _: bool) -> Result<(), E> {
        self.0.wrong_shape()
    }
    fn visit_i64<E: de::Error>(self, _: i64) -> Result<(), E> {
        self.0.wrong_shape()
    }
    fn visit_u64<E: de::Error>(self, _: u64) -> Result<(), E> {
        self.0.wrong_shape()
    }
    fn visit_f64<E: de::Error>(self, _: f64) -> Result<(), E> {
        self.0.wrong_shape()
    }
}

/// The whole body: an object of `referenceDataSourceId`, `date` and `items`.
struct BodySeed<'s> {
    state: &'s mut State,
}

impl<'de> OneShape<'de> for BodySeed<'_> {
    const EXPECTING: &'static str = "a JSON object";

    fn object<A: MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
        let state = self.state;
        let mut named = Named::of([SOURCE, "date", "items"]);
        while let Some(Name(name)) = map.next_key::<Name<'de>>()? {
            if named.again(&name) {
                state.error(name.as_ref(), REPEATED);
                map.next_value::<IgnoredAny>()?;
                state.check_error_count()?;
                continue;
            }
            match name.as_ref() {
                NUMBER_TOKEN => {
                    map.next_value::<IgnoredAny>()?;
                    return BodySeed { state }.wrong_shape();
                }
                SOURCE => {
                    state.source = None;
                    match map.next_value::<Scalar>()? {
                        Scalar::Null => {}
                        Scalar::Integer(id) if id >= 1 => state.source = Some(id),
                        _ => state.error(SOURCE, "must be an integer >= 1"),
                    }
                }
                "date" => {
                    state.date = None;
                    match map.next_value::<Scalar>()? {
                        Scalar::Null => {}
                        Scalar::Text(text) => match parse_date(&text) {
                            Some(date) => state.date = Some(date),
                            None => state.error("date", "must be a date (yyyy-MM-dd)"),
                        },
                        _ => state.error("date", "must be a date (yyyy-MM-dd)"),
                    }
                }
                "items" => {
                    state.seen_items = true;
                    state.items.clear();
                    map.next_value_seed(Shaped(ItemsSeed { state: &mut *state }))?;
                }
                other => {
                    state.error(other, "unknown field");
                    map.next_value::<IgnoredAny>()?;
                }
            }
            state.check_error_count()?;
        }
        Ok(())
    }

    /// The body is not an object: that is the one thing to say.
    fn wrong_shape<E: de::Error>(self) -> Result<(), E> {
        self.state.error("body", "must be a JSON object");
        self.state.seen_items = true;
        self.state.source = Some(0);
        Ok(())
    }
}

/// `items`: an array of 1 to [`MAX_ITEMS`] objects, counted as it is read.
struct ItemsSeed<'s> {
    state: &'s mut State,
}

impl<'de> OneShape<'de> for ItemsSeed<'_> {
    const EXPECTING: &'static str = "an array of objects";

    fn array<A: SeqAccess<'de>>(self, mut seq: A) -> Result<(), A::Error> {
        let state = self.state;
        let mut index = 0;
        loop {
            if index == MAX_ITEMS {
                // One more element is one too many: stop reading here.
                if seq.next_element::<IgnoredAny>()?.is_some() {
                    state.error(
                        "items",
                        format!("must hold 1 to {MAX_ITEMS} items (got more)"),
                    );
                    state.stopped = true;
                    return Err(de::Error::custom("too many items"));
                }
                break;
            }
            let seed = ItemSeed {
                state: &mut *state,
                index,
            };
            if seq.next_element_seed(Shaped(seed))?.is_none() {
                break;
            }
            index += 1;
            state.check_error_count()?;
        }
        if index == 0 {
            state.error("items", format!("must hold 1 to {MAX_ITEMS} items (got 0)"));
        }
        Ok(())
    }

    /// `null` is no list at all: the member is missing.
    fn null<E: de::Error>(self) -> Result<(), E> {
        self.state.error("items", "is required");
        Ok(())
    }

    /// An object (or a number, see `NUMBER_TOKEN`), a string, a boolean: not an array.
    fn wrong_shape<E: de::Error>(self) -> Result<(), E> {
        self.state.error("items", "must be an array of objects");
        Ok(())
    }
}

/// Which of an object's known members it has named so far (an unknown member is an error
/// each time anyway).
struct Named {
    known: [&'static str; 3],
    seen: [bool; 3],
}

impl Named {
    fn of(known: [&'static str; 3]) -> Self {
        Named {
            known,
            seen: [false; 3],
        }
    }

    /// Whether the known member `name` was named before (noting it).
    fn again(&mut self, name: &str) -> bool {
        match self.known.iter().position(|known| *known == name) {
            Some(index) => std::mem::replace(&mut self.seen[index], true),
            None => false,
        }
    }
}

/// One item: an object of `dialledNumber`, `callClass` and `serviceId`, each a string or null.
struct ItemSeed<'s> {
    state: &'s mut State,
    /// The item's place: its path (`items[3]`) is written only for an error.
    index: usize,
}

impl<'de> OneShape<'de> for ItemSeed<'_> {
    const EXPECTING: &'static str = "an object";

    fn object<A: MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
        let ItemSeed { state, index } = self;
        let path = || format!("items[{index}]");
        let mut item = Item::default();
        let mut named = Named::of([DIALLED_NUMBER, CALL_CLASS, SERVICE_ID]);
        while let Some(Name(name)) = map.next_key::<Name<'de>>()? {
            if named.again(&name) {
                state.error(format!("{}.{name}", path()), REPEATED);
                map.next_value::<IgnoredAny>()?;
                continue;
            }
            let (slot, max) = match name.as_ref() {
                NUMBER_TOKEN => {
                    map.next_value::<IgnoredAny>()?;
                    return ItemSeed { state, index }.wrong_shape();
                }
                DIALLED_NUMBER => (&mut item.dialled_number, MAX_NUMBER_CHARS),
                CALL_CLASS => (&mut item.call_class, MAX_TEXT_CHARS),
                SERVICE_ID => (&mut item.service_id, MAX_TEXT_CHARS),
                other => {
                    state.error(format!("{}.{other}", path()), "unknown field");
                    map.next_value::<IgnoredAny>()?;
                    continue;
                }
            };
            *slot = None;
            match map.next_value::<Scalar>()? {
                Scalar::Null => {}
                Scalar::Text(text) if text.chars().count() <= max => *slot = Some(text),
                Scalar::Text(_) => state.error(
                    format!("{}.{name}", path()),
                    format!("must be at most {max} characters"),
                ),
                _ => state.error(format!("{}.{name}", path()), "must be a string or null"),
            }
        }
        state.items.push(item);
        Ok(())
    }

    fn wrong_shape<E: de::Error>(self) -> Result<(), E> {
        self.state
            .error(format!("items[{}]", self.index), "must be an object");
        Ok(())
    }
}

#[cfg(test)]
mod tests;
