//! Dialled numbers as the engine reads them.

/// The longest dialstring is 15 digits; digits past that never change a match.
pub const MAX_DIALSTRING_DIGITS: usize = 15;

/// A dialled number reduced to its first 15 digits, packed four bits each into one word:
/// digit `i` is `(packed >> 4 * i) & 15`. A word, not an array, because it travels through
/// registers on the path of every lookup (byte arrays written piecewise and read whole stall
/// the store buffer).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DialledNumber {
    /// Nibbles past `kept` are zero, so equal numbers compare equal.
    packed: u64,
    kept: u8,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum NumberError {
    /// Text with no digit at all (`"   "`, `"+"`); an empty text is a number not given.
    #[error("the dialled number has no digits")]
    Empty,
    #[error(
        "the dialled number contains {}; only digits, spaces and a leading + are allowed",
        crate::text::describe_char(*.0)
    )]
    InvalidCharacter(char),
}

const HIGH_NIBBLES: u64 = 0xF0F0_F0F0_F0F0_F0F0;
const ASCII_ZEROS: u64 = 0x3030_3030_3030_3030;

/// True when all eight bytes of `word` are ASCII digits: each high nibble is 3 and adding 6
/// to the low nibble does not carry into it (no carry can cross bytes: 0x3F + 6 < 0x100).
#[inline]
fn eight_digits(word: u64) -> bool {
    word & HIGH_NIBBLES == ASCII_ZEROS
        && word.wrapping_add(0x0606_0606_0606_0606) & HIGH_NIBBLES == ASCII_ZEROS
}

/// The eight ASCII digits of `word` (first digit in the low byte) as eight nibbles, first
/// digit in the low nibble.
#[inline]
fn nibbles_of(word: u64) -> u64 {
    let mut packed = word & !HIGH_NIBBLES;
    packed = (packed | packed >> 4) & 0x00FF_00FF_00FF_00FF;
    packed = (packed | packed >> 8) & 0x0000_FFFF_0000_FFFF;
    (packed | packed >> 16) & 0xFFFF_FFFF
}

/// Digits gathered so far: `packed` holds the first `kept` (at most 16: one spare nibble
/// for an eight-digit step), `seen` counts every digit.
#[derive(Default)]
struct Collected {
    packed: u64,
    kept: usize,
    seen: usize,
}

impl Collected {
    /// Appends the digits of `chunk` (spaces skipped); `Err` at the first byte that is
    /// neither.
    #[inline]
    fn one_by_one(&mut self, chunk: &[u8]) -> Result<(), ()> {
        for &byte in chunk {
            let digit = byte.wrapping_sub(b'0');
            if digit <= 9 {
                if self.kept < MAX_DIALSTRING_DIGITS {
                    self.packed |= u64::from(digit) << (4 * self.kept);
                    self.kept += 1;
                }
                self.seen += 1;
            } else if byte != b' ' {
                return Err(());
            }
        }
        Ok(())
    }
}

/// The digits of `rest` (spaces skipped), eight at a time where eight digits follow each
/// other; `Err` at a byte that is neither digit nor space.
fn collect_digits(rest: &[u8]) -> Result<Collected, ()> {
    let mut collected = Collected::default();
    let mut chunks = rest.chunks_exact(8);
    for chunk in &mut chunks {
        let word = <[u8; 8]>::try_from(chunk).map_or(0, u64::from_le_bytes);
        if collected.kept <= 16 - 8 && eight_digits(word) {
            collected.packed |= nibbles_of(word) << (4 * collected.kept);
            collected.kept += 8;
            collected.seen += 8;
        } else {
            collected.one_by_one(chunk)?;
        }
    }
    collected.one_by_one(chunks.remainder())?;
    Ok(collected)
}

/// A mask of the low `kept` nibbles (`kept` at most 15).
fn nibble_mask(kept: usize) -> u64 {
    (1u64 << (4 * kept)) - 1
}

impl DialledNumber {
    /// Drops a leading `+` and every space; any other non-digit is an error.
    ///
    /// Runs of eight digits are checked and packed eight at a time (this is on the path of
    /// every lookup); anything else goes byte by byte.
    pub fn parse(text: &str) -> Result<Self, NumberError> {
        let bytes = text.as_bytes();
        let start = bytes.iter().position(|b| *b != b' ').unwrap_or(bytes.len());
        let rest = match bytes.get(start) {
            Some(b'+') => &bytes[start + 1..],
            _ => &bytes[start..],
        };
        let Ok(collected) = collect_digits(rest) else {
            let bad = text[start..]
                .chars()
                .skip(usize::from(bytes.get(start) == Some(&b'+')))
                .find(|c| !c.is_ascii_digit() && *c != ' ');
            return Err(NumberError::InvalidCharacter(bad.unwrap_or('?')));
        };
        if collected.seen == 0 {
            return Err(NumberError::Empty);
        }
        // An eight-digit step may have packed a sixteenth digit: keep equal numbers equal.
        let kept = collected.kept.min(MAX_DIALSTRING_DIGITS);
        Ok(Self {
            packed: collected.packed & nibble_mask(kept),
            kept: kept as u8,
        })
    }

