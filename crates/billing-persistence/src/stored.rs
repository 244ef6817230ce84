//! Storage derived from a resource declaration (`billing_domain::resources`): the row (checked
//! against `schema.rs` on both backends by `Selectable`), the changes a write sets, and `find`,
//! `exists`, `insert`, `update`, `delete` and `list` with a filter and a sort key for every
//! declared field. Invoke as `billing_domain::charge_groups!(crate::stored_resource)` in the
//! module named after the table; filters that are not fields are given with
//! `extra_filters { name => kind(column…) }`.

/// Expands a declaration into a table's storage (see the module documentation).
#[macro_export]
macro_rules! stored_resource {
    (
        ( $( extra_filters { $($xname:ident => $xkind:ident($($xcolumn:tt)+)),* $(,)? } )? )
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
        $(headers { $($headers:tt)* })?
        rules { $($rules:tt)* }
        extra_filters { $($declared_extra:tt)* }
    ) => {
        mod stored {
            #[allow(unused_imports)]
            use ::billing_domain::kinds::*;
            use $crate::error::PersistenceResult;
            use $crate::schema::$table;

            /// A stored record, as `schema.rs` says the table is.
            #[derive(Debug, Clone, PartialEq, ::diesel::Queryable, ::diesel::Selectable)]
            #[diesel(table_name = $crate::schema::$table)]
            #[diesel(check_for_backend(::diesel::pg::Pg, ::diesel::sqlite::Sqlite))]
            pub struct Row {
                pub id: i64,
                $(pub $field: $crate::stored_type!($access $kind $(<$($param),*>)?),)*
                pub version: i64,
            }

            /// Every writable column of a record: what create and replace write.
            #[derive(Debug, Clone, PartialEq, ::diesel::Insertable, ::diesel::AsChangeset)]
            #[diesel(table_name = $crate::schema::$table, treat_none_as_null = true)]
            pub struct Changes {
                $(pub $field: $crate::stored_type!($access $kind $(<$($param),*>)?),)*
            }

            pub fn find(
                connection: &mut $crate::DbConnection,
                id: i64,
            ) -> PersistenceResult<Option<Row>> {
                use ::diesel::prelude::*;
                // On the concrete connection, with no `LIMIT ?`: see `on_backend!`.
                Ok($crate::on_backend!(connection, |c| $table::table
                    .find(id)
                    .select(Row::as_select())
                    .get_result::<Row>(c)
                    .optional())?)
            }

            pub fn exists(connection: &mut $crate::DbConnection, id: i64) -> PersistenceResult<bool> {
                use ::diesel::prelude::*;
                Ok(::diesel::select(::diesel::dsl::exists($table::table.find(id)))
                    .get_result(connection)?)
            }

            /// The rows with these ids (those that exist): one query per
            /// [`MAX_IN_LIST`]($crate::MAX_IN_LIST) ids.
            pub fn find_many(connection: &mut $crate::DbConnection, ids: &[i64]) -> PersistenceResult<Vec<Row>> {
                use ::diesel::prelude::*;
                $crate::in_chunks(ids, |chunk| {
                    Ok($table::table
                        .filter($table::id.eq_any(chunk))
                        .select(Row::as_select())
                        .load(connection)?)
                })
            }

            /// Which of `ids` are stored: one query per [`MAX_IN_LIST`]($crate::MAX_IN_LIST) ids.
            pub fn existing(connection: &mut $crate::DbConnection, ids: &[i64]) -> PersistenceResult<Vec<i64>> {
                use ::diesel::prelude::*;
                $crate::in_chunks(ids, |chunk| {
                    Ok($table::table.filter($table::id.eq_any(chunk)).select($table::id).load(connection)?)
                })
            }

            pub fn insert(connection: &mut $crate::DbConnection, changes: &Changes) -> PersistenceResult<Row> {
                use ::diesel::prelude::*;
                let id: i64 = ::diesel::insert_into($table::table)
                    .values(changes)
                    .returning($table::id)
                    .get_result(connection)?;
                find(connection, id)?.ok_or_else(|| {
                    $crate::PersistenceError::Corrupt("an inserted row cannot be read back".into())
                })
            }

            /// `None` when the row is gone or no longer at `expected_version` (of two writers
            /// holding the same version, exactly one wins).
            pub fn update(
                connection: &mut $crate::DbConnection,
                id: i64,
                expected_version: i64,
                changes: &Changes,
            ) -> PersistenceResult<Option<Row>> {
                use ::diesel::prelude::*;
                let updated = ::diesel::update(
                    $table::table.find(id).filter($table::version.eq(expected_version)),
                )
                .set((changes, $table::version.eq(expected_version + 1)))
                .execute(connection)?;
                if updated == 0 {
                    return Ok(None);
                }
                find(connection, id)
            }

            /// False when the row is gone or no longer at `expected_version`.
            pub fn delete(
                connection: &mut $crate::DbConnection,
                id: i64,
                expected_version: i64,
            ) -> PersistenceResult<bool> {
                use ::diesel::prelude::*;
                let deleted = $crate::references::delete_row(connection, stringify!($table), id, |c| {
                    ::diesel::delete(
                        $table::table.find(id).filter($table::version.eq(expected_version)),
                    )
                    .execute(c)
                })?;
                Ok(deleted == 1)
            }

            /// One page of rows matching the query and visible in `scope` (one select and,
            /// unless the page says the total, one count: see [`crate::counts`]), and how many
            /// rows match in all. A declaration with a `scope` section filters on that column
            /// in SQL; others show every row whatever the scope.
            #[allow(unused_variables)]
            pub fn list(
                connection: &mut $crate::DbConnection,
                query: &::billing_domain::query::ListQuery,
                scope: &::billing_domain::roles::ContractOwnerScope,
            ) -> PersistenceResult<(Vec<Row>, i64)> {
                use ::diesel::prelude::*;
                let filtered = $crate::declared_filters!(
                    $table::table.select(Row::as_select()).into_boxed(), &query.filters, $table,
                    { $($field $(as $sname)? : $access $kind,)* },
                    { $($($xname => $xkind($($xcolumn)+),)*)? }
                );
                let scoped = $crate::scope_filter!(filtered, scope, $($table::$scope $(, $stable . $sowner)*)?);
                let mut sorted = $crate::list::OrderTerms::new();
                for key in &query.sort {
                    let name = key.field;
                    if name == "id" {
                        sorted = $crate::sort_column!(plain, sorted, $table::id, key.descending);
                        continue;
                    }
                    $(
                        if name == ::billing_domain::member_name!($field $(, $sname)?) {
                            sorted = $crate::access_sort!($access, sorted, $table::$field, key.descending);
                            continue;
                        }
                    )*
                    // A member of an owned single object: `siteAddress.town`.
                    $($(
                        $crate::nested_sort!($cmult, $ctable, (sorted, name, key, $table, $cfield));
                    )*)?
                    return Err($crate::PersistenceError::UnknownField(name.to_owned()));
                }
                let mut sorted = scoped.order_by(sorted.then_order_by($table::id.asc()));
                if let Some(page) = query.page {
                    sorted = sorted.limit(page.limit()).offset(page.offset());
                }
                let rows = sorted.load::<Row>(connection)?;
                let total = $crate::counts::total(
                    connection,
                    query.page,
                    rows.len(),
                    || $crate::counts::key(stringify!($table), &query.filters, scope),
                    |connection| {
                        let counted = $crate::declared_filters!(
                            $table::table.count().into_boxed(), &query.filters, $table,
                            { $($field $(as $sname)? : $access $kind,)* },
                            { $($($xname => $xkind($($xcolumn)+),)*)? }
                        );
                        Ok($crate::scope_filter!(counted, scope, $($table::$scope $(, $stable . $sowner)*)?)
                            .get_result(connection)?)
                    },
                )?;
                Ok((rows, total))
            }
        }
        pub use self::stored::*;
    };
}

