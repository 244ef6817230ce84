//! Browsers on other origins (CORS): allowed only for the origins `BILLING_CORS_ORIGINS` names.
//! (`cargo xtask cors` checks the same from a real page in headless Chromium.)

api_test! {
    fn browsers_on_allowed_origins_may_call_the_api(app, settings => settings.cors_origins = Some("https://console.example.com".into())) {
        let allowed = "https://console.example.com";
        // A preflight from an allowed origin: 204 with what the API takes.
        let preflight = app.send("OPTIONS", "/v1/sites/1", None, &[
            ("Origin", allowed),
            ("Access-Control-Request-Method", "PATCH"),
            ("Access-Control-Request-Headers", "authorization, content-type, if-match, cascade_end_date"),
        ], None);
        assert_eq!(preflight.status, 204, "{}", preflight.text);
        assert_eq!(preflight.header("access-control-allow-origin"), Some(allowed));
        assert!(preflight.header("access-control-allow-methods").expect("methods").contains("PATCH"));
        let headers = preflight.header("access-control-allow-headers").expect("headers").to_ascii_lowercase();
        for header in ["authorization", "if-match", "if-none-match", "idempotency-key", "cascade_end_date", "content-type"] {
            assert!(headers.contains(header), "{headers}");
        }
        // A request: the origin allowed, the headers a client reads exposed.
        let listed = app.send("GET", "/v1/currencies?page=1&pageSize=1", Some(&app.admin_token), &[("Origin", allowed)], None);
        assert_eq!(listed.status, 200);
        assert_eq!(listed.header("access-control-allow-origin"), Some(allowed));
        let exposed = listed.header("access-control-expose-headers").expect("exposed");
        for header in ["ETag", "Location", "X-Total-Count", "Link", "X-Request-Id"] {
            assert!(exposed.contains(header), "{exposed}");
        }
        // Errors carry it too, so a page can read the problem.
        let refused = app.send("GET", "/v1/currencies?page=1&pageSize=1", None, &[("Origin", allowed)], None);
        assert_eq!(refused.status, 401);
        assert_eq!(refused.header("access-control-allow-origin"), Some(allowed));
        // Another origin gets nothing: its preflight is the route's 405, its answers no header.
        let other = "https://evil.example.com";
        let preflight = app.send("OPTIONS", "/v1/sites/1", None, &[("Origin", other), ("Access-Control-Request-Method", "PATCH")], None);
        preflight.assert_problem(405);
        assert_eq!(preflight.header("access-control-allow-origin"), None);
        let listed = app.send("GET", "/v1/currencies?page=1&pageSize=1", Some(&app.admin_token), &[("Origin", other)], None);
        assert_eq!(listed.header("access-control-allow-origin"), None);
    }

    fn cors_is_off_unless_origins_are_named(app) {
        let preflight = app.send("OPTIONS", "/v1/currencies", None, &[
            ("Origin", "https://console.example.com"), ("Access-Control-Request-Method", "GET")], None);
        preflight.assert_problem(405);
        assert_eq!(preflight.header("access-control-allow-origin"), None);
    }
}

/// Sends a GET with `Accept-Encoding: encoding` on a raw connection and returns the head (lower
/// case) and the body as it came, still encoded.
fn get_encoded(
    app: &crate::support::TestApp,
    path: &str,
    encoding: Option<&str>,
    method: &str,
) -> (String, Vec<u8>) {
    use std::io::{Read, Write};
    let address = app.base.trim_start_matches("http://");
    let mut stream = std::net::TcpStream::connect(address).expect("connect");
    let accept = encoding
        .map(|e| format!("Accept-Encoding: {e}\r\n"))
        .unwrap_or_default();
    let request = format!(
        "{method} {path} HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer {}\r\n{accept}Connection: close\r\n\r\n",
        app.admin_token
    );
    stream.write_all(request.as_bytes()).expect("request");
    let mut answer = Vec::new();
    stream.read_to_end(&mut answer).expect("answer");
    let split = answer
        .windows(4)
        .position(|w| w == b"\r\n\r\n")
        .expect("a head")
        + 4;
    let head = String::from_utf8_lossy(&answer[..split]).to_ascii_lowercase();
    (head, answer[split..].to_vec())
}

api_test! {
    fn large_answers_are_compressed_as_the_client_prefers(app) {
        for n in 0..40 {
            app.create("/v1/charge-group-categories", serde_json::json!({ "name": format!("Category {n}"), "chargingUnitType": "DURATION", "startDate": "2026-01-01" }));
        }
        let path = "/v1/charge-group-categories?page=1&pageSize=100";
        let (head, plain) = get_encoded(&app, path, None, "GET");
        assert!(!head.contains("content-encoding"), "{head}");
        let (head, brotli_body) = get_encoded(&app, path, Some("gzip, deflate, br"), "GET");
        assert!(head.contains("content-encoding: br"), "{head}");
        assert!(head.contains("vary: ") && head.contains("accept-encoding"), "{head}");
        let mut decoded = Vec::new();
        std::io::copy(&mut brotli::Decompressor::new(&brotli_body[..], 4096), &mut decoded).expect("brotli");
        assert_eq!(decoded, plain);
        assert!(brotli_body.len() * 4 < plain.len(), "{} of {}", brotli_body.len(), plain.len());
        let (head, gzip_body) = get_encoded(&app, path, Some("gzip"), "GET");
        assert!(head.contains("content-encoding: gzip"), "{head}");
        let mut decoded = Vec::new();
        std::io::copy(&mut flate2::read::GzDecoder::new(&gzip_body[..]), &mut decoded).expect("gzip");
        assert_eq!(decoded, plain);
        // Small answers and HEAD go as they are; the ETag is the record's version either way.
        let (head, _) = get_encoded(&app, "/v1/charge-group-categories/1", Some("br"), "GET");
        assert!(!head.contains("content-encoding"), "{head}");
        assert!(head.contains("etag: \"1\""), "{head}");
        let (head, _) = get_encoded(&app, path, Some("br"), "HEAD");
        assert!(!head.contains("content-encoding"), "{head}");
    }

    fn the_openapi_document_is_served_from_its_kept_forms(app) {
        // Written once, and each compressed form made once: the same bytes every time.
        let path = "/v1/openapi.json";
        let (head, plain) = get_encoded(&app, path, None, "GET");
        assert!(!head.contains("content-encoding") && head.contains("vary: "), "{head}");
        let document: serde_json::Value = serde_json::from_slice(&plain).expect("the document");
        assert_eq!(document["openapi"], "3.1.0");
        for (coding, decode) in [
            ("br", (|body: &[u8]| {
                let mut out = Vec::new();
                std::io::copy(&mut brotli::Decompressor::new(body, 4096), &mut out).expect("brotli");
                out
            }) as fn(&[u8]) -> Vec<u8>),
            ("gzip", |body: &[u8]| {
                let mut out = Vec::new();
                std::io::copy(&mut flate2::read::GzDecoder::new(body), &mut out).expect("gzip");
                out
            }),
        ] {
            let (head, first) = get_encoded(&app, path, Some(coding), "GET");
            assert!(head.contains(&format!("content-encoding: {coding}")), "{head}");
            assert_eq!(decode(&first), plain, "{coding}");
            let (_, second) = get_encoded(&app, path, Some(coding), "GET");
            assert_eq!(first, second, "{coding}: the kept form");
            assert!(first.len() * 5 < plain.len(), "{coding}: {} of {}", first.len(), plain.len());
        }
    }
}
