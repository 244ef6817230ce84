//! `GET /v1/user-roles` (docs/api.md "Authentication and users"): the built-in roles and their permissions; read-only,
//! keyed by code, served with the list conventions from memory (roles are not stored).

use billing_auth::AuthenticatedUser;
use billing_domain::query::{Filter, ListQuery};
use billing_domain::roles::{Permission, Role};
use billing_persistence::DbConnection;
use serde::Serialize;

use super::common::NoInput;
use crate::machinery::resource::{
    ApiResult, Field, FieldType, FilterParam, Operations, Resource, Versioned,
};

#[derive(Debug, Clone, Serialize)]
pub struct UserRole {
    pub code: &'static str,
    pub name: &'static str,
    pub description: &'static str,
    pub permissions: Vec<&'static str>,
}

impl From<Role> for UserRole {
    fn from(role: Role) -> Self {
        Self {
            code: role.code(),
            name: role.name(),
            description: role.description(),
            permissions: role.permissions().iter().map(|p| p.code()).collect(),
        }
    }
}

/// Roles are built in and keyed by code: no numeric id, always version 1.
impl Versioned for UserRole {
    fn id(&self) -> i64 {
        0
    }

    fn version(&self) -> i64 {
        1
    }
}

const CODE: FieldType = FieldType::Pattern {
    pattern: "^[A-Z_]+$",
    min: 1,
    max: 50,
    example: "BILLING_MANAGER",
};
const WORDS: FieldType = FieldType::Text { min: 1, max: 200 };

pub struct UserRoles;

impl UserRoles {
    /// The text of `role` a filter or sort key names.
    fn member(role: &UserRole, name: &str) -> &'static str {
        match name {
            "name" => role.name,
            _ => role.code,
        }
    }
}

impl Resource for UserRoles {
    const PATH: &'static str = "user-roles";
    const NOUN: &'static str = "user role";
    const DESCRIPTION: &'static str = "The built-in roles and the permissions each grants; read-only. \
        Users name them in `roles`. Listed in the order below unless sorted.";
    // Every built-in role holds it: any signed-in user may read the roles.
    const READ: Permission = Permission::ReadReferenceData;
    const WRITE: Permission = Permission::ManageUsers;
    const OPERATIONS: Operations = Operations {
        get: false,
        ..Operations::READ_ONLY
    };
    const FIELDS: &'static [Field] = &[
        Field::read_only("code", CODE, "The role's code, as users' `roles` name it."),
        Field::read_only("name", WORDS, "Display name."),
        Field::read_only("description", WORDS, "What a user with it may do."),
        Field::read_only(
            "permissions",
            FieldType::Array(&CODE),
            "The permissions it grants.",
        )
        .at_most(billing_domain::roles::Permission::ALL.len()),
    ];

    fn filters() -> &'static [FilterParam] {
        super::common::CODE_AND_NAME_FILTERS
    }

    fn sort_keys() -> &'static [&'static str] {
        &["code", "name"]
    }

    type Record = UserRole;
    type Input = NoInput;

    fn list(
        _: &mut DbConnection,
        _: &AuthenticatedUser,
        query: &ListQuery,
    ) -> ApiResult<(Vec<UserRole>, i64)> {
        let mut roles: Vec<UserRole> = Role::ALL
            .into_iter()
            .map(UserRole::from)
            .filter(|role| {
                query.filters.iter().all(|filter| match &filter.filter {
                    Filter::Text(text) => text.matches(Self::member(role, filter.field)),
                    _ => false,
                })
            })
            .collect();
        // A stable sort, key by key from the last: the first key decides, ties keep the order
        // of `Role::ALL`.
        for key in query.sort.iter().rev() {
            roles.sort_by(|a, b| {
                let order = Self::member(a, key.field).cmp(Self::member(b, key.field));
                if key.descending {
                    order.reverse()
                } else {
                    order
                }
            });
        }
        let total = roles.len() as i64;
        if let Some(page) = query.page {
            let offset = usize::try_from(page.offset()).unwrap_or(usize::MAX);
            let limit = usize::try_from(page.limit()).unwrap_or(usize::MAX);
            roles = roles.into_iter().skip(offset).take(limit).collect();
        }
        Ok((roles, total))
    }

    fn find(_: &mut DbConnection, _: &AuthenticatedUser, _: i64) -> ApiResult<Option<UserRole>> {
        Ok(None)
    }
}
