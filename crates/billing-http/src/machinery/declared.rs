//! A resource served from its declaration (`billing_domain::resources`): `api_resource!`
//! derives the record a response shows, the input a body must be, the field list, filters and
//! sort keys, and the whole [`Resource`](super::resource::Resource) implementation. What a
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
use billing_persistence::DbConnection;

use super::resource::{ApiResult, Resource};

/// The shapes `api_resource!` made for a resource.
pub trait Shapes: Resource {
    /// The values a create or replace writes.
    type Changes;
    /// The declared request headers of a write, parsed, and a patch's changed paths.
    type Options;
}

/// The checks of a declared resource that need other stored data. Field rules, cross-field
/// rules and references are the declaration's; every method here defaults to "allowed".
pub trait Hooks: Shapes {
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

    /// See [`Resource::after_commit`](super::resource::Resource::after_commit).
    fn after_commit(state: &crate::state::AppState) {
        let _ = state;
    }

    /// See [`Resource::prepare`](super::resource::Resource::prepare): slow work on the
    /// write-only values of a request (hashing passwords), before the transaction opens.
    fn prepare(
        state: &crate::state::AppState,
        values: Vec<String>,
    ) -> impl std::future::Future<Output = ApiResult<super::resource::Prepared>> {
        let _ = (state, values);
        std::future::ready(Ok(super::resource::Prepared::default()))
    }

    /// See [`Resource::attach_prepared`](super::resource::Resource::attach_prepared).
    fn attach_prepared(
        input: &mut Self::Input,
        prepared: &super::resource::Prepared,
    ) -> ApiResult<()> {
        let _ = (input, prepared);
        Ok(())
    }

    /// See [`Resource::committed`](super::resource::Resource::committed).
    fn committed(state: &crate::state::AppState) {
        let _ = state;
    }

    /// May `current` be deleted (e.g. not still referenced)? Runs after `check_change`.
    fn check_delete(
        connection: &mut DbConnection,
        caller: &AuthenticatedUser,
        current: &Self::Record,
    ) -> ApiResult<()> {
        let _ = (connection, caller, current);
        Ok(())
    }
}