/// Expands the declaration of an owned child table (one that a parent's `children` section
/// names) into its storage: the row, the changes of one element, the elements of a page of
/// parents in one query, and the write that makes a parent's elements exactly a given list.
/// Invoke as `billing_domain::contract_owner_sub_brands!(crate::stored_child, parent: contract_owner_id)`.
/// The table has `id`, the parent's id column and `ordinal` (the element's place in the list).
#[macro_export]
macro_rules! stored_child {
    (
        ( parent: $parent:ident )
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
        $(children { $($children:tt)* })?
        rules { $($rules:tt)* }
        extra_filters { $($declared_extra:tt)* }
    ) => {
        mod stored {
            #[allow(unused_imports)]
            use ::billing_domain::kinds::*;
            use $crate::error::PersistenceResult;
            use $crate::schema::$table;

            /// The column naming an element's parent (for sorting parents by a member).
            pub use $crate::schema::$table::$parent as parent_column;

            /// A stored element, as `schema.rs` says the table is.
            #[derive(Debug, Clone, PartialEq, ::diesel::Queryable, ::diesel::Selectable)]
            #[diesel(table_name = $crate::schema::$table)]
            #[diesel(check_for_backend(::diesel::pg::Pg, ::diesel::sqlite::Sqlite))]
            pub struct Row {
                pub id: i64,
                #[diesel(column_name = $parent)]
                pub parent_id: i64,
                $(pub $field: $crate::stored_type!($access $kind $(<$($param),*>)?),)*
            }

            /// The writable columns of one element.
            #[derive(Debug, Clone, PartialEq, ::diesel::Insertable, ::diesel::AsChangeset)]
            #[diesel(table_name = $crate::schema::$table, treat_none_as_null = true)]
            pub struct Changes {
                $(pub $field: $crate::stored_type!($access $kind $(<$($param),*>)?),)*
            }

            /// The elements of every parent in `parent_ids`, each parent's in list order: one
            /// query for a whole page of parents.
            pub fn of_parents(
                connection: &mut $crate::DbConnection,
                parent_ids: &[i64],
            ) -> PersistenceResult<Vec<Row>> {
                use ::diesel::prelude::*;
                $crate::in_chunks(parent_ids, |chunk| {
                    Ok($table::table
                        .filter($table::$parent.eq_any(chunk))
                        .order(($table::$parent.asc(), $table::ordinal.asc()))
                        .select(Row::as_select())
                        .load(connection)?)
                })
            }

            /// Makes the elements of `parent_id` exactly `elements`, in order, and gives
            /// their ids in that order. An element with the id of one of the parent's elements
            /// updates it (once: a second element with the same id is new); any other element
            /// is inserted; elements left out are deleted (with their own children: ON DELETE
            /// CASCADE). Runs inside the caller's transaction.
            pub fn write(
                connection: &mut $crate::DbConnection,
                parent_id: i64,
                elements: &[(Option<i64>, &Changes)],
            ) -> PersistenceResult<Vec<i64>> {
                use ::diesel::prelude::*;
                let existing: Vec<i64> = $table::table
                    .filter($table::$parent.eq(parent_id))
                    .select($table::id)
                    .load(connection)?;
                let mut kept: Vec<i64> = Vec::with_capacity(elements.len());
                let mut plan = Vec::with_capacity(elements.len());
                for (id, changes) in elements {
                    let reused = id.filter(|id| existing.contains(id) && !kept.contains(id));
                    if let Some(id) = reused {
                        kept.push(id);
                    }
                    plan.push((reused, changes));
                }
                let gone: Vec<i64> = existing.into_iter().filter(|id| !kept.contains(id)).collect();
                $crate::in_chunks(&gone, |chunk| {
                    ::diesel::delete($table::table.filter($table::id.eq_any(chunk))).execute(connection)?;
                    Ok(Vec::<()>::new())
                })?;
                let mut ids = Vec::with_capacity(plan.len());
                for (ordinal, (reused, changes)) in plan.into_iter().enumerate() {
                    let ordinal = ordinal as i64;
                    match reused {
                        Some(id) => {
                            ::diesel::update($table::table.find(id))
                                .set((*changes, $table::ordinal.eq(ordinal)))
                                .execute(connection)?;
                            ids.push(id);
                        }
                        None => {
                            let id: i64 = ::diesel::insert_into($table::table)
                                .values((*changes, $table::$parent.eq(parent_id), $table::ordinal.eq(ordinal)))
                                .returning($table::id)
                                .get_result(connection)?;
                            ids.push(id);
                        }
                    }
                }
                Ok(ids)
            }

            /// Whether `id` is one of the elements of `parent_id`.
            pub fn is_element_of(
                connection: &mut $crate::DbConnection,
                parent_id: i64,
                id: i64,
            ) -> PersistenceResult<bool> {
                use ::diesel::prelude::*;
                Ok(::diesel::select(::diesel::dsl::exists(
                    $table::table.find(id).filter($table::$parent.eq(parent_id)),
                ))
                .get_result(connection)?)
            }

            /// Removes every element of `parent_id` (before the parent itself goes).
            pub fn delete_of(connection: &mut $crate::DbConnection, parent_id: i64) -> PersistenceResult<()> {
                use ::diesel::prelude::*;
                ::diesel::delete($table::table.filter($table::$parent.eq(parent_id))).execute(connection)?;
                Ok(())
            }
        }
        pub use self::stored::*;
    };
}

