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
                $(,)?
            }
        )
        $(#[doc = $resource_doc:literal])*
        $table:ident {
            $(
                $(#[doc = $doc:literal])*
                $field:ident : $access:ident $kind:ident $(<$($param:tt),*>)?
                $(references($rtable:ident, $rnoun:literal))?
                $([$modifier:ident])?
            ),* $(,)?
        }
        $(children {
            $( $(#[doc = $cdoc:literal])* $cfield:ident : $cmult:ident $ctable:ident ),* $(,)?
        })?
        $(scope { $scope:ident })?
        rules { $($rule:ident($($rule_arg:ident),*)),* $(,)? }
        extra_filters { $( $(#[doc = $xdoc:literal])* $xname:ident : $xkind:ident ),* $(,)? }
    ) => {
        mod declared {
            #[allow(unused_imports)]
            use ::billing_domain::kinds::*;
            use $crate::machinery::kinds::ApiKind;
            use $crate::machinery::resource::{ApiResult, Field, FilterParam, Operations, Resource};
            use $($storage)::+ as storage;

            /// The record as responses show it.
            #[derive(Debug, Clone, ::serde::Serialize)]
            #[serde(rename_all = "camelCase")]
            pub struct Record {
                pub id: i64,
                $(pub $field: $crate::api_type!(Output $access $kind $(<$($param),*>)?),)*
                $($(pub $cfield: Vec<$crate::resources::$ctable::Record>,)*)?
                #[serde(skip)]
                pub version: i64,
            }

            /// The record's own columns; its children are loaded by [`Record::with_children`].
            impl From<storage::Row> for Record {
                fn from(row: storage::Row) -> Self {
                    Self {
                        id: row.id,
                        $($field: $crate::api_convert!($access, row.$field),)*
                        $($($cfield: Vec::new(),)*)?
                        version: row.version,
                    }
                }
            }

            impl Record {
                /// Fills in the owned children of a page of records: one query per child
                /// table, whatever the page size.
                #[allow(unused_variables, unused_mut)]
                pub fn with_children(
                    connection: &mut ::billing_persistence::DbConnection,
                    mut records: Vec<Record>,
                ) -> ApiResult<Vec<Record>> {
                    $($({
                        let ids: Vec<i64> = records.iter().map(|record| record.id).collect();
                        let mut by_parent = ::std::collections::HashMap::<i64, Vec<_>>::new();
                        for row in ::billing_persistence::$ctable::of_parents(connection, &ids)? {
                            by_parent
                                .entry(row.parent_id)
                                .or_default()
                                .push($crate::resources::$ctable::Record::from(row));
                        }
                        for record in &mut records {
                            record.$cfield = by_parent.remove(&record.id).unwrap_or_default();
                        }
                    })*)?
                    Ok(records)
                }

                /// One stored row as a record, children and all.
                fn assemble(
                    connection: &mut ::billing_persistence::DbConnection,
                    row: storage::Row,
                ) -> ApiResult<Record> {
                    Self::with_children(connection, vec![Record::from(row)])?
                        .pop()
                        .ok_or_else(|| $crate::error::ApiError::internal("a record vanished while read"))
                }
            }

            /// The elements a write gives each owned list: an element's id when it came from
            /// the stored record, and its columns.
            #[derive(Debug, Default)]
            pub struct Children {
                $($(pub $cfield: Vec<(Option<i64>, ::billing_persistence::$ctable::Changes)>,)*)?
            }

            impl Children {
                /// Makes the stored children of `parent_id` exactly these.
                #[allow(unused_variables)]
                fn write(
                    &self,
                    connection: &mut ::billing_persistence::DbConnection,
                    parent_id: i64,
                ) -> ApiResult<()> {
                    $($(::billing_persistence::$ctable::write(connection, parent_id, &self.$cfield)?;)*)?
                    Ok(())
                }
            }

            $crate::versioned!(Record);

            /// A create or replace body (and the result of a patch).
            #[derive(Debug, ::serde::Deserialize, ::garde::Validate)]
            #[serde(rename_all = "camelCase", deny_unknown_fields)]
            pub struct Input {
                $(
                    #[serde(default)]
                    #[garde(custom($crate::machinery::kinds::$access::<$kind $(<$($param),*>)?>))]
                    pub $field: $crate::api_type!(Input $access $kind $(<$($param),*>)?),
                )*
                $($(
                    #[serde(default)]
                    #[garde(dive, custom($crate::machinery::members::$cmult))]
                    pub $cfield: Vec<$crate::resources::$ctable::Input>,
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
                        current.map(|current| &current.$field), now
                    );)*
                    let mut errors = ::billing_domain::ValidationErrors::default();
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
                    let mut children = Children::default();
                    $($(
                        for (index, element) in self.$cfield.iter().enumerate() {
                            let path = format!("{}[{index}]", ::billing_domain::json_name!($cfield));
                            children.$cfield.push(element.changes(connection).map_err(|e| e.within(&path))?);
                        }
                    )*)?
                    Ok((storage::Changes { $($field,)* }, children))
                }
            }

            impl $crate::machinery::declared::Shapes for super::$name {
                type Changes = storage::Changes;
            }

            impl Resource for super::$name {
                const PATH: &'static str = $path;
                const NOUN: &'static str = $noun;
                const DESCRIPTION: &'static str =
                    ::billing_domain::kinds::doc_text(concat!($($resource_doc),*));
                const READ: ::billing_domain::roles::Permission = ::billing_domain::roles::Permission::$read;
                const WRITE: ::billing_domain::roles::Permission = ::billing_domain::roles::Permission::$write;
                const OPERATIONS: Operations = $crate::first_of!($($operations,)? Operations::ALL);
                const FIELDS: &'static [Field] = &[
                    $crate::resources::common::ID,
                    $(Field::$access(
                        ::billing_domain::json_name!($field),
                        <$kind $(<$($param),*>)? as ApiKind>::FIELD_TYPE,
                        ::billing_domain::kinds::doc_text(concat!($($doc),*)),
                    ),)*
                    $($($crate::api_children_field!(
                        $cmult,
                        ::billing_domain::json_name!($cfield),
                        &$crate::machinery::resource::FieldType::Object($crate::resources::$ctable::FIELDS),
                        ::billing_domain::kinds::doc_text(concat!($($cdoc),*))
                    ),)*)?
                ];
                const FILTERS: &'static [FilterParam] = &[
                    FilterParam::new("id", ::billing_domain::query::FilterKind::Id, "Filter on the id."),
                    $(FilterParam::new(
                        ::billing_domain::json_name!($field),
                        <$kind $(<$($param),*>)? as ApiKind>::FILTER,
                        ::billing_domain::kinds::doc_text(concat!($($doc),*)),
                    ),)*
                    $(FilterParam::new(
                        ::billing_domain::json_name!($xname),
                        <$xkind as ApiKind>::FILTER,
                        ::billing_domain::kinds::doc_text(concat!($($xdoc),*)),
                    ),)*
                ];
                const SORT_KEYS: &'static [&'static str] =
                    &["id", $(::billing_domain::json_name!($field),)*];

                type Record = Record;
                type Input = Input;

                fn list(
                    connection: &mut ::billing_persistence::DbConnection,
                    caller: &::billing_auth::AuthenticatedUser,
                    query: &::billing_domain::query::ListQuery,
                ) -> ApiResult<(Vec<Record>, i64)> {
                    let (records, total) = $crate::machinery::resource::page(
                        storage::list(connection, query, &caller.contract_owners)?,
                    );
                    Ok((Record::with_children(connection, records)?, total))
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
                    $($crate::machinery::resource::check_scope(caller, $noun, row.id, row.$scope)?;)?
                    Record::assemble(connection, row).map(Some)
                }

                fn create(
                    connection: &mut ::billing_persistence::DbConnection,
                    caller: &::billing_auth::AuthenticatedUser,
                    input: Input,
                ) -> ApiResult<Record> {
                    let (changes, children) = input.changes(connection, None)?;
                    $($crate::machinery::resource::check_scope_of_write(
                        caller, ::billing_domain::json_name!($scope), changes.$scope,
                    )?;)?
                    <super::$name as $crate::machinery::declared::Hooks>::check_write(connection, caller, None, &changes)?;
                    let row = storage::insert(connection, &changes)?;
                    children.write(connection, row.id)?;
                    Record::assemble(connection, row)
                }

                fn replace(
                    connection: &mut ::billing_persistence::DbConnection,
                    caller: &::billing_auth::AuthenticatedUser,
                    current: &Record,
                    input: Input,
                ) -> ApiResult<Option<Record>> {
                    <super::$name as $crate::machinery::declared::Hooks>::check_change(connection, caller, current)?;
                    let (changes, children) = input.changes(connection, Some(current))?;
                    $($crate::machinery::resource::check_scope_of_write(
                        caller, ::billing_domain::json_name!($scope), changes.$scope,
                    )?;)?
                    <super::$name as $crate::machinery::declared::Hooks>::check_write(connection, caller, Some(current), &changes)?;
                    // The record's row is rewritten even when only its children change, so its
                    // version (and ETag) moves and a concurrent writer of the same version loses.
                    let Some(row) = storage::update(connection, current.id, current.version, &changes)? else {
                        return Ok(None);
                    };
                    children.write(connection, row.id)?;
                    Record::assemble(connection, row).map(Some)
                }

                fn delete(
                    connection: &mut ::billing_persistence::DbConnection,
                    caller: &::billing_auth::AuthenticatedUser,
                    current: &Record,
                ) -> ApiResult<bool> {
                    <super::$name as $crate::machinery::declared::Hooks>::check_change(connection, caller, current)?;
                    <super::$name as $crate::machinery::declared::Hooks>::check_delete(connection, caller, current)?;
                    // Children first; if the record changed meanwhile the delete below finds
                    // nothing and the caller rolls the whole transaction back.
                    $($(::billing_persistence::$ctable::delete_of(connection, current.id)?;)*)?
                    Ok(storage::delete(connection, current.id, current.version)?)
                }
            }
        }
        pub use self::declared::{Input, Record};
    };
}

/// Serves an owned child table (a declaration a parent's `children` section names) as the
/// elements of the parent's list: the element record (with its read-only `id`), the element
/// input, its field list and its checks. Invoke as
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
            ),* $(,)?
        }
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
            }

            impl From<storage::Row> for Record {
                fn from(row: storage::Row) -> Self {
                    Self {
                        id: row.id,
                        $($field: $crate::api_convert!($access, row.$field),)*
                    }
                }
            }

            /// An element of a body. `id` is only ever the stored element's own: the member
            /// checks refuse it in anything a client sent.
            #[derive(Debug, ::serde::Deserialize, ::garde::Validate)]
            #[serde(rename_all = "camelCase", deny_unknown_fields)]
            pub struct Input {
                #[serde(default)]
                #[garde(skip)]
                pub id: Option<i64>,
                $(
                    #[serde(default)]
                    #[garde(custom($crate::machinery::kinds::$access::<$kind $(<$($param),*>)?>))]
                    pub $field: $crate::api_type!(Input $access $kind $(<$($param),*>)?),
                )*
            }

            impl Input {
                /// The element's id (when it came from the stored record) and columns, once
                /// its rules and references hold; errors name members within the element.
                #[allow(unused_variables, unused_mut)]
                pub fn changes(
                    &self,
                    connection: &mut ::billing_persistence::DbConnection,
                ) -> ApiResult<(Option<i64>, storage::Changes)> {
                    $(let $field = $crate::api_value!($access, $kind $(<$($param),*>)?, &self.$field, (), ());)*
                    let mut errors = ::billing_domain::ValidationErrors::default();
                    $(errors.collect(::billing_domain::rules::$rule($(&$rule_arg),*));)*
                    if !errors.is_empty() {
                        return Err(errors.into());
                    }
                    $($($crate::api_reference!(connection, $access, $field, $rtable, $rnoun);)?)*
                    Ok((self.id, storage::Changes { $($field,)* }))
                }
            }

            /// An element's members, for the parent's field list and the member checks.
            pub const FIELDS: &[Field] = &[
                $crate::resources::common::ID,
                $(Field::$access(
                    ::billing_domain::json_name!($field),
                    <$kind $(<$($param),*>)? as ApiKind>::FIELD_TYPE,
                    ::billing_domain::kinds::doc_text(concat!($($doc),*)),
                ),)*
            ];
        }
        pub use self::declared::{FIELDS, Input, Record};
    };
}

/// The field of an owned list: `list` may be left out (empty) but is never null;
/// `non_empty_list` is required and holds at least one element.
#[macro_export]
#[doc(hidden)]
macro_rules! api_children_field {
    (list, $name:expr, $element:expr, $doc:expr) => {
        $crate::machinery::resource::Field::optional(
            $name,
            $crate::machinery::resource::FieldType::Array($element),
            $doc,
        )
        .not_null()
        .owned()
    };
    (non_empty_list, $name:expr, $element:expr, $doc:expr) => {
        $crate::machinery::resource::Field::required(
            $name,
            $crate::machinery::resource::FieldType::Array($element),
            $doc,
        )
        .non_empty()
        .owned()
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
    ($stamp:ident, $value:expr) => {
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
    (created, DateTime, $input:expr, $current:expr, $now:expr) => {
        ($current).map_or($now, |stamp| stamp.0)
    };
    (updated, DateTime, $input:expr, $current:expr, $now:expr) => {
        $now
    };
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

/// The first of the given expressions (an optional setting, then its default).
#[macro_export]
#[doc(hidden)]
macro_rules! first_of {
    ($first:expr $(, $rest:expr)*) => {
        $first
    };
}
