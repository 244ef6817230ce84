//! Dialled numbers as the engine reads them.

/// The longest dialstring is 15 digits; digits past that never change a match.
pub const MAX_DIALSTRING_DIGITS: usize = 15;

/// A dialled number reduced to its digits (values 0..=9), of which the first 15 are kept.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DialledNumber {
    digits: [u8; MAX_DIALSTRING_DIGITS],
    kept: u8,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum NumberError {
    #[error("the dialled number is empty")]
    Empty,
    #[error("the dialled number contains '{0}'; only digits, spaces and a leading + are allowed")]
    InvalidCharacter(char),
}

impl DialledNumber {
    /// Drops a leading `+` and every space; any other non-digit is an error.
    pub fn parse(text: &str) -> Result<Self, NumberError> {
        let mut digits = [0u8; MAX_DIALSTRING_DIGITS];
        let mut kept = 0usize;
        let mut seen = 0usize;
        let bytes = text.as_bytes();
        let start = bytes.iter().position(|b| *b != b' ').unwrap_or(bytes.len());
        let rest = match bytes.get(start) {
            Some(b'+') => &bytes[start + 1..],
            _ => &bytes[start..],
        };
        for &byte in rest {
            let digit = byte.wrapping_sub(b'0');
            if digit <= 9 {
                if let Some(slot) = digits.get_mut(kept) {
                    *slot = digit;
                    kept += 1;
                }
                seen += 1;
            } else if byte != b' ' {
                let bad = text[start..]
                    .chars()
                    .skip(usize::from(bytes.get(start) == Some(&b'+')))
                    .find(|c| !c.is_ascii_digit() && *c != ' ');
                return Err(NumberError::InvalidCharacter(bad.unwrap_or('?')));
            }
        }
        if seen == 0 {
            return Err(NumberError::Empty);
        }
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
}
