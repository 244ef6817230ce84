//! `/v1/users` (decisions §2): API accounts, managed by administrators. `password` is
//! write-only; `POST` takes one user or an array (all or nothing).

use billing_auth::AuthenticatedUser;
use billing_domain::ValidationErrors;
use billing_domain::query::{FilterKind, ListQuery};
use billing_domain::roles::{Permission, Role};
use billing_domain::users::{check_email, check_password, check_username, parse_roles};
use billing_persistence::users::{self, NewUser, UserChanges, UserRow, join_list};
use billing_persistence::{DbConnection, refresh_tokens};
use chrono::NaiveDateTime;
use serde::{Deserialize, Serialize};

use super::common::ID;
use crate::error::ApiError;
use crate::machinery::resource::{
    ApiResult, Field, FieldType, FilterParam, Operations, Prepared, Resource,
};
use crate::machinery::serde_dates::{serialize_date_time, serialize_optional_date_time};
use crate::state::AppState;

#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct User {
    pub id: i64,
    pub username: String,
    pub email: Option<String>,
    pub active: bool,
    pub roles: Vec<String>,
    pub contract_owner_ids: Vec<i64>,
    #[serde(serialize_with = "serialize_date_time")]
    pub created_date: NaiveDateTime,
    #[serde(serialize_with = "serialize_date_time")]
    pub updated_date: NaiveDateTime,
    #[serde(serialize_with = "serialize_optional_date_time")]
    pub last_login_date: Option<NaiveDateTime>,
    #[serde(skip)]
    pub version: i64,
}

impl User {
    /// A stored user and the contract owners it is restricted to.
    pub fn from_row(row: UserRow, contract_owner_ids: Vec<i64>) -> Self {
        Self {
            id: row.id,
            roles: row.role_codes(),
            contract_owner_ids,
            username: row.username,
            email: row.email,
            active: row.active,
            created_date: row.created_date,
            updated_date: row.updated_date,
            last_login_date: row.last_login_date,
            version: row.version,
        }
    }
}

fn default_active() -> bool {
    true
}

#[derive(Debug, Deserialize, garde::Validate)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct UserInput {
    #[garde(length(chars, min = 1, max = 100))]
    pub username: String,
    #[serde(default)]
    #[garde(skip)]
    pub email: Option<String>,
    #[serde(default = "default_active")]
    #[garde(skip)]
    pub active: bool,
    #[garde(length(min = 1))]
    pub roles: Vec<String>,
    #[serde(default)]
    #[garde(inner(range(min = 1)))]
    pub contract_owner_ids: Vec<i64>,
    #[serde(default)]
    #[garde(skip)]
    pub password: Option<billing_auth::Secret>,
    /// The password's hash, made before the write transaction (`Users::prepare`).
    #[serde(skip)]
    #[garde(skip)]
    pub password_hash: Option<String>,
}

/// A user input that passed every rule.
struct CheckedUser {
    username: String,
    email: Option<String>,
    active: bool,
    roles: Vec<Role>,
    contract_owner_ids: Vec<i64>,
    password_hash: Option<String>,
}

impl UserInput {
    fn check(self, password_required: bool) -> ApiResult<CheckedUser> {
        let mut errors = ValidationErrors::default();
        errors.collect(check_username("username", &self.username));
        if let Some(email) = &self.email {
            errors.collect(check_email("email", email));
        }
        let roles = errors.collect(parse_roles("roles", &self.roles));
        match &self.password {
            Some(password) => {
                errors.collect(check_password("password", password.expose()));
            }
            None if password_required => {
                errors.push("password", "is required when creating a user")
            }
            None => {}
        }
        if !errors.is_empty() {
            return Err(errors.into());
        }
        if self.password.is_some() && self.password_hash.is_none() {
            return Err(ApiError::internal("a password reached the write unhashed"));
        }
        let password_hash = self.password_hash;
        let mut contract_owner_ids = self.contract_owner_ids;
        contract_owner_ids.sort_unstable();
        contract_owner_ids.dedup();
        Ok(CheckedUser {
            username: self.username,
            email: self.email,
            active: self.active,
            roles: roles.unwrap_or_default(),
            contract_owner_ids,
            password_hash,
        })
    }
}

