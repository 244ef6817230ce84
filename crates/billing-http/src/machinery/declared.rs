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

    /// May these values be written (by a create, or a replace of a record that passed
    /// `check_change`)?
    fn check_write(
        connection: &mut DbConnection,
        caller: &AuthenticatedUser,
        changes: &Self::Changes,
    ) -> ApiResult<()> {
        let _ = (connection, caller, changes);
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
            ),* $(,)?
        }
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
                #[serde(skip)]
                pub version: i64,
            }

            impl From<storage::Row> for Record {
                fn from(row: storage::Row) -> Self {
                    Self {
                        id: row.id,
                        $($field: $crate::api_convert!($access, row.$field),)*
                        version: row.version,
                    }
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
            }

            impl Input {
                /// The values to store, once the rules across fields and the references hold.
                #[allow(unused_variables, unused_mut)]
                pub fn changes(
                    &self,
                    connection: &mut ::billing_persistence::DbConnection,
                ) -> ApiResult<storage::Changes> {
                    $(let $field = $crate::api_value!($access, $kind $(<$($param),*>)?, &self.$field);)*
                    let mut errors = ::billing_domain::ValidationErrors::default();
                    $(errors.collect(::billing_domain::rules::$rule($(&$rule_arg),*));)*
                    if !errors.is_empty() {
                        return Err(errors.into());
                    }
                    $($($crate::api_reference!(connection, $access, $field, $rtable, $rnoun);)?)*
                    Ok(storage::Changes { $($field,)* })
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
                    _: &::billing_auth::AuthenticatedUser,
                    query: &::billing_domain::query::ListQuery,
                ) -> ApiResult<(Vec<Record>, i64)> {
                    Ok($crate::machinery::resource::page(storage::list(connection, query)?))
                }

                fn find(
                    connection: &mut ::billing_persistence::DbConnection,
                    _: &::billing_auth::AuthenticatedUser,
                    id: i64,
                ) -> ApiResult<Option<Record>> {
                    Ok(storage::find(connection, id)?.map(Record::from))
                }

                fn create(
                    connection: &mut ::billing_persistence::DbConnection,
                    caller: &::billing_auth::AuthenticatedUser,
                    input: Input,
                ) -> ApiResult<Record> {
                    let changes = input.changes(connection)?;
                    <super::$name as $crate::machinery::declared::Hooks>::check_write(connection, caller, &changes)?;
                    Ok(storage::insert(connection, &changes)?.into())
                }

                fn replace(
                    connection: &mut ::billing_persistence::DbConnection,
                    caller: &::billing_auth::AuthenticatedUser,
                    current: &Record,
                    input: Input,
                ) -> ApiResult<Option<Record>> {
                    <super::$name as $crate::machinery::declared::Hooks>::check_change(connection, caller, current)?;
                    let changes = input.changes(connection)?;
                    <super::$name as $crate::machinery::declared::Hooks>::check_write(connection, caller, &changes)?;
                    Ok(storage::update(connection, current.id, current.version, &changes)?.map(Record::from))
                }

                fn delete(
                    connection: &mut ::billing_persistence::DbConnection,
                    caller: &::billing_auth::AuthenticatedUser,
                    current: &Record,
                ) -> ApiResult<bool> {
                    <super::$name as $crate::machinery::declared::Hooks>::check_change(connection, caller, current)?;
                    <super::$name as $crate::machinery::declared::Hooks>::check_delete(connection, caller, current)?;
                    Ok(storage::delete(connection, current.id, current.version)?)
                }
            }
        }
        pub use self::declared::{Input, Record};
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
}

/// The domain value of what a body carried.
#[macro_export]
#[doc(hidden)]
macro_rules! api_value {
    (required, $kind:ty, $input:expr) => {
        <$kind as $crate::machinery::kinds::ApiKind>::value($input)
    };
    (optional, $kind:ty, $input:expr) => {
        ($input)
            .as_ref()
            .map(<$kind as $crate::machinery::kinds::ApiKind>::value)
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