/// Sorts a page by the members of an owned single object (`one`, `optional_one`); lists have
/// no member to sort by. Expands the child's declaration into one arm per member.
#[macro_export]
#[doc(hidden)]
macro_rules! nested_sort {
    (one, $ctable:ident, $with:tt) => {
        ::billing_domain::$ctable!($crate::nested_sort_arms, $with)
    };
    (optional_one, $ctable:ident, $with:tt) => {
        ::billing_domain::$ctable!($crate::nested_sort_arms, $with)
    };
    ($multiplicity:ident, $ctable:ident, $with:tt) => {};
}

/// One sort arm per member of a child table: `parent.member` orders by a correlated subquery
/// of the child's value (NULL, when the object is absent, sorts as the largest value).
#[macro_export]
#[doc(hidden)]
macro_rules! nested_sort_arms {
    (
        (($sorted:ident, $name:ident, $key:ident, $parent:ident, $cfield:ident))
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
        $(children { $($children:tt)* })?
        rules { $($rules:tt)* }
        extra_filters { $($declared_extra:tt)* }
    ) => {
        if let Some((object, member)) = $name.split_once('.')
            && object == ::billing_domain::json_name!($cfield)
        {
            $(
                if member == ::billing_domain::json_name!($field) {
                    let value = $crate::schema::$table::table
                        .filter($crate::$table::parent_column.eq($crate::schema::$parent::id))
                        .select($crate::schema::$table::$field)
                        .single_value();
                    $sorted = $crate::sort_column!(nullable, $sorted, value, $key.descending);
                    continue;
                }
            )*
        }
    };
}

