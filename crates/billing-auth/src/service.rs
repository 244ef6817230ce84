//! Sign-in, refresh, revoke and bearer checks, on top of the users and refresh-token tables.

use std::sync::Arc;
use std::time::{Duration, Instant};

use billing_domain::roles::{ContractOwnerScope, Role};
use billing_persistence::users::UserRow;
use billing_persistence::{
    Database, DbConnection, PersistenceError, api_keys, refresh_tokens, users,
};

use crate::api_key;
use crate::error::AuthError;
use crate::password::{HashingPool, dummy_hash};
use crate::principal::AuthenticatedUser;
use crate::principal_cache::{CallerKey, KnownUser, PRINCIPAL_MAX_AGE, PrincipalCache};
use crate::refresh_token;
use crate::secret::Secret;
use crate::throttle::{LoginThrottle, ThrottlePolicy};
use crate::tokens::AccessTokens;
use crate::verified_tokens::{VERIFIED_TOKENS_KEPT, VerifiedTokens};

#[derive(Debug, Clone)]
pub struct AuthConfig {
    pub signing_key: Secret,
    pub issuer: String,
    pub audience: String,
    pub access_token_lifetime: Duration,
    pub refresh_token_lifetime: Duration,
    /// When set, a sign-in that names a brand must name this one.
    pub brand: Option<String>,
    pub throttle: ThrottlePolicy,
    pub hashing_threads: usize,
    pub hashing_queue: usize,
}

/// What a successful sign-in or refresh hands the client.
#[derive(Debug, Clone, serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub struct TokenPair {
    pub token: String,
    pub token_type: &'static str,
    pub expires_in: i64,
    pub refresh_token: String,
    pub username: String,
    /// Whom the pair is for: the request log's `user_id`, never in the answer.
    #[serde(skip)]
    pub user_id: i64,
}

pub struct AuthService {
    database: Database,
    tokens: AccessTokens,
    hashing: HashingPool,
    throttle: Arc<LoginThrottle>,
    principals: PrincipalCache,
    verified_tokens: VerifiedTokens,
    config: AuthConfig,
}

/// Runs blocking storage work off the async threads.
async fn blocking<T: Send + 'static>(
    work: impl FnOnce() -> Result<T, AuthError> + Send + 'static,
) -> Result<T, AuthError> {
    tokio::task::spawn_blocking(work)
        .await
        .map_err(|e| AuthError::Internal(format!("blocking task failed: {e}")))?
}

impl AuthService {
    /// Builds the service. It makes the dummy hash here (tens of milliseconds of argon2), at
    /// start-up, so the first sign-in of an unknown user does not pay for it on an async worker.
    pub fn new(database: Database, config: AuthConfig) -> Self {
        dummy_hash();
        let tokens = AccessTokens::new(
            config.signing_key.expose().as_bytes(),
            &config.issuer,
            &config.audience,
            config.access_token_lifetime.as_secs() as i64,
        );
        Self {
            throttle: Arc::new(LoginThrottle::new(config.throttle, database.clone())),
            database,
            tokens,
            hashing: HashingPool::new(config.hashing_threads, config.hashing_queue),
            principals: PrincipalCache::new(PRINCIPAL_MAX_AGE),
            verified_tokens: VerifiedTokens::new(VERIFIED_TOKENS_KEPT),
            config,
        }
    }

    pub fn hashing(&self) -> &HashingPool {
        &self.hashing
    }

    /// A key for `purpose`, derived from the signing key (HMAC-SHA-256 of the purpose's name):
    /// the same on every instance that shares the signing key, and no use for signing tokens.
    pub fn derived_key(&self, purpose: &str) -> [u8; 32] {
        use hmac::{Hmac, Mac};
        let mut mac =
            Hmac::<sha2::Sha256>::new_from_slice(self.config.signing_key.expose().as_bytes())
                .expect("HMAC takes a key of any length");
        mac.update(purpose.as_bytes());
        mac.finalize().into_bytes().into()
    }

