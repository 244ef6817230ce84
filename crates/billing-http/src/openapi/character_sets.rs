//! The character rules that allow "letters and digits of any script" (free text, postcodes,
//! telephone numbers, usernames), written for every pattern engine.
//!
//! The service checks them with Unicode's classes (`billing_domain::text::is_letter_or_digit`).
//! Many engines that read the document have no Unicode classes (JavaScript without the `u`
//! flag, as Spectral compiles patterns; Python's `re`), so the document spells the classes out
//! as ranges of the Basic Multilingual
//! Plane. The ranges make a long pattern, so each rule is one component schema (`FreeText`,
//! `Postcode`, `TelephoneNumber`, `Username`, `CurrencySymbol`) and a member refers to it with `allOf`, adding its
//! own lengths. Letters beyond U+FFFF (historic scripts, CJK extension B) are accepted by the
//! service but outside the document's pattern (docs/api.md "Everywhere").

use std::sync::LazyLock;

use billing_domain::reference_data::is_currency_symbol_char;
use billing_domain::sites::codes::{is_postcode_char, is_telephone_char};
use billing_domain::text::is_text_char;
use billing_domain::users::is_username_char;
use serde_json::{Map, Value, json};

use crate::machinery::kinds::{
    CURRENCY_SYMBOL_PATTERN, POSTCODE_PATTERN, TELEPHONE_PATTERN, USERNAME_PATTERN,
};
use crate::machinery::resource::FieldType;

/// The longest text any rule's member takes; each member sets its own maximum below it.
pub(super) const LONGEST_TEXT: u32 = 65_535;

/// A rule of letters of any script: the kind's pattern (as the declarations give it), the
/// component's name, its description, the pattern around the class, and the service's own
/// test of a character.
struct Rule {
    kind_pattern: &'static str,
    name: &'static str,
    description: &'static str,
    shape: (&'static str, &'static str),
    allows: fn(char) -> bool,
}

const RULES: [Rule; 5] = [
    Rule {
        kind_pattern: "",
        name: "FreeText",
        description: "Free text: letters and digits of any script, spaces, tabs, line breaks and . , ' - & ( ) / @ # + _ : ; ! ? \" £ $ € % * = [ ]. Each member sets its own length.",
        shape: ("^[", "]*$"),
        allows: is_text_char,
    },
    Rule {
        kind_pattern: POSTCODE_PATTERN,
        name: "Postcode",
        description: "Letters and digits of any script, whitespace and @ . + _ -.",
        shape: ("^[", "]*$"),
        allows: is_postcode_char,
    },
    Rule {
        kind_pattern: TELEPHONE_PATTERN,
        name: "TelephoneNumber",
        description: "Empty, or 4 to 100 letters and digits of any script, whitespace and ( ) @ & . , _ £ | -.",
        shape: ("^$|^[", "]{4,100}$"),
        allows: is_telephone_char,
    },
    Rule {
        kind_pattern: USERNAME_PATTERN,
        name: "Username",
        description: "1 to 100 letters and digits of any script and . _ @ -.",
        shape: ("^[", "]{1,100}$"),
        allows: is_username_char,
    },
    Rule {
        kind_pattern: CURRENCY_SYMBOL_PATTERN,
        name: "CurrencySymbol",
        description: "One character: a letter or digit of any script, a currency sign (Unicode category Sc, such as ¥ or ₹) or one of . , ' - & ( ) / @ # + _ : ; ! ? \" £ $ € % * = [ ].",
        shape: ("^[", "]$"),
        allows: is_currency_symbol_char,
    },
];

/// The component a member of this kind refers to, if its rule is one of letters of any script.
pub(super) fn component_of(field_type: &FieldType) -> Option<&'static str> {
    let rule = match field_type {
        FieldType::Text { .. } => &RULES[0],
        FieldType::Pattern { pattern, .. } => RULES[1..]
            .iter()
            .find(|rule| rule.kind_pattern == *pattern)?,
        _ => return None,
    };
    Some(rule.name)
}

/// A member of such a kind: the rule's component and the member's own lengths.
pub(super) fn member_schema(component: &str, min: u32, max: u32) -> Value {
    json!({ "allOf": [{ "$ref": format!("#/components/schemas/{component}") }],
        "minLength": min, "maxLength": max })
}

/// The component schemas, one per rule, each pattern made from the service's own test of a
/// character over the Basic Multilingual Plane.
pub(super) fn component_schemas() -> Map<String, Value> {
    static SCHEMAS: LazyLock<Map<String, Value>> = LazyLock::new(|| {
        RULES
            .iter()
            .map(|rule| {
                let pattern = format!("{}{}{}", rule.shape.0, ranges(rule.allows), rule.shape.1);
                let schema = json!({ "type": "string", "maxLength": LONGEST_TEXT,
                    "pattern": pattern, "description": rule.description });
                (rule.name.to_owned(), schema)
            })
            .collect()
    });
    SCHEMAS.clone()
}

/// The characters of the Basic Multilingual Plane for which `member` holds, as a character
/// class body (`A-Z\u00AA…`), escaped so that every engine reads it alike.
fn ranges(member: impl Fn(char) -> bool) -> String {
    let mut out = String::new();
    let mut run: Option<(u32, u32)> = None;
    let close = |run: (u32, u32), out: &mut String| {
        out.push_str(&escape(run.0));
        if run.1 > run.0 {
            if run.1 > run.0 + 1 {
                out.push('-');
            }
            out.push_str(&escape(run.1));
        }
    };
    for code in 0..=0xFFFF_u32 {
        let inside = char::from_u32(code).is_some_and(&member);
        run = match (run, inside) {
            (Some((start, end)), true) if end + 1 == code => Some((start, code)),
            (Some(done), true) => {
                close(done, &mut out);
                Some((code, code))
            }
            (None, true) => Some((code, code)),
            (Some(done), false) => {
                close(done, &mut out);
                None
            }
            (None, false) => None,
        };
    }
    if let Some(done) = run {
        close(done, &mut out);
    }
    out
}

/// A code point as a pattern: ASCII letters and digits as themselves, anything else `\uXXXX`.
fn escape(code: u32) -> String {
    match char::from_u32(code) {
        Some(c) if c.is_ascii_alphanumeric() => c.to_string(),
        _ => format!("\\u{code:04X}"),
    }
}
