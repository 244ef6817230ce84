//! Which members a body may carry, at every depth: unknown names and read-only fields are
//! refused and required ones must be there, in the record and inside every owned object or
//! element of an owned array, each error naming its full path (`subBrands[1].id`).

use billing_domain::ValidationErrors;
use serde_json::{Map, Value};

use super::resource::{Access, Field, FieldType};

/// Where a body comes from. A document the server built from a stored record (a patched
/// record, a bulk update merged onto one) carries the ids of owned elements, which identify
/// them; a client's body never may.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Origin {
    Client,
    Stored,
}

/// The most elements an owned list (or a `values` list) holds: every element is a row written
/// in the parent's transaction, so a body cannot make one write unbounded.
pub const MAX_ELEMENTS: usize = 100;

fn at_most<T>(elements: &[T]) -> garde::Result {
    if elements.len() > MAX_ELEMENTS {
        return Err(garde::Error::new(format!(
            "must hold at most {MAX_ELEMENTS} elements (got {})",
            elements.len()
        )));
    }
    Ok(())
}

/// garde's check of an owned `list`: up to [`MAX_ELEMENTS`] elements.
#[allow(clippy::ptr_arg)]
pub fn list<T>(elements: &Vec<T>, _: &()) -> garde::Result {
    at_most(elements)
}

/// garde's check of an owned `non_empty_list`: at least one element, at most [`MAX_ELEMENTS`].
#[allow(clippy::ptr_arg)]
pub fn non_empty_list<T>(elements: &Vec<T>, _: &()) -> garde::Result {
    if elements.is_empty() {
        return Err(garde::Error::new("must hold at least one element"));
    }
    at_most(elements)
}

/// garde's check of an owned `one`: the object must be there (`null` is refused).
pub fn one<T>(element: &Option<T>, _: &()) -> garde::Result {
    if element.is_none() {
        return Err(garde::Error::new("is required and cannot be null"));
    }
    Ok(())
}

/// garde's check of a `values` list: up to [`MAX_ELEMENTS`] entries (each checked by its kind).
#[allow(clippy::ptr_arg)]
pub fn values<T>(elements: &Vec<T>, _: &()) -> garde::Result {
    at_most(elements)
}

/// garde's check of an owned `optional_one`: the object may be null or left out.
pub fn optional_one<T>(_: &Option<T>, _: &()) -> garde::Result {
    Ok(())
}

/// `path` then `member`: `subBrands[1]` and `id` make `subBrands[1].id`.
fn join(path: &str, member: &str) -> String {
    if path.is_empty() {
        member.to_owned()
    } else {
        format!("{path}.{member}")
    }
}

/// Pushes onto `errors` every member of `map` (an object at `path`) that `fields` does not
/// allow, and, when `required`, every required member it lacks; owned members are checked
/// inside too.
pub fn check_object(
    map: &Map<String, Value>,
    fields: &[Field],
    path: &str,
    required: bool,
    origin: Origin,
    errors: &mut ValidationErrors,
) {
    let nested = !path.is_empty();
    for (key, value) in map {
        let member = join(path, key);
        match fields.iter().find(|field| field.name == key) {
            None => errors.push(member, "unknown field"),
            Some(field) if field.access == Access::ReadOnly => {
                let stored_id = origin == Origin::Stored && nested && field.name == "id";
                if !stored_id && !field.echoed {
                    errors.push(member, "is read-only and cannot be set");
                }
            }
            Some(field) if field.owned => {
                check_value(value, &field.field_type, &member, required, origin, errors)
            }
            // A shown record may come back as it was read; names it does not have are refused.
            Some(Field {
                shows: Some(_),
                field_type: FieldType::Object(shown),
                ..
            }) => {
                if let Value::Object(inner) = value {
                    for key in inner.keys() {
                        if !shown.iter().any(|field| field.name == key) {
                            errors.push(join(&member, key), "unknown field");
                        }
                    }
                }
            }
            Some(_) => {}
        }
    }
    if required {
        for field in fields
            .iter()
            .filter(|field| field.required && field.access == Access::ReadWrite)
        {
            if !map.contains_key(field.name) {
                errors.push(join(path, field.name), "is required");
            }
        }
    }
}

