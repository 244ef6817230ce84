//! Dialled numbers as the engine reads them.

/// The longest dialstring is 15 digits; digits past that never change a match.
pub const MAX_DIALSTRING_DIGITS: usize = 15;

/// A dialled number reduced to its digits (values 0..=9), of which the first 15 are kept.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DialledNumber {
    /// One spare byte so eight digits can be stored at once; only `..kept` is meaningful.
    digits: [u8; MAX_DIALSTRING_DIGITS + 1],
    kept: u8,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum NumberError {
    #[error("the dialled number is empty")]
    Empty,
    #[error("the dialled number contains '{0}'; only digits, spaces and a leading + are allowed")]
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

/// Appends the digits of `chunk` (spaces skipped) to `digits[*kept..]`, keeping at most 15 and
/// counting all in `seen`; `Err` at the first byte that is neither.
#[inline]
fn one_by_one(
    chunk: &[u8],
    digits: &mut [u8; MAX_DIALSTRING_DIGITS + 1],
    kept: &mut usize,
    seen: &mut usize,
) -> Result<(), ()> {
    for &byte in chunk {
        let digit = byte.wrapping_sub(b'0');
        if digit <= 9 {
            if *kept < MAX_DIALSTRING_DIGITS {
                digits[*kept] = digit;
                *kept += 1;
            }
            *seen += 1;
        } else if byte != b' ' {
            return Err(());
        }
    }
    Ok(())
}

/// Puts the digits of `rest` (spaces skipped) into `digits`, eight at a time where eight
/// digits follow each other; returns how many were kept (at most 15) and seen, or `Err` at
/// a byte that is neither digit nor space.
fn collect_digits(
    rest: &[u8],
    digits: &mut [u8; MAX_DIALSTRING_DIGITS + 1],
) -> Result<(usize, usize), ()> {
    let (mut kept, mut seen) = (0usize, 0usize);
    let mut chunks = rest.chunks_exact(8);
    for chunk in &mut chunks {
        let word = <[u8; 8]>::try_from(chunk).map_or(0, u64::from_le_bytes);
        if kept <= MAX_DIALSTRING_DIGITS + 1 - 8 && eight_digits(word) {
            digits[kept..kept + 8].copy_from_slice(&(word & !HIGH_NIBBLES).to_le_bytes());
            kept += 8;
            seen += 8;
        } else {
            one_by_one(chunk, digits, &mut kept, &mut seen)?;
        }
    }
    one_by_one(chunks.remainder(), digits, &mut kept, &mut seen)?;
    Ok((kept.min(MAX_DIALSTRING_DIGITS), seen))
}

impl DialledNumber {
    /// Drops a leading `+` and every space; any other non-digit is an error.
    ///
    /// Runs of eight digits are checked and copied eight at a time (this is on the path of
    /// every lookup); anything else goes byte by byte.
    pub fn parse(text: &str) -> Result<Self, NumberError> {
        let mut digits = [0u8; MAX_DIALSTRING_DIGITS + 1];
        let bytes = text.as_bytes();
        let start = bytes.iter().position(|b| *b != b' ').unwrap_or(bytes.len());
        let rest = match bytes.get(start) {
            Some(b'+') => &bytes[start + 1..],
            _ => &bytes[start..],
        };
        let Ok((kept, seen)) = collect_digits(rest, &mut digits) else {
            let bad = text[start..]
                .chars()
                .skip(usize::from(bytes.get(start) == Some(&b'+')))
                .find(|c| !c.is_ascii_digit() && *c != ' ');
            return Err(NumberError::InvalidCharacter(bad.unwrap_or('?')));
        };
        if seen == 0 {
            return Err(NumberError::Empty);
        }
        // An eight-digit copy may have run past the fifteenth digit: keep equal numbers equal.
        digits[kept..].fill(0);
        Ok(Self {
            digits,
            kept: kept as u8,
        })
    }

    /// The first (up to) 15 digits.
    pub fn digits(&self) -> &[u8] {
        &self.digits[..usize::from(self.kept)]
    }

    /// The first `length` digits as text.
    pub fn prefix_text(&self, length: usize) -> String {
        self.digits[..length.min(usize::from(self.kept))]
            .iter()
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
        assert_eq!(long.digits().len(), 15);
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
            let parsed = DialledNumber::parse(&text).map(|n| n.digits().to_vec());
            proptest::prop_assert_eq!(parsed, reference(&text));
        }
    }

    #[test]
    fn every_ascii_byte_at_every_place_is_judged_like_the_plain_rule() {
        for byte in 0u8..=127 {
            for position in 0..20 {
                let mut text = "1".repeat(20).into_bytes();
                text[position] = byte;
                let text = String::from_utf8(text).expect("ascii");
                let parsed = DialledNumber::parse(&text).map(|n| n.digits().to_vec());
                assert_eq!(parsed, reference(&text), "{text:?}");
            }
        }
    }
}
