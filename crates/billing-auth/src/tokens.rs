//! Access tokens: JWTs signed with HS256 (pinned: a token with any other `alg`, `none`
//! included, is refused), carrying `iss`, `aud`, `sub`, `exp`, `iat`, `nbf` and `jti`.

use jsonwebtoken::{
    Algorithm, DecodingKey, EncodingKey, Header, Validation, decode, encode, errors::ErrorKind,
};
use serde::{Deserialize, Serialize};

use crate::error::AuthError;

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Claims {
    pub iss: String,
    pub aud: String,
    /// The user id, as text.
    pub sub: String,
    pub exp: i64,
    pub iat: i64,
    pub nbf: i64,
    pub jti: String,
}

/// How far `exp` and `nbf` may be off the server's clock, in seconds.
pub const LEEWAY_SECONDS: i64 = 5;

/// What a token whose signature and claims were checked says: whose it is and when it is
/// valid. Only the times can turn it invalid later.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct VerifiedToken {
    pub user_id: i64,
    pub exp: i64,
    pub nbf: i64,
}

impl VerifiedToken {
    /// The user id while `now` (seconds since the epoch) is within the token's validity, with
    /// the same leeway and the same errors as the first check.
    pub fn user_at(&self, now: i64) -> Result<i64, AuthError> {
        if self.has_expired_at(now) {
            return Err(AuthError::InvalidToken("the access token has expired"));
        }
        if self.nbf > now + LEEWAY_SECONDS {
            return Err(AuthError::InvalidToken("the access token is not valid yet"));
        }
        Ok(self.user_id)
    }

    /// True once the token can never be valid again.
    pub fn has_expired_at(&self, now: i64) -> bool {
        self.exp < now - LEEWAY_SECONDS
    }
}

/// Signs and checks access tokens.
#[derive(Clone)]
pub struct AccessTokens {
    encoding: EncodingKey,
    decoding: DecodingKey,
    validation: Validation,
    issuer: String,
    audience: String,
    lifetime_seconds: i64,
}

impl AccessTokens {
    pub fn new(signing_key: &[u8], issuer: &str, audience: &str, lifetime_seconds: i64) -> Self {
        let mut validation = Validation::new(Algorithm::HS256);
        validation.set_issuer(&[issuer]);
        validation.set_audience(&[audience]);
        validation.set_required_spec_claims(&["exp", "nbf", "iss", "aud", "sub"]);
        validation.validate_nbf = true;
        validation.leeway = LEEWAY_SECONDS as u64;
        Self {
            encoding: EncodingKey::from_secret(signing_key),
            decoding: DecodingKey::from_secret(signing_key),
            validation,
            issuer: issuer.to_owned(),
            audience: audience.to_owned(),
            lifetime_seconds,
        }
    }

    pub fn lifetime_seconds(&self) -> i64 {
        self.lifetime_seconds
    }

    /// A token for `user_id` valid from `now` (seconds since the epoch).
    pub fn issue(&self, user_id: i64, now: i64) -> Result<String, AuthError> {
        let claims = Claims {
            iss: self.issuer.clone(),
            aud: self.audience.clone(),
            sub: user_id.to_string(),
            exp: now + self.lifetime_seconds,
            iat: now,
            nbf: now,
            jti: uuid::Uuid::new_v4().to_string(),
        };
        encode(&Header::new(Algorithm::HS256), &claims, &self.encoding)
            .map_err(|e| AuthError::Internal(format!("cannot sign a token: {e}")))
    }

    /// The user id in a valid token; the error says what is wrong without echoing the token.
    pub fn verify(&self, token: &str) -> Result<i64, AuthError> {
        self.verify_token(token).map(|verified| verified.user_id)
    }

