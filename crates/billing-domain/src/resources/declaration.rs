//! The plain-data description of a declared resource (`DECLARATION` in each table's module):
//! what code that is not generated reads of a declaration: its members with their kinds and
//! accesses, references, children, scope, headers, rules and filters.

use crate::query::FilterKind;

/// One declared resource.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Declaration {
    /// Its table (`charge_groups`).
    pub table: &'static str,
    /// Its doc comment.
    pub description: &'static str,
    pub members: &'static [Member],
    pub children: &'static [ChildTable],
    /// The contract-owner scope, when the resource has one.
    pub scope: Option<Scope>,
    /// The request headers its replace and patch read.
    pub headers: &'static [Header],
    pub rules: &'static [Rule],
    /// Filters that are not members.
    pub extra_filters: &'static [ExtraFilter],
}

impl Declaration {
    /// The member stored in `column`.
    pub fn member(&self, column: &str) -> Option<&'static Member> {
        self.members.iter().find(|member| member.column == column)
    }
}

/// How a member is written and read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Access {
    /// Always given.
    Required,
    /// May be left out or null.
    Optional,
    /// Left out: the declared default; never null.
    Defaulted,
    /// Read-only, filled in by the server from other records.
    Derived,
    /// Read-only: when the record was created.
    Created,
    /// Read-only: when the record was last changed.
    Updated,
    /// Written, never shown (a password).
    WriteOnly,
    /// Read-only, kept as stored by every write (a last sign-in).
    Kept,
}

impl Access {
    /// Whether a body may give the member.
    pub fn is_writable(self) -> bool {
        matches!(
            self,
            Access::Required | Access::Optional | Access::Defaulted | Access::WriteOnly
        )
    }
}

/// A declared member (a column).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Member {
    /// Its column (`charge_group_id`).
    pub column: &'static str,
    /// Its JSON name in a body (`chargeGroupId`).
    pub json_name: &'static str,
    /// Its name in responses, filters and sort keys: the JSON name, or for a column shown as
    /// another record, that member's (`currency`).
    pub member_name: &'static str,
    pub description: &'static str,
    pub access: Access,
    /// The kind as declared (`Text<1, 255>`).
    pub kind: &'static str,
    /// Its kind's rule on a text value (a feed file's column): read, then checked.
    pub check_text: TextCheck,
    /// How a list filters on it; `None` for a write-only member, which is never a filter.
    pub filter: Option<FilterKind>,
    pub references: Option<Reference>,
    /// The table of the record shown in its place.
    pub shown_as: Option<&'static str>,
    /// Set by a create only; a replace or patch may not change it.
    pub create_only: bool,
    /// A derived member a body may carry back, as a read showed it; ignored (the server fills
    /// it in).
    pub echoed: bool,
    /// The declared default of a `defaulted` member, as written.
    pub default: Option<&'static str>,
}

/// The record a member names.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Reference {
    pub table: &'static str,
    /// What errors call it ("charge group").
    pub noun: &'static str,
}

/// How a parent holds an owned child table.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Multiplicity {
    /// Any number of elements; left out means none.
    List,
    /// At least one element.
    NonEmptyList,
    /// Exactly one object.
    One,
    /// An object or null.
    OptionalOne,
    /// The child's one member's values (`siteIds: [3, 5]`).
    Values,
}

/// An owned child table, a member of its parent.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ChildTable {
    pub json_name: &'static str,
    pub description: &'static str,
    pub multiplicity: Multiplicity,
    pub table: &'static str,
}

/// The contract owner of a record: its `column`, or reached through the records it names.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Scope {
    pub column: &'static str,
    /// `(table, column)` steps: `customer_id in customers.contract_owner_id`.
    pub through: &'static [(&'static str, &'static str)],
}

/// A request header of a replace or patch (true or false).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Header {
    pub name: &'static str,
    pub description: &'static str,
}

/// A rule across members: a function of [`crate::rules`] and the members it reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Rule {
    pub function: &'static str,
    pub members: &'static [&'static str],
}

/// A filter that is not a member.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ExtraFilter {
    pub json_name: &'static str,
    pub description: &'static str,
    pub kind: &'static str,
    pub filter: FilterKind,
}

/// A kind's rule on text ([`crate::resources::documents::check_text`]).
#[derive(Clone, Copy)]
pub struct TextCheck(pub fn(&str) -> Result<(), String>);

impl TextCheck {
    pub fn check(&self, text: &str) -> Result<(), String> {
        (self.0)(text)
    }
}

impl std::fmt::Debug for TextCheck {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("TextCheck")
    }
}

impl PartialEq for TextCheck {
    fn eq(&self, other: &Self) -> bool {
        std::ptr::fn_addr_eq(self.0, other.0)
    }
}

impl Eq for TextCheck {}
