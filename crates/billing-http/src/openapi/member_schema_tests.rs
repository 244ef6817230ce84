//! The document's member schemas: the portable patterns of the character rules, and which
//! members a body and a record require.

/// The patterns of the rules of letters of any script accept, over the Basic Multilingual
/// Plane, exactly the characters the service's own tests accept.
#[test]
fn portable_patterns_agree_with_the_service_on_every_character() {
    use billing_domain::reference_data::is_currency_symbol_char;
    use billing_domain::sites::codes::{is_postcode_char, is_telephone_char};
    use billing_domain::text::is_text_char;
    use billing_domain::users::is_username_char;
    let schemas = &crate::openapi_document()["components"]["schemas"];
    type Rule = (&'static str, fn(char) -> bool, usize);
    let rules: [Rule; 5] = [
        ("FreeText", is_text_char, 1),
        ("Postcode", is_postcode_char, 1),
        ("TelephoneNumber", is_telephone_char, 4),
        ("Username", is_username_char, 1),
        ("CurrencySymbol", is_currency_symbol_char, 1),
    ];
    for (name, allows, repeat) in rules {
        let pattern = schemas[name]["pattern"].as_str().expect("a pattern");
        assert!(!pattern.contains("\\p{"), "{name} uses a Unicode class");
        let pattern = regex::Regex::new(pattern).expect("compiles");
        let mut accepted = 0;
        for c in (0..=0xFFFF_u32).filter_map(char::from_u32) {
            let text: String = std::iter::repeat_n(c, repeat).collect();
            assert_eq!(
                pattern.is_match(&text),
                allows(c),
                "{name}: {c:?} (U+{:04X})",
                c as u32
            );
            accepted += usize::from(allows(c));
        }
        assert!(
            accepted > 40_000,
            "{name}: letters of every script ({accepted})"
        );
    }
}

/// A record's schema as returned requires every member it shows, nullable ones included (the
/// service writes `null`, never leaves a member out); a create body's requires a write-only
/// member, which holds because no resource with one takes a `PUT` (where leaving it out keeps
/// the stored value).
#[test]
fn returned_records_require_every_member_and_creates_their_write_only_ones() {
    let document = crate::openapi_document();
    let schemas = &document["components"]["schemas"];
    let required = |schema: &str| -> Vec<String> {
        schemas[schema]["required"]
            .as_array()
            .unwrap_or_else(|| panic!("{schema}: required"))
            .iter()
            .map(|name| name.as_str().expect("a name").to_owned())
            .collect()
    };
    let customer = required("Customer");
    assert!(
        customer.iter().any(|m| m == "endDate")
            && customer.iter().any(|m| m == "contractOwnerSubBrandId"),
        "{customer:?}"
    );
    assert!(required("User").iter().any(|m| m == "lastLoginDate"));
    assert!(required("UserInput").iter().any(|m| m == "password"));
    for resource in crate::resources::documentation() {
        let write_only = resource
            .fields
            .iter()
            .any(|f| f.access == crate::machinery::resource::Access::WriteOnly);
        assert!(
            !(write_only && resource.operations.replace),
            "{}: a write-only member and PUT",
            resource.path
        );
    }
}