/// Checks an owned value (an object, or an array of objects) at `path`. A value of the wrong
/// JSON type is left to deserialization, which names it.
pub fn check_value(
    value: &Value,
    field_type: &FieldType,
    path: &str,
    required: bool,
    origin: Origin,
    errors: &mut ValidationErrors,
) {
    match (field_type, value) {
        (FieldType::Object(fields), Value::Object(map)) => {
            check_object(map, fields, path, required, origin, errors)
        }
        (FieldType::Array(element), Value::Array(items)) => {
            for (index, item) in items.iter().enumerate() {
                check_value(
                    item,
                    element,
                    &format!("{path}[{index}]"),
                    required,
                    origin,
                    errors,
                );
            }
        }
        _ => {}
    }
}

/// Checks the JSON type of every member of `map` that `fields` declares, at every depth of
/// owned members, in plain words ("must be an integer", "must be a date as yyyy-MM-dd"), and
/// removes each member found wrong (so the rest can still be checked by their rules). Unknown
/// members are removed too: the member checks have named them.
pub fn check_types(
    map: &mut Map<String, Value>,
    fields: &[Field],
    path: &str,
    errors: &mut ValidationErrors,
) {
    map.retain(|key, value| {
        let Some(field) = fields.iter().find(|field| field.name == key) else {
            return false;
        };
        // Read-only members are the member checks' to name; an owned element keeps its id; an
        // echoed member is checked (then ignored).
        let element_id = field.name == "id" && !path.is_empty();
        if field.access == Access::ReadOnly && !element_id && !field.echoed {
            return false;
        }
        let member = join(path, key);
        if value.is_null() {
            if field.nullable || field.access == Access::ReadOnly {
                return true;
            }
            errors.push(member, "must not be null");
            return false;
        }
        match type_problem(value, &field.field_type, field.owned, &member, errors) {
            Some(problem) => {
                errors.push(member, problem);
                false
            }
            None => true,
        }
    });
}

/// Why `value` is not of `field_type` (`None` when it is; errors inside owned parts go to
/// `errors` with their own paths, and the broken elements are removed).
fn type_problem(
    value: &mut Value,
    field_type: &FieldType,
    owned: bool,
    path: &str,
    errors: &mut ValidationErrors,
) -> Option<String> {
    let wrong = |words: &str| Some(format!("must be {words}"));
    match (field_type, value) {
        (FieldType::Id | FieldType::Integer { .. }, Value::Number(number)) if number.is_i64() => {
            None
        }
        (FieldType::Id | FieldType::Integer { .. }, Value::Number(number)) if number.is_u64() => {
            wrong("an integer in range")
        }
        (FieldType::Id | FieldType::Integer { .. }, _) => wrong("an integer"),
        (FieldType::Decimal { .. }, Value::Number(_)) => None,
        (FieldType::Decimal { .. }, _) => wrong("a number"),
        (FieldType::Boolean, Value::Bool(_)) => None,
        (FieldType::Boolean, _) => wrong("true or false"),
        (FieldType::Date, Value::String(text)) => billing_domain::dates::parse_date(text)
            .is_none()
            .then(|| "must be a date as yyyy-MM-dd (a day that exists)".to_owned()),
        (FieldType::DateTime, Value::String(text)) => {
            billing_domain::query::parse_utc_date_time(text)
                .is_none()
                .then(|| "must be a UTC date-time as yyyy-MM-ddTHH:mm:ssZ".to_owned())
        }
        (FieldType::Date, _) => wrong("a date as yyyy-MM-dd"),
        (FieldType::DateTime, _) => wrong("a UTC date-time as yyyy-MM-ddTHH:mm:ssZ"),
        (
            FieldType::Text { .. }
            | FieldType::Letters { .. }
            | FieldType::Digits { .. }
            | FieldType::Pattern { .. }
            | FieldType::Enum(_)
            | FieldType::Codes(..)
            | FieldType::Email { .. },
            Value::String(_),
        ) => None,
        (
            FieldType::Text { .. }
            | FieldType::Letters { .. }
            | FieldType::Digits { .. }
            | FieldType::Pattern { .. }
            | FieldType::Enum(_)
            | FieldType::Codes(..)
            | FieldType::Email { .. },
            _,
        ) => wrong("a string"),
        (FieldType::Object(members), Value::Object(inner)) => {
            if owned {
                check_types(inner, members, path, errors);
            }
            None
        }
        (FieldType::Object(_), _) => wrong("an object"),
        (FieldType::ObjectList(_), Value::Array(items)) => items
            .iter()
            .any(|item| !item.is_object())
            .then(|| "must be an array of objects".to_owned()),
        (FieldType::Array(element), Value::Array(items)) => {
            // Each element is checked and named by its place; broken ones are removed.
            let mut index = 0;
            items.retain_mut(|item| {
                let at = format!("{path}[{index}]");
                index += 1;
                match type_problem(item, element, owned, &at, errors) {
                    Some(message) => {
                        errors.push(at, message);
                        false
                    }
                    None => true,
                }
            });
            None
        }
        (FieldType::Array(_) | FieldType::ObjectList(_), _) => wrong("an array"),
        (FieldType::Json, _) => None,
    }
}

