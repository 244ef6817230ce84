//! `/v1/api-keys`: long-lived credentials for machine clients (scripts), used as
//! `Authorization: Bearer bk_…` beside access tokens.
//!
//! - Any signed-in user creates keys for themselves; an administrator (`USERS_MANAGE`) also for
//!   any user (`userId`) and sees and revokes everyone's. Others see only their own: another
//!   user's key is 404, as if it did not exist.
//! - The key is in the response to the create, once (`key`): it is stored only as its SHA-256
//!   (`billing_auth::api_key`), never in the audit trail, the idempotency store or a log. An
//!   `Idempotency-Key` replay answers the record without it.
//! - A key carries `roles`, the user's or fewer (400 naming `roles` otherwise). A request made
//!   with it gets the key's roles that the user still holds, and the user's contract owners;
//!   a deactivated user's keys are refused.
//! - `DELETE` revokes: the key is refused from the next request on this instance, within a
//!   second on the others.
//! - A request made with a key cannot create or revoke keys (403): a leaked key cannot make
//!   itself a successor.

use billing_auth::AuthenticatedUser;
use billing_auth::api_key;
use billing_domain::ValidationErrors;
use billing_domain::query::{FieldFilter, Filter, FilterKind, ListQuery};
use billing_domain::roles::{Permission, Role};
use billing_domain::users::parse_roles;
use billing_persistence::api_keys::{self, ApiKeyRow, NewApiKey};
use billing_persistence::{DbConnection, users};
use chrono::NaiveDateTime;
use serde::{Deserialize, Serialize};

use super::common::ID;
use crate::error::ApiError;
use crate::machinery::resource::{ApiResult, Field, FieldType, FilterParam, Operations, Resource};
use crate::machinery::serde_dates::{serialize_date_time, serialize_optional_date_time};
use crate::state::AppState;

#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ApiKey {
    pub id: i64,
    pub user_id: i64,
    pub name: String,
    pub key_prefix: String,
    pub roles: Vec<String>,
    #[serde(serialize_with = "serialize_date_time")]
    pub created_date: NaiveDateTime,
    #[serde(serialize_with = "serialize_optional_date_time")]
    pub last_used_at: Option<NaiveDateTime>,
    #[serde(skip)]
    pub version: i64,
    /// The key itself: only on the record the create made, for its response.
    #[serde(skip)]
    pub key: Option<billing_auth::Secret>,
}

impl From<ApiKeyRow> for ApiKey {
    fn from(row: ApiKeyRow) -> Self {
        Self {
            id: row.id,
            user_id: row.user_id,
            roles: row.role_codes(),
            name: row.name,
            key_prefix: row.key_prefix,
            created_date: row.created_date,
            last_used_at: row.last_used_at,
            version: row.version,
            key: None,
        }
    }
}

/// An API key's name: text as every declared member's (docs/api.md "Everywhere").
type KeyName = billing_domain::kinds::Text<1, 100>;

#[derive(Debug, Clone, Deserialize, garde::Validate)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ApiKeyInput {
    /// The kind's rule, as a declared member's: 1 to 100 characters, no control characters.
    #[garde(custom(crate::machinery::kinds::required::<KeyName>))]
    pub name: String,
    #[serde(default)]
    #[garde(custom(an_id))]
    pub user_id: Option<i64>,
    #[serde(default)]
    #[garde(custom(some_roles))]
    pub roles: Option<Vec<String>>,
}

/// garde's check of `userId`, in the words a path id gets.
fn an_id(user_id: &Option<i64>, _: &()) -> garde::Result {
    match user_id {
        Some(id) if *id < 1 => Err(garde::Error::new("must be an integer >= 1")),
        _ => Ok(()),
    }
}

/// garde's check of `roles`: left out is every role of the user, given is at least one.
fn some_roles(roles: &Option<Vec<String>>, _: &()) -> garde::Result {
    match roles {
        Some(roles) if roles.is_empty() => Err(garde::Error::new(
            "must name at least one role (leave it out for all of the user's)",
        )),
        _ => Ok(()),
    }
}

