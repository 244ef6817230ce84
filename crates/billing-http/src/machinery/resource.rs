//! A resource declared once: its fields, filters, sort keys, permissions, operations and the
//! storage calls behind them. [`super::handlers`] turns a declaration into routes and
//! `crate::openapi` into documentation.

use billing_auth::AuthenticatedUser;
use billing_domain::query::{FilterKind, ListQuery};
use billing_domain::roles::Permission;
use billing_persistence::DbConnection;
use serde::Serialize;
use serde::de::DeserializeOwned;

use super::declared::Declared;
use crate::error::ApiError;
use crate::state::AppState;

pub type ApiResult<T> = Result<T, ApiError>;

pub use super::fields::{Access, Field, FieldType, Shows};

/// A list filter parameter.
#[derive(Debug, Clone, Copy)]
pub struct FilterParam {
    pub name: &'static str,
    pub kind: FilterKind,
    pub description: &'static str,
}

impl FilterParam {
    pub const fn new(name: &'static str, kind: FilterKind, description: &'static str) -> Self {
        Self {
            name,
            kind,
            description,
        }
    }
}

/// A request header a resource declares for its writes (`cascade_end_date`): `true` or
/// `false`, anything else is 400 naming the header. The declaration's own description.
pub use billing_domain::resources::declaration::Header as HeaderParam;

/// What a replace or patch request carries besides its body: the values of the resource's
/// declared headers that were sent, and for a patch the member paths its operations change
/// (`siteContacts[1].contactName`, `endDate`).
#[derive(Debug, Clone, Default)]
pub struct WriteRequest {
    pub flags: Vec<(&'static str, bool)>,
    pub patched_paths: Option<Vec<String>>,
    /// The request's id, for the audit events of follow-on writes.
    pub request_id: String,
}

impl WriteRequest {
    /// The value of declared header `name`, when the request sent it.
    pub fn flag(&self, name: &str) -> Option<bool> {
        self.flags
            .iter()
            .find(|(flag, _)| *flag == name)
            .map(|(_, value)| *value)
    }
}

/// Which operations a resource offers beyond list, exists and get.
#[derive(Debug, Clone, Copy, Default)]
pub struct Operations {
    /// `GET /{path}/{id}`; false for resources without numeric ids.
    pub get: bool,
    pub create: bool,
    /// `POST` also takes an array and creates every element, all or nothing.
    pub bulk_create: bool,
    pub replace: bool,
    pub patch: bool,
    pub delete: bool,
    /// `PATCH` on the collection: an array of `{id, …members to change}`, all or nothing.
    pub bulk_update: bool,
}

impl Operations {
    pub const READ_ONLY: Operations = Operations {
        get: true,
        create: false,
        bulk_create: false,
        replace: false,
        patch: false,
        delete: false,
        bulk_update: false,
    };
    pub const ALL: Operations = Operations {
        get: true,
        create: true,
        bulk_create: false,
        replace: true,
        patch: true,
        delete: true,
        bulk_update: false,
    };
}

/// A record's identity and version: its `Location`, its `ETag`, the version an update expects.
pub trait Versioned {
    fn id(&self) -> i64;
    /// The stored row's version: what an update expects.
    fn version(&self) -> i64;

    /// The versions, in order, of every stored row the JSON form shows: its own and those of
    /// the records it embeds (a source shows its locale and that locale's currency). The
    /// `ETag` is made of all of them, so it changes whenever the body would.
    fn shown_versions(&self) -> Vec<i64> {
        vec![self.version()]
    }

    /// The strong entity tag of the JSON form: `"3"`, or `"3.1.2"` with embedded records.
    fn entity_tag(&self) -> String {
        use std::fmt::Write;
        let mut tag = String::from("\"");
        for (index, version) in self.shown_versions().iter().enumerate() {
            let separator = if index == 0 { "" } else { "." };
            let _ = write!(tag, "{separator}{version}");
        }
        tag.push('"');
        tag
    }
}

pub trait Resource: Sized + 'static {
    /// The path segment under `/v1`, e.g. `charge-groups`.
    const PATH: &'static str;
    /// A record, in words: `charge group`.
    const NOUN: &'static str;
    const DESCRIPTION: &'static str;
    const READ: Permission;
    const WRITE: Permission;
    const OPERATIONS: Operations;
    const FIELDS: &'static [Field];
    /// The status of a successful create.
    const CREATED_STATUS: u16 = 201;
    /// The request headers its replace and patch read.
    const HEADERS: &'static [HeaderParam] = &[];
    /// Members of a create body holding records of other resources, created with it.
    const EMBEDDED: &'static [super::embedded::Embedded] = &[];

