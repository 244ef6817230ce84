//! The operator console at `/console` (docs/console.md): a single page of static files checked
//! in under `console/` (HTML, plain JavaScript modules, CSS; no build step, no third-party
//! script), embedded in the binary and served with a strict Content-Security-Policy. The page
//! calls the JSON API on the same origin with the bearer token it holds in memory.
//!
//! - `GET /console` (and `/console/`): the page, `Cache-Control: no-store`.
//! - `GET /console/assets/{name}`: its scripts and style sheet, each with its content type.
//! - `GET /console/session`: who the bearer of the token is, as the API sees them now (roles,
//!   their permissions, contract owners), so the page shows exactly what the API allows.
//! - Any other path under `/console` is a problem+json 404 (the page routes with the URL's
//!   fragment, `#/users`, which never reaches the server).
//!
//! Every answer under `/console`, errors included, carries [`SECURITY_HEADERS`].

use actix_web::middleware::DefaultHeaders;
use actix_web::{HttpRequest, HttpResponse, web};
use billing_domain::roles::{ContractOwnerScope, Permission};
use serde::Serialize;

use crate::error::ApiError;
use crate::machinery::request::Caller;

/// Where the console is served.
pub const CONSOLE_PATH: &str = "/console";

/// The policy of every console answer: only the console's own scripts, styles and API calls;
/// no inline script or style, no framing, no `<base>`, forms only to the same origin.
pub const CONTENT_SECURITY_POLICY: &str = "default-src 'none'; script-src 'self'; \
     style-src 'self'; img-src 'self' data:; connect-src 'self'; form-action 'self'; \
     frame-ancestors 'none'; base-uri 'none'";

/// The headers every answer under `/console` carries (unless the handler set its own value).
pub const SECURITY_HEADERS: [(&str, &str); 5] = [
    ("Content-Security-Policy", CONTENT_SECURITY_POLICY),
    ("X-Content-Type-Options", "nosniff"),
    ("Referrer-Policy", "no-referrer"),
    ("X-Frame-Options", "DENY"),
    ("Cross-Origin-Opener-Policy", "same-origin"),
];

/// One embedded file of the console.
struct Asset {
    name: &'static str,
    content_type: &'static str,
    body: &'static str,
}

const JS: &str = "text/javascript; charset=utf-8";

/// What `/console/assets/{name}` serves: every file of `console/` but the page itself.
const ASSETS: &[Asset] = &[
    Asset {
        name: "console.css",
        content_type: "text/css; charset=utf-8",
        body: include_str!("../../console/console.css"),
    },
    Asset {
        name: "app.js",
        content_type: JS,
        body: include_str!("../../console/app.js"),
    },
    Asset {
        name: "api.js",
        content_type: JS,
        body: include_str!("../../console/api.js"),
    },
    Asset {
        name: "ui.js",
        content_type: JS,
        body: include_str!("../../console/ui.js"),
    },
    Asset {
        name: "users.js",
        content_type: JS,
        body: include_str!("../../console/users.js"),
    },
    Asset {
        name: "customers.js",
        content_type: JS,
        body: include_str!("../../console/customers.js"),
    },
    Asset {
        name: "site-form.js",
        content_type: JS,
        body: include_str!("../../console/site-form.js"),
    },
    Asset {
        name: "reference-data.js",
        content_type: JS,
        body: include_str!("../../console/reference-data.js"),
    },
    Asset {
        name: "records.js",
        content_type: JS,
        body: include_str!("../../console/records.js"),
    },
    Asset {
        name: "audit.js",
        content_type: JS,
        body: include_str!("../../console/audit.js"),
    },
];

const PAGE: &str = include_str!("../../console/index.html");

/// Middleware that puts `headers` on every answer that does not set them itself (the console's,
/// Swagger UI's).
pub fn answers_carrying(headers: &[(&'static str, &'static str)]) -> DefaultHeaders {
    headers
        .iter()
        .fold(DefaultHeaders::new(), |answers, header| {
            answers.add(*header)
        })
}

