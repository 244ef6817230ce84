//! Free text as the interface allows it: a bounded number of Unicode characters from one set.

use unicode_properties::{GeneralCategoryGroup, UnicodeGeneralCategory};

use crate::error::ValidationErrors;

/// Punctuation allowed in free text besides letters, digits, spaces, tabs and line breaks.
pub const TEXT_PUNCTUATION: &str = ".,'-&()/@#+_:;!?\"£$€%*=[]";

/// True when `c` may appear in a free-text field.
pub fn is_text_char(c: char) -> bool {
    is_letter_or_digit(c) || is_text_whitespace(c) || TEXT_PUNCTUATION.contains(c) || is_joiner(c)
}

/// The zero-width non-joiner and joiner, which some scripts spell with (Persian "می‌شود",
/// Sinhala "ශ්‍රී"): free text takes them between two letters ([`check_text`]).
fn is_joiner(c: char) -> bool {
    matches!(c, '\u{200C}' | '\u{200D}')
}

/// True when `c` is a letter or digit of any script, as every rule that says "letters and digits"
/// reads it (free text, postcodes, telephone numbers, usernames): Unicode's alphabetic and
/// numeric characters, and the marks scripts write their words with, which are not letters on
/// their own: the virama of "हिन्दी", the Thai tone mark of "ที่", Hebrew and Arabic vowel points,
/// the accents that have no composed letter (the acute of Yoruba "ọ́"). Not what shows nothing
/// (the Hangul fillers, variation selectors, …). Where an accent stands is checked on the whole text
/// ([`refuse_decomposed`]). Only of the Basic Multilingual Plane (up to U+FFFF), which holds
/// every script in everyday use but a few recent ones: the OpenAPI document can state no more
/// in a pattern every engine reads alike (docs/api.md "Everywhere"), and what is stored is what the
/// document says may be.
pub fn is_letter_or_digit(c: char) -> bool {
    (c.is_alphanumeric() || is_mark(c)) && !is_invisible(c) && c <= '\u{FFFF}'
}

/// True when `c` is a mark (Unicode general category M): it belongs to the letter before it.
pub fn is_mark(c: char) -> bool {
    c.general_category_group() == GeneralCategoryGroup::Mark
}

/// The whitespace text may hold, in free text and wherever a rule says "whitespace" (postcodes,
/// telephone numbers): space, tab and line breaks; not vertical tab, form feed or NEL (control
/// characters, which every filter refuses), nor no-break and the other Unicode spaces.
pub fn is_text_whitespace(c: char) -> bool {
    matches!(c, ' ' | '\t' | '\n' | '\r')
}

/// The most marks (accents, vowel signs, …) one letter may carry (Unicode's Stream-Safe Text
/// Format, UAX #15).
pub const MAX_ACCENTS_PER_LETTER: usize = 30;

/// Refuses an accent written apart from a letter it composes with (decomposed text, Unicode
/// NFD: "e" then U+0301 for "é"), so stored text has one form for an accented letter and a
/// `like:` with composed text finds it; and an accent with no letter before it. Accents that
/// have no composed letter (Yoruba "ọ́", Lithuanian "ą̃") are taken: that text is composed
/// (NFC) as it is. Every rule of letters and digits applies it.
pub fn refuse_decomposed(field: &str, value: &str) -> Result<(), ValidationErrors> {
    let refuse = |message: String| {
        Err(ValidationErrors::single(
            field,
            format!("contains a character that is not allowed: {message}"),
        ))
    };
    // Where the letter the marks belong to starts, if any, and how many it has so far.
    let mut letter: Option<usize> = None;
    let mut marks = 0;
    for (at, c) in value.char_indices() {
        if !is_mark(c) {
            letter = is_letter_or_digit(c).then_some(at);
            marks = 0;
            continue;
        }
        let Some(start) = letter else {
            return refuse(format!(
                "a combining mark U+{:04X} with no letter before it",
                c as u32
            ));
        };
        // Unicode's stream-safe limit: no letter needs more, and each check below reads at
        // most this many marks, so the whole text is read in linear time.
        marks += 1;
        if marks > MAX_ACCENTS_PER_LETTER {
            return refuse(format!(
                "a combining mark U+{:04X}: more than {MAX_ACCENTS_PER_LETTER} marks on one letter",
                c as u32
            ));
        }
        if is_combining_mark(c) && !unicode_normalization::is_nfc(&value[start..at + c.len_utf8()])
        {
            return refuse(format!(
                "a combining mark U+{:04X} apart from the letter it composes with (send text \
                 composed, Unicode NFC: 'é' as one character)",
                c as u32
            ));
        }
    }
    Ok(())
}

