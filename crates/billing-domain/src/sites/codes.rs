//! The code sets and field kinds of sites (docs/api.md "Sites").

use crate::error::ValidationErrors;
use crate::kinds::{CodeSet, Kind};
use crate::text::{
    check_length, describe_char, is_letter_or_digit, is_text_whitespace, refuse_decomposed,
};

/// A contact's role (docs/api.md "Sites").
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ContactRole {
    Accounts,
    Technical,
    Sales,
    General,
}

impl CodeSet for ContactRole {
    const NAME: &'static str = "ContactRole";
    const CODES: &'static [&'static str] = &["ACCOUNTS", "TECHNICAL", "SALES", "GENERAL"];
}

/// How a contact receives invoices or summaries (docs/api.md "Sites").
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ReceiveBy {
    Email,
    Post,
    EmailAndPost,
}

impl ReceiveBy {
    pub const EMAIL: &'static str = "EMAIL";
    pub const POST: &'static str = "POST";
}

impl CodeSet for ReceiveBy {
    const NAME: &'static str = "ReceiveBy";
    const CODES: &'static [&'static str] = &["EMAIL", "POST", "EMAIL_AND_POST"];
}

/// How a site pays (docs/api.md "Sites").
pub struct PaymentMethod;

impl PaymentMethod {
    /// The methods backed by a provider's mandate: a site paying so names one (docs/api.md "Sites").
    pub const WITH_MANDATE: [&'static str; 3] = ["PROVIDER_B", "PROVIDER_C", "PROVIDER_D"];
}

impl CodeSet for PaymentMethod {
    const NAME: &'static str = "PaymentMethod";
    const CODES: &'static [&'static str] = &[
        "CHEQUE",
        "DIRECT_DEBIT",
        "CANCELLED_DD",
        "CANCELLED_CARD",
        "CREDIT_CARD",
        "ONLINE_WALLET",
        "BACS",
        "POSTAL_PAYMENT_CARD",
        "PROVIDER_A",
        "PROVIDER_B",
        "PROVIDER_B_INSTANT_BANK_PAYMENTS",
        "PROVIDER_C",
        "PROVIDER_C_CARD",
        "PROVIDER_C_DD",
        "PROVIDER_D",
        "FAST_PAY",
        "OTHER",
    ];
}

fn message(result: Result<(), ValidationErrors>) -> Result<(), String> {
    result.map_err(ValidationErrors::messages)
}

/// True when `c` may appear in a postcode: a letter or digit of any script, whitespace
/// ([`is_text_whitespace`]) or `@ . - + _`.
pub fn is_postcode_char(c: char) -> bool {
    is_letter_or_digit(c) || is_text_whitespace(c) || "@.-+_".contains(c)
}

/// True when `c` may appear in a telephone number: a letter or digit of any script,
/// whitespace or `( ) @ & . , - _ £ |`.
pub fn is_telephone_char(c: char) -> bool {
    is_letter_or_digit(c) || is_text_whitespace(c) || "()@&.,-_£|".contains(c)
}

/// A postcode (docs/api.md "Sites"): 0..20 characters of letters, digits, whitespace and `@ . - + _`.
pub struct Postcode;

impl Kind for Postcode {
    type Value = String;

    fn check(value: &String) -> Result<(), String> {
        message(check_length("", value, 0, 20))?;
        match value.chars().find(|c| !is_postcode_char(*c)) {
            None => message(refuse_decomposed("", value)),
            Some(bad) => Err(format!(
                "may contain only letters, digits, whitespace and @ . - + _ (not {})",
                describe_char(bad)
            )),
        }
    }
}

/// A telephone number (docs/api.md "Sites"): empty, or 4..100 characters of letters, digits, whitespace and
/// `( ) @ & . , - _ £ |`.
pub struct Telephone;

impl Kind for Telephone {
    type Value = String;

    fn check(value: &String) -> Result<(), String> {
        if value.is_empty() {
            return Ok(());
        }
        message(check_length("", value, 4, 100))?;
        match value.chars().find(|c| !is_telephone_char(*c)) {
            None => message(refuse_decomposed("", value)),
            Some(bad) => Err(format!(
                "may contain only letters, digits, whitespace and ( ) @ & . , - _ £ | (not {})",
                describe_char(bad)
            )),
        }
    }
}

/// An e-mail address: at most 255 characters and well formed (the rule of users' `email`).
pub struct Email;

impl Kind for Email {
    type Value = String;

    fn check(value: &String) -> Result<(), String> {
        message(crate::users::check_email("", value))
    }
}

/// An integer in `MIN..=MAX`.
pub struct Integer<const MIN: i64, const MAX: i64>;

impl<const MIN: i64, const MAX: i64> Kind for Integer<MIN, MAX> {
    type Value = i64;

