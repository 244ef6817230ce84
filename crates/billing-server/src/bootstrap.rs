//! What the first start sets up: the token signing key and the first administrator.

use std::io::Write;
use std::path::Path;

use billing_auth::service::principal_of;
use billing_auth::{AuthenticatedUser, Secret, password, refresh_token};
use billing_domain::ValidationErrors;
use billing_domain::roles::{ContractOwnerScope, Role};
use billing_http::machinery::{audit, handlers, members};
use billing_http::resources::users::{User, Users};
use billing_persistence::users;
use billing_persistence::{Database, DbConnection, PersistenceError};

use crate::ServerError;

const KEY_FILE: &str = "jwt-signing-key";

/// Where a user made outside the API came from: the `requestId` of its audit event.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Origin {
    /// The first administrator, made on first start.
    FirstStart,
    /// `billing create-user`.
    CommandLine,
}

impl Origin {
    pub fn request_id(self) -> &'static str {
        match self {
            Origin::FirstStart => "first-start",
            Origin::CommandLine => "cli-create-user",
        }
    }
}

/// The configured secret, or the one kept in `data_dir` (generated, owner-only, on first start).
pub fn signing_key(configured: Option<&str>, data_dir: &Path) -> Result<Secret, ServerError> {
    if let Some(secret) = configured {
        return configured_key(secret).map_err(|why| ServerError::Config(why.to_owned()));
    }
    let path = data_dir.join(KEY_FILE);
    if let Ok(existing) = std::fs::read_to_string(&path) {
        let key = existing.trim();
        if key.len() >= 32 {
            return Ok(Secret::new(key));
        }
        return Err(ServerError::Config(format!(
            "{} is too short; delete it to generate a new key",
            path.display()
        )));
    }
    billing_persistence::create_owner_only_directory(data_dir)
        .map_err(|e| ServerError::Config(format!("cannot create {}: {e}", data_dir.display())))?;
    let key = refresh_token::random_text(48);
    let mut options = std::fs::OpenOptions::new();
    options.write(true).create_new(true);
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::mode(&mut options, 0o600);
    let mut file = options
        .open(&path)
        .map_err(|e| ServerError::Config(format!("cannot create {}: {e}", path.display())))?;
    file.write_all(key.as_bytes())
        .map_err(|e| ServerError::Config(format!("cannot write {}: {e}", path.display())))?;
    tracing::info!(path = %path.display(), "generated a token signing key");
    Ok(Secret::new(key))
}

/// The username of the administrator a first start creates.
pub const FIRST_ADMINISTRATOR: &str = "admin";

/// Users holding the ADMINISTRATOR role, active or not.
fn administrators(connection: &mut DbConnection) -> Result<i64, PersistenceError> {
    users::count_with_role(connection, Role::Administrator.code())
}

/// The fewest different characters a configured signing key may have: 32 spaces, or one
/// letter 40 times, is a key anyone guesses.
pub const SIGNING_KEY_MIN_DISTINCT_CHARACTERS: usize = 8;

/// A configured signing key (`BILLING_JWT_SECRET`), refused when short, blank at either end
/// (a copy-paste slip that another instance would not repeat) or of too few characters.
fn configured_key(secret: &str) -> Result<Secret, &'static str> {
    if secret.chars().count() < 32 {
        return Err("BILLING_JWT_SECRET must be at least 32 characters");
    }
    if secret.trim() != secret {
        return Err("BILLING_JWT_SECRET starts or ends with white space; remove it");
    }
    let distinct: std::collections::HashSet<char> = secret.chars().collect();
    if distinct.len() < SIGNING_KEY_MIN_DISTINCT_CHARACTERS {
        return Err(
            "BILLING_JWT_SECRET has fewer than 8 different characters, which is guessed; use a random one (openssl rand -base64 48)",
        );
    }
    Ok(Secret::new(secret))
}

/// Creates a user (the CLI's `create-user` and the first administrator), checked by the same
/// rules as the API's, with the audit event an API create leaves: the new user is the actor
/// (no one is signed in), and `origin` stands in for the request id.
pub fn create_user(
    database: &Database,
    username: &str,
    password_text: &str,
    role_codes: &[String],
    email: Option<String>,
    origin: Origin,
) -> Result<i64, ServerError> {
    create_user_unless(
        database,
        username,
        password_text,
        role_codes,
        email,
        origin,
        false,
    )?
    .ok_or_else(|| ServerError::Config("the user was not created".to_owned()))
}