/// Keeps the rows of a boxed query whose scope column is among the caller's contract owners
/// (every row for an unrestricted caller, or for a declaration without a `scope` section).
#[macro_export]
#[doc(hidden)]
macro_rules! scope_filter {
    ($query:expr, $scope:expr, ) => {
        $query
    };
    ($query:expr, $scope:expr, $column:expr $(, $stable:ident . $sowner:ident)*) => {
        match $scope {
            ::billing_domain::roles::ContractOwnerScope::All => $query,
            ::billing_domain::roles::ContractOwnerScope::Only(ids) => {
                $query.filter($crate::scope_condition!(ids, $column $(, $stable . $sowner)*))
            }
        }
    };
}

/// The condition that `$column` belongs to one of `ids` (contract owners): directly, or through
/// the records it names (`site_id in sites.customer_id in customers.contract_owner_id`: the
/// site's customer's contract owner), as nested subqueries.
#[macro_export]
#[doc(hidden)]
macro_rules! scope_condition {
    ($ids:ident, $column:expr) => {
        $column.eq_any($ids.clone())
    };
    ($ids:ident, $column:expr, $stable:ident . $sowner:ident $(, $rest_table:ident . $rest_column:ident)*) => {
        $column.eq_any(
            $crate::schema::$stable::table
                .filter($crate::scope_condition!(
                    $ids, $crate::schema::$stable::$sowner $(, $rest_table . $rest_column)*
                ))
                .select($crate::schema::$stable::id),
        )
    };
}