    /// Every sort key (for a declared resource, read from its declaration: `id`, its members,
    /// and the members of its owned single objects, `siteAddress.town`).
    fn sort_keys() -> &'static [&'static str];

    /// Every filter a list takes (for a declared resource, read from its declaration: `id`,
    /// every member but a write-only one, its extra filters).
    fn filters() -> &'static [FilterParam];

    /// The JSON form returned to clients.
    type Record: Serialize + Versioned + Send + 'static;
    /// The JSON form accepted by create and replace (and produced by applying a patch).
    /// `Clone`: a write transaction that lost a race on PostgreSQL runs again with it.
    type Input: DeserializeOwned + Clone + garde::Validate<Context = ()> + Send + 'static;

    fn id(record: &Self::Record) -> i64 {
        record.id()
    }

    fn version(record: &Self::Record) -> i64 {
        record.version()
    }

    fn entity_tag(record: &Self::Record) -> String {
        record.entity_tag()
    }

    fn list(
        connection: &mut DbConnection,
        caller: &AuthenticatedUser,
        query: &ListQuery,
    ) -> ApiResult<(Vec<Self::Record>, i64)>;

    fn find(
        connection: &mut DbConnection,
        caller: &AuthenticatedUser,
        id: i64,
    ) -> ApiResult<Option<Self::Record>>;

    /// Slow work on the write-only values a request carries (users: hashing passwords), done
    /// on its own pool before the write transaction opens; the result reaches the input
    /// through [`Resource::attach_prepared`]. Nothing to do by default.
    fn prepare(
        state: &AppState,
        values: Vec<String>,
    ) -> impl std::future::Future<Output = ApiResult<Prepared>> {
        let _ = (state, values);
        std::future::ready(Ok(Prepared::default()))
    }

    /// Hands what [`Resource::prepare`] made to an input parsed inside the transaction.
    fn attach_prepared(input: &mut Self::Input, prepared: &Prepared) -> ApiResult<()> {
        let _ = (input, prepared);
        Ok(())
    }

    /// Runs after a write of this resource committed. Users forget the callers served from
    /// memory, so a change to a user takes effect on its next request. Nothing by default.
    fn committed(state: &AppState) {
        let _ = state;
    }

    /// Runs after a write of this resource committed and after [`Resource::committed`], on a
    /// blocking thread, before the response is sent: follow-up work that reads the database
    /// (the rating index applies the change log, so the next request rates with the write).
    /// The write stands whatever happens here: report problems in the log. Nothing by default.
    fn after_commit(state: &AppState) {
        let _ = state;
    }

    /// A member shown once, in the response to the create that made `record` (an API key's
    /// secret): added to that response only, never to the audit trail, the stored response an
    /// `Idempotency-Key` replays, or any later read. None by default.
    fn shown_once(record: &Self::Record) -> Option<(&'static str, String)> {
        let _ = record;
        None
    }

    // The checks and follow-on writes of a declared resource that need other stored data,
    // written in its own `impl Resource` block (`#[declared_resource(…)]`); every one
    // defaults to "allowed". Field rules, cross-field rules, references (and the deletes they
    // refuse), and what follows a commit or precedes the transaction (`rated`,
    // `changes_callers`, a `Password` member's hash) are the declaration's. The generic
    // operations (`super::operations`) call them in their order.

    /// May the stored record `current` be replaced, patched or deleted at all?
    fn check_change(
        connection: &mut DbConnection,
        caller: &AuthenticatedUser,
        current: &Self::Record,
    ) -> ApiResult<()>
    where
        Self: Declared,
    {
        let _ = (connection, caller, current);
        Ok(())
    }

    /// May these values be written (by a create, `current` being `None`, or a replace of
    /// `current`, which passed `check_change`)?
    fn check_write(
        connection: &mut DbConnection,
        caller: &AuthenticatedUser,
        current: Option<&Self::Record>,
        changes: &<Self as Declared>::Changes,
    ) -> ApiResult<()>
    where
        Self: Declared,
    {
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
    ) -> ApiResult<()>
    where
        Self: Declared,
    {
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
        options: &<Self as Declared>::Options,
    ) -> ApiResult<()>
    where
        Self: Declared,
    {
        let _ = (connection, caller, before, record, options);
        Ok(())
    }

    /// Runs in the delete's transaction once `record` is gone: follow-on writes (the rating
    /// change log). An error rolls the delete back.
    fn deleted(
        connection: &mut DbConnection,
        caller: &AuthenticatedUser,
        record: &Self::Record,
    ) -> ApiResult<()>
    where
        Self: Declared,
    {
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
    ) -> ApiResult<()>
    where
        Self: Declared,
    {
        let _ = (connection, caller, current);
        Ok(())
    }

    fn create(
        connection: &mut DbConnection,
        caller: &AuthenticatedUser,
        input: Self::Input,
    ) -> ApiResult<Self::Record> {
        let _ = (connection, caller, input);
        Err(ApiError::method_not_allowed("GET, HEAD"))
    }

    /// `Ok(None)` when `current` changed underneath (another writer won).
    fn replace(
        connection: &mut DbConnection,
        caller: &AuthenticatedUser,
        current: &Self::Record,
        input: Self::Input,
        request: &WriteRequest,
    ) -> ApiResult<Option<Self::Record>> {
        let _ = (connection, caller, current, input, request);
        Err(ApiError::method_not_allowed("GET, HEAD"))
    }

    /// `Ok(false)` when `current` changed underneath.
    fn delete(
        connection: &mut DbConnection,
        caller: &AuthenticatedUser,
        current: &Self::Record,
    ) -> ApiResult<bool> {
        let _ = (connection, caller, current);
        Err(ApiError::method_not_allowed("GET, HEAD"))
    }
}