/// [`create_user`]; with `unless_an_administrator`, creates nothing (`None`) when a user holds
/// the ADMINISTRATOR role, checked in the write's own transaction (on SQLite `BEGIN IMMEDIATE`,
/// so two processes starting on one file cannot both find none).
fn create_user_unless(
    database: &Database,
    username: &str,
    password_text: &str,
    role_codes: &[String],
    email: Option<String>,
    origin: Origin,
    unless_an_administrator: bool,
) -> Result<Option<i64>, ServerError> {
    use billing_http::machinery::resource::Resource;
    let body = serde_json::json!({
        "username": username,
        "email": email,
        "password": password_text,
        "roles": role_codes,
    });
    let invalid = |error: billing_http::error::ApiError| match error.into_field_errors() {
        Ok(errors) => ServerError::InvalidUser(ValidationErrors { errors }.to_string()),
        Err(error) => ServerError::InvalidUser(error.cause_or_detail().to_owned()),
    };
    let mut input =
        handlers::parse_input::<Users>(body, "", members::Origin::Client).map_err(invalid)?;
    // Hashed before the write's transaction, as the API does.
    let hash =
        password::hash_password(password_text).map_err(|e| ServerError::Config(e.to_string()))?;
    if let Some(password) = &mut input.password {
        password.hash = Some(hash);
    }
    // No one is signed in: the write is the service's own, and the audit event names the new
    // user as its actor.
    let service = AuthenticatedUser {
        id: 0,
        username: "billing".to_owned(),
        roles: vec![Role::Administrator],
        contract_owners: ContractOwnerScope::All,
        api_key_id: None,
    };
    database.write(|c| {
        if unless_an_administrator
            && (administrators(c)? > 0 || users::find_by_username(c, username)?.is_some())
        {
            return Ok(None);
        }
        let user: User = Users::create(c, &service, input.clone()).map_err(invalid)?;
        let row = users::find(c, user.id)?
            .ok_or_else(|| ServerError::Config("a created user vanished".to_owned()))?;
        audit::record_created_outside_api::<Users>(
            c,
            principal_of(&row, &[]),
            origin.request_id(),
            &user,
        )
        .map_err(|e| ServerError::Audit(e.cause_or_detail().to_owned()))?;
        Ok::<_, ServerError>(Some(user.id))
    })
}

/// When no user holds the ADMINISTRATOR role (a new database, or one where `billing
/// create-user` made only users of other roles before the first start), creates `admin` with
/// `password` or a random one printed once. When a user of other roles already has the name
/// `admin`, creates nothing and says, in the log, how to make an administrator.
///
/// Instances starting together on one database do this one after the other (the start-up
/// lock on PostgreSQL, `BEGIN IMMEDIATE` on SQLite) and the table is checked again in the
/// write's transaction: exactly one creates `admin`, the others find it.
pub fn ensure_first_administrator(
    database: &Database,
    password: Option<&str>,
) -> Result<(), ServerError> {
    if database.read(administrators)? > 0 {
        return Ok(());
    }
    if database
        .read(|c| users::find_by_username(c, FIRST_ADMINISTRATOR))?
        .is_some()
    {
        tracing::warn!(
            "no user holds the ADMINISTRATOR role, and the username {FIRST_ADMINISTRATOR} is taken by a user of other roles: make an administrator with `billing create-user --roles ADMINISTRATOR`"
        );
        return Ok(());
    }
    let (password, generated) = match password {
        Some(password) => (password.to_owned(), false),
        None => (refresh_token::random_text(18), true),
    };
    let created = create_user_unless(
        database,
        FIRST_ADMINISTRATOR,
        &password,
        &[Role::Administrator.code().to_owned()],
        None,
        Origin::FirstStart,
        true,
    )
    .map_err(|error| match error {
        ServerError::InvalidUser(why) => {
            ServerError::Config(format!("BILLING_ADMIN_PASSWORD: {why}"))
        }
        other => other,
    })?;
    if created.is_none() {
        tracing::info!("another instance created the first administrator");
        return Ok(());
    }
    if generated {
        // Printed to the console once, never logged.
        println!("Created the first administrator: username admin, password {password}");
        println!(
            "Store it now: it is not shown again. Set BILLING_ADMIN_PASSWORD to choose it instead."
        );
    } else {
        tracing::info!(
            "created the first administrator 'admin' with the password from BILLING_ADMIN_PASSWORD"
        );
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn no_client_can_take_the_request_ids_of_what_is_done_outside_the_api() {
        for id in [
            Origin::FirstStart.request_id(),
            Origin::CommandLine.request_id(),
            crate::batch::reference_data::IMPORT_REQUEST_ID,
        ] {
            assert!(!billing_http::request_context::client_may_name(id), "{id}");
        }
    }

    #[test]
    fn a_configured_key_that_is_guessed_is_refused() {
        let refused = |key: &str| configured_key(key).err().unwrap_or("accepted");
        insta::assert_snapshot!(refused("short"), @"BILLING_JWT_SECRET must be at least 32 characters");
        insta::assert_snapshot!(refused(&" ".repeat(40)), @"BILLING_JWT_SECRET starts or ends with white space; remove it");
        insta::assert_snapshot!(refused(&format!("{} ", "k3y-".repeat(10))), @"BILLING_JWT_SECRET starts or ends with white space; remove it");
        insta::assert_snapshot!(refused(&"ab".repeat(20)), @"BILLING_JWT_SECRET has fewer than 8 different characters, which is guessed; use a random one (openssl rand -base64 48)");
        assert_eq!(refused("0123456789abcdef0123456789abcdef"), "accepted");
    }

    #[test]
    fn the_generated_key_is_kept_owner_only_and_reused() {
        let dir = std::env::temp_dir().join(format!("billing_key_{}", std::process::id()));
        let first = signing_key(None, &dir).expect("generated");
        let second = signing_key(None, &dir).expect("reused");
        assert_eq!(first, second);
        assert!(first.expose().len() >= 32);
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            let mode = std::fs::metadata(dir.join(KEY_FILE))
                .expect("file")
                .permissions()
                .mode();
            assert_eq!(mode & 0o777, 0o600);
        }
        insta::assert_snapshot!(signing_key(Some("too short"), &dir).unwrap_err(), @"configuration: BILLING_JWT_SECRET must be at least 32 characters");
        let _ = std::fs::remove_dir_all(dir);
    }
}