/// Replaces each shown record's object by the key it gives, under the input's member
/// (`"currency": {"id": 3, …}` becomes `"currencyId": 3`), once [`check_types`] has checked
/// the objects; a missing or mistyped key is named by its path (`currency.id`).
pub fn lift_shown(map: &mut Map<String, Value>, fields: &[Field], errors: &mut ValidationErrors) {
    for field in fields {
        let (Some(shows), FieldType::Object(shown)) = (field.shows, field.field_type) else {
            continue;
        };
        let Some(value) = map.remove(field.name) else {
            continue;
        };
        let Value::Object(mut object) = value else {
            // null, where the member may be null.
            map.insert(shows.column.to_owned(), Value::Null);
            continue;
        };
        let path = join(field.name, shows.key);
        let Some(mut key) = object.remove(shows.key) else {
            errors.push(path, "is required");
            continue;
        };
        let key_type = shown
            .iter()
            .find(|member| member.name == shows.key)
            .map_or(FieldType::Json, |member| member.field_type);
        match type_problem(&mut key, &key_type, false, &path, errors) {
            Some(problem) => errors.push(path, problem),
            None => {
                map.insert(shows.column.to_owned(), key);
            }
        }
    }
}

/// Names the errors of a shown record's key by the body's path: `currencyId` → `currency.id`.
pub fn shown_paths(errors: &mut ValidationErrors, fields: &[Field]) {
    for error in &mut errors.errors {
        if let Some((field, shows)) = fields
            .iter()
            .filter_map(|field| field.shows.map(|shows| (field, shows)))
            .find(|(_, shows)| shows.column == error.field)
        {
            error.field = join(field.name, shows.key);
        }
    }
}

/// What a JSON Pointer into a record names, walking owned fields: the deepest declared field
/// and the type of the value at the pointer, with the pointer as a member path
/// (`/subBrands/1/name` → `subBrands[1].name`; an appended element is `subBrands[-]`).
pub struct Target {
    pub field: Field,
    /// The type a value placed there has (an element's type for `/subBrands/1`).
    pub value_type: FieldType,
    pub path: String,
}

