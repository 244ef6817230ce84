//! API users: what makes a username, a password and a role list acceptable.

use crate::error::ValidationErrors;
use crate::roles::Role;
use crate::text::check_length;

pub const PASSWORD_MIN_CHARS: usize = 12;
pub const PASSWORD_MAX_CHARS: usize = 128;

/// What [`check_password`] requires besides the length, as a regular expression (unanchored,
/// as JSON Schema reads `pattern`): a character that is not whitespace. Whitespace is Unicode's
/// `White_Space` (what `str::trim` removes), listed so every regex dialect reads it alike.
/// Any other character is accepted.
pub const PASSWORD_PATTERN: &str =
    "[^\\t-\\r \\u0085\\u00A0\\u1680\\u2000-\\u200A\\u2028\\u2029\\u202F\\u205F\\u3000]";

/// True when `c` may appear in a username: a letter or digit of any script or `. - _ @`.
pub fn is_username_char(c: char) -> bool {
    crate::text::is_letter_or_digit(c) || matches!(c, '.' | '-' | '_' | '@')
}

/// 1..100 characters: letters, digits and `. - _ @`.
pub fn check_username(field: &str, value: &str) -> Result<(), ValidationErrors> {
    check_length(field, value, 1, 100)?;
    crate::text::refuse_decomposed(field, value)?;
    if let Some(bad) = value.chars().find(|c| !is_username_char(*c)) {
        return Err(ValidationErrors::single(
            field,
            format!(
                "may contain only letters, digits and . - _ @ (not {})",
                crate::text::describe_char(bad)
            ),
        ));
    }
    Ok(())
}

/// 12..128 characters, not only whitespace.
pub fn check_password(field: &str, value: &str) -> Result<(), ValidationErrors> {
    check_length(field, value, PASSWORD_MIN_CHARS, PASSWORD_MAX_CHARS)?;
    if value.trim().is_empty() {
        return Err(ValidationErrors::single(
            field,
            "must not be only whitespace",
        ));
    }
    Ok(())
}

/// At most 255 characters, one `@` with text on both sides and a dot in the domain, no spaces.
pub fn check_email(field: &str, value: &str) -> Result<(), ValidationErrors> {
    check_length(field, value, 3, 255)?;
    crate::text::refuse_decomposed(field, value)?;
    // RFC 5322's dot-atom on both sides (no quoted local parts): a local part without an empty
    // piece between dots, a domain of two or more labels, none empty, none starting or ending
    // with a hyphen (RFC 1035).
    let shaped = match value.split_once('@') {
        Some((local, domain)) => {
            !local.split('.').any(str::is_empty)
                && domain.contains('.')
                && !domain.contains('@')
                && domain.split('.').all(|label| {
                    !label.is_empty() && !label.starts_with('-') && !label.ends_with('-')
                })
        }
        None => false,
    };
    // What shows nothing (a zero-width space, a right-to-left override, a Hangul filler) would
    // make an address look like another one.
    if let Some(hidden) = value.chars().find(|c| crate::text::shows_nothing(*c)) {
        return Err(ValidationErrors::single(
            field,
            format!(
                "must be an email address: {} is not allowed",
                crate::text::describe_char(hidden)
            ),
        ));
    }
    if !shaped
        || value
            .chars()
            .any(|c| c.is_whitespace() || c.is_control() || c == '<' || c == '>')
    {
        return Err(ValidationErrors::single(field, "must be an email address"));
    }
    Ok(())
}

/// One or more known role codes, without repeats, in a stable order.
pub fn parse_roles(field: &str, codes: &[String]) -> Result<Vec<Role>, ValidationErrors> {
    if codes.is_empty() {
        return Err(ValidationErrors::single(
            field,
            "must name at least one role",
        ));
    }
    if codes.len() > Role::ALL.len() {
        return Err(ValidationErrors::single(
            field,
            format!(
                "names {} roles; there are {} (each at most once)",
                codes.len(),
                Role::ALL.len()
            ),
        ));
    }
    let mut roles = Vec::with_capacity(codes.len());
    for (index, code) in codes.iter().enumerate() {
        let role = Role::from_code(code).ok_or_else(|| {
            let known: Vec<&str> = Role::ALL.iter().map(|r| r.code()).collect();
            ValidationErrors::single(
                format!("{field}[{index}]"),
                format!("unknown role '{code}'; roles: {}", known.join(", ")),
            )
        })?;
        if !roles.contains(&role) {
            roles.push(role);
        }
    }
    roles.sort();
    Ok(roles)
}