/// Serves a declared resource (see the module documentation).
#[macro_export]
macro_rules! api_resource {
    (
        (
            $name:ident {
                path: $path:literal,
                noun: $noun:literal,
                read: $read:ident,
                write: $write:ident,
                storage: $($storage:ident)::+
                $(, operations: $operations:expr)?
                $(, created_status: $created_status:expr)?
                $(, embedded: $embedded:expr)?
                $(,)?
            }
        )
        $(#[doc = $resource_doc:literal])*
        $table:ident {
            $(
                $(#[doc = $doc:literal])*
                $field:ident : $access:ident $kind:ident $(<$($param:tt),*>)?
                $(references($rtable:ident, $rnoun:literal))?
                $(shown_as($sname:ident, $shtable:ident))?
                $([$modifier:ident])?
                $(= $default:expr)?
            ),* $(,)?
        }
        $(children {
            $( $(#[doc = $cdoc:literal])* $cfield:ident : $cmult:ident $ctable:ident ),* $(,)?
        })?
        $(scope { $scope:ident $(in $stable:ident . $sowner:ident)* })?
        $(headers {
            $( $(#[doc = $hdoc:literal])* $header:ident : Bool ),* $(,)?
        })?
        rules { $($rule:ident($($rule_arg:ident),*)),* $(,)? }
        extra_filters { $( $(#[doc = $xdoc:literal])* $xname:ident : $xkind:ident $(<$($xparam:tt),*>)? ),* $(,)? }
    ) => {
        mod declared {
            #[allow(unused_imports)]
            use ::billing_domain::kinds::*;
            use $crate::machinery::kinds::ApiKind;
            use $crate::machinery::resource::{ApiResult, Field, FilterParam, HeaderParam, Operations, Resource, WriteRequest};
            use $($storage)::+ as storage;

            /// The record as responses show it (a shown record's member under its own name:
            /// `currency`, not `currencyId`).
            #[derive(Debug, Clone)]
            pub struct Record {
                pub id: i64,
                $(pub $field: $crate::api_record_type!($access $kind $(<$($param),*>)? $(; $shtable)?),)*
                $($(pub $cfield: $crate::api_child_field_type!($cmult, Record, $crate::resources::$ctable),)*)?
                pub version: i64,
            }

            impl ::serde::Serialize for Record {
                fn serialize<S: ::serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
                    use ::serde::ser::SerializeMap;
                    let mut map = serializer.serialize_map(None)?;
                    map.serialize_entry("id", &self.id)?;
                    $($crate::api_serialize_member!(map, $access, ::billing_domain::member_name!($field $(, $sname)?), &self.$field);)*
                    $($(map.serialize_entry(::billing_domain::json_name!($cfield), &self.$cfield)?;)*)?
                    map.end()
                }
            }

            /// The record's own columns; its children and shown records are loaded by
            /// [`Record::complete_page`].
            impl From<storage::Row> for Record {
                fn from(row: storage::Row) -> Self {
                    Self {
                        id: row.id,
                        $($field: $crate::api_record_convert!($access, row.$field $(, $shtable)?),)*
                        $($($cfield: Default::default(),)*)?
                        version: row.version,
                    }
                }
            }

            impl Record {
                /// One stored row as a record, children and all.
                fn assemble(
                    connection: &mut ::billing_persistence::DbConnection,
                    row: storage::Row,
                ) -> ApiResult<Record> {
                    Self::complete_page(connection, vec![Record::from(row)])?
                        .pop()
                        .ok_or_else(|| $crate::error::ApiError::internal("a record vanished while read"))
                }

                /// A page of records with their owned children and the records they show:
                /// one query per table, whatever the page's size.
                #[allow(unused_mut)]
                pub fn complete_page(
                    connection: &mut ::billing_persistence::DbConnection,
                    records: Vec<Record>,
                ) -> ApiResult<Vec<Record>> {
                    let mut records = Self::with_children(connection, records)?;
                    $($crate::api_fill_shown!(connection, records, $field $(, $sname)?);)*
                    Ok(records)
                }
            }

            $crate::api_children!($($($cfield : $cmult $ctable),*)?);

            impl $crate::machinery::resource::Versioned for Record {
                fn id(&self) -> i64 {
                    self.id
                }

                fn version(&self) -> i64 {
                    self.version
                }

                /// The record's, then each shown record's (and what that one shows).
                #[allow(unused_mut)]
                fn shown_versions(&self) -> Vec<i64> {
                    let mut versions = vec![self.version];
                    $($crate::api_shown_versions!(self, versions, $field $(, $sname)?);)*
                    versions
                }
            }

            /// Other records may show this one whole (`shown_as(…)`).
            impl $crate::machinery::shown::ShownRecord for Record {
                type Key = i64;
                const NOUN: &'static str = $noun;
                const KEY: &'static str = "id";
                const FIELDS: &'static [Field] = <super::$name as Resource>::FIELDS;

                fn key(&self) -> i64 {
                    self.id
                }

                fn load(
                    connection: &mut ::billing_persistence::DbConnection,
                    keys: &[i64],
                ) -> ApiResult<Vec<Record>> {
                    let rows = storage::find_many(connection, keys)?;
                    Record::complete_page(connection, rows.into_iter().map(Record::from).collect())
                }

                fn shown_versions(&self) -> Vec<i64> {
                    $crate::machinery::resource::Versioned::shown_versions(self)
                }
            }

            /// A create or replace body (and the result of a patch).
            #[derive(Debug, Clone, ::serde::Deserialize, ::garde::Validate)]
            #[serde(rename_all = "camelCase", deny_unknown_fields, expecting = "an object")]
            pub struct Input {
                $(
                    #[serde(default)]
                    #[garde(custom($crate::machinery::kinds::$access::<$kind $(<$($param),*>)?>))]
                    pub $field: $crate::api_type!(Input $access $kind $(<$($param),*>)?),
                )*
                $($(
                    #[serde(default)]
                    #[garde(dive, custom($crate::machinery::members::$cmult))]
                    pub $cfield: $crate::api_child_field_type!($cmult, Input, $crate::resources::$ctable),
                )*)?
            }

            impl Input {
                /// The values to store, once the rules across fields and the references hold
                /// (in the record and in every owned element). `current` is the stored record a
                /// replace starts from (`None` on create): its stamps and create-only values.
                #[allow(unused_variables, unused_mut)]
                pub fn changes(
                    &self,
                    connection: &mut ::billing_persistence::DbConnection,
                    current: Option<&Record>,
                ) -> ApiResult<(storage::Changes, Children)> {
                    let now = ::billing_persistence::now();
                    $(let $field = $crate::api_value!(
                        $access, $kind $(<$($param),*>)?, &self.$field,
                        current.map(|current| &current.$field), now $(, $default)?
                    );)*
                    let mut errors = ::billing_domain::ValidationErrors::default();
                    $($crate::api_write_only_check!(
                        $access, $kind $(<$($param),*>)?, errors, ::billing_domain::json_name!($field),
                        $noun, &self.$field, current
                    );)*
                    $($crate::api_create_only!(
                        [$($modifier)?], errors, $access, $field,
                        $crate::api_type!(Output $access $kind $(<$($param),*>)?),
                        current.map(|current| &current.$field)
                    );)*
                    $(errors.collect(::billing_domain::rules::$rule($(&$rule_arg),*));)*
                    if !errors.is_empty() {
                        return Err(errors.into());
                    }
                    $($($crate::api_reference!(connection, $access, $field, $rtable, $rnoun);)?)*
                    $($crate::api_shown_reference!(connection, $access, $field $(, $sname, $shtable)?);)*
                    let children = self.children(connection)?;
                    Ok((storage::Changes { $($field,)* }, children))
                }
            }

            /// The declared request headers of a write (parsed; `None` when not sent), and
            /// for a patch the member paths its operations change.
            #[derive(Debug, Default)]
            pub struct Options {
                $($(pub $header: Option<bool>,)*)?
                pub patched_paths: Option<Vec<String>>,
                pub request_id: String,
            }

            impl Options {
                fn of(request: &WriteRequest) -> Self {
                    Self {
                        $($($header: request.flag(stringify!($header)),)*)?
                        patched_paths: request.patched_paths.clone(),
                        request_id: request.request_id.clone(),
                    }
                }
            }

            impl $crate::machinery::declared::Shapes for super::$name {
                type Changes = storage::Changes;
                type Options = Options;
            }

            impl Resource for super::$name {
                const PATH: &'static str = $path;
                const NOUN: &'static str = $noun;
                const DESCRIPTION: &'static str =
                    ::billing_domain::kinds::doc_text(concat!($($resource_doc),*));
                const READ: ::billing_domain::roles::Permission = ::billing_domain::roles::Permission::$read;
                const WRITE: ::billing_domain::roles::Permission = ::billing_domain::roles::Permission::$write;
                const OPERATIONS: Operations = $crate::first_of!($($operations,)? Operations::ALL);
                const CREATED_STATUS: u16 = $crate::first_of!($($created_status,)? 201);
                const EMBEDDED: &'static [$crate::machinery::embedded::Embedded] =
                    $crate::first_of!($($embedded,)? &[]);
                const FIELDS: &'static [Field] = &[
                    $crate::resources::common::ID,
                    $($crate::api_kind_field!($kind $(<$($param),*>)?, $crate::api_declared_field!(
                        $access,
                        $field,
                        <$kind $(<$($param),*>)? as ApiKind>::FIELD_TYPE,
                        ::billing_domain::kinds::doc_text(concat!($($doc),*))
                        $(, shown $sname $shtable)?
                        $(, $default)?
                    )),)*
                    $($($crate::api_children_field!(
                        $cmult,
                        ::billing_domain::json_name!($cfield),
                        $crate::resources::$ctable,
                        ::billing_domain::kinds::doc_text(concat!($($cdoc),*))
                    ),)*)?
                ];
                const FILTERS: &'static [FilterParam] = &[
                    FilterParam::new("id", ::billing_domain::query::FilterKind::Id, "Filter on the id."),
                    $(FilterParam::new(
                        ::billing_domain::member_name!($field $(, $sname)?),
                        <$kind $(<$($param),*>)? as ApiKind>::FILTER,
                        ::billing_domain::kinds::doc_text(concat!($($doc),*)),
                    ),)*
                    $(FilterParam::new(
                        ::billing_domain::json_name!($xname),
                        <$xkind $(<$($xparam),*>)? as ApiKind>::FILTER,
                        ::billing_domain::kinds::doc_text(concat!($($xdoc),*)),
                    ),)*
                ];
                const SORT_KEYS: &'static [&'static str] =
                    &["id", $(::billing_domain::member_name!($field $(, $sname)?),)*];
                const HEADERS: &'static [HeaderParam] = &[
                    $($(HeaderParam::boolean(
                        stringify!($header),
                        ::billing_domain::kinds::doc_text(concat!($($hdoc),*)),
                    ),)*)?
                ];

                type Record = Record;
                type Input = Input;

                fn sort_keys() -> &'static [&'static str] {
                    static KEYS: ::std::sync::OnceLock<Vec<&'static str>> = ::std::sync::OnceLock::new();
                    KEYS.get_or_init(|| {
                        $crate::machinery::resource::with_nested_sort_keys(Self::SORT_KEYS, Self::FIELDS)
                    })
                }

                fn list(
                    connection: &mut ::billing_persistence::DbConnection,
                    caller: &::billing_auth::AuthenticatedUser,
                    query: &::billing_domain::query::ListQuery,
                ) -> ApiResult<(Vec<Record>, i64)> {
                    let (records, total) = $crate::machinery::resource::page(
                        storage::list(connection, query, &caller.contract_owners)?,
                    );
                    Ok((Record::complete_page(connection, records)?, total))
                }

                /// 403 for a record outside the caller's scope (lists leave those out).
                #[allow(unused_variables)]
                fn find(
                    connection: &mut ::billing_persistence::DbConnection,
                    caller: &::billing_auth::AuthenticatedUser,
                    id: i64,
                ) -> ApiResult<Option<Record>> {
                    let Some(row) = storage::find(connection, id)? else {
                        return Ok(None);
                    };
                    $(if !caller.contract_owners.is_all() {
                        let owner = $crate::api_scope_owner!(connection, row.$scope $(, $stable . $sowner)*);
                        $crate::machinery::resource::check_scope(caller, $noun, row.id, owner)?;
                    })?
                    Record::assemble(connection, row).map(Some)
                }

                fn create(
                    connection: &mut ::billing_persistence::DbConnection,
                    caller: &::billing_auth::AuthenticatedUser,
                    mut input: Input,
                ) -> ApiResult<Record> {
                    use $crate::machinery::declared::Hooks;
                    <super::$name as Hooks>::complete(connection, caller, None, &mut input)?;
                    let (changes, children) = input.changes(connection, None)?;
                    $(if !caller.contract_owners.is_all() {
                        let owner = $crate::api_scope_owner!(connection, changes.$scope $(, $stable . $sowner)*);
                        $crate::machinery::resource::check_scope_of_write(
                            caller, ::billing_domain::json_name!($scope), owner,
                        )?;
                    })?
                    <super::$name as Hooks>::check_write(connection, caller, None, &changes)?;
                    let row = storage::insert(connection, &changes)?;
                    children.write(connection, row.id)?;
                    let record = Record::assemble(connection, row)?;
                    <super::$name as Hooks>::written(connection, caller, None, &record, &Options::default())?;
                    Ok(record)
                }

                fn replace(
                    connection: &mut ::billing_persistence::DbConnection,
                    caller: &::billing_auth::AuthenticatedUser,
                    current: &Record,
                    mut input: Input,
                    request: &WriteRequest,
                ) -> ApiResult<Option<Record>> {
                    use $crate::machinery::declared::Hooks;
                    <super::$name as Hooks>::check_change(connection, caller, current)?;
                    <super::$name as Hooks>::complete(connection, caller, Some(current), &mut input)?;
                    let (changes, children) = input.changes(connection, Some(current))?;
                    $(if !caller.contract_owners.is_all() {
                        let owner = $crate::api_scope_owner!(connection, changes.$scope $(, $stable . $sowner)*);
                        $crate::machinery::resource::check_scope_of_write(
                            caller, ::billing_domain::json_name!($scope), owner,
                        )?;
                    })?
                    <super::$name as Hooks>::check_write(connection, caller, Some(current), &changes)?;
                    // The record's row is rewritten even when only its children change, so its
                    // version (and ETag) moves and a concurrent writer of the same version loses.
                    let Some(row) = storage::update(connection, current.id, current.version, &changes)? else {
                        return Ok(None);
                    };
                    children.write(connection, row.id)?;
                    let record = Record::assemble(connection, row)?;
                    <super::$name as Hooks>::written(connection, caller, Some(current), &record, &Options::of(request))?;
                    Ok(Some(record))
                }

                fn delete(
                    connection: &mut ::billing_persistence::DbConnection,
                    caller: &::billing_auth::AuthenticatedUser,
                    current: &Record,
                ) -> ApiResult<bool> {
                    use $crate::machinery::declared::Hooks;
                    <super::$name as Hooks>::check_change(connection, caller, current)?;
                    <super::$name as Hooks>::check_delete(connection, caller, current)?;
                    // Children first (their own children go with them: ON DELETE CASCADE); if
                    // the record changed meanwhile the delete below finds nothing and the
                    // caller rolls the whole transaction back.
                    $($(::billing_persistence::$ctable::delete_of(connection, current.id)?;)*)?
                    let deleted = storage::delete(connection, current.id, current.version)?;
                    if deleted {
                        <super::$name as Hooks>::deleted(connection, caller, current)?;
                    }
                    Ok(deleted)
                }

                fn after_commit(state: &$crate::state::AppState) {
                    <super::$name as $crate::machinery::declared::Hooks>::after_commit(state)
                }

                fn prepare(
                    state: &$crate::state::AppState,
                    values: Vec<String>,
                ) -> impl ::std::future::Future<Output = ApiResult<$crate::machinery::resource::Prepared>> {
                    <super::$name as $crate::machinery::declared::Hooks>::prepare(state, values)
                }

                fn attach_prepared(
                    input: &mut Input,
                    prepared: &$crate::machinery::resource::Prepared,
                ) -> ApiResult<()> {
                    <super::$name as $crate::machinery::declared::Hooks>::attach_prepared(input, prepared)
                }

                fn committed(state: &$crate::state::AppState) {
                    <super::$name as $crate::machinery::declared::Hooks>::committed(state)
                }

                /// The declared filters but a write-only member's.
                fn filters() -> &'static [FilterParam] {
                    static FILTERS: ::std::sync::OnceLock<Vec<FilterParam>> = ::std::sync::OnceLock::new();
                    FILTERS.get_or_init(|| {
                        $crate::machinery::resource::without_write_only(Self::FILTERS, Self::FIELDS)
                    })
                }
            }
        }
        pub use self::declared::{Input, Options, Record};
    };
}

/// Serves an owned child table (a declaration a parent's `children` section names) as the
/// elements of the parent's list or object: the element record (with its read-only `id`), the
/// element input, its field list, its checks and its own children. Invoke as
/// `billing_domain::contract_owner_sub_brands!(crate::api_child);` in `crate::resources::<table>`.
#[macro_export]
macro_rules! api_child {
    (
        ()
        $(#[doc = $resource_doc:literal])*
        $table:ident {
            $(
                $(#[doc = $doc:literal])*
                $field:ident : $access:ident $kind:ident $(<$($param:tt),*>)?
                $(references($rtable:ident, $rnoun:literal))?
                $(= $default:expr)?
            ),* $(,)?
        }
        $(children {
            $( $(#[doc = $cdoc:literal])* $cfield:ident : $cmult:ident $ctable:ident ),* $(,)?
        })?
        rules { $($rule:ident($($rule_arg:ident),*)),* $(,)? }
        extra_filters {}
    ) => {
        mod declared {
            #[allow(unused_imports)]
            use ::billing_domain::kinds::*;
            use $crate::machinery::kinds::ApiKind;
            use $crate::machinery::resource::{ApiResult, Field};
            use ::billing_persistence::$table as storage;

            /// An element as responses show it.
            #[derive(Debug, Clone, ::serde::Serialize)]
            #[serde(rename_all = "camelCase")]
            pub struct Record {
                pub id: i64,
                $(pub $field: $crate::api_type!(Output $access $kind $(<$($param),*>)?),)*
                $($(pub $cfield: $crate::api_child_field_type!($cmult, Record, $crate::resources::$ctable),)*)?
            }

            impl From<storage::Row> for Record {
                fn from(row: storage::Row) -> Self {
                    Self {
                        id: row.id,
                        $($field: $crate::api_convert!($access, row.$field),)*
                        $($($cfield: Default::default(),)*)?
                    }
                }
            }

            $crate::api_children!($($($cfield : $cmult $ctable),*)?);

            /// An element of a body. `id` is only ever the stored element's own: the member
            /// checks refuse it in anything a client sent.
            #[derive(Debug, Clone, Default, ::serde::Deserialize, ::garde::Validate)]
            #[serde(rename_all = "camelCase", deny_unknown_fields, expecting = "an object")]
            pub struct Input {
                #[serde(default)]
                #[garde(skip)]
                pub id: Option<i64>,
                $(
                    #[serde(default)]
                    #[garde(custom($crate::machinery::kinds::$access::<$kind $(<$($param),*>)?>))]
                    pub $field: $crate::api_type!(Input $access $kind $(<$($param),*>)?),
                )*
                $($(
                    #[serde(default)]
                    #[garde(dive, custom($crate::machinery::members::$cmult))]
                    pub $cfield: $crate::api_child_field_type!($cmult, Input, $crate::resources::$ctable),
                )*)?
            }

            /// What a write gives one element: its id when it came from the stored record,
            /// its columns and its own children.
            #[derive(Debug)]
            pub struct Element {
                pub id: Option<i64>,
                pub changes: storage::Changes,
                pub children: Children,
            }

            impl Input {
                /// The element, once its rules and references hold; errors name members
                /// within the element.
                #[allow(unused_variables, unused_mut)]
                pub fn element(
                    &self,
                    connection: &mut ::billing_persistence::DbConnection,
                ) -> ApiResult<Element> {
                    $(let $field = $crate::api_value!($access, $kind $(<$($param),*>)?, &self.$field, (), () $(, $default)?);)*
                    let mut errors = ::billing_domain::ValidationErrors::default();
                    $(errors.collect(::billing_domain::rules::$rule($(&$rule_arg),*));)*
                    if !errors.is_empty() {
                        return Err(errors.into());
                    }
                    $($($crate::api_reference!(connection, $access, $field, $rtable, $rnoun);)?)*
                    let children = self.children(connection)?;
                    Ok(Element { id: self.id, changes: storage::Changes { $($field,)* }, children })
                }
            }

            /// An element's members, for the parent's field list and the member checks.
            pub const FIELDS: &[Field] = &[
                $crate::resources::common::ID,
                $($crate::api_kind_field!($kind $(<$($param),*>)?, $crate::api_field!(
                    $access,
                    ::billing_domain::json_name!($field),
                    <$kind $(<$($param),*>)? as ApiKind>::FIELD_TYPE,
                    ::billing_domain::kinds::doc_text(concat!($($doc),*))
                    $(, $default)?
                )),)*
                $($($crate::api_children_field!(
                    $cmult,
                    ::billing_domain::json_name!($cfield),
                    $crate::resources::$ctable,
                    ::billing_domain::kinds::doc_text(concat!($($cdoc),*))
                ),)*)?
            ];

            $crate::api_child_values!($($field : $access $kind $(<$($param),*>)?),*);
        }
        pub use self::declared::*;
    };
}

/// For a child table of one member, used as a parent's `values`: the member's value in a
/// response (`Value`) and in a body (`ValueInput`, checked by the member's kind), and their
/// conversions to and from an element.
#[macro_export]
#[doc(hidden)]
macro_rules! api_child_values {
    ($field:ident : $access:ident $kind:ident $(<$($param:tt),*>)?) => {
        /// The element's one member, as responses show it.
        pub type Value = $crate::api_type!(Output $access $kind $(<$($param),*>)?);

        /// The element's one member in a body.
        #[derive(Debug, Clone, ::serde::Deserialize)]
        #[serde(transparent)]
        pub struct ValueInput(pub $crate::api_type!(Input $access $kind $(<$($param),*>)?));

        /// The member's kind checks the entry, which is named by its own place in the list.
        impl ::garde::Validate for ValueInput {
            type Context = ();

            fn validate_into(
                &self,
                context: &(),
                parent: &mut dyn FnMut() -> ::garde::Path,
                report: &mut ::garde::Report,
            ) {
                if let Err(error) =
                    $crate::machinery::kinds::$access::<$kind $(<$($param),*>)?>(&self.0, context)
                {
                    report.append(parent(), error);
                }
            }
        }

        /// The member's JSON type, for the parent's field list.
        pub const VALUE_TYPE: $crate::machinery::resource::FieldType =
            <$kind $(<$($param),*>)? as $crate::machinery::kinds::ApiKind>::FIELD_TYPE;

        impl Record {
            pub fn into_value(self) -> Value {
                self.$field
            }
        }

        impl ValueInput {
            /// The element this value stands for.
            pub fn element(
                &self,
                connection: &mut ::billing_persistence::DbConnection,
            ) -> ApiResult<Element> {
                Input { $field: self.0.clone(), ..Input::default() }.element(connection)
            }
        }
    };
    ($($other:tt)*) => {};
}

/// What a record or an element does with its owned children (`list`, `non_empty_list`, `one`,
/// `optional_one` of a child table): loads them for a page in one query per child table at
/// every depth, turns a body's elements into what a write stores, and writes them.
#[macro_export]
#[doc(hidden)]
macro_rules! api_children {
    ($($cfield:ident : $cmult:ident $ctable:ident),*) => {
        impl Record {
            /// Fills in the owned children of a page of records: one query per child table
            /// (and per grandchild table), whatever the page size.
            #[allow(unused_variables, unused_mut)]
            pub fn with_children(
                connection: &mut ::billing_persistence::DbConnection,
                mut records: Vec<Record>,
            ) -> ApiResult<Vec<Record>> {
                $({
                    let ids: Vec<i64> = records.iter().map(|record| record.id).collect();
                    let rows = ::billing_persistence::$ctable::of_parents(connection, &ids)?;
                    let parents: Vec<i64> = rows.iter().map(|row| row.parent_id).collect();
                    let elements = $crate::resources::$ctable::Record::with_children(
                        connection,
                        rows.into_iter().map(Into::into).collect(),
                    )?;
                    let mut by_parent = ::std::collections::HashMap::<i64, Vec<_>>::new();
                    for (parent, element) in parents.into_iter().zip(elements) {
                        by_parent.entry(parent).or_default().push(element);
                    }
                    for record in &mut records {
                        let elements = by_parent.remove(&record.id).unwrap_or_default();
                        record.$cfield = $crate::api_child_value!($cmult, elements);
                    }
                })*
                Ok(records)
            }
        }

        /// The elements a write gives each owned child field.
        #[derive(Debug, Default)]
        pub struct Children {
            $(pub $cfield: Vec<$crate::resources::$ctable::Element>,)*
        }

        impl Children {
            /// Makes the stored children of `parent_id` exactly these, at every depth.
            #[allow(unused_variables)]
            pub fn write(
                &self,
                connection: &mut ::billing_persistence::DbConnection,
                parent_id: i64,
            ) -> ApiResult<()> {
                $(
                    let elements: Vec<_> = self.$cfield.iter().map(|element| (element.id, &element.changes)).collect();
                    let ids = ::billing_persistence::$ctable::write(connection, parent_id, &elements)?;
                    for (element, id) in self.$cfield.iter().zip(ids) {
                        element.children.write(connection, id)?;
                    }
                )*
                Ok(())
            }
        }

        impl Input {
            /// The owned elements of a body, once each element's rules and references hold;
            /// errors name the element (`subBrands[1].name`, `siteAddress.town`).
            #[allow(unused_variables, unused_mut)]
            fn children(
                &self,
                connection: &mut ::billing_persistence::DbConnection,
            ) -> ApiResult<Children> {
                let mut children = Children::default();
                $(
                    for (index, element) in self.$cfield.iter().enumerate() {
                        let path = $crate::api_child_path!($cmult, ::billing_domain::json_name!($cfield), index);
                        children.$cfield.push($crate::api_child_element!($cmult, element, connection, path)?);
                    }
                )*
                Ok(children)
            }
        }
    };
}

/// The Rust type of an owned child field: a list of elements, or one (possibly absent) element.
#[macro_export]
#[doc(hidden)]
macro_rules! api_child_type {
    (list, $element:ty) => { Vec<$element> };
    (non_empty_list, $element:ty) => { Vec<$element> };
    (one, $element:ty) => { Option<$element> };
    (optional_one, $element:ty) => { Option<$element> };
}

/// The Rust type of a child field in a record (`Record`) or a body (`Input`).
#[macro_export]
#[doc(hidden)]
macro_rules! api_child_field_type {
    (values, Record, $($child:ident)::+) => { Vec<$($child)::+::Value> };
    (values, Input, $($child:ident)::+) => { Vec<$($child)::+::ValueInput> };
    ($multiplicity:ident, $shape:ident, $($child:ident)::+) => {
        $crate::api_child_type!($multiplicity, $($child)::+::$shape)
    };
}

/// A parent's loaded elements as its child field holds them.
#[macro_export]
#[doc(hidden)]
macro_rules! api_child_value {
    (list, $elements:expr) => {
        $elements
    };
    (non_empty_list, $elements:expr) => {
        $elements
    };
    (one, $elements:expr) => {
        $elements.into_iter().next()
    };
    (optional_one, $elements:expr) => {
        $elements.into_iter().next()
    };
    (values, $elements:expr) => {
        $elements
            .into_iter()
            .map(|element| element.into_value())
            .collect()
    };
}

/// The stored element of a body's element: a `values` entry is its child's one member, and
/// its errors are named by the entry's path alone (`siteIds[1]`).
#[macro_export]
#[doc(hidden)]
macro_rules! api_child_element {
    (values, $element:expr, $connection:ident, $path:expr) => {
        $element.element($connection).map_err(|e| e.at(&$path))
    };
    ($multiplicity:ident, $element:expr, $connection:ident, $path:expr) => {
        $element.element($connection).map_err(|e| e.within(&$path))
    };
}

/// The member path of element `index` of a child field: `subBrands[1]`, or `siteAddress`.
#[macro_export]
#[doc(hidden)]
macro_rules! api_child_path {
    (list, $name:expr, $index:expr) => {
        format!("{}[{}]", $name, $index)
    };
    (non_empty_list, $name:expr, $index:expr) => {
        format!("{}[{}]", $name, $index)
    };
    (one, $name:expr, $index:expr) => {
        ($name).to_owned()
    };
    (optional_one, $name:expr, $index:expr) => {
        ($name).to_owned()
    };
    (values, $name:expr, $index:expr) => {
        format!("{}[{}]", $name, $index)
    };
}

/// The field of an owned child: `list` may be left out (empty) but is never null;
/// `non_empty_list` is required and holds at least one element; `one` is a required object;
/// `optional_one` an object that may be null or left out; `values` a list of the child's one
/// member's values (`siteIds: [3, 5]`), optional, never null.
#[macro_export]
#[doc(hidden)]
macro_rules! api_children_field {
    (list, $name:expr, $($child:ident)::+, $doc:expr) => {
        $crate::machinery::resource::Field::optional(
            $name,
            $crate::machinery::resource::FieldType::Array(&$crate::machinery::resource::FieldType::Object($($child)::+::FIELDS)),
            $doc,
        )
        .not_null()
        .owned()
        .at_most($crate::machinery::members::MAX_ELEMENTS)
    };
    (non_empty_list, $name:expr, $($child:ident)::+, $doc:expr) => {
        $crate::machinery::resource::Field::required(
            $name,
            $crate::machinery::resource::FieldType::Array(&$crate::machinery::resource::FieldType::Object($($child)::+::FIELDS)),
            $doc,
        )
        .non_empty()
        .owned()
        .at_most($crate::machinery::members::MAX_ELEMENTS)
    };
    (one, $name:expr, $($child:ident)::+, $doc:expr) => {
        $crate::machinery::resource::Field::required(
            $name,
            $crate::machinery::resource::FieldType::Object($($child)::+::FIELDS),
            $doc,
        )
        .owned()
    };
    (optional_one, $name:expr, $($child:ident)::+, $doc:expr) => {
        $crate::machinery::resource::Field::optional(
            $name,
            $crate::machinery::resource::FieldType::Object($($child)::+::FIELDS),
            $doc,
        )
        .owned()
    };
    (values, $name:expr, $($child:ident)::+, $doc:expr) => {
        $crate::machinery::resource::Field::optional(
            $name,
            $crate::machinery::resource::FieldType::Array(&$($child)::+::VALUE_TYPE),
            $doc,
        )
        .not_null()
        .at_most($crate::machinery::members::MAX_ELEMENTS)
    };
}

/// The entry of a declared field in a field list; a `defaulted` field carries its default.
#[macro_export]
#[doc(hidden)]
macro_rules! api_field {
    (defaulted, $name:expr, $field_type:expr, $doc:expr, $default:expr) => {
        $crate::machinery::resource::Field::optional($name, $field_type, $doc)
            .not_null()
            .with_default(stringify!($default))
    };
    ($access:ident, $name:expr, $field_type:expr, $doc:expr) => {
        $crate::machinery::resource::Field::$access($name, $field_type, $doc)
    };
}

/// The entry of a declared field whose kind is a list that must not be empty (`roles`).
#[macro_export]
#[doc(hidden)]
macro_rules! api_kind_field {
    ($kind:ty, $field:expr) => {
        $field
            .non_empty_if(<$kind as $crate::machinery::kinds::ApiKind>::NON_EMPTY)
            .at_most_if(<$kind as $crate::machinery::kinds::ApiKind>::MAX_ITEMS)
    };
}

/// The Rust type of a declared field in a body (`Input`) or a response (`Output`).
#[macro_export]
#[doc(hidden)]
macro_rules! api_type {
    ($shape:ident required $kind:ident $(<$($param:tt),*>)?) => {
        <$kind $(<$($param),*>)? as $crate::machinery::kinds::ApiKind>::$shape
    };
    ($shape:ident optional $kind:ident $(<$($param:tt),*>)?) => {
        Option<<$kind $(<$($param),*>)? as $crate::machinery::kinds::ApiKind>::$shape>
    };
    (Input derived $kind:ident $(<$($param:tt),*>)?) => {
        Option<<$kind $(<$($param),*>)? as $crate::machinery::kinds::ApiKind>::Input>
    };
    (Output derived $kind:ident $(<$($param:tt),*>)?) => {
        Option<<$kind $(<$($param),*>)? as $crate::machinery::kinds::ApiKind>::Output>
    };
    (Input defaulted $kind:ident $(<$($param:tt),*>)?) => {
        $crate::machinery::kinds::Defaulted<<$kind $(<$($param),*>)? as $crate::machinery::kinds::ApiKind>::Input>
    };
    (Output defaulted $kind:ident $(<$($param:tt),*>)?) => {
        <$kind $(<$($param),*>)? as $crate::machinery::kinds::ApiKind>::Output
    };
    (Input write_only $kind:ident $(<$($param:tt),*>)?) => {
        Option<<$kind $(<$($param),*>)? as $crate::machinery::kinds::ApiKind>::Input>
    };
    (Output write_only $kind:ident $(<$($param:tt),*>)?) => {
        <$kind $(<$($param),*>)? as $crate::machinery::kinds::ApiKind>::Output
    };
    (Output kept $kind:ident) => {
        Option<<$kind as $crate::machinery::kinds::ApiKind>::Output>
    };
    (Input $stamp:ident $kind:ident) => {
        ()
    };
    (Output $stamp:ident $kind:ident) => {
        <$kind as $crate::machinery::kinds::ApiKind>::Output
    };
}

/// A stored value as a response shows it.
#[macro_export]
#[doc(hidden)]
macro_rules! api_convert {
    (required, $value:expr) => {
        ($value).into()
    };
    (optional, $value:expr) => {
        ($value).map(Into::into)
    };
    (derived, $value:expr) => {
        ($value).map(Into::into)
    };
    (kept, $value:expr) => {
        ($value).map(Into::into)
    };
    ($other:ident, $value:expr) => {
        ($value).into()
    };
}

/// The value to store: what a body carried, or for a stamp the time of the write (`created`:
/// kept from the stored record on a replace).
#[macro_export]
#[doc(hidden)]
macro_rules! api_value {
    (required, $kind:ty, $input:expr, $current:expr, $now:expr) => {
        <$kind as $crate::machinery::kinds::ApiKind>::value($input)
    };
    (optional, $kind:ty, $input:expr, $current:expr, $now:expr) => {
        ($input)
            .as_ref()
            .map(<$kind as $crate::machinery::kinds::ApiKind>::value)
    };
    (derived, $kind:ty, $input:expr, $current:expr, $now:expr) => {
        $crate::api_value!(optional, $kind, $input, $current, $now)
    };
    (defaulted, $kind:ty, $input:expr, $current:expr, $now:expr, $default:expr) => {
        match &($input).0 {
            Some(input) => <$kind as $crate::machinery::kinds::ApiKind>::value(input),
            None => <$kind as $crate::machinery::kinds::ApiKind>::value(&($default).into()),
        }
    };
    (write_only, $kind:ty, $input:expr, $current:expr, $now:expr) => {
        match (($input).as_ref(), $current) {
            (Some(input), _) => <$kind as $crate::machinery::kinds::ApiKind>::value(input),
            (None, Some(stored)) => stored.0.clone(),
            (None, None) => String::new(),
        }
    };
    (kept, DateTime, $input:expr, $current:expr, $now:expr) => {
        ($current).and_then(|stamp| stamp.as_ref().map(|stamp| stamp.0))
    };
    (created, DateTime, $input:expr, $current:expr, $now:expr) => {
        ($current).map_or($now, |stamp| stamp.0)
    };
    (updated, DateTime, $input:expr, $current:expr, $now:expr) => {
        $now
    };
}

/// A member of a record as a response shows it; a write-only member (a password) never is.
#[macro_export]
#[doc(hidden)]
macro_rules! api_serialize_member {
    ($map:ident, write_only, $name:expr, $value:expr) => {};
    ($map:ident, $access:ident, $name:expr, $value:expr) => {
        $map.serialize_entry($name, $value)?
    };
}

/// A write-only member is required when a record is created (a later write that leaves it out
/// keeps the stored value), and reaches the write already prepared (a password, hashed).
#[macro_export]
#[doc(hidden)]
macro_rules! api_write_only_check {
    (write_only, $kind:ty, $errors:ident, $name:expr, $noun:literal, $input:expr, $current:ident) => {
        match (($input).as_ref(), $current) {
            (None, None) => $errors.push(
                $name,
                format!(
                    "is required when creating {}",
                    $crate::openapi::with_article($noun)
                ),
            ),
            (Some(input), _) if !<$kind as $crate::machinery::kinds::ApiKind>::prepared(input) => {
                return Err($crate::error::ApiError::internal(
                    "a write-only value reached the write unprepared",
                ))
            }
            _ => {}
        }
    };
    ($access:ident, $kind:ty, $errors:ident, $name:expr, $noun:literal, $input:expr, $current:ident) => {};
}

/// For a `[create_only]` field, a replace (or patch) that changes the stored value is an error
/// naming the field.
#[macro_export]
#[doc(hidden)]
macro_rules! api_create_only {
    ([], $errors:ident, $access:ident, $field:ident, $output:ty, $current:expr) => {};
    ([create_only], $errors:ident, $access:ident, $field:ident, $output:ty, $current:expr) => {
        if let Some(stored) = $current {
            let wanted: $output = $crate::api_convert!($access, $field.clone());
            if &wanted != stored {
                $errors.push(
                    ::billing_domain::json_name!($field),
                    "is set on creation only and cannot be changed",
                );
            }
        }
    };
}

/// 400 naming the field unless the record it references exists.
#[macro_export]
#[doc(hidden)]
macro_rules! api_reference {
    ($connection:ident, required, $field:ident, $table:ident, $noun:literal) => {
        if !::billing_persistence::$table::exists($connection, $field)? {
            return Err($crate::machinery::resource::missing_reference(
                ::billing_domain::json_name!($field),
                $noun,
                $field,
            ));
        }
    };
    ($connection:ident, optional, $field:ident, $table:ident, $noun:literal) => {
        if let Some(id) = $field
            && !::billing_persistence::$table::exists($connection, id)?
        {
            return Err($crate::machinery::resource::missing_reference(
                ::billing_domain::json_name!($field),
                $noun,
                id,
            ));
        }
    };
}

/// The contract owner a scoped record belongs to: its scope column, or the owner of the
/// record that column names (`customer_id in customers.contract_owner_id`).
#[macro_export]
#[doc(hidden)]
macro_rules! api_scope_owner {
    ($connection:ident, $value:expr) => {
        $value
    };
    ($connection:ident, $value:expr, $stable:ident . $sowner:ident $(, $rest_table:ident . $rest_column:ident)*) => {{
        let next = match ::billing_persistence::$stable::find($connection, $value)? {
            Some(owner) => owner.$sowner,
            None => {
                return Err($crate::error::ApiError::internal(
                    "the record a scoped record belongs to is missing",
                ))
            }
        };
        $crate::api_scope_owner!($connection, next $(, $rest_table . $rest_column)*)
    }};
}

/// Loads the records a shown member of a page of records shows (nothing for other members).
#[macro_export]
#[doc(hidden)]
macro_rules! api_fill_shown {
    ($connection:ident, $records:ident, $field:ident) => {};
    ($connection:ident, $records:ident, $field:ident, $sname:ident) => {
        $crate::machinery::shown::fill($connection, &mut $records, |record| &mut record.$field)?
    };
}

/// Appends the versions a shown member's record shows (nothing for other members).
#[macro_export]
#[doc(hidden)]
macro_rules! api_shown_versions {
    ($record:ident, $versions:ident, $field:ident) => {};
    ($record:ident, $versions:ident, $field:ident, $sname:ident) => {
        $crate::machinery::shown::ShownMember::versions(&$record.$field, &mut $versions)
    };
}

/// The type of a declared field in a record: a shown member holds the other record.
#[macro_export]
#[doc(hidden)]
macro_rules! api_record_type {
    (required $kind:ident $(<$($param:tt),*>)? ; $shtable:ident) => {
        $crate::machinery::shown::Shown<$crate::resources::$shtable::Record>
    };
    (optional $kind:ident $(<$($param:tt),*>)? ; $shtable:ident) => {
        Option<$crate::machinery::shown::Shown<$crate::resources::$shtable::Record>>
    };
    ($access:ident $kind:ident $(<$($param:tt),*>)?) => {
        $crate::api_type!(Output $access $kind $(<$($param),*>)?)
    };
}

/// A stored value as a record holds it (a shown member: its key, until its page is completed).
#[macro_export]
#[doc(hidden)]
macro_rules! api_record_convert {
    (required, $value:expr, $shtable:ident) => {
        $crate::machinery::shown::Shown::of($value)
    };
    (optional, $value:expr, $shtable:ident) => {
        ($value).map($crate::machinery::shown::Shown::of)
    };
    ($access:ident, $value:expr) => {
        $crate::api_convert!($access, $value)
    };
}

/// 400 naming `currency.id` unless the record a shown member names exists (nothing for other
/// members).
#[macro_export]
#[doc(hidden)]
macro_rules! api_shown_reference {
    ($connection:ident, $access:ident, $field:ident) => {};
    ($connection:ident, required, $field:ident, $sname:ident, $shtable:ident) => {
        $crate::machinery::shown::check_exists::<$crate::resources::$shtable::Record>(
            $connection,
            ::billing_domain::json_name!($sname),
            &$field,
        )?
    };
    ($connection:ident, optional, $field:ident, $sname:ident, $shtable:ident) => {
        if let Some(key) = &$field {
            $crate::machinery::shown::check_exists::<$crate::resources::$shtable::Record>(
                $connection,
                ::billing_domain::json_name!($sname),
                key,
            )?
        }
    };
}

/// The entry of a declared field in a field list: a shown member is the other record's object,
/// named after it, whose key the input's column holds.
#[macro_export]
#[doc(hidden)]
macro_rules! api_declared_field {
    ($access:ident, $field:ident, $field_type:expr, $doc:expr, shown $sname:ident $shtable:ident) => {
        $crate::machinery::resource::Field::$access(
            ::billing_domain::json_name!($sname),
            $crate::machinery::resource::FieldType::Object(
                <$crate::resources::$shtable::Record as $crate::machinery::shown::ShownRecord>::FIELDS,
            ),
            $doc,
        )
        .shows(
            ::billing_domain::json_name!($field),
            <$crate::resources::$shtable::Record as $crate::machinery::shown::ShownRecord>::KEY,
        )
    };
    ($access:ident, $field:ident, $field_type:expr, $doc:expr $(, $default:expr)?) => {
        $crate::api_field!($access, ::billing_domain::json_name!($field), $field_type, $doc $(, $default)?)
    };
}

/// The first of the given expressions (an optional setting, then its default).
#[macro_export]
#[doc(hidden)]
macro_rules! first_of {
    ($first:expr $(, $rest:expr)*) => {
        $first
    };
}
