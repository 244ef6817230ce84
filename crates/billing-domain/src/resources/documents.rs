//! Documents that cannot be wrong, made by parsing. Each declared table's module has a `Draft`
//! (each member as given, `None` when absent; owned parts as drafts) and a `Parsed` that only
//! [`Document::parse`] makes, once every member's kind, every declared rule and every owned
//! part (at every depth) hold. Every broken rule is collected with the JSON path of its member
//! (`siteContacts[1].contactTelephoneNumber`).
//!
//! Batch jobs fill drafts however they read their input, or read JSON with
//! [`Document::from_json`]. The rules that need stored facts or span parts (the invoice
//! contact, routing, the mandate) are functions of [`crate::sites`](mod@crate::sites).
//!
//! The functions below are what the generated code calls, one per access (for a member) and
//! one per multiplicity (for an owned part), each in a parsing and a JSON-reading form.

use serde_json::{Map, Value};

use super::declaration::Declaration;
use crate::ValidationErrors;
use crate::kinds::Kind;

/// A declared table's parsed document (`resources::sites::Parsed`).
pub trait Document: Sized {
    /// The members as given.
    type Draft: Default;
    /// The declaration it is made from.
    const DECLARATION: &'static Declaration;
    /// The JSON name of the only member of a table a parent holds as `values`.
    const SINGLE: Option<&'static str> = None;

    /// Checks `draft` whole, naming members under `path` (`""` for a document).
    fn parse(draft: Self::Draft, path: &str) -> Result<Self, ValidationErrors>;

    /// Reads a JSON object's members into a draft, recording what cannot be read (a value of
    /// the wrong type, an unknown or read-only member).
    fn read_json(value: &Value, path: &str, errors: &mut ValidationErrors) -> Self::Draft;

    /// Reads one value of a `values` list (only a table of one member has them).
    fn read_single_json(_: &Value, path: &str, errors: &mut ValidationErrors) -> Self::Draft {
        errors.push(path, "is not a list of single values");
        Self::Draft::default()
    }

    /// Reads and parses a JSON document: every broken rule, each once, by its JSON path.
    fn from_json(value: &Value, path: &str) -> Result<Self, ValidationErrors> {
        let mut errors = ValidationErrors::default();
        let draft = Self::read_json(value, path, &mut errors);
        let parsed = Self::parse(draft, path);
        merged(parsed, errors)
    }

    /// Reads and parses a JSON text (a line of a JSON-lines file): as [`Document::from_json`],
    /// or one error naming `body` when the text is not JSON.
    fn from_json_text(text: &str) -> Result<Self, ValidationErrors> {
        match serde_json::from_str::<Value>(text) {
            Ok(value) => Self::from_json(&value, ""),
            Err(error) => Err(ValidationErrors::single(
                WHOLE_BODY,
                format!("not JSON ({error})"),
            )),
        }
    }
}

/// The result of parsing a draft read with `errors`: the parse's errors under a path already
/// named (a member that could not be read is not also "required") are left out.
pub fn merged<T>(
    parsed: Result<T, ValidationErrors>,
    mut errors: ValidationErrors,
) -> Result<T, ValidationErrors> {
    match parsed {
        Ok(parsed) if errors.is_empty() => Ok(parsed),
        Ok(_) => Err(errors),
        Err(more) => {
            let known = errors.errors.len();
            for error in more.errors {
                let named = errors.errors[..known]
                    .iter()
                    .any(|earlier| is_under(&error.field, &earlier.field));
                if !named {
                    errors.errors.push(error);
                }
            }
            Err(errors)
        }
    }
}

/// What an error about a whole document (one that is not an object, or not JSON) names.
pub const WHOLE_BODY: &str = "body";

/// Whether `path` is `parent` or a member or element of it (every path is in the whole body).
fn is_under(path: &str, parent: &str) -> bool {
    parent == WHOLE_BODY
        || path
            .strip_prefix(parent)
            .is_some_and(|rest| rest.is_empty() || rest.starts_with('.') || rest.starts_with('['))
}

/// `path.member`, or `member` alone at the top.
pub fn join(path: &str, member: &str) -> String {
    if path.is_empty() {
        member.to_owned()
    } else {
        format!("{path}.{member}")
    }
}

fn checked<K: Kind>(
    value: K::Value,
    path: String,
    errors: &mut ValidationErrors,
) -> Option<K::Value> {
    match K::check(&value) {
        Ok(()) => Some(value),
        Err(message) => {
            errors.push(path, message);
            None
        }
    }
}