/// The stored Rust type of a declared field.
#[macro_export]
#[doc(hidden)]
macro_rules! stored_type {
    (required $kind:ident $(<$($param:tt),*>)?) => {
        <$kind $(<$($param),*>)? as ::billing_domain::kinds::Kind>::Value
    };
    (optional $kind:ident $(<$($param:tt),*>)?) => {
        Option<<$kind $(<$($param),*>)? as ::billing_domain::kinds::Kind>::Value>
    };
    (derived $kind:ident $(<$($param:tt),*>)?) => {
        Option<<$kind $(<$($param),*>)? as ::billing_domain::kinds::Kind>::Value>
    };
    (defaulted $kind:ident $(<$($param:tt),*>)?) => {
        <$kind $(<$($param),*>)? as ::billing_domain::kinds::Kind>::Value
    };
    (write_only $kind:ident) => {
        <$kind as ::billing_domain::kinds::Kind>::Value
    };
    (kept $kind:ident) => {
        Option<<$kind as ::billing_domain::kinds::Kind>::Value>
    };
    (created $kind:ident) => {
        <$kind as ::billing_domain::kinds::Kind>::Value
    };
    (updated $kind:ident) => {
        <$kind as ::billing_domain::kinds::Kind>::Value
    };
}

/// Applies every filter to a boxed query: `id`, each declared field by its kind, and the
/// extra filters; an unknown name is an error (the http layer only passes declared ones).
#[macro_export]
#[doc(hidden)]
macro_rules! declared_filters {
    (
        $query:expr, $filters:expr, $table:ident,
        { $($field:ident $(as $sname:ident)? : $access:ident $kind:ident,)* },
        { $($xname:ident => $xkind:ident($($xcolumn:tt)+),)* }
    ) => {{
        let mut query = $query;
        for filter in $filters {
            let name = filter.field;
            if name == "id" {
                query = $crate::filter_column!(id, query, ($table::id), &filter.filter, name);
                continue;
            }
            $(
                if name == ::billing_domain::member_name!($field $(, $sname)?) {
                    query = $crate::kind_filter!($access $kind, query, ($table::$field), &filter.filter, name);
                    continue;
                }
            )*
            $(
                if name == ::billing_domain::json_name!($xname) {
                    query = $crate::filter_column!($xkind, query, ($($xcolumn)+), &filter.filter, name);
                    continue;
                }
            )*
            return Err($crate::PersistenceError::UnknownField(name.to_owned()));
        }
        query
    }};
}