/// The routes under [`CONSOLE_PATH`], with the security headers on every answer.
pub fn scope() -> impl actix_web::dev::HttpServiceFactory {
    web::scope(CONSOLE_PATH)
        .wrap(answers_carrying(&SECURITY_HEADERS))
        .service(crate::single("", "GET", crate::get_or_head().to(page)))
        .service(crate::single("/", "GET", crate::get_or_head().to(page)))
        .service(crate::single(
            "/session",
            "GET",
            crate::get_or_head().to(session),
        ))
        .service(crate::single(
            "/assets/{name}",
            "GET",
            crate::get_or_head().to(asset),
        ))
        .default_service(web::to(crate::unknown_route_handler))
}

/// The page: the shell the modules fill in.
pub async fn page() -> HttpResponse {
    HttpResponse::Ok()
        .content_type("text/html; charset=utf-8")
        .insert_header(("Cache-Control", "no-store"))
        .body(PAGE)
}

/// A script or the style sheet; an unknown name is a 404 like any unknown path.
pub async fn asset(
    request: HttpRequest,
    name: web::Path<String>,
) -> Result<HttpResponse, ApiError> {
    let asset = ASSETS
        .iter()
        .find(|asset| asset.name == name.as_str())
        .ok_or_else(|| crate::unknown_route(&request))?;
    Ok(HttpResponse::Ok()
        .content_type(asset.content_type)
        // The files change only with the binary: revalidated on every load, never stale.
        .insert_header(("Cache-Control", "no-cache"))
        .body(asset.body))
}

/// `GET /console/session`: the caller as the API authorises them on this request.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Session {
    pub user_id: i64,
    pub username: String,
    pub roles: Vec<&'static str>,
    /// Every permission the roles grant, each once, in the order of the permission list.
    pub permissions: Vec<&'static str>,
    /// Empty: every contract owner.
    pub contract_owner_ids: Vec<i64>,
    /// Whether the request was made with an API key rather than a signed-in token.
    pub api_key: bool,
}

pub async fn session(Caller(caller): Caller) -> HttpResponse {
    let session = Session {
        user_id: caller.id,
        username: caller.username.clone(),
        roles: caller.roles.iter().map(|role| role.code()).collect(),
        permissions: Permission::ALL
            .into_iter()
            .filter(|permission| caller.has(*permission))
            .map(Permission::code)
            .collect(),
        contract_owner_ids: match &caller.contract_owners {
            ContractOwnerScope::All => Vec::new(),
            ContractOwnerScope::Only(ids) => ids.clone(),
        },
        api_key: caller.api_key_id.is_some(),
    };
    HttpResponse::Ok()
        .insert_header(("Cache-Control", "no-store"))
        .json(session)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every embedded script is a module the page or another module imports by its served name.
    #[test]
    fn every_asset_is_referenced_by_the_page_or_a_module() {
        for asset in ASSETS {
            let path = format!("./{}", asset.name);
            let served = format!("/console/assets/{}", asset.name);
            let referenced =
                PAGE.contains(&served) || ASSETS.iter().any(|other| other.body.contains(&path));
            assert!(referenced, "{} is served but never loaded", asset.name);
        }
    }

    /// The page has no inline script or style: the policy would refuse them.
    #[test]
    fn the_page_has_nothing_inline() {
        assert!(!PAGE.contains("<script>"));
        assert!(!PAGE.contains("style="));
        assert!(!PAGE.contains("<style"));
        let handler = regex::Regex::new(r"\son[a-z]+\s*=").unwrap();
        assert!(
            !handler.is_match(PAGE),
            "no inline event handler attributes"
        );
        for asset in ASSETS {
            assert!(
                !asset.body.contains("innerHTML"),
                "{} writes HTML from text",
                asset.name
            );
        }
    }
}