/// What [`Resource::prepare`] derived from write-only values, by value (a password and its hash).
#[derive(Debug, Default)]
pub struct Prepared(std::collections::HashMap<String, String>);

impl Prepared {
    pub fn insert(&mut self, value: String, derived: String) {
        self.0.insert(value, derived);
    }

    /// What was derived from `value`, if it was among the request's write-only values.
    pub fn derived(&self, value: &str) -> Option<&str> {
        self.0.get(value).map(String::as_str)
    }
}

/// A page of rows as records, and the total.
pub fn page<Row, Record: From<Row>>((rows, total): (Vec<Row>, i64)) -> (Vec<Record>, i64) {
    (rows.into_iter().map(Record::from).collect(), total)
}

/// 404 for a missing record of `R`.
pub fn not_found<R: Resource>(id: i64) -> ApiError {
    ApiError::not_found(format!("{} {id} does not exist", R::NOUN))
}

/// 400 naming `field` for a reference to a record that does not exist.
pub fn missing_reference(field: &str, noun: &str, id: impl std::fmt::Display) -> ApiError {
    ApiError::field(field, format!("{noun} {id} does not exist"))
}

/// 403 unless the caller may see records of contract owner `contract_owner_id` (the record
/// `id` of a resource scoped by contract owner).
pub fn check_scope(
    caller: &AuthenticatedUser,
    noun: &str,
    id: i64,
    contract_owner_id: i64,
) -> ApiResult<()> {
    if caller.contract_owners.allows(contract_owner_id) {
        Ok(())
    } else {
        Err(ApiError::forbidden(format!(
            "{noun} {id} belongs to a contract owner you are not allowed to see"
        )))
    }
}

/// 403 unless the caller may write records of contract owner `contract_owner_id` (the value
/// of `field` in a create or replace).
pub fn check_scope_of_write(
    caller: &AuthenticatedUser,
    field: &str,
    contract_owner_id: i64,
) -> ApiResult<()> {
    if caller.contract_owners.allows(contract_owner_id) {
        Ok(())
    } else {
        // The owner is not named: the value may be a customer or site of another owner, whose
        // owner the caller is not to learn.
        Err(ApiError::forbidden(format!(
            "{field}: is outside your contract owners"
        )))
    }
}
