//! JSON Patch (RFC 6902) on a resource's JSON form: all six operations, applied all or nothing.
//! Read-only fields cannot be touched, pointers must name a member (never the whole document:
//! `""`); a failed `test` is a 409.

use json_patch::{Patch, PatchErrorKind, PatchOperation};
use serde_json::Value;

use billing_domain::ValidationErrors;

use super::members::{self, Origin};
use super::resource::{Access, Field, FieldType};
use crate::error::ApiError;

/// The most operations one patch may carry.
pub const MAX_OPERATIONS: usize = 1000;

/// Parses a patch document: pointers are RFC 6901 and name a member (the whole document, `""`,
/// is refused as `path` or `from`), and no operation changes a read-only field.
pub fn parse_patch(body: Value, fields: &[Field]) -> Result<Patch, ApiError> {
    if !body.is_array() {
        return Err(ApiError::field(
            "body",
            "a JSON Patch document is an array of operations",
        ));
    }
    check_operations(&body)?;
    let mut patch: Patch = super::body::deserialize(only_operation_members(body))?;
    if patch.0.len() > MAX_OPERATIONS {
        return Err(ApiError::field(
            "body",
            format!(
                "at most {MAX_OPERATIONS} operations are accepted (got {})",
                patch.0.len()
            ),
        ));
    }
    for (index, operation) in patch.0.iter().enumerate() {
        let (path, from) = match operation {
            PatchOperation::Add(op) => (op.path.to_string(), None),
            PatchOperation::Remove(op) => (op.path.to_string(), None),
            PatchOperation::Replace(op) => (op.path.to_string(), None),
            PatchOperation::Move(op) => (op.path.to_string(), Some(op.from.to_string())),
            PatchOperation::Copy(op) => (op.path.to_string(), Some(op.from.to_string())),
            PatchOperation::Test(op) => (op.path.to_string(), None),
        };
        // A write-only member is never read: copying or moving it out would show it (a
        // password copied into `email`).
        if let Some(source) = from.as_ref()
            && let Some(target) = members::resolve(fields, &segments(source))
            && target.field.access == Access::WriteOnly
        {
            return Err(ApiError::field(
                format!("[{index}].from"),
                format!("'{}' is write-only: it cannot be read", target.path),
            ));
        }
        // What the operation changes: its path (a test changes nothing), and a move's source.
        let changed = match operation {
            PatchOperation::Test(_) => Vec::new(),
            PatchOperation::Move(_) => [Some(("path", &path)), from.as_ref().map(|f| ("from", f))]
                .into_iter()
                .flatten()
                .collect(),
            _ => vec![("path", &path)],
        };
        for (member, pointer) in changed {
            let Some(target) = members::resolve(fields, &segments(pointer)) else {
                continue;
            };
            let copied = matches!(operation, PatchOperation::Move(_) | PatchOperation::Copy(_));
            if copied && target.field.access == Access::WriteOnly {
                return Err(ApiError::field(
                    format!("[{index}].{member}"),
                    format!(
                        "'{}' is write-only: set it with add or replace and a value",
                        target.path
                    ),
                ));
            }
            if target.field.access == Access::ReadOnly {
                return Err(ApiError::field(
                    format!("[{index}].{member}"),
                    format!("'{}' is read-only", target.path),
                ));
            }
        }
        // A value placed into an owned object or list may not carry read-only members (an
        // element's id is the service's) or unknown ones, at any depth.
        let placed = match operation {
            PatchOperation::Add(op) => Some((op.path.as_str(), &op.value)),
            PatchOperation::Replace(op) => Some((op.path.as_str(), &op.value)),
            _ => None,
        };
        if let Some((pointer, value)) = placed
            && let Some(target) = members::resolve(fields, &segments(pointer))
            && target.field.owned
        {
            let mut errors = ValidationErrors::default();
            members::check_value(
                value,
                &target.value_type,
                &target.path,
                false,
                Origin::Client,
                &mut errors,
            );
            errors.into_result(|| ()).map_err(ApiError::validation)?;
        }
    }
    // A write-only member is never in the record's JSON form, so `replace` of it (which needs
    // the member to be there) is the `add` that sets it.
    for operation in &mut patch.0 {
        if let PatchOperation::Replace(op) = operation
            && members::resolve(fields, &segments(op.path.as_str()))
                .is_some_and(|target| target.field.access == Access::WriteOnly)
        {
            *operation = PatchOperation::Add(json_patch::AddOperation {
                path: op.path.clone(),
                value: std::mem::take(&mut op.value),
            });
        }
    }
    Ok(patch)
}