    /// Signs a user in. Unknown user, wrong password and inactive user give the same error
    /// after the same work (an unknown user is verified against a dummy hash).
    pub async fn authenticate(
        &self,
        brand: Option<&str>,
        username: &str,
        password: Secret,
        client_address: &str,
    ) -> Result<TokenPair, AuthError> {
        if let (Some(expected), Some(given)) = (self.config.brand.as_deref(), brand)
            && expected != given
        {
            return Err(AuthError::BrandMismatch);
        }
        // A key this instance found locked within the last second is refused here, on the
        // async worker, with no trip to the database.
        if let Some(retry_after) =
            self.throttle
                .seen_locked(username, client_address, billing_persistence::now())
        {
            return Err(AuthError::TooManyAttempts { retry_after });
        }
        // The slot is taken before anything is checked, so simultaneous attempts (on any
        // instance) cannot all pass the limit; it counts as a failure unless the attempt
        // succeeds.
        let throttle = self.throttle.clone();
        let (name, address) = (username.to_owned(), client_address.to_owned());
        let slot =
            blocking(move || Ok(throttle.reserve(&name, &address, billing_persistence::now())?))
                .await?
                .map_err(|retry_after| AuthError::TooManyAttempts { retry_after })?;
        let user = match self.verify(username, password).await {
            Ok(Some(user)) => user,
            Ok(None) => {
                self.throttle.failed(slot);
                return Err(AuthError::InvalidCredentials);
            }
            Err(error) => {
                self.settle_slot(slot, false).await;
                return Err(error);
            }
        };
        self.settle_slot(slot, true).await;
        let database = self.database.clone();
        let lifetime = self.config.refresh_token_lifetime;
        let issued = blocking(move || {
            // Ten sign-ins of one user at once wait for each other's `record_login` instead of
            // failing as serialization conflicts. `record_login` writes the user's row, so it
            // holds that row until the commit: a password change or a deactivation that
            // committed since the password was verified (outside, the hashing is slow) is read
            // here and refuses the sign-in, and one that comes later waits for this commit and
            // then revokes the token stored here (on PostgreSQL its `SERIALIZABLE` write
            // meets this row's new version and runs again, seeing the token).
            Ok(database
                .write_guarded_by_locks(|c| {
                    users::record_login(c, user.id, billing_persistence::now())?;
                    match users::find(c, user.id)? {
                        Some(now) if now.active && now.password == user.password => {}
                        _ => return Ok::<_, PersistenceError>(None),
                    }
                    let family = uuid::Uuid::new_v4().to_string();
                    Ok(Some(store_refresh_token(c, user.id, family, lifetime)?))
                })?
                .map(|refresh| (refresh, user)))
        })
        .await?;
        let (refresh, user) = issued.ok_or(AuthError::InvalidCredentials)?;
        self.pair(&user, refresh)
    }

    /// Gives a reservation's slots back: all of them when no password was verified, the
    /// username's count and the address's slot after a success. A failure here is logged, not
    /// answered: the sign-in itself was decided.
    async fn settle_slot(&self, slot: crate::throttle::Reservation, succeeded: bool) {
        let throttle = self.throttle.clone();
        let settled = blocking(move || {
            if succeeded {
                throttle.succeeded(slot)?;
            } else {
                throttle.abandoned(slot)?;
            }
            Ok(())
        })
        .await;
        if let Err(error) = settled {
            tracing::warn!(%error, "could not settle a sign-in attempt's throttle slots");
        }
    }

    /// The active user `username` if `password` is theirs. Unknown user, wrong password and
    /// inactive user all give `None` after the same work.
    async fn verify(&self, username: &str, password: Secret) -> Result<Option<UserRow>, AuthError> {
        let database = self.database.clone();
        let name = username.to_owned();
        // A name no user can have (control characters) is not looked up: PostgreSQL refuses NUL.
        let user = if name.chars().any(char::is_control) {
            None
        } else {
            blocking(move || Ok(database.read(|c| users::find_by_username(c, &name))?)).await?
        };
        let hash = user
            .as_ref()
            .map_or_else(|| dummy_hash().to_owned(), |u| u.password.clone());
        let matches = self
            .hashing
            .verify(password.expose().to_owned(), hash)
            .await?;
        Ok(user.filter(|user| matches && user.active))
    }

    /// Exchanges a refresh token for a new pair. A used token presented again revokes its whole
    /// family: whoever holds a stolen copy is signed out with the victim.
    pub async fn refresh(&self, presented: Secret) -> Result<TokenPair, AuthError> {
        let database = self.database.clone();
        let lifetime = self.config.refresh_token_lifetime;
        let issued = blocking(move || {
            let hash = refresh_token::hash(presented.expose());
            // A token that was never issued, is revoked (its family with it) or has expired
            // unused is refused by a read: no write transaction, which on SQLite would queue
            // for the one write lock (a flood of such tokens slowed every write). A used one
            // still revokes its family, once: it is revoked after that.
            let stored = database.read(|c| refresh_tokens::find_by_hash(c, &hash))?;
            let dead = stored.is_none_or(|row| {
                row.revoked || (!row.used && row.expires_at <= billing_persistence::now())
            });
            if dead {
                return Ok(None);
            }
            Ok(database.write(|c| -> Result<_, PersistenceError> {
                let Some(row) = refresh_tokens::find_by_hash(c, &hash)? else {
                    return Ok(None);
                };
                if row.revoked {
                    return Ok(None);
                }
                if row.used || !refresh_tokens::mark_used(c, row.id)? {
                    tracing::warn!(
                        user_id = row.user_id,
                        "refresh token reused: revoking its family"
                    );
                    refresh_tokens::revoke_family(c, &row.family_id)?;
                    return Ok(None);
                }
                if row.expires_at <= billing_persistence::now() {
                    return Ok(None);
                }
                match users::find(c, row.user_id)? {
                    Some(user) if user.active => {
                        let refresh = store_refresh_token(c, user.id, row.family_id, lifetime)?;
                        Ok(Some((user, refresh)))
                    }
                    _ => Ok(None),
                }
            })?)
        })
        .await?;
        let (user, refresh) = issued.ok_or(AuthError::InvalidRefreshToken)?;
        self.pair(&user, refresh)
    }

