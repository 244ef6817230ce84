//! The invoice contact of a site (docs/api.md "Sites"): at most one contact has
//! `contactNameToAppearOnInvoice`; when no contact says either way the first becomes it,
//! receiving invoices by EMAIL when it has an address, else by POST; a contact marked explicitly
//! must say how it receives them; marking another contact moves the flag off the previous one;
//! contacts all marked false explicitly leave the site without one.

use crate::error::ValidationErrors;
use crate::sites::codes::ReceiveBy;

/// The members of one contact that the rule reads and settles. `None` is a member the body
/// left out.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct ContactInvoiceFlags {
    /// The contact's id when it is a stored contact sent back (a patch), else `None`.
    pub stored_id: Option<i64>,
    pub email_address: Option<String>,
    pub name_on_invoice: Option<bool>,
    pub receive_invoice_by: Option<String>,
}

/// Settles the invoice contact of `contacts` (the elements of the list at `list_path`) in
/// place: afterwards every `name_on_invoice` is `Some`, at most one is `Some(true)` (exactly
/// one when the list is not empty and no contact gave the flag) and that contact has a
/// `receive_invoice_by`. `previous_invoice_contact`
/// is the stored invoice contact's id (on a replace or patch): when it and one other contact
/// are both marked, the flag moves to the other one.
pub fn settle_invoice_contact(
    list_path: &str,
    contacts: &mut [ContactInvoiceFlags],
    previous_invoice_contact: Option<i64>,
) -> Result<(), ValidationErrors> {
    let mut errors = ValidationErrors::default();
    let mut marked: Vec<usize> = contacts
        .iter()
        .enumerate()
        .filter(|(_, contact)| contact.name_on_invoice == Some(true))
        .map(|(index, _)| index)
        .collect();
    if marked.len() == 2
        && let Some(previous) = previous_invoice_contact
        && let Some(position) = marked
            .iter()
            .position(|&index| contacts[index].stored_id == Some(previous))
    {
        let index = marked.remove(position);
        contacts[index].name_on_invoice = Some(false);
    }
    for &index in marked.iter().skip(1) {
        errors.push(
            format!("{list_path}[{index}].contactNameToAppearOnInvoice"),
            "only one contact of a site may have its name on invoices",
        );
    }
    match marked.first() {
        Some(&index) if contacts[index].receive_invoice_by.is_none() => errors.push(
            format!("{list_path}[{index}].receiveInvoiceBy"),
            "is required when contactNameToAppearOnInvoice is true",
        ),
        Some(_) => {}
        // Every flag given, none true: the caller said no contact's name goes on invoices.
        None if contacts
            .iter()
            .any(|contact| contact.name_on_invoice.is_some()) => {}
        None => {
            if let Some(first) = contacts.first_mut() {
                first.name_on_invoice = Some(true);
                if first.receive_invoice_by.is_none() {
                    let has_address = first
                        .email_address
                        .as_deref()
                        .is_some_and(|address| !address.is_empty());
                    let by = if has_address {
                        ReceiveBy::EMAIL
                    } else {
                        ReceiveBy::POST
                    };
                    first.receive_invoice_by = Some(by.to_owned());
                }
            }
        }
    }
    for contact in contacts.iter_mut() {
        contact.name_on_invoice.get_or_insert(false);
    }
    errors.into_result(|| ())
}

/// A site's contacts once the invoice-contact rule holds: at most one is marked and it says
/// how it receives invoices; every flag is decided. Made only by
/// [`SiteContacts::settle`], so holding one is proof the rule holds.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SiteContacts(Vec<ContactInvoiceFlags>);

impl SiteContacts {
    /// Settles `contacts` (see [`settle_invoice_contact`]), naming broken members under
    /// `list_path`.
    pub fn settle(
        list_path: &str,
        mut contacts: Vec<ContactInvoiceFlags>,
        previous_invoice_contact: Option<i64>,
    ) -> Result<Self, ValidationErrors> {
        settle_invoice_contact(list_path, &mut contacts, previous_invoice_contact)?;
        Ok(Self(contacts))
    }

    /// The place of the invoice contact in the list (`None` when no contact is marked).
    pub fn invoice_contact(&self) -> Option<usize> {
        self.0
            .iter()
            .position(|contact| contact.name_on_invoice == Some(true))
    }