/// The operations, as RFC 6902 writes them: `op` one of the six; `path` a JSON Pointer; `value`
/// for add, replace and test; `from` for move and copy. Every broken member of every operation
/// is named in one answer, in plain words (`[0].path: is required`), before any is applied.
/// Other members are ignored, as the RFC says.
fn check_operations(body: &Value) -> Result<(), ApiError> {
    let Value::Array(operations) = body else {
        return Ok(());
    };
    let mut errors = ValidationErrors::default();
    for (index, operation) in operations.iter().enumerate().take(MAX_OPERATIONS + 1) {
        let at = |member: &str| format!("[{index}].{member}");
        let Value::Object(members) = operation else {
            errors.push(
                format!("[{index}]"),
                "must be an object with op and path (and value or from)",
            );
            continue;
        };
        let op = match members.get("op") {
            None | Some(Value::Null) => {
                errors.push(
                    at("op"),
                    "is required: add, remove, replace, move, copy or test",
                );
                None
            }
            Some(Value::String(op)) if OPERATIONS.contains(&op.as_str()) => Some(op.as_str()),
            Some(other) => {
                errors.push(
                    at("op"),
                    format!("must be add, remove, replace, move, copy or test (got {other})"),
                );
                None
            }
        };
        let mut pointer = |member: &str| match members.get(member) {
            None | Some(Value::Null) => errors.push(at(member), "is required"),
            // Every pointer names a member: the whole document is never a target or source.
            Some(Value::String(text)) if text.is_empty() => errors.push(
                at(member),
                "the whole document cannot be patched; point to a member (/name)",
            ),
            Some(Value::String(text)) if text.starts_with('/') => {
                // RFC 6901: `~` is escaped as `~0` or `~1`, nothing else.
                let escapes_ok = text
                    .split('~')
                    .skip(1)
                    .all(|rest| rest.starts_with('0') || rest.starts_with('1'));
                if !escapes_ok {
                    errors.push(
                        at(member),
                        "must be a JSON Pointer: a ~ is written ~0, and a / inside a name ~1",
                    );
                }
            }
            Some(Value::String(_)) => errors.push(
                at(member),
                "must be a JSON Pointer starting with / (such as /name)",
            ),
            Some(_) => errors.push(at(member), "must be a string: a JSON Pointer such as /name"),
        };
        pointer("path");
        match op {
            Some("move" | "copy") => pointer("from"),
            Some(op @ ("add" | "replace" | "test")) if !members.contains_key("value") => {
                errors.push(at("value"), format!("is required for {op}"));
            }
            _ => {}
        }
        if matches!(op, Some("add" | "replace" | "test"))
            && members.get("value").is_some_and(holds_oversized_number)
        {
            errors.push(
                at("value"),
                "holds a number too large: integers go from -9223372036854775808 to 18446744073709551615, decimals up to about 1.8e308",
            );
        }
    }
    errors.into_result(|| ()).map_err(ApiError::validation)
}

/// True when `value` holds, at any depth, an integer beyond 64 bits or a decimal beyond a
/// double's range, which the JSON reader keeps as written (arbitrary precision) but no member
/// of any record can take.
fn holds_oversized_number(value: &Value) -> bool {
    match value {
        Value::Number(number) => !(number.is_i64() || number.is_u64() || number.is_f64()),
        Value::Array(elements) => elements.iter().any(holds_oversized_number),
        Value::Object(members) => members.values().any(holds_oversized_number),
        _ => false,
    }
}

/// The operations with only the members RFC 6902 gives each (`op`, `path`, and `from` or
/// `value`): the others are ignored, as the RFC says, so they are dropped before the operations
/// are read (a number no member could take, in one of them, is then never read).
fn only_operation_members(body: Value) -> Value {
    let Value::Array(operations) = body else {
        return body;
    };
    let kept = operations.into_iter().map(|operation| {
        let Value::Object(mut members) = operation else {
            return operation;
        };
        let op = members
            .get("op")
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_owned();
        members.retain(|name, _| match name.as_str() {
            "op" | "path" => true,
            "from" => matches!(op.as_str(), "move" | "copy"),
            "value" => matches!(op.as_str(), "add" | "replace" | "test"),
            _ => false,
        });
        Value::Object(members)
    });
    Value::Array(kept.collect())
}

/// The operations of RFC 6902.
const OPERATIONS: [&str; 6] = ["add", "remove", "replace", "move", "copy", "test"];

