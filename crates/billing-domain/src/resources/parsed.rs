//! Documents that cannot be wrong, made by parsing: for a declaration, `parsed!` makes a module
//! named after its table with a `Draft` (each member as given, `None` when absent; owned parts
//! as drafts) and a `Parsed` that only `Parsed::parse` makes, once every member's kind, every
//! declared rule and every owned part (at every depth) hold. Every broken rule is collected
//! with the JSON path of its member (`siteContacts[1].contactTelephoneNumber`).
//!
//! The rules that need stored facts or span parts (the invoice contact, routing, the mandate)
//! are functions of [`crate::sites`]; `Parsed` is what they start from. Batch jobs use this
//! with no database and no JSON: they fill drafts however they read their input.

/// See the module documentation.
#[macro_export]
macro_rules! parsed {
    (
        ($($with:tt)*)
        $(#[doc = $resource_doc:literal])*
        $table:ident {
            $(
                $(#[doc = $doc:literal])*
                $field:ident : $access:ident $kind:ident $(<$($param:tt),*>)?
                $(references($rtable:ident, $rnoun:literal))?
                $([$modifier:ident])?
                $(= $default:expr)?
            ),* $(,)?
        }
        $(children {
            $( $(#[doc = $cdoc:literal])* $cfield:ident : $cmult:ident $ctable:ident ),* $(,)?
        })?
        $(scope { $($scope:tt)* })?
        $(headers { $($headers:tt)* })?
        rules { $($rule:ident($($rule_arg:ident),*)),* $(,)? }
        extra_filters { $($extra:tt)* }
    ) => {
        #[allow(unused_imports, clippy::all)]
        pub mod $table {
            use $crate::kinds::*;
            use $crate::ValidationErrors;

            /// The members as given: `None` when absent.
            #[derive(Debug, Clone, Default, PartialEq)]
            pub struct Draft {
                $(pub $field: Option<<$kind $(<$($param),*>)? as Kind>::Value>,)*
                $($(pub $cfield: $crate::parsed_draft_type!($cmult, super::$ctable),)*)?
            }

            /// The members once every rule holds: required members are there, optional ones
            /// may be `None` (a defaulted one then takes its declared default when stored).
            #[derive(Debug, Clone, PartialEq)]
            pub struct Parsed {
                $(pub $field: $crate::parsed_member_type!($access, <$kind $(<$($param),*>)? as Kind>::Value),)*
                $($(pub $cfield: $crate::parsed_part_type!($cmult, super::$ctable),)*)?
            }

            impl Parsed {
                /// Checks `draft` whole, naming members under `path` (`""` for a document).
                pub fn parse(draft: Draft, path: &str) -> Result<Self, ValidationErrors> {
                    let mut errors = ValidationErrors::default();
                    $(
                        let $field = $crate::parsed_member!(
                            $access, $kind $(<$($param),*>)?,
                            draft.$field, $crate::resources::parsed::join(path, $crate::json_name!($field)), errors
                        );
                    )*
                    $(
                        let mut rule = || -> Option<()> {
                            if let Err(broken) = $crate::rules::$rule($(&$rule_arg.clone()?),*) {
                                for error in broken.errors {
                                    errors.push($crate::resources::parsed::join(path, &error.field), error.message);
                                }
                            }
                            Some(())
                        };
                        rule();
                    )*
                    $($(
                        let $cfield = $crate::parsed_part!(
                            $cmult, super::$ctable, draft.$cfield,
                            $crate::resources::parsed::join(path, $crate::json_name!($cfield)), errors
                        );
                    )*)?
                    match ($($field,)* $($($cfield,)*)?) {
                        ($(Some($field),)* $($(Some($cfield),)*)?) if errors.is_empty() => Ok(Parsed {
                            $($field,)* $($($cfield,)*)?
                        }),
                        _ => Err(errors),
                    }
                }
            }
        }
    };
}

/// `path.member`, or `member` alone at the top.
pub fn join(path: &str, member: &str) -> String {
    if path.is_empty() {
        member.to_owned()
    } else {
        format!("{path}.{member}")
    }
}

/// A member's type in `Parsed`.
#[macro_export]
#[doc(hidden)]
macro_rules! parsed_member_type {
    (required, $value:ty) => { $value };
    ($access:ident, $value:ty) => { Option<$value> };
}

/// A member checked by its kind: `Some` of its `Parsed` value, `None` when broken or missing.
#[macro_export]
#[doc(hidden)]
macro_rules! parsed_member {
    (required, $kind:ty, $value:expr, $path:expr, $errors:ident) => {
        match $value {
            None => {
                $errors.push($path, "is required");
                None
            }
            Some(value) => match <$kind as $crate::kinds::Kind>::check(&value) {
                Ok(()) => Some(value),
                Err(message) => {
                    $errors.push($path, message);
                    None
                }
            },
        }
    };
    ($access:ident, $kind:ty, $value:expr, $path:expr, $errors:ident) => {
        match $value {
            None => Some(None),
            Some(value) => match <$kind as $crate::kinds::Kind>::check(&value) {
                Ok(()) => Some(Some(value)),
                Err(message) => {
                    $errors.push($path, message);
                    None
                }
            },
        }
    };
}

/// An owned part's type in `Draft`.
#[macro_export]
#[doc(hidden)]
macro_rules! parsed_draft_type {
    (one, $($part:ident)::+) => { Option<$($part)::+::Draft> };
    (optional_one, $($part:ident)::+) => { Option<$($part)::+::Draft> };
    ($list:ident, $($part:ident)::+) => { Vec<$($part)::+::Draft> };
}

/// An owned part's type in `Parsed`.
#[macro_export]
#[doc(hidden)]
macro_rules! parsed_part_type {
    (one, $($part:ident)::+) => { $($part)::+::Parsed };
    (optional_one, $($part:ident)::+) => { Option<$($part)::+::Parsed> };
    ($list:ident, $($part:ident)::+) => { Vec<$($part)::+::Parsed> };
}

/// An owned part parsed: `Some` of its `Parsed` value, `None` when broken or missing.
#[macro_export]
#[doc(hidden)]
macro_rules! parsed_part {
    (one, $($part:ident)::+, $value:expr, $path:expr, $errors:ident) => {
        match $value {
            None => {
                $errors.push($path, "is required");
                None
            }
            Some(draft) => match $($part)::+::Parsed::parse(draft, &$path) {
                Ok(parsed) => Some(parsed),
                Err(broken) => {
                    $errors.errors.extend(broken.errors);
                    None
                }
            },
        }
    };
    (optional_one, $($part:ident)::+, $value:expr, $path:expr, $errors:ident) => {
        match $value {
            None => Some(None),
            Some(draft) => match $($part)::+::Parsed::parse(draft, &$path) {
                Ok(parsed) => Some(Some(parsed)),
                Err(broken) => {
                    $errors.errors.extend(broken.errors);
                    None
                }
            },
        }
    };
    (non_empty_list, $($part:ident)::+, $value:expr, $path:expr, $errors:ident) => {{
        let drafts = $value;
        if drafts.is_empty() {
            $errors.push($path.clone(), "must hold at least one element");
        }
        $crate::parsed_part!(list, $($part)::+, drafts, $path, $errors)
    }};
    ($list:ident, $($part:ident)::+, $value:expr, $path:expr, $errors:ident) => {{
        let mut parsed = Vec::new();
        let mut broken = false;
        for (index, draft) in $value.into_iter().enumerate() {
            match $($part)::+::Parsed::parse(draft, &format!("{}[{index}]", $path)) {
                Ok(element) => parsed.push(element),
                Err(errors) => {
                    broken = true;
                    $errors.errors.extend(errors.errors);
                }
            }
        }
        (!broken).then_some(parsed)
    }};
}

// The site documents (docs/api.md "Sites").
crate::sites!(crate::parsed);
crate::site_addresses!(crate::parsed);
crate::site_invoice_addresses!(crate::parsed);
crate::site_contacts!(crate::parsed);
crate::site_invoice_details!(crate::parsed);
crate::site_assigned_custom_fields!(crate::parsed);

#[cfg(test)]
mod tests {
    use crate::dates::parse_date;
    use crate::sites::{
        ContactDraft, Site, SiteAddress, SiteAddressDraft, SiteDraft, SiteInvoiceDetails,
        SiteInvoiceDetailsDraft,
    };

    fn day(value: &str) -> Option<chrono::NaiveDate> {
        parse_date(value)
    }

    fn address() -> SiteAddressDraft {
        SiteAddressDraft {
            address1: Some("1 High Street".into()),
            town: Some("Leeds".into()),
            postcode: Some("LS1 1AA".into()),
            country: Some("GB".into()),
            ..SiteAddressDraft::default()
        }
    }

    fn contact(name: &str) -> ContactDraft {
        ContactDraft {
            contact_name: Some(name.into()),
            contact_role: Some("ACCOUNTS".into()),
            ..ContactDraft::default()
        }
    }

    fn site() -> SiteDraft {
        SiteDraft {
            customer_id: Some(1),
            site_name: Some("Head office".into()),
            site_reference: Some("HO".into()),
            start_date: day("2026-01-01"),
            site_address: Some(address()),
            site_invoice_details: Some(SiteInvoiceDetailsDraft {
                invoice_template_id: Some(1),
                payment_method: Some("CHEQUE".into()),
                payment_terms_in_days: Some(30),
                ..SiteInvoiceDetailsDraft::default()
            }),
            site_contacts: vec![contact("Ann")],
            ..SiteDraft::default()
        }
    }

    #[test]
    fn a_whole_site_parses_into_its_parts() {
        let parsed: Site = Site::parse(site(), "").expect("a valid site");
        let address: &SiteAddress = &parsed.site_address;
        assert_eq!(address.town, "Leeds");
        let details: &SiteInvoiceDetails = parsed.site_invoice_details.as_ref().expect("details");
        assert_eq!(details.payment_terms_in_days, Some(30));
        assert_eq!(parsed.site_contacts.len(), 1);
    }

    #[test]
    fn every_broken_rule_is_named_by_its_path_at_every_depth() {
        let mut draft = site();
        draft.site_name = Some(String::new());
        draft.end_date = day("2025-12-31");
        draft.repayment_plan_amount = Some(150);
        draft.site_address = Some(SiteAddressDraft {
            town: None,
            postcode: Some("LS1#1AA".into()),
            ..address()
        });
        if let Some(details) = &mut draft.site_invoice_details {
            details.payment_terms_in_days = None;
            details.payment_method = Some("BARTER".into());
        }
        draft.site_contacts = vec![
            contact("Ann"),
            ContactDraft {
                contact_telephone_number: Some("123".into()),
                contact_role: Some("BOSS".into()),
                ..contact("Ben")
            },
        ];
        insta::assert_snapshot!(Site::parse(draft, "").unwrap_err(), @"siteName: must be 1 to 100 characters long (got 0); endDate: must not be before startDate; repaymentPlanRemainingPeriods: is required when repaymentPlanAmount is given; siteAddress.town: is required; siteAddress.postcode: may contain only letters, digits, whitespace and @ . - + _; siteInvoiceDetails.paymentMethod: must be one of CHEQUE, DIRECT_DEBIT, CANCELLED_DD, CANCELLED_CARD, CREDIT_CARD, ONLINE_WALLET, BACS, POSTAL_PAYMENT_CARD, PROVIDER_A, PROVIDER_B, PROVIDER_B_INSTANT_BANK_PAYMENTS, PROVIDER_C, PROVIDER_C_CARD, PROVIDER_C_DD, PROVIDER_D, FAST_PAY, OTHER; siteInvoiceDetails.paymentTermsInDays: paymentTermsInDays or preferredPaymentDay is required; siteContacts[1].contactTelephoneNumber: must be 4 to 100 characters long (got 3); siteContacts[1].contactRole: must be one of ACCOUNTS, TECHNICAL, SALES, GENERAL");
        let mut empty = site();
        empty.site_contacts.clear();
        empty.site_address = None;
        insta::assert_snapshot!(Site::parse(empty, "").unwrap_err(), @"siteAddress: is required; siteContacts: must hold at least one element");
    }
}