    pub fn contacts(&self) -> &[ContactInvoiceFlags] {
        &self.0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn contact(
        stored_id: Option<i64>,
        email: Option<&str>,
        marked: Option<bool>,
        by: Option<&str>,
    ) -> ContactInvoiceFlags {
        ContactInvoiceFlags {
            stored_id,
            email_address: email.map(str::to_owned),
            name_on_invoice: marked,
            receive_invoice_by: by.map(str::to_owned),
        }
    }

    fn settled(contacts: &[ContactInvoiceFlags]) -> String {
        contacts
            .iter()
            .map(|c| format!("{:?} {:?}", c.name_on_invoice, c.receive_invoice_by))
            .collect::<Vec<_>>()
            .join(" | ")
    }

    #[test]
    fn the_first_contact_becomes_the_invoice_contact_when_no_contact_says() {
        let mut contacts = [
            contact(None, Some("a@example.com"), None, None),
            contact(None, None, None, None),
        ];
        settle_invoice_contact("siteContacts", &mut contacts, None).expect("settled");
        insta::assert_snapshot!(settled(&contacts), @r#"Some(true) Some("EMAIL") | Some(false) None"#);
        let mut without_address = [contact(None, None, None, None)];
        settle_invoice_contact("siteContacts", &mut without_address, None).expect("settled");
        insta::assert_snapshot!(settled(&without_address), @r#"Some(true) Some("POST")"#);
        let mut chosen = [contact(
            None,
            Some("a@example.com"),
            None,
            Some("EMAIL_AND_POST"),
        )];
        settle_invoice_contact("siteContacts", &mut chosen, None).expect("settled");
        insta::assert_snapshot!(settled(&chosen), @r#"Some(true) Some("EMAIL_AND_POST")"#);
    }

    #[test]
    fn contacts_marked_false_explicitly_leave_the_site_without_an_invoice_contact() {
        let mut all_false = [
            contact(None, Some("a@example.com"), Some(false), None),
            contact(None, None, Some(false), None),
        ];
        settle_invoice_contact("siteContacts", &mut all_false, None).expect("settled");
        insta::assert_snapshot!(settled(&all_false), @"Some(false) None | Some(false) None");
        // One flag given (false) is enough: the others are not marked either.
        let mut one_given = [
            contact(None, None, None, None),
            contact(None, None, Some(false), None),
        ];
        let settled_contacts =
            SiteContacts::settle("siteContacts", one_given.to_vec(), None).expect("settled");
        assert_eq!(settled_contacts.invoice_contact(), None);
        settle_invoice_contact("siteContacts", &mut one_given, None).expect("settled");
        insta::assert_snapshot!(settled(&one_given), @"Some(false) None | Some(false) None");
    }

    #[test]
    fn settled_contacts_name_their_invoice_contact() {
        let settled = SiteContacts::settle(
            "siteContacts",
            vec![
                contact(None, None, None, None),
                contact(None, None, None, None),
            ],
            None,
        )
        .expect("settled");
        assert_eq!(settled.invoice_contact(), Some(0));
        assert!(
            settled
                .contacts()
                .iter()
                .all(|c| c.name_on_invoice.is_some())
        );
        let broken = vec![contact(None, None, Some(true), None)];
        assert!(SiteContacts::settle("siteContacts", broken, None).is_err());
    }

    #[test]
    fn an_explicit_invoice_contact_must_say_how_it_receives_invoices() {
        let mut contacts = [
            contact(None, None, None, None),
            contact(None, Some("b@example.com"), Some(true), None),
        ];
        let errors = settle_invoice_contact("siteContacts", &mut contacts, None).unwrap_err();
        insta::assert_snapshot!(errors, @"siteContacts[1].receiveInvoiceBy: is required when contactNameToAppearOnInvoice is true");
    }

    #[test]
    fn two_marked_contacts_are_refused_unless_one_is_the_previous_invoice_contact() {
        let both = || {
            [
                contact(Some(7), None, Some(true), Some("POST")),
                contact(Some(8), None, Some(true), Some("EMAIL")),
            ]
        };
        let mut created = both();
        let errors = settle_invoice_contact("siteContacts", &mut created, None).unwrap_err();
        insta::assert_snapshot!(errors, @"siteContacts[1].contactNameToAppearOnInvoice: only one contact of a site may have its name on invoices");
        // On a patch that marks contact 8, the flag moves off contact 7.
        let mut moved = both();
        settle_invoice_contact("siteContacts", &mut moved, Some(7)).expect("moved");
        insta::assert_snapshot!(settled(&moved), @r#"Some(false) Some("POST") | Some(true) Some("EMAIL")"#);
        // Three marked: still refused, whatever the previous one was.
        let mut three = [
            contact(Some(7), None, Some(true), Some("POST")),
            contact(Some(8), None, Some(true), Some("POST")),
            contact(None, None, Some(true), Some("POST")),
        ];
        assert_eq!(
            settle_invoice_contact("siteContacts", &mut three, Some(7))
                .unwrap_err()
                .errors
                .len(),
            2
        );
    }
}