/// Checks length (in characters) and character set; the message names the first offending char.
pub fn check_text(
    field: &str,
    value: &str,
    min: usize,
    max: usize,
) -> Result<(), ValidationErrors> {
    check_length(field, value, min, max)?;
    if let Some(bad) = value.chars().find(|c| !is_text_char(*c)) {
        return Err(ValidationErrors::single(
            field,
            format!(
                "contains a character that is not allowed: {}",
                describe_char(bad)
            ),
        ));
    }
    refuse_decomposed(field, value)?;
    refuse_stray_joiners(field, value)
}

/// A joiner joins two letters: one with a letter (or a letter's mark) on both sides.
fn refuse_stray_joiners(field: &str, value: &str) -> Result<(), ValidationErrors> {
    if !value.chars().any(is_joiner) {
        return Ok(());
    }
    let characters: Vec<char> = value.chars().collect();
    for (at, c) in characters.iter().enumerate() {
        let beside = |other: Option<&char>| {
            other.is_some_and(|o| (o.is_alphabetic() || is_mark(*o)) && !is_invisible(*o))
        };
        if is_joiner(*c)
            && !(at > 0 && beside(characters.get(at - 1)) && beside(characters.get(at + 1)))
        {
            return Err(ValidationErrors::single(
                field,
                format!(
                    "contains a character that is not allowed: U+{:04X} (a joiner) that is not \
                     between two letters",
                    *c as u32
                ),
            ));
        }
    }
    Ok(())
}

/// Checks only the length in characters.
pub fn check_length(
    field: &str,
    value: &str,
    min: usize,
    max: usize,
) -> Result<(), ValidationErrors> {
    let length = value.chars().count();
    if length < min || length > max {
        let message = if min == max {
            format!("must be exactly {min} characters long (got {length})")
        } else {
            format!("must be {min} to {max} characters long (got {length})")
        };
        return Err(ValidationErrors::single(field, message));
    }
    Ok(())
}

/// A character as a message shows it: quoted, or by code point when it shows nothing.
pub fn describe_char(c: char) -> String {
    if is_visible(c) && c > '\u{FFFF}' && c.is_alphanumeric() {
        // Refused for where it is, not for what it is: say so ([`is_letter_or_digit`]).
        format!(
            "'{c}' (U+{:X}: letters and digits beyond U+FFFF are not taken)",
            c as u32
        )
    } else if is_visible(c) {
        format!("'{c}'")
    } else {
        // Invisible ones (controls, a no-break or other space, a joiner, a variation selector,
        // private use) by their code point.
        format!("U+{:04X}", c as u32)
    }
}

/// True when `c` shows as itself in a message: a letter, digit, punctuation or symbol.
fn is_visible(c: char) -> bool {
    use GeneralCategoryGroup::{Letter, Number, Punctuation, Symbol};
    matches!(
        c.general_category_group(),
        Letter | Number | Punctuation | Symbol
    ) && !is_invisible(c)
}

/// True when `c` shows nothing where it stands: a control, a format character (a zero-width
/// space, a direction override), private use, an unassigned code point, or [`is_invisible`].
pub fn shows_nothing(c: char) -> bool {
    c.general_category_group() == GeneralCategoryGroup::Other || is_invisible(c)
}

