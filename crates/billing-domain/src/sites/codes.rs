//! The code sets and field kinds of sites (interface 2.6–2.8).

use crate::error::ValidationErrors;
use crate::kinds::{CodeSet, Kind};
use crate::text::check_length;

/// A contact's role (2.8).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ContactRole {
    Accounts,
    Technical,
    Sales,
    General,
}

impl CodeSet for ContactRole {
    const CODES: &'static [&'static str] = &["ACCOUNTS", "TECHNICAL", "SALES", "GENERAL"];
}

/// How a contact receives invoices or summaries (2.8).
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
    const CODES: &'static [&'static str] = &["EMAIL", "POST", "EMAIL_AND_POST"];
}

/// How a site pays (2.7.1).
pub struct PaymentMethod;

impl PaymentMethod {
    /// The methods backed by a provider's mandate: a site paying so names one (2.7).
    pub const WITH_MANDATE: [&'static str; 3] = ["PROVIDER_B", "PROVIDER_C", "PROVIDER_D"];
}

impl CodeSet for PaymentMethod {
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
    result.map_err(|errors| {
        errors
            .errors
            .into_iter()
            .map(|error| error.message)
            .collect::<Vec<_>>()
            .join("; ")
    })
}

/// A postcode (2.6): 0..20 characters of letters, digits, whitespace and `@ . - + _`.
pub struct Postcode;

impl Kind for Postcode {
    type Value = String;

    fn check(value: &String) -> Result<(), String> {
        message(check_length("", value, 0, 20))?;
        if value
            .chars()
            .all(|c| c.is_alphanumeric() || c.is_whitespace() || "@.-+_".contains(c))
        {
            Ok(())
        } else {
            Err("may contain only letters, digits, whitespace and @ . - + _".into())
        }
    }
}

/// A telephone number (2.8): empty, or 4..100 characters of letters, digits, whitespace and
/// `( ) @ & . , - _ £ |`.
pub struct Telephone;

impl Kind for Telephone {
    type Value = String;

    fn check(value: &String) -> Result<(), String> {
        if value.is_empty() {
            return Ok(());
        }
        message(check_length("", value, 4, 100))?;
        if value
            .chars()
            .all(|c| c.is_alphanumeric() || c.is_whitespace() || "()@&.,-_£|".contains(c))
        {
            Ok(())
        } else {
            Err("may contain only letters, digits, whitespace and ( ) @ & . , - _ £ |".into())
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn postcodes_and_telephones_follow_their_character_sets() {
        assert!(Postcode::check(&"SW1A 1AA".into()).is_ok());
        assert!(Postcode::check(&String::new()).is_ok());
        insta::assert_snapshot!(Postcode::check(&"SW1A#1AA".into()).unwrap_err(), @"may contain only letters, digits, whitespace and @ . - + _");
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

/// A repayment plan's amount per period (2.5): 1..100000 major currency units, at most 2
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
