//! `GET /v1/openapi.json` and the human docs page at `/docs` (Swagger UI from vendored assets,
//! reading the served document; the UI needs no token, the API calls it makes do).

use std::sync::OnceLock;

use actix_web::http::header::{self, HeaderValue};
use actix_web::web::Bytes;
use actix_web::{HttpRequest, HttpResponse, web};

use crate::compression::{Coding, requested_coding};
use crate::state::AppState;

/// The OpenAPI document as it is served: its JSON text, written once at start, and each
/// compressed form made the first time a client asks for it and kept. The document is
/// 800 KB and needs no token: written and compressed again for every request, it cost about
/// 100 ms of CPU each in a debug build (hostile review), which a few unauthenticated clients
/// could have turned into a busy server.
pub struct DocumentAnswer {
    json: Bytes,
    brotli: OnceLock<Option<Bytes>>,
    gzip: OnceLock<Option<Bytes>>,
}

impl DocumentAnswer {
    pub fn new(document: &serde_json::Value) -> Self {
        Self {
            json: Bytes::from(serde_json::to_vec(document).unwrap_or_default()),
            brotli: OnceLock::new(),
            gzip: OnceLock::new(),
        }
    }

    /// The document compressed with `coding`, made once (`None` if it could not be).
    fn encoded(&self, coding: Coding) -> Option<&Bytes> {
        let cell = match coding {
            Coding::Brotli => &self.brotli,
            Coding::Gzip => &self.gzip,
        };
        cell.get_or_init(|| coding.encode(&self.json).ok().map(Bytes::from))
            .as_ref()
    }
}

/// `GET /v1/openapi.json`: the kept text, compressed as `Accept-Encoding` prefers (the kept
/// compressed form: the compression middleware leaves an answer that has its coding alone).
pub async fn openapi(request: HttpRequest, state: web::Data<AppState>) -> HttpResponse {
    let coding = requested_coding(request.method(), request.headers());
    let mut response = HttpResponse::Ok();
    response.content_type("application/json");
    response.insert_header((header::VARY, HeaderValue::from_static("Accept-Encoding")));
    match coding.and_then(|coding| Some((coding, state.openapi.encoded(coding)?))) {
        Some((coding, body)) => response
            .insert_header((header::CONTENT_ENCODING, coding.token()))
            .body(body.clone()),
        None => response.body(state.openapi.json.clone()),
    }
}

/// `GET /`: to the documentation page (307), which names the document it shows.
pub async fn home() -> HttpResponse {
    HttpResponse::TemporaryRedirect()
        .insert_header((actix_web::http::header::LOCATION, "/docs/"))
        .finish()
}

/// What every answer under `/docs/` carries: no framing by another page (clickjacking), no
/// content sniffing, no referrer. Swagger UI's own scripts are left unrestricted (it is a
/// third-party bundle); it keeps no token.
pub const DOCS_SECURITY_HEADERS: [(&str, &str); 4] = [
    (
        "Content-Security-Policy",
        "frame-ancestors 'none'; base-uri 'none'; object-src 'none'",
    ),
    ("X-Frame-Options", "DENY"),
    ("X-Content-Type-Options", "nosniff"),
    ("Referrer-Policy", "no-referrer"),
];

/// Swagger UI at `/docs/`, pointed at `/v1/openapi.json`, with [`DOCS_SECURITY_HEADERS`].
pub fn swagger_ui() -> impl actix_web::dev::HttpServiceFactory {
    web::scope("/docs")
        .wrap(super::console::answers_carrying(&DOCS_SECURITY_HEADERS))
        .service(
            utoipa_swagger_ui::SwaggerUi::new("/{_:.*}")
                .config(utoipa_swagger_ui::Config::new(["/v1/openapi.json"])),
        )
}