    fn check(value: &i64) -> Result<(), String> {
        if (MIN..=MAX).contains(value) {
            Ok(())
        } else {
            Err(format!("must be between {MIN} and {MAX}"))
        }
    }
}

/// A bank account number: 1 to 34 ASCII letters and digits (the longest IBAN).
pub struct AccountNumber;

impl Kind for AccountNumber {
    type Value = String;

    fn check(value: &String) -> Result<(), String> {
        message(check_length("", value, 1, 34))?;
        if value.chars().all(|c| c.is_ascii_alphanumeric()) {
            Ok(())
        } else {
            Err("may contain only letters a-z, A-Z and digits".into())
        }
    }
}

/// A bank sort code: 1 to 20 digits, spaces and hyphens (`12-34-56`).
pub struct SortCode;

impl Kind for SortCode {
    type Value = String;

    fn check(value: &String) -> Result<(), String> {
        message(check_length("", value, 1, 20))?;
        if value
            .chars()
            .all(|c| c.is_ascii_digit() || c == ' ' || c == '-')
        {
            Ok(())
        } else {
            Err("may contain only digits, spaces and hyphens".into())
        }
    }
}

/// The most entries a list kind ([`IdList`], [`TemplateComponents`]) holds.
pub const MAX_LIST_ENTRIES: usize = 100;

/// A list of record ids, no id twice, at most [`MAX_LIST_ENTRIES`]; held as the ids joined by
/// commas (`"3,5"`, `""` for none).
pub struct IdList;

impl IdList {
    /// The ids of a held value, in order (an entry that is not an integer is skipped: values
    /// are made by [`IdList::join`]).
    pub fn split(value: &str) -> Vec<i64> {
        value.split(',').filter_map(|id| id.parse().ok()).collect()
    }

    pub fn join(ids: &[i64]) -> String {
        ids.iter().map(i64::to_string).collect::<Vec<_>>().join(",")
    }
}

fn check_entries<T: PartialEq>(entries: &[T], key: impl Fn(&T) -> i64) -> Result<(), String> {
    if entries.len() > MAX_LIST_ENTRIES {
        return Err(format!(
            "must hold at most {MAX_LIST_ENTRIES} entries (got {})",
            entries.len()
        ));
    }
    for (index, entry) in entries.iter().enumerate() {
        let id = key(entry);
        if id < 1 {
            return Err(format!("[{index}] must be an id (an integer >= 1)"));
        }
        if entries[..index].iter().any(|earlier| key(earlier) == id) {
            return Err(format!("[{index}] repeats id {id}"));
        }
    }
    Ok(())
}

impl Kind for IdList {
    type Value = String;

    /// A JSON array of integers.
    fn from_json(value: &serde_json::Value) -> Result<String, String> {
        let ids: Option<Vec<i64>> = value
            .as_array()
            .and_then(|items| items.iter().map(serde_json::Value::as_i64).collect());
        ids.map(|ids| IdList::join(&ids))
            .ok_or_else(|| "must be an array of ids".to_owned())
    }

    fn check(value: &String) -> Result<(), String> {
        check_entries(&Self::split(value), |id| *id)
    }
}

/// One component of an invoice summary template and its position (docs/api.md "Sites").
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TemplateComponent {
    pub id: i64,
    pub position_in_template: i64,
}

/// The components of a site's invoice summary template: ids (no id twice) with positions
/// 1..=1000, at most [`MAX_LIST_ENTRIES`]; held as `id:position` pairs joined by commas.
pub struct TemplateComponents;

impl TemplateComponents {
    pub fn split(value: &str) -> Vec<TemplateComponent> {
        value
            .split(',')
            .filter_map(|pair| {
                let (id, position) = pair.split_once(':')?;
                Some(TemplateComponent {
                    id: id.parse().ok()?,
                    position_in_template: position.parse().ok()?,
                })
            })
            .collect()
    }

    pub fn join(components: &[TemplateComponent]) -> String {
        components
            .iter()
            .map(|c| format!("{}:{}", c.id, c.position_in_template))
            .collect::<Vec<_>>()
            .join(",")
    }
}

impl Kind for TemplateComponents {
    type Value = String;

    /// A JSON array of `{"id", "positionInTemplate"}` objects.
    fn from_json(value: &serde_json::Value) -> Result<String, String> {
        let component = |item: &serde_json::Value| {
            Some(TemplateComponent {
                id: item.get("id")?.as_i64()?,
                position_in_template: item.get("positionInTemplate")?.as_i64()?,
            })
        };
        let components: Option<Vec<TemplateComponent>> = value
            .as_array()
            .and_then(|items| items.iter().map(component).collect());
        components
            .map(|components| TemplateComponents::join(&components))
            .ok_or_else(|| "must be an array of {id, positionInTemplate}".to_owned())
    }