/// The filter of a field of `kind`: text kinds filter as text, ids as ids, dates as dates
/// (`gtn:` matching open-ended rows when the field is optional).
#[macro_export]
#[doc(hidden)]
macro_rules! kind_filter {
    (defaulted $kind:ident, $($rest:tt)*) => { $crate::kind_filter!(required $kind, $($rest)*) };
    (kept $kind:ident, $($rest:tt)*) => { $crate::kind_filter!(optional $kind, $($rest)*) };
    // A write-only member (a password's hash) is never a filter.
    (write_only $kind:ident, $query:ident, $column:tt, $filter:expr, $name:expr) => {
        match Err::<(), _>($crate::PersistenceError::UnknownField($name.to_owned())) {
            Ok(()) => $query,
            Err(error) => return Err(error),
        }
    };
    ($access:ident Username, $($rest:tt)*) => { $crate::kind_filter!($access Text, $($rest)*) };
    ($access:ident RoleCodes, $($rest:tt)*) => { $crate::kind_filter!($access Text, $($rest)*) };
    (derived $kind:ident, $($rest:tt)*) => { $crate::kind_filter!(optional $kind, $($rest)*) };
    ($access:ident Postcode, $($rest:tt)*) => { $crate::kind_filter!($access Text, $($rest)*) };
    ($access:ident Telephone, $($rest:tt)*) => { $crate::kind_filter!($access Text, $($rest)*) };
    ($access:ident Email, $($rest:tt)*) => { $crate::kind_filter!($access Text, $($rest)*) };
    ($access:ident AccountNumber, $($rest:tt)*) => { $crate::kind_filter!($access Text, $($rest)*) };
    ($access:ident SortCode, $($rest:tt)*) => { $crate::kind_filter!($access Text, $($rest)*) };
    ($access:ident IdList, $($rest:tt)*) => { $crate::kind_filter!($access Text, $($rest)*) };
    ($access:ident TemplateComponents, $($rest:tt)*) => { $crate::kind_filter!($access Text, $($rest)*) };
    ($access:ident Integer, $($rest:tt)*) => { $crate::filter_column!(decimal, $($rest)*) };
    (required Text, $($rest:tt)*) => { $crate::filter_column!(text, $($rest)*) };
    (required Letters, $($rest:tt)*) => { $crate::filter_column!(text, $($rest)*) };
    (required Symbol, $($rest:tt)*) => { $crate::filter_column!(text, $($rest)*) };
    (required CurrencyCode, $($rest:tt)*) => { $crate::filter_column!(text, $($rest)*) };
    (required CountryCode, $($rest:tt)*) => { $crate::filter_column!(text, $($rest)*) };
    (required Enum, $($rest:tt)*) => { $crate::filter_column!(text, $($rest)*) };
    (required Digits, $($rest:tt)*) => { $crate::filter_column!(text, $($rest)*) };
    (optional Text, $($rest:tt)*) => { $crate::filter_column!(nullable_text, $($rest)*) };
    (optional Enum, $($rest:tt)*) => { $crate::filter_column!(nullable_text, $($rest)*) };
    ($access:ident Id, $($rest:tt)*) => { $crate::filter_column!(id, $($rest)*) };
    ($access:ident Bool, $($rest:tt)*) => { $crate::filter_column!(boolean, $($rest)*) };
    ($access:ident Decimal, $($rest:tt)*) => { $crate::filter_column!(decimal, $($rest)*) };
    ($access:ident DateTime, $($rest:tt)*) => { $crate::filter_column!(date_time, $($rest)*) };
    (required Date, $($rest:tt)*) => { $crate::filter_column!(date, $($rest)*) };
    (optional Date, $($rest:tt)*) => { $crate::filter_column!(nullable_date, $($rest)*) };
}

/// The sort of a field: optional fields sort NULL as the largest value on both backends.
#[macro_export]
#[doc(hidden)]
macro_rules! access_sort {
    (required, $query:ident, $column:expr, $descending:expr) => {
        $crate::sort_column!(plain, $query, $column, $descending)
    };
    (optional, $query:ident, $column:expr, $descending:expr) => {
        $crate::sort_column!(nullable, $query, $column, $descending)
    };
    (derived, $query:ident, $column:expr, $descending:expr) => {
        $crate::sort_column!(nullable, $query, $column, $descending)
    };
    (kept, $query:ident, $column:expr, $descending:expr) => {
        $crate::sort_column!(nullable, $query, $column, $descending)
    };
    // A write-only member (a password's hash) is never a sort key (the http layer does not
    // offer it either).
    (write_only, $query:ident, $column:expr, $descending:expr) => {
        match Err::<(), _>($crate::PersistenceError::UnknownField(
            stringify!($column).to_owned(),
        )) {
            Ok(()) => $query,
            Err(error) => return Err(error),
        }
    };
    ($stamp:ident, $query:ident, $column:expr, $descending:expr) => {
        $crate::sort_column!(plain, $query, $column, $descending)
    };
}