/// Resolves `segments` (unescaped reference tokens) against `fields`; `None` when the pointer
/// leaves the declared fields (the patch then fails when applied, or the result is refused).
pub fn resolve(fields: &[Field], segments: &[String]) -> Option<Target> {
    let (first, rest) = segments.split_first()?;
    let field = *fields.iter().find(|field| field.name == first)?;
    let mut target = Target {
        field,
        value_type: field.field_type,
        path: first.clone(),
    };
    let mut remaining = rest;
    while let Some((segment, rest)) = remaining.split_first() {
        // Inside a shown record only its key may change (`/currency/id`).
        if let (Some(shows), FieldType::Object(shown)) =
            (target.field.shows, target.field.field_type)
        {
            let member = *shown.iter().find(|field| field.name == segment)?;
            target.path = join(&target.path, segment);
            target.field = Field {
                access: if segment == shows.key {
                    Access::ReadWrite
                } else {
                    Access::ReadOnly
                },
                ..member
            };
            target.value_type = member.field_type;
            return Some(target);
        }
        if !target.field.owned {
            return Some(target);
        }
        match target.value_type {
            FieldType::Array(element) => {
                target.path = format!("{}[{segment}]", target.path);
                target.value_type = *element;
                remaining = rest;
            }
            FieldType::Object(members) => {
                let field = *members.iter().find(|field| field.name == segment)?;
                target.path = join(&target.path, segment);
                target.field = field;
                target.value_type = field.field_type;
                remaining = rest;
            }
            _ => return Some(target),
        }
    }
    Some(target)
}

#[cfg(test)]
mod tests {
    use super::*;

    const ELEMENT: &[Field] = &[
        Field::read_only("id", FieldType::Id, ""),
        Field::required("name", FieldType::Text { min: 1, max: 5 }, ""),
    ];
    const RECORD: &[Field] = &[
        Field::read_only("id", FieldType::Id, ""),
        Field::required("title", FieldType::Text { min: 1, max: 5 }, ""),
        Field::optional("items", FieldType::Array(&FieldType::Object(ELEMENT)), "").owned(),
    ];

    fn errors_of(body: Value, origin: Origin) -> Vec<String> {
        let mut errors = ValidationErrors::default();
        check_object(
            body.as_object().expect("object"),
            RECORD,
            "",
            true,
            origin,
            &mut errors,
        );
        errors
            .errors
            .into_iter()
            .map(|error| format!("{}: {}", error.field, error.message))
            .collect()
    }

    #[test]
    fn members_are_checked_at_every_depth_with_their_full_path() {
        let body = serde_json::json!({
            "id": 1, "colour": "red",
            "items": [{ "name": "a" }, { "id": 7, "name": "b", "size": 2 }, {}]
        });
        insta::assert_debug_snapshot!(errors_of(body.clone(), Origin::Client), @r#"
        [
            "id: is read-only and cannot be set",
            "colour: unknown field",
            "items[1].id: is read-only and cannot be set",
            "items[1].size: unknown field",
            "items[2].name: is required",
            "title: is required",
        ]
        "#);
        // A document built from the stored record keeps its elements' ids, nothing else.
        insta::assert_debug_snapshot!(errors_of(body, Origin::Stored), @r#"
        [
            "id: is read-only and cannot be set",
            "colour: unknown field",
            "items[1].size: unknown field",
            "items[2].name: is required",
            "title: is required",
        ]
        "#);
    }

    #[test]
    fn pointers_resolve_through_owned_fields() {
        let path = |pointer: &[&str]| {
            let segments: Vec<String> = pointer.iter().map(|s| (*s).to_owned()).collect();
            resolve(RECORD, &segments).map(|target| (target.path, target.field.access))
        };
        insta::assert_debug_snapshot!([
            path(&["items", "1", "id"]),
            path(&["items", "-"]),
            path(&["items", "0", "name"]),
            path(&["title"]),
            path(&["nothing"]),
        ], @r#"
        [
            Some(
                (
                    "items[1].id",
                    ReadOnly,
                ),
            ),
            Some(
                (
                    "items[-]",
                    ReadWrite,
                ),
            ),
            Some(
                (
                    "items[0].name",
                    ReadWrite,
                ),
            ),
            Some(
                (
                    "title",
                    ReadWrite,
                ),
            ),
            None,
        ]
        "#);
    }
}