/// The string values the operations give write-only fields (`add`/`replace` of `/password`).
pub fn write_only_values(patch: &Patch, fields: &[Field]) -> Vec<String> {
    let write_only = |path: &str| {
        members::resolve(fields, &segments(path))
            .is_some_and(|target| target.field.access == Access::WriteOnly)
    };
    patch
        .0
        .iter()
        .filter_map(|operation| match operation {
            PatchOperation::Add(op) if write_only(op.path.as_str()) => op.value.as_str(),
            PatchOperation::Replace(op) if write_only(op.path.as_str()) => op.value.as_str(),
            _ => None,
        })
        .map(str::to_owned)
        .collect()
}

/// The member paths the operations change (`endDate`, `siteContacts[1].contactName`): each
/// operation's path but a `test`'s, and a `move`'s source. A pointer outside the declared
/// fields is given as written, without its leading `/`.
pub fn changed_paths(patch: &Patch, fields: &[Field]) -> Vec<String> {
    let member = |pointer: &str| {
        members::resolve(fields, &segments(pointer)).map_or_else(
            || pointer.trim_start_matches('/').to_owned(),
            |target| target.path,
        )
    };
    let mut paths = Vec::new();
    for operation in &patch.0 {
        match operation {
            PatchOperation::Test(_) => {}
            PatchOperation::Move(op) => {
                paths.push(member(op.from.as_str()));
                paths.push(member(op.path.as_str()));
            }
            PatchOperation::Add(op) => paths.push(member(op.path.as_str())),
            PatchOperation::Remove(op) => paths.push(member(op.path.as_str())),
            PatchOperation::Replace(op) => paths.push(member(op.path.as_str())),
            PatchOperation::Copy(op) => paths.push(member(op.path.as_str())),
        }
    }
    paths
}

/// The reference tokens of a JSON Pointer, unescaped (`/a~1b/0` → `a/b`, `0`).
fn segments(pointer: &str) -> Vec<String> {
    pointer
        .strip_prefix('/')
        .unwrap_or(pointer)
        .split('/')
        .map(|token| token.replace("~1", "/").replace("~0", "~"))
        .collect()
}

/// The deepest a patched document may nest arrays and objects: as deep as the JSON reader lets
/// a request body nest (serde_json's limit).
pub const MAX_DEPTH: usize = 128;

/// How deep `value` nests arrays and objects (a number or text: 0; `[]`: 1), walked without
/// recursion.
fn depth(value: &Value) -> usize {
    let mut deepest = 0;
    let mut pending = vec![(value, 0)];
    while let Some((value, above)) = pending.pop() {
        let children: Box<dyn Iterator<Item = &Value>> = match value {
            Value::Array(elements) => Box::new(elements.iter()),
            Value::Object(members) => Box::new(members.values()),
            _ => continue,
        };
        deepest = deepest.max(above + 1);
        pending.extend(children.map(|child| (child, above + 1)));
    }
    deepest
}

/// How much work one patch may do, as a multiple of the document bound: the bytes of JSON its
/// operations measure, place, copy, take out and compare, and the array elements they shift.
pub const WORK_PER_DOCUMENT_BOUND: usize = 4;