/// An ADMINISTRATOR manages users, so it could lift any limit set on itself: contract owners
/// cannot limit it (docs/api.md, "Authentication and users"). `field` names the contract owners in errors.
pub fn check_contract_owner_limit(
    field: &str,
    roles: &[String],
    contract_owner_count: usize,
) -> Result<(), ValidationErrors> {
    if contract_owner_count > 0 && roles.iter().any(|code| code == Role::Administrator.code()) {
        return Err(ValidationErrors::single(
            field,
            "an ADMINISTRATOR cannot be limited to contract owners (it manages users, so it \
             could lift the limit); leave this empty, or give the user other roles",
        ));
    }
    Ok(())
}

/// A username (kind): 1..100 letters, digits and `._@-`.
pub struct Username;

impl crate::kinds::Kind for Username {
    type Value = String;

    fn check(value: &String) -> Result<(), String> {
        check_username("", value).map_err(ValidationErrors::messages)
    }
}

/// A password (kind). What is stored is its argon2 hash, made before the write transaction;
/// the rule on the password itself ([`check_password`]) runs on what a body carries.
pub struct Password;

impl crate::kinds::Kind for Password {
    type Value = String;

    fn check(_: &String) -> Result<(), String> {
        Ok(())
    }
}

/// One or more role codes (kind), held joined by commas in a stable order
/// (`"ADMINISTRATOR,READ_ONLY"`).
pub struct RoleCodes;

impl RoleCodes {
    /// The codes of a held value, in order.
    pub fn split(value: &str) -> Vec<String> {
        value
            .split(',')
            .filter(|code| !code.is_empty())
            .map(str::to_owned)
            .collect()
    }

    /// Every value a user's roles can be held as (each non-empty set of roles, joined as
    /// [`RoleCodes::join`] stores it) that holds a role whose code `wanted` accepts: what a
    /// filter on roles compares the stored value with, exactly (31 values at most, one per
    /// set of the five roles), so a user holding several roles is found by each of them.
    pub fn held_lists(wanted: impl Fn(&str) -> bool) -> Vec<String> {
        let all = crate::roles::Role::ALL;
        (1_u32..1 << all.len())
            .map(|set| {
                all.iter()
                    .enumerate()
                    .filter(|(index, _)| set & (1 << index) != 0)
                    .map(|(_, role)| role.code().to_owned())
                    .collect::<Vec<_>>()
            })
            .filter(|codes| codes.iter().any(|code| wanted(code)))
            .map(|codes| Self::join(&codes))
            .collect()
    }

    /// The held value of `codes` (checked by [`parse_roles`]: known, no repeats, sorted).
    pub fn join(codes: &[String]) -> String {
        match parse_roles("", codes) {
            Ok(roles) => roles
                .iter()
                .map(|role| role.code())
                .collect::<Vec<_>>()
                .join(","),
            Err(_) => codes.join(","),
        }
    }
}

impl crate::kinds::Kind for RoleCodes {
    type Value = String;

    /// A JSON array of role codes (a code is checked by [`parse_roles`]).
    fn from_json(value: &serde_json::Value) -> Result<String, String> {
        let codes: Option<Vec<String>> = value.as_array().and_then(|items| {
            items
                .iter()
                .map(|item| item.as_str().map(str::to_owned))
                .collect()
        });
        codes
            .map(|codes| codes.join(","))
            .ok_or_else(|| "must be an array of role codes".to_owned())
    }