/// The letters and marks Unicode makes default-ignorable, which show nothing and would let two
/// names that look alike differ (or a name look empty): the Hangul fillers, the variation
/// selectors (they only choose a glyph's form), the combining grapheme joiner and the Khmer
/// inherent vowels.
pub fn is_invisible(c: char) -> bool {
    matches!(c, '\u{034F}' | '\u{115F}' | '\u{1160}' | '\u{17B4}' | '\u{17B5}'
        | '\u{180B}'..='\u{180F}' | '\u{3164}' | '\u{FE00}'..='\u{FE0F}' | '\u{FFA0}'
        | '\u{E0100}'..='\u{E01EF}')
}

/// The blocks of combining diacritical marks (accents, which many letters have composed).
fn is_combining_mark(c: char) -> bool {
    matches!(c, '\u{0300}'..='\u{036F}' | '\u{1AB0}'..='\u{1AFF}' | '\u{1DC0}'..='\u{1DFF}'
        | '\u{20D0}'..='\u{20FF}' | '\u{FE20}'..='\u{FE2F}')
}

/// Text of `MIN..=MAX` characters from the free-text set.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct BoundedText<const MIN: usize, const MAX: usize>(String);

impl<const MIN: usize, const MAX: usize> BoundedText<MIN, MAX> {
    pub fn parse(field: &str, value: impl Into<String>) -> Result<Self, ValidationErrors> {
        let value = value.into();
        check_text(field, &value, MIN, MAX)?;
        Ok(Self(value))
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }

    pub fn into_inner(self) -> String {
        self.0
    }
}

/// Letters a-z and A-Z only, `MIN..=MAX` of them (currency unit names).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AsciiLetters<const MIN: usize, const MAX: usize>(String);

impl<const MIN: usize, const MAX: usize> AsciiLetters<MIN, MAX> {
    pub fn parse(field: &str, value: impl Into<String>) -> Result<Self, ValidationErrors> {
        let value = value.into();
        check_length(field, &value, MIN, MAX)?;
        if !value.chars().all(|c| c.is_ascii_alphabetic()) {
            return Err(ValidationErrors::single(
                field,
                "must contain only letters a-z and A-Z",
            ));
        }
        Ok(Self(value))
    }