/// Whether the caller may see and revoke every user's keys.
fn sees_all(caller: &AuthenticatedUser) -> bool {
    caller.has(Permission::ManageUsers)
}

/// 403 for a request made with an API key: keys do not manage keys.
fn signed_in(caller: &AuthenticatedUser, doing: &str) -> ApiResult<()> {
    if caller.api_key_id.is_some() {
        return Err(ApiError::forbidden(format!(
            "a request made with an API key cannot {doing} API keys; sign in with a password"
        )));
    }
    Ok(())
}

const ROLE_CODES: FieldType = FieldType::Array(&FieldType::Enum(&[
    "ADMINISTRATOR",
    "BILLING_MANAGER",
    "REFERENCE_DATA_MANAGER",
    "CUSTOMER_MANAGER",
    "READ_ONLY",
]));

/// The member naming a key's user: its field, filter, sort key and errors.
const USER_ID: &str = "userId";
/// The member holding the key itself, in the create's answer only.
const KEY: &str = "key";

pub struct ApiKeys;

impl Resource for ApiKeys {
    const PATH: &'static str = "api-keys";
    const NOUN: &'static str = "API key";
    const DESCRIPTION: &'static str = "Long-lived credentials for scripts, sent as Authorization: Bearer bk_…. \
        The key is in the response to the create only (member key) and is stored only as a hash: keep it then. \
        A key acts as its user with its roles (the user's or fewer; those the user no longer holds are ignored) \
        and the user's contract owners; it stops working when revoked (DELETE) or when its user is deactivated. \
        Every user manages their own keys; an administrator (USERS_MANAGE) also other users' (userId), \
        and sees everyone's. Another user's key is 404 to the rest. A request made with a key cannot create or \
        revoke keys (403). lastUsedAt is updated at most once a minute.";
    const READ: Permission = Permission::ManageOwnApiKeys;
    const WRITE: Permission = Permission::ManageOwnApiKeys;
    const OPERATIONS: Operations = Operations {
        get: true,
        create: true,
        bulk_create: false,
        replace: false,
        patch: false,
        delete: true,
        bulk_update: false,
    };
    const FIELDS: &'static [Field] = &[
        ID,
        Field::optional(
            USER_ID,
            FieldType::Id,
            "The user the key acts as; default the caller. Only an administrator may name another user.",
        )
        .not_null(),
        Field::required(
            "name",
            <KeyName as crate::machinery::kinds::ApiKind>::FIELD_TYPE,
            "What the key is for (shown in listings).",
        ),
        Field::optional(
            "roles",
            ROLE_CODES,
            "The key's roles: some or all of the user's (400 otherwise). Default: all the user's roles.",
        )
        .not_null()
        .non_empty()
        .at_most(Role::ALL.len()),
        Field::read_only(
            "keyPrefix",
            FieldType::Pattern {
                pattern: "^bk_[A-Za-z0-9_-]{8}$",
                min: 11,
                max: 11,
                example: "bk_Q2h4dE9u",
            },
            "The key's first 11 characters, to tell keys apart.",
        ),
        Field::read_only(
            "createdDate",
            FieldType::DateTime,
            "When the key was created (UTC).",
        ),
        Field::read_only(
            "lastUsedAt",
            FieldType::DateTime,
            "When the key was last used (UTC, to the minute: noted at most once a minute), or null.",
        )
        .nullable(),
        Field::read_only(
            KEY,
            FieldType::Pattern {
                pattern: "^bk_[A-Za-z0-9_-]{43}$",
                min: 46,
                max: 46,
                example: "bk_Q2h4dE9uN3ZxS0pXbVJ6dGFiY2RlZmdoaWprbG1ub3A",
            },
            "The key itself: only in the response to the create, never again (not in lists, reads or an \
             Idempotency-Key replay). Send it as Authorization: Bearer <key>.",
        )
        .nullable()
        .shown_once(),
    ];
    fn filters() -> &'static [FilterParam] {
        const FILTERS: &[FilterParam] = &[
            FilterParam::new(USER_ID, FilterKind::Id, "The keys of one user."),
            FilterParam::new("name", FilterKind::String, "Filter on the name."),
            FilterParam::new(
                "createdDate",
                FilterKind::DateTime,
                "Filter on the creation time.",
            ),
        ];
        FILTERS
    }

    fn sort_keys() -> &'static [&'static str] {
        &["id", USER_ID, "name", "createdDate", "lastUsedAt"]
    }

    type Record = ApiKey;
    type Input = ApiKeyInput;

    /// A revoked key (or a key's user changed) is refused from the next request on.
    fn committed(state: &AppState) {
        state.auth.forget_cached_users();
    }

    fn shown_once(record: &ApiKey) -> Option<(&'static str, String)> {
        record
            .key
            .as_ref()
            .map(|key| (KEY, key.expose().to_owned()))
    }

    fn list(
        connection: &mut DbConnection,
        caller: &AuthenticatedUser,
        query: &ListQuery,
    ) -> ApiResult<(Vec<ApiKey>, i64)> {
        let mut query = query.clone();
        if !sees_all(caller) {
            query.filters.push(FieldFilter {
                field: USER_ID,
                filter: Filter::Id(caller.id),
            });
        }
        let (rows, total) = api_keys::list(connection, &query)?;
        Ok((rows.into_iter().map(ApiKey::from).collect(), total))
    }

    fn find(
        connection: &mut DbConnection,
        caller: &AuthenticatedUser,
        id: i64,
    ) -> ApiResult<Option<ApiKey>> {
        Ok(api_keys::find(connection, id)?
            .filter(|row| row.user_id == caller.id || sees_all(caller))
            .map(ApiKey::from))
    }

    fn create(
        connection: &mut DbConnection,
        caller: &AuthenticatedUser,
        input: ApiKeyInput,
    ) -> ApiResult<ApiKey> {
        signed_in(caller, "create")?;
        let user_id = input.user_id.unwrap_or(caller.id);
        if user_id != caller.id && !sees_all(caller) {
            return Err(ApiError::forbidden(
                "userId: only an administrator may create API keys for another user",
            ));
        }
        let user = users::find(connection, user_id)?
            .ok_or_else(|| ApiError::field(USER_ID, format!("user {user_id} does not exist")))?;
        if !user.active {
            return Err(ApiError::field(
                USER_ID,
                format!("user {user_id} is inactive"),
            ));
        }
        let held: Vec<Role> = user
            .role_codes()
            .iter()
            .filter_map(|code| Role::from_code(code))
            .collect();
        let roles = match &input.roles {
            None => held,
            Some(codes) => {
                let mut errors = ValidationErrors::default();
                let roles = errors
                    .collect(parse_roles("roles", codes))
                    .unwrap_or_default();
                for role in roles.iter().filter(|role| !held.contains(role)) {
                    errors.push(
                        "roles",
                        format!(
                            "{} is not a role of user {user_id}: a key carries some or all of its user's roles",
                            role.code()
                        ),
                    );
                }
                errors.into_result(|| ()).map_err(ApiError::validation)?;
                roles
            }
        };
        if roles.is_empty() {
            return Err(ApiError::field("roles", "the key would hold no role"));
        }
        let new = api_key::generate();
        let row = api_keys::insert(
            connection,
            &NewApiKey {
                user_id,
                name: input.name,
                key_prefix: new.prefix,
                key_hash: new.hash,
                roles: roles
                    .iter()
                    .map(|role| role.code())
                    .collect::<Vec<_>>()
                    .join(","),
                created_date: billing_persistence::now(),
            },
        )?;
        let mut record = ApiKey::from(row);
        record.key = Some(new.key);
        Ok(record)
    }

    fn delete(
        connection: &mut DbConnection,
        caller: &AuthenticatedUser,
        current: &ApiKey,
    ) -> ApiResult<bool> {
        signed_in(caller, "revoke")?;
        Ok(api_keys::delete(connection, current.id)?)
    }
}

impl crate::machinery::resource::Versioned for ApiKey {
    fn id(&self) -> i64 {
        self.id
    }

    fn version(&self) -> i64 {
        self.version
    }
}