    fn check(value: &String) -> Result<(), String> {
        parse_roles("", &Self::split(value))
            .map(drop)
            .map_err(ValidationErrors::messages)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_role_list_names_at_most_as_many_roles_as_there_are() {
        let every: Vec<String> = Role::CODES.iter().map(|code| (*code).to_owned()).collect();
        assert_eq!(
            parse_roles("roles", &every).map(|r| r.len()),
            Ok(Role::ALL.len())
        );
        let mut one_more = every.clone();
        one_more.push(every[0].clone());
        let errors = parse_roles("roles", &one_more).expect_err("too many");
        insta::assert_snapshot!(errors.messages(), @"names 6 roles; there are 5 (each at most once)");
        let repeated = vec!["READ_ONLY".to_owned(), "READ_ONLY".to_owned()];
        assert_eq!(parse_roles("roles", &repeated).map(|r| r.len()), Ok(1));
    }

    #[test]
    fn an_administrator_is_never_limited_to_contract_owners() {
        let admin = ["ADMINISTRATOR".to_owned(), "READ_ONLY".to_owned()];
        assert!(check_contract_owner_limit("contractOwnerIds", &admin, 0).is_ok());
        assert!(
            check_contract_owner_limit("contractOwnerIds", &["READ_ONLY".to_owned()], 2).is_ok()
        );
        let refused = check_contract_owner_limit("contractOwnerIds", &admin, 1).unwrap_err();
        insta::assert_snapshot!(refused.to_string(), @"contractOwnerIds: an ADMINISTRATOR cannot be limited to contract owners (it manages users, so it could lift the limit); leave this empty, or give the user other roles");
    }

    #[test]
    fn usernames() {
        assert!(check_username("username", "ops.team-1_x@example").is_ok());
        assert!(check_username("username", "").is_err());
        assert!(check_username("username", "has space").is_err());
    }

    #[test]
    fn passwords_have_length_bounds() {
        assert!(check_password("password", &"a".repeat(11)).is_err());
        assert!(check_password("password", &"a".repeat(12)).is_ok());
        assert!(check_password("password", &"a".repeat(129)).is_err());
        assert!(check_password("password", &" ".repeat(12)).is_err());
    }

    #[test]
    fn emails() {
        assert!(check_email("email", "a@b.co").is_ok());
        assert!(check_email("email", "first.last+tag@mail-1.example.co.uk").is_ok());
        for bad in [
            "a",
            "a@b",
            "@b.co",
            "a@.co",
            "a b@c.co",
            "a@b.co.",
            "<a@b.co>",
            "a@b..com",
            ".a@b.com",
            "a.@b.com",
            "a..b@c.com",
            "a@-b.com",
            "a@b-.com",
            "a@b.c-",
        ] {
            assert!(check_email("email", bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn a_role_filter_compares_with_every_list_that_holds_the_role() {
        let holding_read_only = RoleCodes::held_lists(|code| code == "READ_ONLY");
        assert_eq!(
            holding_read_only.len(),
            16,
            "half of the 31 sets of five roles"
        );
        assert!(holding_read_only.contains(&"READ_ONLY".to_owned()));
        let stored = RoleCodes::join(&["READ_ONLY".to_owned(), "CUSTOMER_MANAGER".to_owned()]);
        assert!(holding_read_only.contains(&stored), "{stored}");
        assert!(
            RoleCodes::held_lists(|code| code == "CUSTOMER_MANAGER").contains(&stored),
            "{stored}"
        );
        assert!(!RoleCodes::held_lists(|code| code == "ADMINISTRATOR").contains(&stored));
        assert!(RoleCodes::held_lists(|_| false).is_empty());
        assert_eq!(RoleCodes::held_lists(|_| true).len(), 31);
    }

    #[test]
    fn roles_are_known_and_deduplicated() {
        let codes = vec![
            "READ_ONLY".to_owned(),
            "ADMINISTRATOR".to_owned(),
            "READ_ONLY".to_owned(),
        ];
        assert_eq!(
            parse_roles("roles", &codes),
            Ok(vec![Role::Administrator, Role::ReadOnly])
        );
        insta::assert_snapshot!(parse_roles("roles", &["ROOT".to_owned()]).unwrap_err(), @"roles[0]: unknown role 'ROOT'; roles: ADMINISTRATOR, BILLING_MANAGER, REFERENCE_DATA_MANAGER, CUSTOMER_MANAGER, READ_ONLY");
        assert!(parse_roles("roles", &[]).is_err());
    }
}
