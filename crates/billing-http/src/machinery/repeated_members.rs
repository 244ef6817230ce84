//! A JSON object names each member once (docs/api.md "Everywhere"): `{"name":"a","name":"b"}`
//! is refused, not read as its last value (a proxy or validator that reads the first would see
//! another request than the service). The body is walked once more, without building values.

use std::collections::HashSet;
use std::fmt;

use serde::de::{self, DeserializeSeed, Deserializer, MapAccess, SeqAccess, Visitor};

/// What a member named twice is told.
pub const REPEATED: &str = "is given more than once: an object names each member once";

/// One step of a member's path.
enum Step {
    Member(String),
    Element(usize),
}

/// The path of the first member an object of `bytes` names twice (`siteContacts[1].contactName`),
/// or `None` (also for text that is not JSON: its parse says what is wrong).
pub fn first_repeated_member(bytes: &[u8]) -> Option<String> {
    let mut walk = Walk {
        path: Vec::new(),
        repeated: None,
    };
    let mut deserializer = serde_json::Deserializer::from_slice(bytes);
    let _ = Node(&mut walk).deserialize(&mut deserializer);
    walk.repeated
}

struct Walk {
    path: Vec<Step>,
    repeated: Option<String>,
}

impl Walk {
    fn written(&self) -> String {
        let mut text = String::new();
        for step in &self.path {
            match step {
                Step::Member(name) if text.is_empty() => text.push_str(name),
                Step::Member(name) => {
                    text.push('.');
                    text.push_str(name);
                }
                Step::Element(index) => text.push_str(&format!("[{index}]")),
            }
        }
        text
    }
}

/// A value anywhere in the document.
struct Node<'w>(&'w mut Walk);

impl<'de> DeserializeSeed<'de> for Node<'_> {
    type Value = ();
    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<(), D::Error> {
        deserializer.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for Node<'_> {
    type Value = ();

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a JSON value")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
        let walk = self.0;
        let mut names = HashSet::new();
        while let Some(name) = map.next_key::<String>()? {
            walk.path.push(Step::Member(name.clone()));
            if !names.insert(name) {
                walk.repeated = Some(walk.written());
                return Err(de::Error::custom("a member named twice"));
            }
            map.next_value_seed(Node(&mut *walk))?;
            walk.path.pop();
        }
        Ok(())
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<(), A::Error> {
        let walk = self.0;
        let mut index = 0;
        loop {
            walk.path.push(Step::Element(index));
            let more = seq.next_element_seed(Node(&mut *walk))?.is_some();
            walk.path.pop();
            if !more {
                return Ok(());
            }
            index += 1;
        }
    }

    fn visit_bool<E: de::Error>(self, _: bool) -> Result<(), E> {
        Ok(())
    }
    fn visit_i64<E: de::Error>(self, _: i64) -> Result<(), E> {
        Ok(())
    }
    fn visit_u64<E: de::Error>(self, _: u64) -> Result<(), E> {
        Ok(())
    }
    fn visit_f64<E: de::Error>(self, _: f64) -> Result<(), E> {
        Ok(())
    }
    fn visit_str<E: de::Error>(self, _: &str) -> Result<(), E> {
        Ok(())
    }
    fn visit_unit<E: de::Error>(self) -> Result<(), E> {
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_first_member_named_twice_is_found_at_any_depth() {
        let found = |text: &str| first_repeated_member(text.as_bytes());
        assert_eq!(found(r#"{"name":"a","rate":1.50,"endDate":null}"#), None);
        assert_eq!(found(r#"{"name":"a","name":"b"}"#).as_deref(), Some("name"));
        assert_eq!(
            found(r#"{"siteContacts":[{"a":1},{"contactName":"x","b":[1,2],"contactName":"y"}]}"#)
                .as_deref(),
            Some("siteContacts[1].contactName")
        );
        assert_eq!(
            found(r#"[{"op":"add","op":"remove"}]"#).as_deref(),
            Some("[0].op")
        );
        // The same name in two objects is two members.
        assert_eq!(found(r#"[{"a":1},{"a":2}]"#), None);
        // Exact numbers (read as an internal one-member object) are not members.
        assert_eq!(found(r#"{"x":12345678901234567890.5,"y":1e400}"#), None);
        assert_eq!(found("not json"), None);
    }
}
