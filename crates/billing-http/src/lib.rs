//! The JSON REST interface: routes, the conventions machinery, problem+json errors and the
//! OpenAPI document.
//!
//! **Only this crate knows actix and JSON.** Resources are declared in [`resources`] and
//! served by [`machinery`]; every error becomes a response in [`error`], in one place.

pub mod compression;
pub mod cors;
pub mod error;
pub mod live_rating;
pub mod machinery;
pub mod metrics;
pub mod openapi;
pub mod pipelining;
pub mod request_context;
pub mod resources;
pub mod routes;
pub mod row_counts;
pub mod state;
pub mod transport;

use actix_web::body::MessageBody;
use actix_web::dev::{ServiceFactory, ServiceRequest, ServiceResponse};
use actix_web::middleware::from_fn;
use actix_web::{App, HttpRequest, web};

pub use error::ApiError;

/// A declared resource, and an owned child table, served from the declaration by the one
/// parser of the grammar (`billing_declare`): `billing_domain::tax_bands!(crate::api_resource,
/// TaxBands { … })` (what `#[declared_resource(billing_domain::tax_bands, …)] impl Resource for
/// TaxBands { … }` expands to), `billing_domain::site_contacts!(crate::api_child)`.
pub use billing_declare::{api_child, api_resource, declared_resource};

// The code `api_resource!` writes names this crate by its name, here as elsewhere.
extern crate self as billing_http;
pub use state::{AppState, HttpLimits};

/// The OpenAPI document of everything [`application`] serves.
pub fn openapi_document() -> serde_json::Value {
    openapi::document(&resources::documentation())
}

/// The path every resource is served under.
pub const API_BASE: &str = "/v1";

async fn unknown_route_handler(request: HttpRequest) -> Result<actix_web::HttpResponse, ApiError> {
    Err(unknown_route(&request))
}

/// The 404 of a path no route serves.
pub(crate) fn unknown_route(request: &HttpRequest) -> ApiError {
    ApiError::not_found(format!(
        "no route for {} {}",
        request.method(),
        request.path()
    ))
}

/// A path served by one method (a `GET` also answers `HEAD`, with the headers and no body);
/// any other method gets a problem+json 405 with `Allow`.
fn single(path: &str, method: &'static str, route: actix_web::Route) -> actix_web::Resource {
    let allow = match method {
        "GET" => "GET, HEAD".to_owned(),
        other => other.to_owned(),
    };
    web::resource(path)
        .route(route)
        .default_service(machinery::handlers::method_not_allowed(allow))
}

/// A route for `GET` and `HEAD` (the HTTP library leaves out the body of a `HEAD` answer).
fn get_or_head() -> actix_web::Route {
    web::route().guard(actix_web::guard::Any(actix_web::guard::Get()).or(actix_web::guard::Head()))
}

/// Where `/metrics` is served.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MetricsOn {
    /// With the API, on its address.
    Api,
    /// Only on an address of its own ([`metrics_application`]): the API's answers 404.
    OwnAddress,
}

fn metrics_route() -> actix_web::Resource {
    single("/metrics", "GET", get_or_head().to(routes::health::metrics))
}

/// What the metrics address serves: `/metrics` and nothing else (every other path 404).
pub fn metrics_application(
    state: web::Data<AppState>,
) -> App<
    impl ServiceFactory<
        ServiceRequest,
        Config = (),
        Response = ServiceResponse<impl MessageBody>,
        Error = actix_web::Error,
        InitError = (),
    >,
> {
    App::new()
        .app_data(state)
        .wrap(from_fn(request_context::middleware))
        .service(metrics_route())
        .default_service(web::to(unknown_route_handler))
}

/// The whole application, ready for `HttpServer::new`.
pub fn application(
    state: web::Data<AppState>,
    metrics_on: MetricsOn,
) -> App<
    impl ServiceFactory<
        ServiceRequest,
        Config = (),
        Response = ServiceResponse<impl MessageBody>,
        Error = actix_web::Error,
        InitError = (),
    >,
> {
    App::new()
        .app_data(state)
        // Outermost last: every answer, a preflight's included, has its request id and log line.
        .wrap(from_fn(compression::middleware))
        .wrap(from_fn(cors::middleware))
        .wrap(from_fn(request_context::middleware))
        // The connection learns of each answer (one pipelined request at a time).
        .wrap(from_fn(pipelining::middleware))
        .service(single(
            "/health/live",
            "GET",
            get_or_head().to(routes::health::live),
        ))
        .service(single(
            "/health/ready",
            "GET",
            get_or_head().to(routes::health::ready),
        ))
        .configure(|config| {
            if metrics_on == MetricsOn::Api {
                config.service(metrics_route());
            }
        })
        .service(
            web::scope(API_BASE)
                .service(single(
                    "/authenticate",
                    "POST",
                    web::post().to(routes::authentication::authenticate),
                ))
                .service(single(
                    "/authenticate/refresh",
                    "POST",
                    web::post().to(routes::authentication::refresh),
                ))
                .service(single(
                    "/authenticate/revoke",
                    "POST",
                    web::post().to(routes::authentication::revoke),
                ))
                // In a scope of its own, like every resource: its pattern is matched only
                // for its own paths, not tried on every path under /v1.
                .service(web::scope("/reference-data-summary").service(single(
                    "/{type}/{id}",
                    "GET",
                    get_or_head().to(routes::reference_data_summary::summary_rows),
                )))
                .service(single(
                    "/rating/lookups",
                    "POST",
                    web::post().to(routes::rating_lookups::lookups),
                ))
                .service(single(
                    "/openapi.json",
                    "GET",
                    get_or_head().to(routes::documentation::openapi),
                ))
                .configure(resources::register_all),
        )
        .service(web::redirect("/docs", "/docs/"))
        .service(single(
            "/",
            "GET",
            get_or_head().to(routes::documentation::home),
        ))
        .service(routes::documentation::swagger_ui())
        .service(routes::console::scope())
        .default_service(web::to(unknown_route_handler))
}
