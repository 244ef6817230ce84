//! `POST /v1/authenticate`, `/v1/authenticate/refresh` and `/v1/authenticate/revoke`.

use actix_web::{HttpRequest, HttpResponse, web};
use billing_auth::{AuthError, Secret};
use serde::Deserialize;

use crate::error::ApiError;
use crate::machinery::body::{BodyKind, deserialize, nothing_more, read_json, validate};
use crate::machinery::request::{client_address, reject_query};
use crate::metrics::SignIn;
use crate::state::{AppState, HttpLimits};

/// The longest password a sign-in accepts (longer is 400 before any hashing work).
pub const SIGN_IN_PASSWORD_MAX_CHARS: usize = 1024;

/// A sign-in's username and brand: text as every declared member's (1 to 100 characters, no
/// control characters), so nothing a database refuses (a NUL) reaches one.
type SignInText = billing_domain::kinds::Text<1, 100>;

#[derive(Debug, Deserialize, garde::Validate)]
#[serde(deny_unknown_fields)]
pub struct AuthenticateRequest {
    #[serde(default)]
    #[garde(inner(custom(crate::machinery::kinds::required::<SignInText>)))]
    pub brand: Option<String>,
    #[garde(custom(crate::machinery::kinds::required::<SignInText>))]
    pub username: String,
    #[garde(skip)]
    pub password: Secret,
}

#[derive(Debug, Deserialize, garde::Validate)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct RefreshRequest {
    #[garde(skip)]
    pub refresh_token: Secret,
}

/// The longest refresh token a body may present (one the service issues is 43 characters).
pub const REFRESH_TOKEN_MAX_CHARS: usize = 256;

impl RefreshRequest {
    /// A refresh token is 1 to 256 visible ASCII characters; anything else is 400 before any
    /// token is looked up (an unknown one of that shape is 401 on refresh, 204 on revoke).
    pub fn check(&self) -> Result<(), ApiError> {
        let token = self.refresh_token.expose();
        if token.is_empty() || token.len() > REFRESH_TOKEN_MAX_CHARS {
            return Err(ApiError::field(
                "refreshToken",
                format!("must be 1 to {REFRESH_TOKEN_MAX_CHARS} characters"),
            ));
        }
        if !token.bytes().all(|b| b.is_ascii_graphic()) {
            return Err(ApiError::field(
                "refreshToken",
                "must be visible ASCII characters",
            ));
        }
        Ok(())
    }
}

impl AuthenticateRequest {
    /// The password rule of a sign-in body, checked after its garde rules (brand and username
    /// of 1..100 characters) and before any user is looked up: 1..1024 characters (no account
    /// has an empty password).
    pub fn check(&self) -> Result<(), ApiError> {
        let password = self.password.expose().chars().count();
        if password == 0 {
            return Err(ApiError::field("password", "must not be empty"));
        }
        if password > SIGN_IN_PASSWORD_MAX_CHARS {
            return Err(ApiError::field("password", "is too long"));
        }
        Ok(())
    }
}

/// The body limit of these routes, which anyone may call (at most the service-wide one): a
/// sign-in body at its longest (a brand and username of 100 characters, a password of 1,024,
/// every character written as a pair of `\uXXXX` escapes) is under 15 KB.
pub const BODY_LIMIT_BYTES: usize = 32 * 1024;

async fn body<T: serde::de::DeserializeOwned + garde::Validate<Context = ()>>(
    request: &HttpRequest,
    payload: web::Payload,
    state: &AppState,
) -> Result<T, ApiError> {
    reject_query(request)?;
    let limits = HttpLimits {
        body_bytes: state.limits.body_bytes.min(BODY_LIMIT_BYTES),
        ..state.limits
    };
    let (value, _) = read_json(request, payload, BodyKind::Json, &limits, nothing_more).await?;
    if !value.is_object() {
        return Err(ApiError::field("body", "must be a JSON object"));
    }
    let parsed: T = deserialize(value)?;
    validate(&parsed)?;
    Ok(parsed)
}

pub async fn authenticate(
    request: HttpRequest,
    state: web::Data<AppState>,
    payload: web::Payload,
) -> Result<HttpResponse, ApiError> {
    let credentials: AuthenticateRequest = body(&request, payload, &state).await?;
    credentials.check()?;
    let outcome = state
        .auth
        .authenticate(
            credentials.brand.as_deref(),
            &credentials.username,
            credentials.password,
            &client_address(&request, &state.trusted_proxies),
        )
        .await;
    let counted = match &outcome {
        Ok(_) => Some(SignIn::Success),
        Err(AuthError::InvalidCredentials | AuthError::BrandMismatch) => Some(SignIn::Failure),
        Err(AuthError::TooManyAttempts { .. }) => Some(SignIn::Throttled),
        Err(_) => None,
    };
    if let Some(counted) = counted {
        state.metrics.sign_in(counted);
    }
    let pair = outcome?;
    crate::request_context::set_user_id(pair.user_id);
    Ok(HttpResponse::Ok()
        .insert_header(("Cache-Control", "no-store"))
        .json(pair))
}

pub async fn refresh(
    request: HttpRequest,
    state: web::Data<AppState>,
    payload: web::Payload,
) -> Result<HttpResponse, ApiError> {
    let presented: RefreshRequest = body(&request, payload, &state).await?;
    presented.check()?;
    let pair = state.auth.refresh(presented.refresh_token).await?;
    crate::request_context::set_user_id(pair.user_id);
    Ok(HttpResponse::Ok()
        .insert_header(("Cache-Control", "no-store"))
        .json(pair))
}

pub async fn revoke(
    request: HttpRequest,
    state: web::Data<AppState>,
    payload: web::Payload,
) -> Result<HttpResponse, ApiError> {
    let presented: RefreshRequest = body(&request, payload, &state).await?;
    presented.check()?;
    state.auth.revoke(presented.refresh_token).await?;
    Ok(HttpResponse::NoContent().finish())
}