    /// Signs out: the token's family is revoked. Unknown tokens are accepted silently.
    pub async fn revoke(&self, presented: Secret) -> Result<(), AuthError> {
        let database = self.database.clone();
        blocking(move || {
            let hash = refresh_token::hash(presented.expose());
            // Unknown, or its family revoked already: nothing to write (see `refresh`).
            let stored = database.read(|c| refresh_tokens::find_by_hash(c, &hash))?;
            if stored.is_none_or(|row| row.revoked) {
                return Ok(());
            }
            Ok(database.write(|c| {
                if let Some(row) = refresh_tokens::find_by_hash(c, &hash)? {
                    refresh_tokens::revoke_family(c, &row.family_id)?;
                }
                Ok::<_, PersistenceError>(())
            })?)
        })
        .await
    }

    /// Checks a bearer token and finds the user as they are now: from memory when read less
    /// than a second ago (no trip to the database), else from the database. A deactivated
    /// user or a changed role takes effect within a second, and at once when changed through
    /// this instance ([`AuthService::forget_cached_users`]).
    pub async fn authenticate_bearer(&self, token: &str) -> Result<AuthenticatedUser, AuthError> {
        match self.check_bearer(token)? {
            Bearer::Known(user) => Ok(user),
            Bearer::Unread(unread) => {
                let database = self.database.clone();
                let caller = unread.caller.clone();
                let known =
                    blocking(move || Ok(database.read(|c| load_caller(c, &caller))?)).await?;
                self.settle(&unread, known)
            }
        }
    }

    /// Checks a bearer token without any trip to the database: the caller as memory knows
    /// them, or what to read ([`AuthService::read_caller`]) on the connection the request's own
    /// work runs on, so a request makes one trip to the blocking pool, not two.
    ///
    /// An API key (`bk_…`, [`api_key`]) is found by its hash: in memory when read less than a
    /// second ago, else in the database with its user.
    pub fn check_bearer(&self, token: &str) -> Result<Bearer, AuthError> {
        let caller = if api_key::is_api_key(token) {
            CallerKey::ApiKey(api_key::hash(token).into())
        } else {
            CallerKey::User(self.token_user(token)?)
        };
        match self.principals.get(&caller) {
            Some(known) => known_user(known).map(Bearer::Known),
            None => Ok(Bearer::Unread(UnreadCaller {
                caller,
                generation: self.principals.generation(),
                started: Instant::now(),
            })),
        }
    }

    /// The user an access token names, once its signature and claims hold.
    fn token_user(&self, token: &str) -> Result<i64, AuthError> {
        let now = unix_seconds();
        let verified = match self.verified_tokens.get(token) {
            Some(verified) => verified,
            None => {
                let verified = self.tokens.verify_token(token)?;
                self.verified_tokens.insert(token, verified, now);
                verified
            }
        };
        verified.user_at(now)
    }

    /// Reads the caller [`AuthService::check_bearer`] did not find in memory, on `connection`,
    /// and keeps what it found for the next requests (unless a change to users raced it).
    pub fn read_caller(
        &self,
        connection: &mut DbConnection,
        unread: &UnreadCaller,
    ) -> Result<AuthenticatedUser, AuthError> {
        let known = load_caller(connection, &unread.caller)?;
        self.settle(unread, known)
    }

    fn settle(
        &self,
        unread: &UnreadCaller,
        known: KnownUser,
    ) -> Result<AuthenticatedUser, AuthError> {
        if known != KnownUser::UnknownKey {
            self.principals.insert(
                unread.caller.clone(),
                known.clone(),
                unread.generation,
                unread.started,
            );
        }
        known_user(known)
    }

    /// Makes the next request of every caller read its user again: called after a change to
    /// users commits.
    pub fn forget_cached_users(&self) {
        self.principals.forget_all();
    }

