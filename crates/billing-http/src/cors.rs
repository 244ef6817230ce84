//! Cross-origin requests from browsers (CORS), for the origins `BILLING_CORS_ORIGINS` names; off
//! when it names none (docs/api.md, "Browsers on other origins").
//!
//! A preflight (`OPTIONS` with `Origin` and `Access-Control-Request-Method`) from an allowed
//! origin is answered 204 here, before routing, with the methods and request headers the API
//! uses; any other request from an allowed origin gets `Access-Control-Allow-Origin` and the
//! response headers a client reads exposed. Requests from other origins get no CORS headers
//! (the browser then refuses the page the answer), and their preflights fall through to the
//! routes (405). Credentials are bearer tokens in `Authorization`, never cookies, so no
//! `Access-Control-Allow-Credentials`.

use actix_web::body::{BoxBody, MessageBody};
use actix_web::dev::{ServiceRequest, ServiceResponse};
use actix_web::http::Method;
use actix_web::http::header::{self, HeaderValue};
use actix_web::middleware::Next;
use actix_web::{HttpResponse, web};

use crate::state::AppState;

/// The methods the API answers.
pub const ALLOWED_METHODS: &str = "GET, HEAD, POST, PUT, PATCH, DELETE";
/// The request headers a client may send beyond the CORS-safelisted ones.
pub const ALLOWED_HEADERS: &str = "Authorization, Content-Type, If-Match, If-None-Match, Idempotency-Key, Prefer, cascade_end_date, X-Request-Id";
/// The response headers a client may read beyond the CORS-safelisted ones.
pub const EXPOSED_HEADERS: &str = "ETag, Location, X-Total-Count, Link, Preference-Applied, X-Request-Id, Retry-After, \
     Idempotent-Replayed, Allow";
/// How long a browser may keep a preflight's answer, in seconds.
pub const MAX_AGE_SECONDS: &str = "600";

/// The origins allowed to call the API from a browser.
#[derive(Debug, Clone, Default)]
pub struct CorsOrigins {
    origins: Vec<String>,
}

impl CorsOrigins {
    /// `https://console.example.com, http://localhost:5173`: each an origin (scheme, host and
    /// optional port; no path), or `*` for any origin. Empty: CORS off.
    pub fn parse(text: &str) -> Result<Self, String> {
        let mut origins = Vec::new();
        for origin in text
            .split(',')
            .map(|origin| origin.trim().trim_end_matches('/'))
            .filter(|o| !o.is_empty())
        {
            if origin == "*" {
                origins.push(origin.to_owned());
                continue;
            }
            origins.push(serialized_origin(origin).ok_or_else(|| {
                format!("'{origin}' is not an origin: give scheme://host[:port] (no path), or *")
            })?);
        }
        Ok(Self { origins })
    }

    pub fn is_off(&self) -> bool {
        self.origins.is_empty()
    }

    /// `*` is any origin a web page can have (`http` or `https`, a host, a port): not the opaque
    /// `null` of a sandboxed frame or a file, nor anything else a browser never sends
    /// (`*`, a list, `file://`), which the answer would otherwise echo.
    fn allows(&self, origin: &str) -> bool {
        self.origins.iter().any(|allowed| match allowed.as_str() {
            "*" => is_web_origin(origin),
            allowed => allowed == origin,
        })
    }
}

/// A configured origin as a browser writes it in `Origin` (compared as text): scheme and host
/// in lower case, the scheme's default port left out. `None` for what a browser never sends,
/// which could never match: a path, user, wildcard (`https://*.example.com`), a port out of
/// range, a character no host name has.
fn serialized_origin(origin: &str) -> Option<String> {
    let (scheme, rest) = origin.split_once("://")?;
    let scheme = scheme.to_ascii_lowercase();
    let default_port = match scheme.as_str() {
        "http" => "80",
        "https" => "443",
        _ => return None,
    };
    // An IPv6 literal is written as the browser does, in its shortest form (`[::1]`).
    let (host, port) = match rest.strip_prefix('[') {
        Some(literal) => {
            let (address, after) = literal.split_once(']')?;
            let address = address.parse::<std::net::Ipv6Addr>().ok()?;
            let port = match after {
                "" => None,
                after => Some(after.strip_prefix(':')?),
            };
            (format!("[{address}]"), port)
        }
        None => match rest.split_once(':') {
            Some((host, port)) => (host.to_owned(), Some(port)),
            None => (rest.to_owned(), None),
        },
    };
    let host_name = host.starts_with('[')
        || (!host.is_empty()
            && host
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'.'));
    let port = match port {
        None => None,
        Some(port) => match port.parse::<u16>() {
            Ok(number) if number >= 1 && number.to_string() == port => {
                (port != default_port).then_some(port)
            }
            _ => return None,
        },
    };
    let host = host.to_ascii_lowercase();
    host_name.then(|| match port {
        Some(port) => format!("{scheme}://{host}:{port}"),
        None => format!("{scheme}://{host}"),
    })
}

