//! Tokens minted for the matrix: expired, signed with another key, `alg: none`, another
//! issuer or audience, for a user that does not exist.

use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use jsonwebtoken::{Algorithm, EncodingKey, Header};
use serde_json::{Value, json};

/// Tokens minted with the server's key (and others) for the token checks.
pub(super) struct Minter {
    pub(super) secret: String,
}

impl Minter {
    pub(super) fn claims(&self, sub: &str, exp_from_now: i64) -> Value {
        let now = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_secs() as i64);
        json!({
            "iss": "billing", "aud": "billing-api", "sub": sub,
            "exp": now + exp_from_now, "iat": now.min(now + exp_from_now - 900),
            "nbf": now.min(now + exp_from_now - 900), "jti": format!("matrix-{now}-{sub}"),
        })
    }

    pub(super) fn sign(
        &self,
        algorithm: Algorithm,
        key: &[u8],
        claims: &Value,
    ) -> Result<String, String> {
        jsonwebtoken::encode(
            &Header::new(algorithm),
            claims,
            &EncodingKey::from_secret(key),
        )
        .map_err(|e| format!("cannot mint a token: {e}"))
    }

    /// `(what, Authorization header value or None)`: every one must be refused with 401.
    pub(super) fn bad_credentials(
        &self,
        valid_admin: &str,
        deactivated_user: &str,
    ) -> Result<Vec<(String, Option<String>)>, String> {
        let key = self.secret.as_bytes();
        let fresh = self.claims("1", 900);
        let bearer = |token: &str| Some(format!("Bearer {token}"));
        let with = |claims: Value| self.sign(Algorithm::HS256, key, &claims);
        let expired = with(self.claims("1", -3600))?;
        let unknown_user = with(self.claims("999999", 900))?;
        let mut other_issuer = fresh.clone();
        other_issuer["iss"] = json!("someone-else");
        let other_issuer = with(other_issuer)?;
        let mut other_audience = fresh.clone();
        other_audience["aud"] = json!("another-api");
        let other_audience = with(other_audience)?;
        let mut no_sub = fresh.clone();
        no_sub
            .as_object_mut()
            .map(|claims| claims.remove("sub"))
            .ok_or("claims are an object")?;
        let no_sub = with(no_sub)?;
        let not_yet = with(self.claims("1", 7200).as_object().cloned().map_or(
            Value::Null,
            |mut c| {
                c.insert("nbf".into(), json!(c["exp"].as_i64().unwrap_or(0) - 60));
                Value::Object(c)
            },
        ))?;
        let other_key = self.sign(
            Algorithm::HS256,
            b"not-the-server-key-not-the-server-key",
            &fresh,
        )?;
        let hs384 = self.sign(Algorithm::HS384, key, &fresh)?;
        let hs512 = self.sign(Algorithm::HS512, key, &fresh)?;
        let encode = |v: &Value| URL_SAFE_NO_PAD.encode(v.to_string().as_bytes());
        let payload = encode(&fresh);
        let alg_none = format!(
            "{}.{payload}.",
            encode(&json!({"alg": "none", "typ": "JWT"}))
        );
        let alg_none_upper = format!(
            "{}.{payload}.",
            encode(&json!({"alg": "NONE", "typ": "JWT"}))
        );
        // The admin's real token with its signature's last characters changed.
        let mut tampered = valid_admin.to_owned();
        let cut = tampered.len().saturating_sub(4);
        tampered.truncate(cut);
        tampered.push_str(if valid_admin.ends_with("AAAA") {
            "BBBB"
        } else {
            "AAAA"
        });
        // The admin's real signature on a payload that says user 2.
        let parts: Vec<&str> = valid_admin.split('.').collect();
        let mut swapped_claims = fresh.clone();
        swapped_claims["sub"] = json!("2");
        let swapped = format!(
            "{}.{}.{}",
            parts.first().copied().unwrap_or_default(),
            encode(&swapped_claims),
            parts.get(2).copied().unwrap_or_default()
        );
        Ok(vec![
            ("no Authorization header".into(), None),
            ("empty Authorization".into(), Some(String::new())),
            ("scheme only".into(), Some("Bearer".into())),
            ("scheme and a space".into(), Some("Bearer ".into())),
            (
                "Basic credentials".into(),
                Some(format!("Basic {}", "YWRtaW46eA==")),
            ),
            (
                "another scheme with a valid token".into(),
                Some(format!("Token {valid_admin}")),
            ),
            (
                "the token without a scheme".into(),
                Some(valid_admin.to_owned()),
            ),
            (
                "two tokens".into(),
                Some(format!("Bearer {valid_admin} {valid_admin}")),
            ),
            ("not a JWT".into(), bearer("not-a-jwt")),
            ("three empty parts".into(), bearer("..")),
            ("garbage base64".into(), bearer("a.b.c")),
            (
                "a very long token".into(),
                bearer(&"A".repeat(6000).to_string()),
            ),
            ("expired".into(), bearer(&expired)),
            ("not valid yet".into(), bearer(&not_yet)),
            ("signed with another key".into(), bearer(&other_key)),
            ("tampered signature".into(), bearer(&tampered)),
            (
                "payload swapped under a real signature".into(),
                bearer(&swapped),
            ),
            ("alg none".into(), bearer(&alg_none)),
            ("alg NONE".into(), bearer(&alg_none_upper)),
            ("HS384 with the server key".into(), bearer(&hs384)),
            ("HS512 with the server key".into(), bearer(&hs512)),
            ("another issuer".into(), bearer(&other_issuer)),
            ("another audience".into(), bearer(&other_audience)),
            ("no sub claim".into(), bearer(&no_sub)),
            ("a user that does not exist".into(), bearer(&unknown_user)),
            ("a deactivated user".into(), bearer(deactivated_user)),
        ])
    }
}