    pub fn into_inner(self) -> String {
        self.0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lengths_count_characters_not_bytes() {
        assert!(check_text("name", "££££", 1, 4).is_ok());
        assert!(check_text("name", "£££££", 1, 4).is_err());
    }

    #[test]
    fn forbidden_characters_are_named() {
        let error = check_text("name", "a<b", 1, 10).unwrap_err();
        insta::assert_snapshot!(error.to_string(), @"name: contains a character that is not allowed: '<'");
        let error = check_text("name", "a\u{0}b", 1, 10).unwrap_err();
        insta::assert_snapshot!(error.to_string(), @"name: contains a character that is not allowed: U+0000");
        let error = check_text("name", "Cafe\u{301}", 1, 10).unwrap_err();
        insta::assert_snapshot!(error.to_string(), @"name: contains a character that is not allowed: a combining mark U+0301 apart from the letter it composes with (send text composed, Unicode NFC: 'é' as one character)");
        // Usernames and e-mail addresses, whose own messages would not say it, too.
        let error = crate::users::check_username("username", "jose\u{301}").unwrap_err();
        insta::assert_snapshot!(error.to_string(), @"username: contains a character that is not allowed: a combining mark U+0301 apart from the letter it composes with (send text composed, Unicode NFC: 'é' as one character)");
        assert!(crate::users::check_email("email", "e\u{301}@example.com").is_err());
        assert!(crate::users::check_email("email", "é@example.com").is_ok());
        // What shows nothing would make an address look like another one.
        for (address, named) in [
            ("a\u{200B}b@example.com", "U+200B"),
            ("ann@\u{202E}moc.example", "U+202E"),
            ("\u{3164}@example.com", "U+3164"),
        ] {
            let error = crate::users::check_email("email", address)
                .unwrap_err()
                .to_string();
            assert!(
                error.ends_with(&format!("{named} is not allowed")),
                "{error}"
            );
        }
    }

    #[test]
    fn whitespace_is_space_tab_and_line_breaks_everywhere() {
        for rule in [
            is_text_char,
            crate::sites::codes::is_postcode_char,
            crate::sites::codes::is_telephone_char,
        ] {
            assert!([' ', '\t', '\n', '\r'].into_iter().all(rule));
            assert!(
                !['\u{b}', '\u{c}', '\u{85}', '\u{a0}', '\u{2028}', '\u{3000}']
                    .into_iter()
                    .any(rule)
            );
        }
    }

    #[test]
    fn allowed_punctuation_and_unicode_letters_pass() {
        assert!(check_text("name", "Zoë's Café (1) - £5 = [ok]; 100% \"yes\"\n", 1, 100).is_ok());
    }

    /// Scripts whose words are written with marks that are not letters on their own: a virama,
    /// a tone mark, vowel points. Every rule of "letters and digits" takes them.
    #[test]
    fn letters_of_every_script_include_their_marks() {
        for name in ["हिन्दी", "ที่ทำการ", "தமிழ்", "עִבְרִית", "বাংলা"]
        {
            assert!(check_text("name", name, 1, 100).is_ok(), "{name}");
            assert!(
                crate::users::check_username("username", name).is_ok(),
                "{name}"
            );
            assert!(
                name.chars().all(crate::sites::codes::is_postcode_char),
                "{name}"
            );
            assert!(
                name.chars().all(crate::sites::codes::is_telephone_char),
                "{name}"
            );
        }
        for c in ['\u{094D}', '\u{0E48}', '\u{0BCD}'] {
            assert!(
                !c.is_alphanumeric() && is_letter_or_digit(c),
                "U+{:04X}",
                c as u32
            );
        }
    }

    /// Accents with no composed letter are composed text as they are; an accent that has one,
    /// or that follows no letter, is refused, by every rule of letters and digits.
    #[test]
    fn accents_are_taken_where_unicode_has_no_composed_letter() {
        for name in ["Ọlọ́run", "žuvą́", "ą̃", "ẹ́", "про́сто"] {
            assert!(check_text("name", name, 1, 100).is_ok(), "{name}");
            assert!(
                crate::users::check_username("username", name).is_ok(),
                "{name}"
            );
        }
        // Decomposed: "e" + U+0301 is "é"; a dot below then an acute on "e" is "ẹ" + acute.
        for name in [
            "Cafe\u{301}",
            "e\u{323}\u{301}",
            "ok \u{301}",
            "\u{301}a",
            "a-\u{301}",
        ] {
            assert!(check_text("name", name, 1, 100).is_err(), "{name:?}");
            assert!(
                crate::users::check_username("username", name).is_err(),
                "{name:?}"
            );
        }
        use crate::kinds::Kind;
        use crate::sites::codes::{Postcode, Telephone};
        assert!(Postcode::check(&"SW1 ẹ́".to_owned()).is_ok());
        assert!(Postcode::check(&"SW1 e\u{301}".to_owned()).is_err());
        assert!(Telephone::check(&"0207 e\u{301}".to_owned()).is_err());
        // Thirty accents on one letter at most; a long run is refused in linear time.
        let stacked = format!("a{}", "\u{301}\u{323}".repeat(15));
        assert!(check_text("name", &stacked, 1, 100).is_err(), "decomposed");
        let stacked = format!("\u{1ecd}{}", "\u{300}".repeat(30));
        assert!(check_text("name", &stacked, 1, 100).is_ok());
        let zalgo = format!("\u{1ecd}{}", "\u{300}".repeat(65_000));
        let error = check_text("name", &zalgo, 1, 65_535).unwrap_err();
        assert!(error.to_string().contains("more than 30 marks"), "{error}");
        // Every mark needs a letter, and counts towards the thirty, not only the accents.
        for text in ["\u{5B0}", "\u{E48}", "\u{5B0}\u{301}", "a \u{903}"] {
            assert!(check_text("name", text, 1, 10).is_err(), "{text:?}");
        }
        let mixed = format!("x{}\u{E48}{}", "\u{301}".repeat(30), "\u{301}".repeat(18));
        assert!(
            check_text("name", &mixed, 1, 100).is_err(),
            "48 marks on one letter"
        );
        let error = check_text("name", &format!("x{}", "\u{5B0}".repeat(31)), 1, 100).unwrap_err();
        assert!(error.to_string().contains("more than 30 marks"), "{error}");
        let error = check_text("name", "\u{301}a", 1, 10).unwrap_err();
        insta::assert_snapshot!(error.to_string(), @"name: contains a character that is not allowed: a combining mark U+0301 with no letter before it");
    }

    /// Joiners in the scripts that spell with them, between two letters, in free text only.
    #[test]
    fn letters_beyond_the_basic_multilingual_plane_are_refused() {
        // CJK extension B, Adlam, Gothic, a mathematical bold letter: letters, but beyond
        // U+FFFF, which the document's patterns cannot state (docs/api.md "Everywhere").
        for c in ['\u{20171}', '\u{1E900}', '\u{10330}', '\u{1D400}'] {
            assert!(c.is_alphabetic(), "{c:?}");
            assert!(!is_letter_or_digit(c) && !is_text_char(c), "{c:?}");
            assert!(!crate::sites::codes::is_postcode_char(c), "{c:?}");
            assert!(!crate::users::is_username_char(c), "{c:?}");
        }
        assert!(is_letter_or_digit('\u{4E2D}') && is_letter_or_digit('\u{FFDC}'));
        insta::assert_snapshot!(
            check_text("name", &format!("Cycle {}", '\u{20171}'), 1, 50).unwrap_err(),
            @"name: contains a character that is not allowed: '𠅱' (U+20171: letters and digits beyond U+FFFF are not taken)"
        );
    }

    #[test]
    fn joiners_are_taken_between_two_letters_in_free_text() {
        for name in ["می\u{200C}شود", "ශ්\u{200D}රී ලංකා", "خیابان\u{200C}ها"]
        {
            assert!(check_text("name", name, 1, 100).is_ok(), "{name}");
        }
        for name in [
            "\u{200C}ab",
            "ab\u{200D}",
            "a \u{200C}b",
            "a\u{200C}\u{200C}b",
        ] {
            let error = check_text("name", name, 1, 100).unwrap_err().to_string();
            assert!(error.contains("joiner"), "{name:?}: {error}");
        }
        assert!(crate::users::check_username("username", "a\u{200C}b").is_err());
        assert!(
            check_text("name", "1\u{200D}2", 1, 10).is_err(),
            "between digits"
        );
        assert!(!crate::sites::codes::is_postcode_char('\u{200C}'));
    }

    /// What is invisible in a message is named by its code point.
    #[test]
    fn invisible_characters_are_named_by_code_point() {
        for (text, named) in [
            ("a\u{FE0F}", "U+FE0F"),
            ("a\u{200B}b", "U+200B"),
            ("a\u{E000}", "U+E000"),
            ("a\u{A0}b", "U+00A0"),
            ("a\u{E0101}", "U+E0101"),
            ("A\u{34F}b", "U+034F"),
            ("\u{3164}", "U+3164"),
            ("a\u{115F}\u{1160}", "U+115F"),
            ("\u{FFA0}", "U+FFA0"),
            ("\u{1780}\u{17B4}", "U+17B4"),
        ] {
            let error = check_text("name", text, 1, 10).unwrap_err().to_string();
            assert!(error.ends_with(named), "{error}");
        }
    }

    #[test]
    fn empty_text_respects_minimum() {
        assert!(BoundedText::<1, 5>::parse("name", "").is_err());
        assert!(BoundedText::<0, 5>::parse("name", "").is_ok());
    }

    #[test]
    fn ascii_letters_reject_digits_and_accents() {
        assert!(AsciiLetters::<1, 10>::parse("majorCurrencyName", "Pound").is_ok());
        assert!(AsciiLetters::<1, 10>::parse("majorCurrencyName", "Pound1").is_err());
        assert!(AsciiLetters::<1, 10>::parse("majorCurrencyName", "Złoty").is_err());
    }
}
