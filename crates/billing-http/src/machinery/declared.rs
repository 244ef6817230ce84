//! A resource served from its declaration (`billing_domain::resources`): `api_resource!` (a
//! proc macro of `billing_declare`, the one parser of the grammar) derives the record a
//! response shows, the input a body must be, the field list, filters and sort keys, and the
//! whole [`Resource`] implementation, merged with the resource's
//! own `impl Resource` block, which writes only what a declaration cannot say (the checks
//! that need other stored data: `Resource::check_write` and its kin).
//!
//! ```ignore
//! #[crate::declared_resource(billing_domain::charge_groups, path: "charge-groups",
//!     noun: "charge group", read: ReadReferenceData, write: WriteReferenceData,
//!     storage: billing_persistence::charge_groups)]
//! impl Resource for ChargeGroups {}
//! ```
//!
//! [`Declared`] is that generated half: no resource implements it by hand.

use billing_domain::query::{FilterKind, ListQuery};
use billing_domain::resources::declaration::{Access, Declaration};
use billing_domain::roles::ContractOwnerScope;
use billing_persistence::DbConnection;
use billing_persistence::error::PersistenceResult;

use super::resource::{ApiResult, Field, FieldType, FilterParam, Resource, WriteRequest};

/// What the code `api_resource!` writes from a declaration gives the generic operations of
/// [`super::operations`]: its shapes, its storage and the steps only the declaration knows
/// (the values a body gives, the contract owner of a record). The order of the work is
/// theirs, written once.
pub trait Declared: Resource {
    /// The values a create or replace writes.
    type Changes;
    /// The declared request headers of a write, parsed, and a patch's changed paths.
    type Options: Default;
    /// A stored row.
    type Row;
    /// The owned elements a write gives, at every depth.
    type Children;
    /// Rating reads the records (`rated: true`): each write records its change.
    const RATED: bool;
    /// The declaration, as data (`billing_domain::resources::<table>::DECLARATION`): what
    /// the filters, sort keys, headers, description and scope are read from.
    const DECLARATION: &'static Declaration;

    /// The JSON name of the scope member, when the records belong to contract owners.
    fn scope_member() -> Option<&'static str> {
        let scope = Self::DECLARATION.scope?;
        Self::DECLARATION
            .member(scope.column)
            .map(|member| member.json_name)
    }

    /// A page of rows and how many match, the caller's scope applied in SQL.
    fn list_rows(
        connection: &mut DbConnection,
        query: &ListQuery,
        scope: &ContractOwnerScope,
    ) -> PersistenceResult<(Vec<Self::Row>, i64)>;

    fn find_row(connection: &mut DbConnection, id: i64) -> PersistenceResult<Option<Self::Row>>;

    fn row_id(row: &Self::Row) -> i64;

    /// Records of rows, with their owned children and the records they show: one query per
    /// table, whatever the page's size.
    fn complete_page(
        connection: &mut DbConnection,
        rows: Vec<Self::Row>,
    ) -> ApiResult<Vec<Self::Record>>;

    /// The contract owner of a stored row (`None` without a scope).
    fn owner_of_row(connection: &mut DbConnection, row: &Self::Row) -> ApiResult<Option<i64>>;

    /// The contract owner the values to write belong to (`None` without a scope).
    fn owner_of_changes(
        connection: &mut DbConnection,
        changes: &Self::Changes,
    ) -> ApiResult<Option<i64>>;

    /// The values to store, once the rules across members and the references hold (in the
    /// record and every owned element); `current` is the record a replace starts from.
    fn changes(
        connection: &mut DbConnection,
        input: &Self::Input,
        current: Option<&Self::Record>,
    ) -> ApiResult<(Self::Changes, Self::Children)>;

    fn insert(
        connection: &mut DbConnection,
        changes: &Self::Changes,
    ) -> PersistenceResult<Self::Row>;

    /// `None` when the row is gone or no longer at `version`.
    fn update(
        connection: &mut DbConnection,
        id: i64,
        version: i64,
        changes: &Self::Changes,
    ) -> PersistenceResult<Option<Self::Row>>;

    /// Makes the stored children of record `id` exactly these, at every depth.
    fn write_children(
        connection: &mut DbConnection,
        children: &Self::Children,
        id: i64,
    ) -> ApiResult<()>;

    /// Deletes the row and its owned children; false when the row is gone or no longer at
    /// `version`. A row other records refer to is 409 naming them (the foreign keys say so).
    fn delete_row(connection: &mut DbConnection, id: i64, version: i64) -> PersistenceResult<bool>;

    /// The declared headers of a write request, parsed.
    fn options(request: &WriteRequest) -> Self::Options;
}

/// The filters of a declared resource's lists: `id`, every member but a write-only one (by its
/// kind, `billing_domain::kinds::Filterable`), then the declaration's extra filters.
pub fn filters_of(declaration: &'static Declaration) -> Vec<FilterParam> {
    let id = FilterParam::new("id", FilterKind::Id, "Filter on the id.");
    let members = declaration.members.iter().filter_map(|member| {
        let kind = member.filter?;
        Some(FilterParam::new(
            member.member_name,
            kind,
            member.description,
        ))
    });
    let extra = declaration
        .extra_filters
        .iter()
        .map(|filter| FilterParam::new(filter.json_name, filter.filter, filter.description));
    std::iter::once(id).chain(members).chain(extra).collect()
}

/// The sort keys of a declared resource's lists: `id`, every member but a write-only one, and
/// the members of its owned single objects (`siteAddress.town`; not their ids, nor their own
/// owned parts).
pub fn sort_keys_of(
    declaration: &'static Declaration,
    fields: &'static [Field],
) -> Vec<&'static str> {
    let mut keys = vec!["id"];
    keys.extend(
        declaration
            .members
            .iter()
            .filter(|member| member.access != Access::WriteOnly)
            .map(|member| member.member_name),
    );
    for field in fields.iter().filter(|field| field.owned) {
        if let FieldType::Object(members) = field.field_type {
            for member in members.iter().filter(|member| {
                !member.owned
                    && member.name != "id"
                    && !matches!(
                        member.field_type,
                        FieldType::Array(_) | FieldType::ObjectList(_)
                    )
            }) {
                // Made once per resource (the caller keeps them), so they live for the process.
                keys.push(Box::leak(
                    format!("{}.{}", field.name, member.name).into_boxed_str(),
                ));
            }
        }
    }
    keys
}