/// A text value (a feed file's column) read as kind `K` and checked by its rule.
pub fn check_text<K: Kind>(text: &str) -> Result<(), String> {
    K::check(&K::from_text(text)?)
}

/// A required member: `Some` of its value, `None` when missing or broken (recorded).
pub fn required<K: Kind>(
    value: Option<K::Value>,
    path: String,
    errors: &mut ValidationErrors,
) -> Option<K::Value> {
    match value {
        None => {
            errors.push(path, "is required");
            None
        }
        Some(value) => checked::<K>(value, path, errors),
    }
}

/// Any other member: `Some(None)` when absent, `None` when broken (recorded).
pub fn optional<K: Kind>(
    value: Option<K::Value>,
    path: String,
    errors: &mut ValidationErrors,
) -> Option<Option<K::Value>> {
    match value {
        None => Some(None),
        Some(value) => checked::<K>(value, path, errors).map(Some),
    }
}

pub use optional as created;
pub use optional as defaulted;
pub use optional as derived;
pub use optional as kept;
pub use optional as updated;
pub use optional as write_only;

fn part<D: Document>(draft: D::Draft, path: &str, errors: &mut ValidationErrors) -> Option<D> {
    match D::parse(draft, path) {
        Ok(parsed) => Some(parsed),
        Err(broken) => {
            errors.errors.extend(broken.errors);
            None
        }
    }
}

/// An owned part that must be there.
pub fn one<D: Document>(
    draft: Option<D::Draft>,
    path: String,
    errors: &mut ValidationErrors,
) -> Option<D> {
    match draft {
        None => {
            errors.push(path, "is required");
            None
        }
        Some(draft) => part::<D>(draft, &path, errors),
    }
}

/// An owned part that may be absent.
pub fn optional_one<D: Document>(
    draft: Option<D::Draft>,
    path: String,
    errors: &mut ValidationErrors,
) -> Option<Option<D>> {
    match draft {
        None => Some(None),
        Some(draft) => part::<D>(draft, &path, errors).map(Some),
    }
}

/// A list of owned elements, each named `path[index]`.
pub fn list<D: Document>(
    drafts: Vec<D::Draft>,
    path: String,
    errors: &mut ValidationErrors,
) -> Option<Vec<D>> {
    let mut parsed = Vec::with_capacity(drafts.len());
    let mut broken = false;
    for (index, draft) in drafts.into_iter().enumerate() {
        match part::<D>(draft, &format!("{path}[{index}]"), errors) {
            Some(element) => parsed.push(element),
            None => broken = true,
        }
    }
    (!broken).then_some(parsed)
}

/// A list of owned elements that holds at least one.
pub fn non_empty_list<D: Document>(
    drafts: Vec<D::Draft>,
    path: String,
    errors: &mut ValidationErrors,
) -> Option<Vec<D>> {
    if drafts.is_empty() {
        errors.push(path.clone(), "must hold at least one element");
    }
    list::<D>(drafts, path, errors)
}

/// A list of the one member's values, each named `path[index]` (not `path[index].member`).
pub fn values<D: Document>(
    drafts: Vec<D::Draft>,
    path: String,
    errors: &mut ValidationErrors,
) -> Option<Vec<D>> {
    let mut own = ValidationErrors::default();
    let parsed = list::<D>(drafts, path, &mut own);
    let suffix = D::SINGLE.map(|member| format!(".{member}"));
    for mut error in own.errors {
        if let Some(suffix) = &suffix
            && let Some(element) = error.field.strip_suffix(suffix.as_str())
        {
            error.field = element.to_owned();
        }
        errors.errors.push(error);
    }
    parsed
}

/// The object a document must be.
pub fn json_object<'a>(
    value: &'a Value,
    path: &str,
    errors: &mut ValidationErrors,
) -> Option<&'a Map<String, Value>> {
    match value {
        Value::Object(object) => Some(object),
        _ => {
            errors.push(
                if path.is_empty() { WHOLE_BODY } else { path },
                "must be a JSON object",
            );
            None
        }
    }
}

/// Records each member of `object` a body may not give: unknown ones, `id` and read-only
/// members (those are recorded by their own readers).
pub fn json_unknown_members(
    object: &Map<String, Value>,
    path: &str,
    declaration: &Declaration,
    errors: &mut ValidationErrors,
) {
    for key in object.keys() {
        let known = declaration
            .members
            .iter()
            .any(|member| member.json_name == key)
            || declaration
                .children
                .iter()
                .any(|child| child.json_name == key);
        if key == "id" {
            errors.push(join(path, key), "is read-only and cannot be set");
        } else if !known {
            errors.push(join(path, key), "unknown field");
        }
    }
}

