//! What a write holds while it is handled and until its answer is read, counted in the body
//! budget (`body_budget`). A replace or patch knows it before its body is read (its record at
//! its largest: [`change_holds`]); a create or bulk update is first counted at
//! [`before_parsed`] and, once parsed, makes its share at least what its records say
//! ([`hold_while_handled`]). The share goes with the answer to the client (`compression`),
//! shrunk to the answer's bytes.

use super::*;

use crate::machinery::body_budget;
use crate::machinery::fields::max_json_bytes;
use crate::machinery::fields::{FieldType, skeleton_json_bytes};
use crate::machinery::resource::Field;

/// What a number, date, id or code of a body may hold beside its text: written out in full
/// in the answer (`1e5` is `100000`), and as a typed member of the input.
const BYTES_PER_VALUE: usize = 40;

/// How many JSON forms of a changed record are held at once: the stored record, its JSON
/// (the audit event's `before`, and the patched document) and the answer's text.
const COPIES_OF_A_CHANGED_RECORD: usize = 3;

/// What a create or bulk body of `body_bytes` is counted for beside its text before its
/// records are known: its parsed JSON, its typed input and the answer, each about its text.
pub fn before_parsed(body_bytes: usize) -> usize {
    body_bytes.saturating_mul(3)
}

/// A create of `R` from `body` (`body_bytes` of text): the text twice (the typed input, and
/// the answer, whose strings are no longer than the body wrote them), [`BYTES_PER_VALUE`] for
/// each value, and for each object (a record, an embedded record, an element of an owned
/// list) the most its type adds to the answer beyond the body's text
/// ([`skeleton_json_bytes`]). An `Idempotency-Key` replay of the same body answers the first
/// answer: no larger.
pub fn create_holds<R: Resource>(body_bytes: usize, body: &Value) -> usize {
    let records = match body {
        Value::Array(elements) => elements.iter().collect(),
        record => vec![record],
    };
    let skeletons = records
        .into_iter()
        .map(|record| {
            let embedded = R::EMBEDDED
                .iter()
                .filter_map(|member| Some((member, record.get(member.member)?.as_array()?)))
                .flat_map(|(member, elements)| {
                    elements
                        .iter()
                        .map(|element| skeletons(member.fields, element))
                })
                .fold(0, usize::saturating_add);
            skeletons(R::FIELDS, record).saturating_add(embedded)
        })
        .fold(0, usize::saturating_add);
    let (values, _) = values_and_objects(body);
    body_bytes
        .saturating_mul(2)
        .saturating_add(values.saturating_mul(BYTES_PER_VALUE))
        .saturating_add(skeletons)
}

/// What the objects of `value`, a body of a record of `fields`, add to its answer beyond their
/// text: the record's skeleton (with its inner objects') and each element's of its owned
/// lists, at any depth.
fn skeletons(fields: &[Field], value: &Value) -> usize {
    let Value::Object(members) = value else {
        return 0;
    };
    let inner = fields
        .iter()
        .filter(|field| field.shows.is_none())
        .filter_map(|field| Some((field, members.get(field.name)?)))
        .map(|(field, member)| match (field.field_type, member) {
            (
                FieldType::ObjectList(fields) | FieldType::Array(&FieldType::Object(fields)),
                Value::Array(elements),
            ) => elements
                .iter()
                .map(|element| skeletons(fields, element))
                .fold(0, usize::saturating_add),
            // Its own skeleton is in the record's: only its lists are added.
            (FieldType::Object(fields), member) => {
                skeletons(fields, member).saturating_sub(skeleton_json_bytes(fields))
            }
            _ => 0,
        })
        .fold(0, usize::saturating_add);
    skeleton_json_bytes(fields).saturating_add(inner)
}

/// A change of `records` records of `R` (a replace, a patch, a bulk update): the body's text
/// twice, and each record at its largest, [`COPIES_OF_A_CHANGED_RECORD`] times (the answer is
/// the stored record, whatever the body).
pub fn change_holds<R: Resource>(body_bytes: usize, records: usize) -> usize {
    let record = max_json_bytes(R::FIELDS).saturating_mul(COPIES_OF_A_CHANGED_RECORD);
    body_bytes
        .saturating_mul(2)
        .saturating_add(records.saturating_mul(record))
}

/// Makes the request's share of the body budget at least `bytes` before it is handled.
pub async fn hold_while_handled(
    request: &HttpRequest,
    state: &AppState,
    bytes: usize,
) -> Result<(), ApiError> {
    body_budget::hold_at_least(
        request,
        &state.body_budget,
        bytes,
        state.limits.body_timeout,
    )
    .await
}

/// How many values a JSON value holds (itself included), and how many of them are objects.
fn values_and_objects(value: &Value) -> (usize, usize) {
    let mut counts = (0, 0);
    let mut pending = vec![value];
    while let Some(value) = pending.pop() {
        counts.0 += 1;
        match value {
            Value::Object(members) => {
                counts.1 += 1;
                pending.extend(members.values());
            }
            Value::Array(elements) => pending.extend(elements),
            _ => {}
        }
    }
    counts
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn every_value_and_object_of_a_body_is_counted() {
        let body = json!([{ "a": 1, "b": [{ "c": "x" }, 2] }, "y"]);
        assert_eq!(values_and_objects(&body), (8, 2));
    }

    #[test]
    fn what_each_object_of_a_create_body_may_add_is_counted_from_its_declaration() {
        let documentation = crate::resources::documentation();
        let sizes: Vec<String> = documentation
            .iter()
            .filter(|resource| resource.operations.create)
            .map(|resource| {
                format!(
                    "{}: {} bytes",
                    resource.path,
                    skeleton_json_bytes(resource.fields)
                )
            })
            .collect();
        insta::assert_snapshot!(sizes.join("\n"));
        // A site's owned lists add their elements' own.
        let sites = documentation
            .iter()
            .find(|resource| resource.path == "sites")
            .expect("sites");
        let contact_fields = sites
            .fields
            .iter()
            .find_map(|field| match field.field_type {
                FieldType::Array(&FieldType::Object(fields)) if field.name == "siteContacts" => {
                    Some(fields)
                }
                _ => None,
            })
            .expect("siteContacts");
        let contact = json!({ "contactName": "Ann", "contactRole": "TECHNICAL" });
        let alone = skeletons(sites.fields, &json!({ "siteName": "S" }));
        assert_eq!(alone, skeleton_json_bytes(sites.fields));
        assert_eq!(
            skeletons(sites.fields, &json!({ "siteContacts": [contact, contact] })),
            alone + 2 * skeleton_json_bytes(contact_fields)
        );
    }
}