fn role_codes(roles: &[Role]) -> String {
    join_list(&roles.iter().map(|role| role.code()).collect::<Vec<_>>())
}

/// 400 naming `contractOwnerIds` for each id that is not a contract owner, among those not
/// already the user's (the foreign key would refuse them too, but without naming the field).
fn check_contract_owners(
    connection: &mut DbConnection,
    ids: &[i64],
    already: &[i64],
) -> ApiResult<()> {
    let added: Vec<i64> = ids
        .iter()
        .copied()
        .filter(|id| !already.contains(id))
        .collect();
    let found = billing_persistence::contract_owners::existing(connection, &added)?;
    let mut errors = ValidationErrors::default();
    for id in added.iter().filter(|id| !found.contains(id)) {
        errors.push(
            "contractOwnerIds",
            format!("contract owner {id} does not exist"),
        );
    }
    errors.into_result(|| ()).map_err(ApiError::validation)
}

/// Refuses a change that would leave no active administrator.
fn ensure_an_administrator_remains(connection: &mut DbConnection) -> ApiResult<()> {
    if users::count_active_with_role(connection, Role::Administrator.code())? == 0 {
        return Err(ApiError::conflict(
            "at least one active ADMINISTRATOR must remain",
        ));
    }
    Ok(())
}

pub struct Users;