    /// Checks a token (signature, algorithm, issuer, audience, required claims, times) and
    /// says what it holds.
    pub fn verify_token(&self, token: &str) -> Result<VerifiedToken, AuthError> {
        if let Some(header) = jose_header(token) {
            if header.alg != "HS256" {
                return Err(AuthError::InvalidToken(
                    "the access token uses an algorithm this service does not accept",
                ));
            }
            // RFC 7515 §4.1.11: a recipient must refuse extensions it does not understand,
            // and this service understands none (its own tokens carry no `crit`).
            if header.crit.is_some() {
                return Err(AuthError::InvalidToken(
                    "the access token names critical header extensions this service does not understand",
                ));
            }
        }
        let data = decode::<Claims>(token, &self.decoding, &self.validation).map_err(|error| {
            AuthError::InvalidToken(match error.kind() {
                ErrorKind::ExpiredSignature => "the access token has expired",
                ErrorKind::ImmatureSignature => "the access token is not valid yet",
                ErrorKind::InvalidSignature => "the access token signature is invalid",
                ErrorKind::InvalidAlgorithm | ErrorKind::InvalidAlgorithmName => {
                    "the access token uses an algorithm this service does not accept"
                }
                ErrorKind::InvalidIssuer => "the access token was issued by someone else",
                ErrorKind::InvalidAudience => "the access token is meant for another audience",
                ErrorKind::MissingRequiredClaim(_) => "the access token lacks a required claim",
                _ => "the access token is malformed",
            })
        })?;
        let user_id = data
            .claims
            .sub
            .parse::<i64>()
            .map_err(|_| AuthError::InvalidToken("the access token is malformed"))?;
        Ok(VerifiedToken {
            user_id,
            exp: data.claims.exp,
            nbf: data.claims.nbf,
        })
    }
}

/// What the checks read of a token's JOSE header, besides what `jsonwebtoken` reads.
#[derive(Deserialize)]
struct JoseHeader {
    alg: String,
    /// Present (whatever it holds) when the token names critical extensions.
    crit: Option<serde_json::Value>,
}

/// A token's JOSE header, when it decodes.
fn jose_header(token: &str) -> Option<JoseHeader> {
    use base64::Engine;
    let encoded = token.split('.').next()?;
    let bytes = base64::engine::general_purpose::URL_SAFE_NO_PAD
        .decode(encoded)
        .ok()?;
    serde_json::from_slice::<JoseHeader>(&bytes).ok()
}

#[cfg(test)]
mod tests {
    use base64::Engine;
    use base64::engine::general_purpose::URL_SAFE_NO_PAD;

    use super::*;

    const KEY: &[u8] = b"0123456789abcdef0123456789abcdef";

    fn tokens() -> AccessTokens {
        AccessTokens::new(KEY, "billing", "billing-api", 900)
    }

    fn now() -> i64 {
        chrono::Utc::now().timestamp()
    }

    #[test]
    fn round_trip() {
        let token = tokens().issue(42, now()).expect("token");
        assert_eq!(tokens().verify(&token).expect("valid"), 42);
    }

    #[test]
    fn rejections_are_explained() {
        let expired = tokens().issue(42, now() - 2000).expect("token");
        let other_key = AccessTokens::new(
            b"another key another key another!",
            "billing",
            "billing-api",
            900,
        )
        .issue(42, now())
        .expect("token");
        let other_audience = AccessTokens::new(KEY, "billing", "elsewhere", 900)
            .issue(42, now())
            .expect("token");
        let other_issuer = AccessTokens::new(KEY, "someone-else", "billing-api", 900)
            .issue(42, now())
            .expect("token");
        let header = URL_SAFE_NO_PAD.encode(br#"{"alg":"none","typ":"JWT"}"#);
        let body = URL_SAFE_NO_PAD.encode(
            format!(r#"{{"iss":"billing","aud":"billing-api","sub":"1","exp":{},"iat":0,"nbf":0,"jti":"x"}}"#, now() + 100)
                .as_bytes(),
        );
        let unsigned = format!("{header}.{body}.");
        // Signed with the right key, but naming a critical extension.
        let critical = encode(
            &Header {
                crit: Some(vec!["x".to_owned()]),
                ..Header::new(Algorithm::HS256)
            },
            &Claims {
                iss: "billing".to_owned(),
                aud: "billing-api".to_owned(),
                sub: "1".to_owned(),
                exp: now() + 100,
                iat: now(),
                nbf: now(),
                jti: "x".to_owned(),
            },
            &EncodingKey::from_secret(KEY),
        )
        .expect("token");
        let outcomes: Vec<String> = [
            expired.as_str(),
            &other_key,
            &other_audience,
            &other_issuer,
            &unsigned,
            &critical,
            "garbage",
        ]
        .iter()
        .map(|token| tokens().verify(token).unwrap_err().to_string())
        .collect();
        insta::assert_snapshot!(outcomes.join("\n"), @r"
        the access token has expired
        the access token signature is invalid
        the access token is meant for another audience
        the access token was issued by someone else
        the access token uses an algorithm this service does not accept
        the access token names critical header extensions this service does not understand
        the access token is malformed
        ");
    }
}
