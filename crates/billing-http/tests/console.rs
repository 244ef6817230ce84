//! The console's routes (docs/console.md) through the whole application, middlewares included:
//! the page and every answer under `/console` carry the security headers, the assets their
//! content types, and unknown console paths are problem+json 404s.

use std::time::Duration;

use actix_web::http::StatusCode;
use actix_web::http::header::HeaderMap;
use actix_web::{test, web};
use billing_auth::throttle::ThrottlePolicy;
use billing_auth::{AuthConfig, AuthService, Secret};
use billing_http::{AppState, HttpLimits, MetricsOn};
use billing_persistence::{Database, DatabaseConfig};

/// The state of a server on a fresh SQLite database in a temporary directory.
fn state(name: &str) -> (web::Data<AppState>, std::path::PathBuf) {
    let directory = std::env::temp_dir().join(format!("{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&directory);
    let database = Database::open(&DatabaseConfig {
        url: None,
        data_dir: directory.clone(),
        pool_size: 2,
        connection_timeout: Duration::from_secs(5),
    })
    .expect("database");
    let auth = AuthService::new(
        database.clone(),
        AuthConfig {
            signing_key: Secret::new("console-test-signing-key-of-32-bytes!!"),
            issuer: "billing".into(),
            audience: "billing".into(),
            access_token_lifetime: Duration::from_secs(900),
            refresh_token_lifetime: Duration::from_secs(86_400),
            brand: None,
            throttle: ThrottlePolicy::default(),
            hashing_threads: 1,
            hashing_queue: 4,
        },
    );
    let rating = billing_http::live_rating::LiveRating::load(&database, None).expect("rating");
    let state = web::Data::new(AppState {
        database,
        auth: std::sync::Arc::new(auth),
        limits: HttpLimits::default(),
        openapi: billing_http::routes::documentation::DocumentAnswer::new(&serde_json::Value::Null),
        metrics: billing_http::metrics::Metrics::default(),
        rating,
        trusted_proxies: billing_http::machinery::proxies::TrustedProxies::parse("")
            .expect("no proxies"),
        cors: billing_http::cors::CorsOrigins::parse("").expect("no origins"),
        list_budget: Default::default(),
        body_budget: Default::default(),
    });
    (state, directory)
}

/// The headers of an answer that do not change between runs, as `name: value` lines (the
/// request id and the date left out).
fn stable_headers(headers: &HeaderMap) -> String {
    let mut lines: Vec<String> = headers
        .iter()
        .filter(|(name, _)| !matches!(name.as_str(), "x-request-id" | "date"))
        .map(|(name, value)| format!("{name}: {}", value.to_str().unwrap_or("?")))
        .collect();
    lines.sort();
    lines.join("\n")
}

/// One header's value as text (empty when absent).
fn header(headers: &HeaderMap, name: &str) -> String {
    headers
        .get(name)
        .and_then(|value| value.to_str().ok())
        .unwrap_or_default()
        .to_owned()
}

#[actix_web::test]
async fn the_console_is_served_with_its_security_headers() {
    let (state, directory) = state("console-routes");
    let app = test::init_service(billing_http::application(state, MetricsOn::Api)).await;

    let page =
        test::call_service(&app, test::TestRequest::get().uri("/console").to_request()).await;
    assert_eq!(page.status(), StatusCode::OK);
    insta::assert_snapshot!("page_headers", stable_headers(page.headers()));
    let body = test::read_body(page).await;
    let html = std::str::from_utf8(&body).unwrap();
    assert!(html.contains(r#"<script type="module" src="/console/assets/app.js"></script>"#));

    let slash =
        test::call_service(&app, test::TestRequest::get().uri("/console/").to_request()).await;
    assert_eq!(slash.status(), StatusCode::OK);

    let mut assets = Vec::new();
    for name in [
        "app.js",
        "api.js",
        "ui.js",
        "users.js",
        "customers.js",
        "site-form.js",
        "reference-data.js",
        "records.js",
        "audit.js",
        "console.css",
    ] {
        let response = test::call_service(
            &app,
            test::TestRequest::get()
                .uri(&format!("/console/assets/{name}"))
                .to_request(),
        )
        .await;
        assert_eq!(response.status(), StatusCode::OK, "{name}");
        let content_type = header(response.headers(), "content-type");
        let csp = header(response.headers(), "content-security-policy");
        assert!(csp.starts_with("default-src 'none'"), "{name}: {csp}");
        assets.push(format!("{name}: {content_type}"));
    }
    insta::assert_snapshot!("asset_content_types", assets.join("\n"));

    // A JavaScript asset asked for with compression still says what it is.
    let compressed = test::call_service(
        &app,
        test::TestRequest::get()
            .uri("/console/assets/ui.js")
            .insert_header(("Accept-Encoding", "gzip"))
            .to_request(),
    )
    .await;
    assert_eq!(header(compressed.headers(), "content-encoding"), "gzip");
    assert_eq!(
        header(compressed.headers(), "content-type"),
        "text/javascript; charset=utf-8"
    );

    let _ = std::fs::remove_dir_all(directory);
}

#[actix_web::test]
async fn unknown_console_paths_and_the_session_without_a_token_are_problems_with_the_headers() {
    let (state, directory) = state("console-unknown");
    let app = test::init_service(billing_http::application(state, MetricsOn::Api)).await;

    for uri in [
        "/console/users",
        "/console/assets/missing.js",
        "/console/assets/../index.html",
    ] {
        let response =
            test::call_service(&app, test::TestRequest::get().uri(uri).to_request()).await;
        assert_eq!(response.status(), StatusCode::NOT_FOUND, "{uri}");
        assert_eq!(
            header(response.headers(), "content-type"),
            "application/problem+json",
            "{uri}"
        );
        assert_eq!(
            header(response.headers(), "x-frame-options"),
            "DENY",
            "{uri}"
        );
        let body: serde_json::Value = test::read_body_json(response).await;
        assert_eq!(body["status"], 404, "{uri}");
    }

    let post =
        test::call_service(&app, test::TestRequest::post().uri("/console").to_request()).await;
    assert_eq!(post.status(), StatusCode::METHOD_NOT_ALLOWED);
    assert_eq!(header(post.headers(), "allow"), "GET, HEAD");
    assert_eq!(header(post.headers(), "x-content-type-options"), "nosniff");

    let session = test::call_service(
        &app,
        test::TestRequest::get()
            .uri("/console/session")
            .to_request(),
    )
    .await;
    assert_eq!(session.status(), StatusCode::UNAUTHORIZED);
    insta::assert_snapshot!(
        "session_without_token_headers",
        stable_headers(session.headers())
    );

    let _ = std::fs::remove_dir_all(directory);
}

/// `actix_web::test` is imported above: these tests are plain ones.
mod code_lists {
    /// The quoted strings of `const NAME = [...]` in one of the console's scripts.
    fn console_list(script: &str, name: &str) -> Vec<String> {
        let start = script
            .find(&format!("const {name} = ["))
            .unwrap_or_else(|| panic!("const {name} not found"));
        let list = &script[start..];
        let list = &list[list.find('[').expect("[") + 1..list.find(']').expect("]")];
        list.split(',')
            .map(|item| item.trim().trim_matches('\'').to_owned())
            .filter(|item| !item.is_empty())
            .collect()
    }

    /// The console writes the code sets it offers in its scripts: each is the service's own, so a
    /// code added to a set (or an audited collection) cannot be missing from a choice, and a code
    /// the console offers is never refused as unknown.
    #[test]
    fn the_consoles_code_lists_are_the_services() {
        use billing_domain::kinds::{
            ChargingUnitType, CodeSet, ContactRole, InvoiceTemplateType, MandateProvider,
            PaymentMethod, ReceiveBy,
        };
        let records = include_str!("../console/records.js");
        let sites = include_str!("../console/site-form.js");
        let audit = include_str!("../console/audit.js");
        for (script, name, codes) in [
            (
                records,
                "TEMPLATE_TYPES",
                <InvoiceTemplateType as CodeSet>::CODES,
            ),
            (
                records,
                "CHARGING_UNIT_TYPES",
                <ChargingUnitType as CodeSet>::CODES,
            ),
            (
                records,
                "MANDATE_PROVIDERS",
                <MandateProvider as CodeSet>::CODES,
            ),
            (sites, "CONTACT_ROLES", <ContactRole as CodeSet>::CODES),
            (sites, "RECEIVE_BY", <ReceiveBy as CodeSet>::CODES),
            (sites, "PAYMENT_METHODS", <PaymentMethod as CodeSet>::CODES),
            (audit, "ACTIONS", billing_http::machinery::audit::ACTIONS),
        ] {
            assert_eq!(console_list(script, name), codes, "{name}");
        }
        // The audit trail's resource choices: every collection a write can name, but the
        // read-only ones.
        let offered = console_list(audit, "RESOURCES");
        let audited = billing_http::resources::AUDITED;
        let missing: Vec<&str> = audited
            .into_iter()
            .filter(|path| !offered.iter().any(|offered| offered == path))
            .collect();
        insta::assert_debug_snapshot!(missing, @r#"
            [
                "user-roles",
                "countries",
                "audit-events",
            ]
        "#);
        assert!(
            offered.iter().all(|path| audited.contains(&path.as_str())),
            "{offered:?}"
        );
    }
}