    /// A number from digits (each 0..=9) already separated; only the first 15 are kept.
    pub fn from_digits(digits: &[u8]) -> Self {
        let kept = digits.len().min(MAX_DIALSTRING_DIGITS);
        let packed = digits[..kept]
            .iter()
            .enumerate()
            .fold(0u64, |packed, (index, digit)| {
                packed | u64::from(digit & 15) << (4 * index)
            });
        Self {
            packed,
            kept: kept as u8,
        }
    }

    /// How many digits are kept (at most 15).
    pub fn len(&self) -> usize {
        usize::from(self.kept)
    }

    pub fn is_empty(&self) -> bool {
        self.kept == 0
    }

    /// The kept digits packed four bits each, the first in the low nibble.
    pub fn packed(&self) -> u64 {
        self.packed
    }

    /// The digit at `index` (below [`Self::len`]).
    pub fn digit(&self, index: usize) -> u8 {
        ((self.packed >> (4 * (index & 15))) & 15) as u8
    }

    /// The kept digits, one per byte.
    pub fn digits(&self) -> impl Iterator<Item = u8> + '_ {
        (0..self.len()).map(|index| self.digit(index))
    }

    /// The first `length` digits as text.
    pub fn prefix_text(&self, length: usize) -> String {
        self.digits()
            .take(length)
            .map(|d| char::from(b'0' + d))
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plus_and_spaces_are_dropped() {
        let number = DialledNumber::parse(" +44 7700 900123").expect("valid");
        assert_eq!(number.prefix_text(15), "447700900123");
        let long = DialledNumber::parse("12345678901234567890").expect("valid");
        assert_eq!(long.len(), 15);
        assert_eq!(
            long,
            DialledNumber::parse("123456789012345").expect("valid")
        );
    }

    #[test]
    fn other_characters_are_errors() {
        insta::assert_snapshot!(DialledNumber::parse("0800-123").unwrap_err(), @"the dialled number contains '-'; only digits, spaces and a leading + are allowed");
        assert_eq!(
            DialledNumber::parse("44+1"),
            Err(NumberError::InvalidCharacter('+'))
        );
        assert_eq!(DialledNumber::parse(" + "), Err(NumberError::Empty));
        assert_eq!(DialledNumber::parse(""), Err(NumberError::Empty));
        insta::assert_snapshot!(DialledNumber::parse(" + ").unwrap_err(), @"the dialled number has no digits");
        // Invisible characters by code point.
        insta::assert_snapshot!(DialledNumber::parse("0800\t123").unwrap_err(), @"the dialled number contains U+0009; only digits, spaces and a leading + are allowed");
    }

    /// The rule written the plain way.
    fn reference(text: &str) -> Result<Vec<u8>, NumberError> {
        let trimmed = text.trim_start_matches(' ');
        let rest = trimmed.strip_prefix('+').unwrap_or(trimmed);
        if let Some(bad) = rest.chars().find(|c| !c.is_ascii_digit() && *c != ' ') {
            return Err(NumberError::InvalidCharacter(bad));
        }
        let digits: Vec<u8> = rest
            .bytes()
            .filter(u8::is_ascii_digit)
            .map(|b| b - b'0')
            .collect();
        if digits.is_empty() {
            return Err(NumberError::Empty);
        }
        Ok(digits.into_iter().take(MAX_DIALSTRING_DIGITS).collect())
    }

    proptest::proptest! {
        #[test]
        fn eight_at_a_time_agrees_with_the_plain_rule(
            text in "[ +]{0,2}[0-9 ]{0,30}[0-9 +/:aé-]{0,2}[0-9]{0,12}"
        ) {
            let parsed = DialledNumber::parse(&text);
            let expected = reference(&text);
            proptest::prop_assert_eq!(
                parsed.map(|n| n.digits().collect::<Vec<_>>()),
                expected.clone()
            );
            // The packed word too: equal digits, equal numbers.
            proptest::prop_assert_eq!(parsed, expected.map(|d| DialledNumber::from_digits(&d)));
        }
    }

    #[test]
    fn every_ascii_byte_at_every_place_is_judged_like_the_plain_rule() {
        for byte in 0u8..=127 {
            for position in 0..20 {
                let mut text = "1".repeat(20).into_bytes();
                text[position] = byte;
                let text = String::from_utf8(text).expect("ascii");
                let parsed = DialledNumber::parse(&text).map(|n| n.digits().collect::<Vec<_>>());
                assert_eq!(parsed, reference(&text), "{text:?}");
            }
        }
    }
}