impl Resource for Users {
    const PATH: &'static str = "users";
    const NOUN: &'static str = "user";
    const DESCRIPTION: &'static str = "API users. password is write-only (12..128 characters) and never returned. \
        contractOwnerIds limits what the user sees (empty: every contract owner). Deactivating a user or changing \
        the password signs the user out everywhere. The last active ADMINISTRATOR cannot be removed (409).";
    const READ: Permission = Permission::ManageUsers;
    const WRITE: Permission = Permission::ManageUsers;
    const OPERATIONS: Operations = Operations {
        get: true,
        create: true,
        bulk_create: true,
        replace: false,
        patch: true,
        delete: false,
        bulk_update: true,
    };
    const FIELDS: &'static [Field] = &[
        ID,
        Field::required(
            "username",
            FieldType::Pattern {
                pattern: "^[\\p{L}\\p{N}._@-]{1,100}$",
                min: 1,
                max: 100,
                example: "jsmith",
            },
            "Unique, case-sensitive.",
        ),
        Field::optional(
            "email",
            FieldType::Pattern {
                pattern: "^[^@\\s]+@[^@\\s]+\\.[^@\\s]+$",
                min: 3,
                max: 255,
                example: "jsmith@example.com",
            },
            "Email address.",
        ),
        Field::optional(
            "active",
            FieldType::Boolean,
            "Inactive users cannot sign in; their tokens stop working. Default true.",
        )
        .not_null(),
        Field::required(
            "roles",
            FieldType::Array(&FieldType::Enum(&[
                "ADMINISTRATOR",
                "BILLING_MANAGER",
                "REFERENCE_DATA_MANAGER",
                "CUSTOMER_MANAGER",
                "READ_ONLY",
            ])),
            "Role codes (see /v1/user-roles).",
        )
        .non_empty(),
        Field::optional(
            "contractOwnerIds",
            FieldType::Array(&FieldType::Id),
            "Contract owners the user is limited to; empty means all.",
        )
        .not_null(),
        Field::read_only(
            "createdDate",
            FieldType::DateTime,
            "When the user was created (UTC).",
        ),
        Field::read_only(
            "updatedDate",
            FieldType::DateTime,
            "When the user was last changed (UTC).",
        ),
        Field::read_only(
            "lastLoginDate",
            FieldType::DateTime,
            "When the user last signed in (UTC), or null.",
        )
        .nullable(),
        Field::write_only(
            "password",
            FieldType::Pattern {
                pattern: billing_domain::users::PASSWORD_PATTERN,
                min: 12,
                max: 128,
                example: "correct horse battery staple",
            },
            "12..128 characters of any kind, not only whitespace. Required on create; never returned.",
        ),
    ];
    const FILTERS: &'static [FilterParam] = &[
        FilterParam::new("username", FilterKind::String, "Filter on the username."),
        FilterParam::new("active", FilterKind::Boolean, "Filter on active."),
        FilterParam::new(
            "createdDate",
            FilterKind::DateTime,
            "Filter on the creation time.",
        ),
        FilterParam::new(
            "updatedDate",
            FilterKind::DateTime,
            "Filter on the last change time.",
        ),
    ];
    const SORT_KEYS: &'static [&'static str] = &[
        "id",
        "username",
        "active",
        "createdDate",
        "updatedDate",
        "lastLoginDate",
    ];

    type Record = User;
    type Input = UserInput;

    /// Hashes every password of the request on the bounded hashing pool, before the write
    /// transaction opens (a malformed one is left to the field checks).
    async fn prepare(state: &AppState, values: Vec<String>) -> ApiResult<Prepared> {
        let mut prepared = Prepared::default();
        for value in values {
            if check_password("password", &value).is_ok() {
                let hash = state.auth.hashing().hash(value.clone()).await?;
                prepared.insert(value, hash);
            }
        }
        Ok(prepared)
    }

    fn committed(state: &AppState) {
        state.auth.forget_cached_users();
    }

    fn attach_prepared(input: &mut UserInput, prepared: &Prepared) -> ApiResult<()> {
        if let Some(password) = &input.password {
            input.password_hash = prepared.derived(password.expose()).map(str::to_owned);
        }
        Ok(())
    }

    fn list(
        connection: &mut DbConnection,
        _: &AuthenticatedUser,
        query: &ListQuery,
    ) -> ApiResult<(Vec<User>, i64)> {
        let (rows, total) = users::list(connection, query)?;
        let ids: Vec<i64> = rows.iter().map(|row| row.id).collect();
        let mut owners = users::contract_owners_of(connection, &ids)?;
        let records = rows
            .into_iter()
            .map(|row| {
                let contract_owner_ids = owners.remove(&row.id).unwrap_or_default();
                User::from_row(row, contract_owner_ids)
            })
            .collect();
        Ok((records, total))
    }

    fn find(
        connection: &mut DbConnection,
        _: &AuthenticatedUser,
        id: i64,
    ) -> ApiResult<Option<User>> {
        Ok(users::find_with_contract_owners(connection, id)?
            .map(|(row, contract_owner_ids)| User::from_row(row, contract_owner_ids)))
    }

    fn create(
        connection: &mut DbConnection,
        _: &AuthenticatedUser,
        input: UserInput,
    ) -> ApiResult<User> {
        let user = input.check(true)?;
        check_contract_owners(connection, &user.contract_owner_ids, &[])?;
        let now = billing_persistence::now();
        let row = users::insert(
            connection,
            &NewUser {
                username: user.username,
                email: user.email,
                password_hash: user.password_hash.unwrap_or_default(),
                active: user.active,
                roles: role_codes(&user.roles),
                created_date: now,
                updated_date: now,
            },
        )?;
        users::set_contract_owners(connection, row.id, &user.contract_owner_ids)?;
        Ok(User::from_row(row, user.contract_owner_ids))
    }

    fn replace(
        connection: &mut DbConnection,
        _: &AuthenticatedUser,
        current: &User,
        input: UserInput,
        _: &crate::machinery::resource::WriteRequest,
    ) -> ApiResult<Option<User>> {
        let user = input.check(false)?;
        check_contract_owners(
            connection,
            &user.contract_owner_ids,
            &current.contract_owner_ids,
        )?;
        let signs_out = user.password_hash.is_some() || !user.active;
        let changes = UserChanges {
            username: user.username,
            email: user.email,
            password_hash: user.password_hash,
            active: user.active,
            roles: role_codes(&user.roles),
            updated_date: billing_persistence::now(),
        };
        let Some(row) = users::update(connection, current.id, current.version, &changes)? else {
            return Ok(None);
        };
        if user.contract_owner_ids != current.contract_owner_ids {
            users::set_contract_owners(connection, row.id, &user.contract_owner_ids)?;
        }
        ensure_an_administrator_remains(connection)?;
        if signs_out {
            refresh_tokens::revoke_all_for_user(connection, row.id)?;
        }
        Ok(Some(User::from_row(row, user.contract_owner_ids)))
    }
}

crate::versioned!(User);