    fn check(value: &String) -> Result<(), String> {
        let components = Self::split(value);
        check_entries(&components, |component| component.id)?;
        match components
            .iter()
            .position(|component| !(1..=1000).contains(&component.position_in_template))
        {
            Some(index) => Err(format!(
                "[{index}].positionInTemplate must be between 1 and 1000"
            )),
            None => Ok(()),
        }
    }
}

#[cfg(test)]
mod list_tests {
    use super::*;

    #[test]
    fn lists_of_ids_hold_distinct_ids() {
        assert_eq!(IdList::split(&IdList::join(&[3, 5])), vec![3, 5]);
        assert_eq!(IdList::split(""), Vec::<i64>::new());
        assert!(IdList::check(&"3,5".into()).is_ok());
        insta::assert_snapshot!(IdList::check(&"3,3".into()).unwrap_err(), @"[1] repeats id 3");
        insta::assert_snapshot!(IdList::check(&"0".into()).unwrap_err(), @"[0] must be an id (an integer >= 1)");
        let many = IdList::join(&(1..=101).collect::<Vec<_>>());
        insta::assert_snapshot!(IdList::check(&many).unwrap_err(), @"must hold at most 100 entries (got 101)");
    }

    #[test]
    fn template_components_have_positions() {
        let components = [
            TemplateComponent {
                id: 4,
                position_in_template: 1,
            },
            TemplateComponent {
                id: 9,
                position_in_template: 2,
            },
        ];
        let joined = TemplateComponents::join(&components);
        assert_eq!(joined, "4:1,9:2");
        assert_eq!(TemplateComponents::split(&joined), components);
        insta::assert_snapshot!(TemplateComponents::check(&"4:0".into()).unwrap_err(), @"[0].positionInTemplate must be between 1 and 1000");
        insta::assert_snapshot!(TemplateComponents::check(&"4:1,4:2".into()).unwrap_err(), @"[1] repeats id 4");
        assert!(AccountNumber::check(&"GB82WEST12345698765432".into()).is_ok());
        assert!(AccountNumber::check(&"12 34".into()).is_err());
        assert!(SortCode::check(&"12-34-56".into()).is_ok());
        assert!(SortCode::check(&"12/34".into()).is_err());
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn postcodes_and_telephones_follow_their_character_sets() {
        assert!(Postcode::check(&"SW1A 1AA".into()).is_ok());
        assert!(Postcode::check(&String::new()).is_ok());
        insta::assert_snapshot!(Postcode::check(&"SW1A#1AA".into()).unwrap_err(), @"may contain only letters, digits, whitespace and @ . - + _ (not '#')");
        insta::assert_snapshot!(Postcode::check(&"x".repeat(21)).unwrap_err(), @"must be 0 to 20 characters long (got 21)");
        assert!(Telephone::check(&String::new()).is_ok());
        assert!(
            Telephone::check(&"+44 (0)20 7946 0958".into()).is_err(),
            "+ is not in the set"
        );
        assert!(Telephone::check(&"020 7946 0958 | ext. 12".into()).is_ok());
        insta::assert_snapshot!(Telephone::check(&"123".into()).unwrap_err(), @"must be 4 to 100 characters long (got 3)");
        assert!(Email::check(&"a@example.com".into()).is_ok());
        assert!(Email::check(&"not an address".into()).is_err());
        assert!(Email::check(&format!("{}@example.com", "a".repeat(250))).is_err());
        insta::assert_snapshot!(Integer::<0, 365>::check(&366).unwrap_err(), @"must be between 0 and 365");
        assert!(Integer::<1, 28>::check(&1).is_ok());
    }
}

/// A repayment plan's amount per period (docs/api.md "Sites"): 1..100000 major currency units, at most 2
/// decimal places, exact (never a float).
pub type RepaymentAmount = crate::kinds::Decimal<2, 1, 100_000>;

#[cfg(test)]
mod amount_tests {
    use super::*;
    use crate::money::parse_decimal;

    #[test]
    fn repayment_amounts_are_exact_and_bounded() {
        let check = |text: &str| RepaymentAmount::check(&parse_decimal(text, 2)?);
        assert!(check("1").is_ok());
        assert!(check("100000.00").is_ok());
        assert!(check("99.99").is_ok());
        insta::assert_snapshot!(check("0.99").unwrap_err(), @"must be between 1 and 100000");
        insta::assert_snapshot!(check("100000.01").unwrap_err(), @"must be between 1 and 100000");
        insta::assert_snapshot!(check("10.005").unwrap_err(), @"must have at most 2 decimal places");
    }
}