/// `scheme://host[:port]` with scheme `http` or `https` and no path, query or space.
fn is_web_origin(origin: &str) -> bool {
    origin.split_once("://").is_some_and(|(scheme, rest)| {
        matches!(scheme, "http" | "https")
            && !rest.is_empty()
            && !rest.contains(['/', '?', '#', ' ', ','])
    })
}

/// The origin of a request from an allowed origin, if it is one.
fn allowed_origin(request: &ServiceRequest, origins: &CorsOrigins) -> Option<HeaderValue> {
    if origins.is_off() {
        return None;
    }
    let origin = request.headers().get(header::ORIGIN)?;
    origins
        .allows(origin.to_str().ok()?)
        .then(|| origin.clone())
}

pub async fn middleware(
    request: ServiceRequest,
    next: Next<impl MessageBody + 'static>,
) -> Result<ServiceResponse<BoxBody>, actix_web::Error> {
    let origins = request
        .app_data::<web::Data<AppState>>()
        .map(|state| state.cors.clone())
        .unwrap_or_default();
    let Some(origin) = allowed_origin(&request, &origins) else {
        return next
            .call(request)
            .await
            .map(ServiceResponse::map_into_boxed_body);
    };
    let preflight = request.method() == Method::OPTIONS
        && request
            .headers()
            .contains_key(header::ACCESS_CONTROL_REQUEST_METHOD);
    if preflight {
        let response = HttpResponse::NoContent()
            .insert_header((header::ACCESS_CONTROL_ALLOW_ORIGIN, origin))
            .insert_header((header::ACCESS_CONTROL_ALLOW_METHODS, ALLOWED_METHODS))
            .insert_header((header::ACCESS_CONTROL_ALLOW_HEADERS, ALLOWED_HEADERS))
            .insert_header((header::ACCESS_CONTROL_MAX_AGE, MAX_AGE_SECONDS))
            .insert_header((header::VARY, "Origin"))
            .finish();
        return Ok(request.into_response(response));
    }
    let mut response = next.call(request).await?.map_into_boxed_body();
    let headers = response.headers_mut();
    headers.insert(header::ACCESS_CONTROL_ALLOW_ORIGIN, origin);
    headers.insert(
        header::ACCESS_CONTROL_EXPOSE_HEADERS,
        HeaderValue::from_static(EXPOSED_HEADERS),
    );
    headers.append(header::VARY, HeaderValue::from_static("Origin"));
    Ok(response)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn origins_are_checked_when_read() {
        let origins = CorsOrigins::parse("https://console.example.com, http://localhost:5173/")
            .expect("origins");
        assert!(origins.allows("https://console.example.com"));
        assert!(origins.allows("http://localhost:5173"));
        assert!(!origins.allows("https://evil.example.com"));
        assert!(CorsOrigins::parse("").expect("off").is_off());
        assert!(
            CorsOrigins::parse("*")
                .expect("any")
                .allows("https://anything.example")
        );
        let any = CorsOrigins::parse("*").expect("any");
        for never in [
            "null",
            "NULL",
            "",
            "*",
            "file://",
            "null, https://a.example",
        ] {
            assert!(!any.allows(never), "{never:?}");
        }
        insta::assert_snapshot!(
            CorsOrigins::parse("console.example.com").unwrap_err(),
            @"'console.example.com' is not an origin: give scheme://host[:port] (no path), or *"
        );
        assert!(CorsOrigins::parse("https://a.example/path").is_err());
        // Written as a browser writes `Origin`, or refused: an origin that could never match
        // is not accepted silently.
        let written = CorsOrigins::parse(
            "HTTPS://Console.Example.com:443, http://localhost:80, http://[0:0:0:0:0:0:0:1]:8080, https://a.example:8443",
        )
        .expect("origins");
        assert_eq!(
            written.origins,
            [
                "https://console.example.com",
                "http://localhost",
                "http://[::1]:8080",
                "https://a.example:8443"
            ]
        );
        for never in [
            "https://*.example.com",
            "https://user@a.example",
            "https://a.example:99999",
            "https://a.example:0",
            "https://a.example:",
            "https://a.example:08",
            "ftp://a.example",
            "https://",
            "https://[::1",
            "https://a_b.example",
            "http://[::1]/app",
            "http://[::1]junk",
            "http://[::1]:",
        ] {
            assert!(CorsOrigins::parse(never).is_err(), "{never}");
        }
    }
}