    fn pair(&self, user: &UserRow, refresh_token: String) -> Result<TokenPair, AuthError> {
        Ok(TokenPair {
            token: self.tokens.issue(user.id, chrono::Utc::now().timestamp())?,
            token_type: "Bearer",
            expires_in: self.tokens.lifetime_seconds(),
            refresh_token,
            username: user.username.clone(),
            user_id: user.id,
        })
    }
}

/// The caller of a request, as far as a bearer check without the database could tell.
#[derive(Debug)]
pub enum Bearer {
    /// Served from memory (read less than a second ago).
    Known(AuthenticatedUser),
    /// A valid token whose user must be read: [`AuthService::read_caller`].
    Unread(UnreadCaller),
}

impl Bearer {
    /// The user the credential names, when it names one before the database is read (an
    /// API key's user is known once the key is).
    pub fn user_id(&self) -> Option<i64> {
        match self {
            Bearer::Known(user) => Some(user.id),
            Bearer::Unread(UnreadCaller {
                caller: CallerKey::User(id),
                ..
            }) => Some(*id),
            Bearer::Unread(_) => None,
        }
    }
}

/// A user id from a valid token, to be read from the database. It notes the principal cache's
/// generation before the read, so that a read racing a change to users is not kept.
#[derive(Debug, Clone)]
pub struct UnreadCaller {
    caller: CallerKey,
    generation: u64,
    started: Instant,
}

fn known_user(known: KnownUser) -> Result<AuthenticatedUser, AuthError> {
    match known {
        KnownUser::Active(user) => Ok(user),
        KnownUser::Inactive => Err(AuthError::InvalidToken("the user account is inactive")),
        KnownUser::Missing => Err(AuthError::InvalidToken("the user account no longer exists")),
        KnownUser::UnknownKey => Err(AuthError::InvalidToken("the API key is unknown or revoked")),
    }
}

/// How often a key's `last_used_at` is written at most: a busy key costs one write a minute.
pub const API_KEY_USE_NOTED_EVERY: chrono::Duration = chrono::Duration::minutes(1);

/// What the database says about a caller now. For an API key: its user, with the key's roles
/// that the user still holds; its use is noted (at most once a minute, in a statement of its
/// own: a failure there is logged, not answered).
fn load_caller(
    connection: &mut DbConnection,
    caller: &CallerKey,
) -> Result<KnownUser, PersistenceError> {
    match caller {
        CallerKey::User(id) => Ok(match users::find_with_contract_owners(connection, *id)? {
            Some((user, contract_owner_ids)) if user.active => {
                KnownUser::Active(principal_of(&user, &contract_owner_ids))
            }
            Some(_) => KnownUser::Inactive,
            None => KnownUser::Missing,
        }),
        CallerKey::ApiKey(hash) => {
            let Some((key, user, contract_owner_ids)) =
                api_keys::find_for_caller(connection, hash)?
            else {
                return Ok(KnownUser::UnknownKey);
            };
            if !user.active {
                return Ok(KnownUser::Inactive);
            }
            let now = billing_persistence::now();
            let not_before = now - API_KEY_USE_NOTED_EVERY;
            if key.last_used_at.is_none_or(|at| at < not_before)
                && let Err(error) = api_keys::touch(connection, key.id, now, not_before)
            {
                tracing::warn!(%error, api_key_id = key.id, "could not note an API key's use");
            }
            let mut principal = principal_of(&user, &contract_owner_ids);
            let key_roles = key.role_codes();
            principal
                .roles
                .retain(|role| key_roles.iter().any(|code| code == role.code()));
            principal.api_key_id = Some(key.id);
            Ok(KnownUser::Active(principal))
        }
    }
}

/// Seconds since the epoch, as token times are written.
fn unix_seconds() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |elapsed| elapsed.as_secs() as i64)
}

fn store_refresh_token(
    connection: &mut DbConnection,
    user_id: i64,
    family_id: String,
    lifetime: Duration,
) -> Result<String, PersistenceError> {
    let (token, token_hash) = refresh_token::generate();
    let now = billing_persistence::now();
    let lifetime = chrono::Duration::from_std(lifetime).unwrap_or(chrono::Duration::days(30));
    refresh_tokens::insert(
        connection,
        &refresh_tokens::NewRefreshToken {
            user_id,
            family_id,
            token_hash,
            expires_at: now + lifetime,
            created_date: now,
        },
    )?;
    Ok(token)
}

/// The principal a stored user row and its contract owners stand for (unknown role codes
/// grant nothing).
pub fn principal_of(user: &UserRow, contract_owner_ids: &[i64]) -> AuthenticatedUser {
    AuthenticatedUser {
        id: user.id,
        username: user.username.clone(),
        roles: user
            .role_codes()
            .iter()
            .filter_map(|code| Role::from_code(code))
            .collect(),
        contract_owners: ContractOwnerScope::from_ids(contract_owner_ids),
        api_key_id: None,
    }
}
