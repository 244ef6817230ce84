//! A site's custom field values (docs/api.md "Sites", 2.9): one value per definition.

use crate::ValidationErrors;
use crate::resources::site_assigned_custom_fields::names::custom_field_definition_id;
use crate::resources::sites::names::assigned_custom_fields;

/// A site holds one value per custom field definition: each element naming a definition an
/// earlier element already names is an error at
/// `assignedCustomFields[i].customFieldDefinitionId`. `definitions` are the elements'
/// definition ids in order (`None` where an element gave none, which is its own error).
pub fn check_custom_fields_once(definitions: &[Option<i64>]) -> Result<(), ValidationErrors> {
    let mut errors = ValidationErrors::default();
    for (index, definition) in definitions.iter().enumerate() {
        let Some(definition) = definition else {
            continue;
        };
        if let Some(first) = definitions[..index]
            .iter()
            .position(|earlier| earlier.as_ref() == Some(definition))
        {
            errors.push(
                format!("{assigned_custom_fields}[{index}].{custom_field_definition_id}"),
                format!(
                    "custom field definition {definition} is already given a value at {assigned_custom_fields}[{first}]: a site holds one value per custom field"
                ),
            );
        }
    }
    if errors.is_empty() {
        Ok(())
    } else {
        Err(errors)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_definition_is_given_one_value() {
        assert!(check_custom_fields_once(&[Some(1), Some(2), None, None]).is_ok());
        let errors =
            check_custom_fields_once(&[Some(1), Some(2), Some(1), Some(1)]).expect_err("twice");
        insta::assert_debug_snapshot!(errors.errors.iter().map(|e| format!("{}: {}", e.field, e.message)).collect::<Vec<_>>(), @r#"
        [
            "assignedCustomFields[2].customFieldDefinitionId: custom field definition 1 is already given a value at assignedCustomFields[0]: a site holds one value per custom field",
            "assignedCustomFields[3].customFieldDefinitionId: custom field definition 1 is already given a value at assignedCustomFields[0]: a site holds one value per custom field",
        ]
        "#);
    }
}