/// Applies `patch` to `document`, one operation at a time; on failure the document is left
/// unspecified (callers discard it).
///
/// The document may not grow past `max_bytes` of JSON (the request body limit: no more than a
/// `PUT` could send). Each `add`, `replace` and `copy` counts the size of the value it places
/// before it runs, so a patch that doubles the document with `copy` after `copy` is refused
/// at the operation that would pass the bound (400 naming it), having held at most that much.
/// The work is bounded too, whatever the size does: every operation's values (placed, taken
/// out, copied, moved, compared) and the elements of the array it inserts into or removes
/// from count against [`WORK_PER_DOCUMENT_BOUND`] × `max_bytes`, so a patch that copies a
/// large member and removes it again, hundreds of times, is refused (400 naming the operation)
/// after a few milliseconds instead of holding its transaction for seconds of CPU.
pub fn apply(
    document: &mut Value,
    patch: &Patch,
    fields: &[Field],
    max_bytes: usize,
) -> Result<(), ApiError> {
    let mut size = json_size(document);
    let work_bound = max_bytes.saturating_mul(WORK_PER_DOCUMENT_BOUND);
    let mut work = size;
    for (index, operation) in patch.0.iter().enumerate() {
        // What the operation puts in, less what it takes out (a replaced or removed value): the
        // document's size as it goes, so a patch that never grows it is never refused for size.
        let at = |pointer: &str| document.pointer(pointer).map_or(0, json_size);
        // What it puts in and takes out, and the rest of its work: values moved or compared
        // (a test reads both sides, number by number), array elements shifted.
        let shifts = |pointer: &str| shifted(document, pointer);
        let (placed, taken, handled) = match operation {
            PatchOperation::Add(op) => (json_size(&op.value), 0, shifts(op.path.as_str())),
            PatchOperation::Replace(op) => (json_size(&op.value), at(op.path.as_str()), 0),
            PatchOperation::Copy(op) => (at(op.from.as_str()), 0, shifts(op.path.as_str())),
            PatchOperation::Remove(op) => (0, at(op.path.as_str()), shifts(op.path.as_str())),
            PatchOperation::Move(op) => (
                0,
                0,
                at(op.from.as_str()) + shifts(op.from.as_str()) + shifts(op.path.as_str()),
            ),
            PatchOperation::Test(op) => (0, 0, json_size(&op.value) + at(op.path.as_str())),
        };
        work = work
            .saturating_add(placed)
            .saturating_add(taken)
            .saturating_add(handled);
        if work > work_bound {
            return Err(ApiError::field(
                format!("[{index}]"),
                format!(
                    "this patch handles more than {work_bound} bytes of JSON in all (values \
                     placed, copied, moved, removed and compared, and array elements shifted): \
                     split it into smaller patches"
                ),
            ));
        }
        // Nesting is bounded as a body's is: a `copy` into the copied value's own depths
        // doubles it with each operation, and values thousands of levels deep overflow the
        // stack of whatever walks them (writing, cloning, dropping).
        let nested = |path: &str, value: Option<&Value>| {
            value.map_or(0, |value| path.matches('/').count() + depth(value))
        };
        let deepest = match operation {
            PatchOperation::Add(op) => nested(op.path.as_str(), Some(&op.value)),
            PatchOperation::Replace(op) => nested(op.path.as_str(), Some(&op.value)),
            PatchOperation::Copy(op) => {
                nested(op.path.as_str(), document.pointer(op.from.as_str()))
            }
            PatchOperation::Move(op) => {
                nested(op.path.as_str(), document.pointer(op.from.as_str()))
            }
            PatchOperation::Remove(_) | PatchOperation::Test(_) => 0,
        };
        if deepest > MAX_DEPTH {
            return Err(ApiError::field(
                format!("[{index}]"),
                format!(
                    "the patched document would nest arrays and objects {deepest} levels deep; \
                     at most {MAX_DEPTH} are accepted, as in a request body"
                ),
            ));
        }
        size = size.saturating_add(placed).saturating_sub(taken);
        if size > max_bytes {
            return Err(ApiError::field(
                format!("[{index}]"),
                format!(
                    "the patched document would be larger than {max_bytes} bytes of JSON, the \
                     most a request body may be"
                ),
            ));
        }
        // `test` compares by value (RFC 6902 4.6: `150.00` is the number `150`), which the
        // library compares as written.
        if let PatchOperation::Test(op) = operation
            && let Some(found) = document.pointer(op.path.as_str())
        {
            if same_json(found, &op.value) {
                continue;
            }
            return Err(ApiError::conflict(format!(
                "test operation {index} failed: the value at '{}' differs",
                op.path
            )));
        }
        json_patch::patch_unsafe(document, std::slice::from_ref(operation))
            .map_err(|error| failed_operation(index, operation, error))?;
        if let PatchOperation::Copy(op) = operation {
            forget_copied_ids(document, op.path.as_str(), fields);
        }
    }
    Ok(())
}

/// Why an operation could not be applied, naming the member at fault (`from` when the source
/// is missing) and its pointer as the client sent it.
fn failed_operation(
    index: usize,
    operation: &PatchOperation,
    error: json_patch::PatchError,
) -> ApiError {
    let from = match operation {
        PatchOperation::Move(op) => op.from.as_str(),
        PatchOperation::Copy(op) => op.from.as_str(),
        _ => "",
    };
    match error.kind {
        PatchErrorKind::TestFailed => ApiError::conflict(format!(
            "test operation {index} failed: the value at '{}' differs",
            error.path
        )),
        PatchErrorKind::InvalidFromPointer => ApiError::field(
            format!("[{index}].from"),
            format!("'{from}' names nothing in the record: no such member or array element"),
        ),
        PatchErrorKind::CannotMoveInsideItself => ApiError::field(
            format!("[{index}].path"),
            format!(
                "'{}' is inside '{from}': a value cannot be moved into itself",
                error.path
            ),
        ),
        // `InvalidPointer`, and any kind a later version adds.
        _ => ApiError::field(
            format!("[{index}].path"),
            format!(
                "'{}' names nothing in the record: a member on the way is missing or an array \
                 index is out of range",
                error.path
            ),
        ),
    }
}

