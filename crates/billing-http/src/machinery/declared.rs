//! A resource served from its declaration (`billing_domain::resources`): `api_resource!` (a
//! proc macro of `billing_declare`, the one parser of the grammar) derives the record a
//! response shows, the input a body must be, the field list, filters and sort keys, and the
//! whole [`Resource`](super::resource::Resource) implementation. What a
//! declaration cannot say (checks that need other stored data) goes in [`Hooks`].
//!
//! ```ignore
//! billing_domain::charge_groups!(crate::api_resource, ChargeGroups {
//!     path: "charge-groups", noun: "charge group",
//!     read: ReadReferenceData, write: WriteReferenceData,
//!     storage: billing_persistence::charge_groups,
//! });
//! impl Hooks for ChargeGroups { /* only what differs */ }
//! ```

use billing_auth::AuthenticatedUser;
use billing_domain::query::ListQuery;
use billing_domain::roles::ContractOwnerScope;
use billing_persistence::DbConnection;
use billing_persistence::error::PersistenceResult;

use super::resource::{ApiResult, Resource, WriteRequest};

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
    /// The JSON name of the scope member, when the records belong to contract owners.
    const SCOPE: Option<&'static str>;

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

/// The checks and follow-on writes of a declared resource that need other stored data. Field
/// rules, cross-field rules, references (and deletes they refuse), and what follows a commit
/// or precedes the transaction (`rated`, `changes_callers`, a `Password` member's hash) are
/// the declaration's; no method of [`Resource`] is repeated here, and every method defaults to
/// "allowed".
pub trait Hooks: Declared {
    /// May the stored record `current` be replaced, patched or deleted at all?
    fn check_change(
        connection: &mut DbConnection,
        caller: &AuthenticatedUser,
        current: &Self::Record,
    ) -> ApiResult<()> {
        let _ = (connection, caller, current);
        Ok(())
    }

    /// May these values be written (by a create, `current` being `None`, or a replace of
    /// `current`, which passed `check_change`)?
    fn check_write(
        connection: &mut DbConnection,
        caller: &AuthenticatedUser,
        current: Option<&Self::Record>,
        changes: &Self::Changes,
    ) -> ApiResult<()> {
        let _ = (connection, caller, current, changes);
        Ok(())
    }

    /// Fills in derived members a body left out (a create's, `current` being `None`, or a
    /// replace's or patch's result), before the values are checked and stored: what the
    /// server derives from other members or elements (the invoice contact of a site).
    /// Constant defaults are the declaration's (`defaulted Bool = false`) and apply after this.
    fn complete(
        connection: &mut DbConnection,
        caller: &AuthenticatedUser,
        current: Option<&Self::Record>,
        input: &mut Self::Input,
    ) -> ApiResult<()> {
        let _ = (connection, caller, current, input);
        Ok(())
    }

    /// Runs in the write's transaction once `record` is stored (`before` is the record a
    /// replace or patch changed): follow-on writes such as a cascade a declared header asks
    /// for. An error rolls the whole write back. On a create, `options` carries no headers, no
    /// patched paths and no request id (creates read no declared header).
    fn written(
        connection: &mut DbConnection,
        caller: &AuthenticatedUser,
        before: Option<&Self::Record>,
        record: &Self::Record,
        options: &Self::Options,
    ) -> ApiResult<()> {
        let _ = (connection, caller, before, record, options);
        Ok(())
    }

    /// Runs in the delete's transaction once `record` is gone: follow-on writes (the rating
    /// change log). An error rolls the delete back.
    fn deleted(
        connection: &mut DbConnection,
        caller: &AuthenticatedUser,
        record: &Self::Record,
    ) -> ApiResult<()> {
        let _ = (connection, caller, record);
        Ok(())
    }

    /// May `current` be deleted? Runs after `check_change`. Whether other records still refer
    /// to it is not asked here: the database's foreign keys answer that for every resource
    /// (409 naming them, `billing_persistence::references`).
    fn check_delete(
        connection: &mut DbConnection,
        caller: &AuthenticatedUser,
        current: &Self::Record,
    ) -> ApiResult<()> {
        let _ = (connection, caller, current);
        Ok(())
    }
}
