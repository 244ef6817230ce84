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
        for header in ["authorization", "if-match", "idempotency-key", "cascade_end_date", "content-type"] {
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