/// A value read as kind `K` (its rule is checked when the draft is parsed).
pub fn json_scalar<K: Kind>(
    value: &Value,
    path: &str,
    errors: &mut ValidationErrors,
) -> Option<K::Value> {
    match K::from_json(value) {
        Ok(value) => Some(value),
        Err(message) => {
            errors.push(path, message);
            None
        }
    }
}

fn json_member<K: Kind>(
    object: &Map<String, Value>,
    name: &str,
    path: &str,
    null: Option<&str>,
    errors: &mut ValidationErrors,
) -> Option<K::Value> {
    match object.get(name) {
        None => None,
        Some(Value::Null) => {
            if let Some(message) = null {
                errors.push(join(path, name), message);
            }
            None
        }
        Some(value) => json_scalar::<K>(value, &join(path, name), errors),
    }
}

/// A member a body must give (null counts as absent: "is required").
pub fn json_required<K: Kind>(
    object: &Map<String, Value>,
    name: &str,
    path: &str,
    errors: &mut ValidationErrors,
) -> Option<K::Value> {
    json_member::<K>(object, name, path, None, errors)
}

pub use json_required as json_optional;
pub use json_required as json_write_only;

/// A member that is left out for its default, never null.
pub fn json_defaulted<K: Kind>(
    object: &Map<String, Value>,
    name: &str,
    path: &str,
    errors: &mut ValidationErrors,
) -> Option<K::Value> {
    json_member::<K>(
        object,
        name,
        path,
        Some("must not be null (leave it out for its default)"),
        errors,
    )
}

/// A member the server fills in: a body that gives it is refused.
pub fn json_derived<K: Kind>(
    object: &Map<String, Value>,
    name: &str,
    path: &str,
    errors: &mut ValidationErrors,
) -> Option<K::Value> {
    if object.contains_key(name) {
        errors.push(join(path, name), "is read-only and cannot be set");
    }
    None
}

/// A derived member a body may carry back as a read showed it (`[echoed]`): it must keep its
/// kind's rule, but its value is ignored (the server fills it in).
pub fn json_echoed<K: Kind>(
    object: &Map<String, Value>,
    name: &str,
    path: &str,
    errors: &mut ValidationErrors,
) -> Option<K::Value> {
    if let Some(value) = json_member::<K>(object, name, path, None, errors) {
        checked::<K>(value, join(path, name), errors);
    }
    None
}

pub use json_derived as json_created;
pub use json_derived as json_kept;
pub use json_derived as json_updated;

/// An owned object (absent or null: `None`).
pub fn json_part<D: Document>(
    object: &Map<String, Value>,
    name: &str,
    path: &str,
    errors: &mut ValidationErrors,
) -> Option<D::Draft> {
    match object.get(name) {
        None | Some(Value::Null) => None,
        Some(value @ Value::Object(_)) => Some(D::read_json(value, &join(path, name), errors)),
        Some(_) => {
            errors.push(join(path, name), "must be an object");
            None
        }
    }
}

pub use json_part as json_one;
pub use json_part as json_optional_one;

fn json_elements<D: Document>(
    object: &Map<String, Value>,
    name: &str,
    path: &str,
    errors: &mut ValidationErrors,
    read: fn(&Value, &str, &mut ValidationErrors) -> D::Draft,
) -> Vec<D::Draft> {
    match object.get(name) {
        None | Some(Value::Null) => Vec::new(),
        Some(Value::Array(items)) => items
            .iter()
            .enumerate()
            .map(|(index, item)| read(item, &format!("{}[{index}]", join(path, name)), errors))
            .collect(),
        Some(_) => {
            errors.push(join(path, name), "must be an array");
            Vec::new()
        }
    }
}

/// A list of owned objects.
pub fn json_list<D: Document>(
    object: &Map<String, Value>,
    name: &str,
    path: &str,
    errors: &mut ValidationErrors,
) -> Vec<D::Draft> {
    json_elements::<D>(object, name, path, errors, D::read_json)
}

pub use json_list as json_non_empty_list;

/// A list of the one member's values.
pub fn json_values<D: Document>(
    object: &Map<String, Value>,
    name: &str,
    path: &str,
    errors: &mut ValidationErrors,
) -> Vec<D::Draft> {
    json_elements::<D>(object, name, path, errors, D::read_single_json)
}