/// A copy of an owned element (or of an owned object with its own children) is a new element:
/// it gets a new id when written, never the original's, even when the original is removed
/// later in the same patch (docs/api.md, "Writes"). So the ids it was copied with go.
fn forget_copied_ids(document: &mut Value, path: &str, fields: &[Field]) {
    let Some(target) = members::resolve(fields, &segments(path)) else {
        return;
    };
    if !target.field.owned {
        return;
    }
    // Where the copy landed: `-` is the end of the array.
    let landed = match path.strip_suffix("/-") {
        Some(array) => match document.pointer(array).and_then(Value::as_array) {
            Some(items) if !items.is_empty() => format!("{array}/{}", items.len() - 1),
            _ => return,
        },
        None => path.to_owned(),
    };
    if let Some(copy) = document.pointer_mut(&landed) {
        forget_ids(copy, target.value_type);
    }
}

/// Takes `id` out of `value` and out of every owned child in it, at any depth; a record shown
/// in it (`currency: {id}`) keeps its key.
fn forget_ids(value: &mut Value, value_type: FieldType) {
    match (value, value_type) {
        (Value::Array(items), FieldType::Array(element)) => {
            for item in items {
                forget_ids(item, *element);
            }
        }
        (Value::Object(members), FieldType::Object(fields)) => {
            members.remove("id");
            for field in fields.iter().filter(|field| field.owned) {
                if let Some(child) = members.get_mut(field.name) {
                    forget_ids(child, field.field_type);
                }
            }
        }
        _ => {}
    }
}

/// Whether two JSON values are equal as RFC 6902's `test` says: numbers by value, objects
/// whatever their members' order, arrays element by element.
fn same_json(one: &Value, other: &Value) -> bool {
    match (one, other) {
        (Value::Number(one), Value::Number(other)) => {
            billing_domain::money::same_number(&one.to_string(), &other.to_string())
        }
        (Value::Array(one), Value::Array(other)) => {
            one.len() == other.len() && one.iter().zip(other).all(|(a, b)| same_json(a, b))
        }
        (Value::Object(one), Value::Object(other)) => {
            one.len() == other.len()
                && one
                    .iter()
                    .all(|(name, a)| other.get(name).is_some_and(|b| same_json(a, b)))
        }
        _ => one == other,
    }
}

/// The length of `value` written as compact JSON, counted without writing it anywhere.
/// The elements an insertion or removal at `pointer` shifts: the length of the array it
/// points into (0 when its parent is an object or missing).
fn shifted(document: &Value, pointer: &str) -> usize {
    let parent = pointer.rsplit_once('/').map_or("", |(parent, _)| parent);
    match document.pointer(parent) {
        Some(Value::Array(elements)) => elements.len(),
        _ => 0,
    }
}

fn json_size(value: &Value) -> usize {
    struct Counter(usize);
    impl std::io::Write for Counter {
        fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
            self.0 += bytes.len();
            Ok(bytes.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }
    let mut counter = Counter(0);
    // Writing a `Value` to a sink that never fails cannot fail.
    let _ = serde_json::to_writer(&mut counter, value);
    counter.0
}

/// Removes the read-only fields of a patched document so it reads as an input body, at every
/// depth of its owned members; an owned element keeps its `id`, which identifies it.
pub fn strip_read_only(document: &mut Value, fields: &[Field]) {
    strip_at(document, fields, false);
}

fn strip_at(document: &mut Value, fields: &[Field], nested: bool) {
    let Value::Object(map) = document else {
        return;
    };
    for field in fields {
        if field.access == Access::ReadOnly && !(nested && field.name == "id") {
            map.remove(field.name);
        } else if field.owned
            && let Some(value) = map.get_mut(field.name)
        {
            match (&field.field_type, value) {
                (FieldType::Object(members), value) => strip_at(value, members, true),
                (FieldType::Array(FieldType::Object(members)), Value::Array(items)) => {
                    for item in items {
                        strip_at(item, members, true);
                    }
                }
                _ => {}
            }
        }
    }
}
