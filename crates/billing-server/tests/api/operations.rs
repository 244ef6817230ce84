//! Health, request ids, unknown routes and methods, the OpenAPI document.

use serde_json::json;

api_test! {
    fn health_endpoints_need_no_token(app) {
        for path in ["/health/live", "/health/ready"] {
            let reply = app.send("GET", path, None, &[], None);
            assert_eq!(reply.status, 200, "{path}");
            assert_eq!(reply.json(), json!({ "status": "ok" }));
        }
    }

    fn metrics_count_requests_by_route_pattern(app) {
        app.get("/v1/charge-groups/5");
        app.get("/v1/charge-groups/6");
        app.get("/v1/charge-groups?page=1&pageSize=5");
        let reply = app.send("GET", "/metrics", None, &[], None);
        assert_eq!(reply.status, 200);
        assert!(reply.header("content-type").expect("type").starts_with("text/plain"));
        let text = &reply.text;
        for line in [
            r#"billing_http_requests_total{method="GET",route="/v1/charge-groups/{id}",status="404"} 2"#,
            r#"billing_http_requests_total{method="GET",route="/v1/charge-groups",status="200"} 1"#,
            // A histogram per route: its count is that route's requests.
            r#"billing_http_request_duration_seconds_count{method="GET",route="/v1/charge-groups/{id}"} 2"#,
            r#"billing_http_request_duration_seconds_count{method="GET",route="/v1/charge-groups"} 1"#,
            r#"billing_http_request_duration_seconds_bucket{method="GET",route="/v1/charge-groups/{id}",le="+Inf"} 2"#,
        ] {
            assert!(text.contains(line), "{line} missing from\n{text}");
        }
    }

    fn metrics_show_sign_ins_the_pool_the_build_and_the_process(app) {
        // The harness signed the administrator in once; then one failure.
        let failed = app.send("POST", "/v1/authenticate", None, &[], Some(("application/json",
            json!({ "username": "admin", "password": "not-the-password" }).to_string())));
        failed.assert_problem(401);
        let text = app.send("GET", "/metrics", None, &[], None).text;
        let value = |name: &str| -> f64 {
            text.lines()
                .find_map(|line| line.strip_prefix(name)?.strip_prefix(' ')?.parse().ok())
                .unwrap_or_else(|| panic!("{name} missing from\n{text}"))
        };
        assert_eq!(value(r#"billing_sign_ins_total{outcome="success"}"#), 1.0);
        assert_eq!(value(r#"billing_sign_ins_total{outcome="failure"}"#), 1.0);
        assert_eq!(value(r#"billing_sign_ins_total{outcome="throttled"}"#), 0.0);
        assert_eq!(value("billing_db_pool_max_connections"), 4.0);
        let open = value(r#"billing_db_pool_connections{state="in_use"}"#)
            + value(r#"billing_db_pool_connections{state="idle"}"#);
        assert!((1.0..=4.0).contains(&open), "{open} connections");
        assert!(value("billing_db_pool_wait_seconds_count") >= 1.0, "checkouts are counted");
        assert_eq!(value("billing_db_pool_timeouts_total"), 0.0);
        assert_eq!(value(&format!(r#"billing_build_info{{version="{}"}}"#, env!("CARGO_PKG_VERSION"))), 1.0);
        if cfg!(target_os = "linux") {
            assert!(value("process_resident_memory_bytes") > 1e6);
            assert!(value("process_cpu_seconds_total") >= 0.0);
            assert!(value("process_open_fds") > 0.0);
            let now = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).expect("clock").as_secs_f64();
            let started = value("process_start_time_seconds");
            assert!(started <= now + 1.0 && started > now - 86_400.0, "started {started}, now {now}");
        }
    }

    fn sign_in_throttling_is_counted(app) {
        let attempt = || app.send("POST", "/v1/authenticate", None, &[], Some(("application/json",
            json!({ "username": "nobody", "password": "wrong-password" }).to_string()))).status;
        // Five failures per username in the window (the test settings), then 429.
        let statuses: Vec<u16> = (0..6).map(|_| attempt()).collect();
        assert_eq!(statuses, [401, 401, 401, 401, 401, 429]);
        let text = app.send("GET", "/metrics", None, &[], None).text;
        assert!(text.contains(r#"billing_sign_ins_total{outcome="failure"} 5"#), "{text}");
        assert!(text.contains(r#"billing_sign_ins_total{outcome="throttled"} 1"#), "{text}");
    }

    fn request_ids_are_echoed_or_generated(app) {
        let reply = app.send("GET", "/health/live", None, &[("X-Request-Id", "trace-42")], None);
        assert_eq!(reply.header("x-request-id"), Some("trace-42"));
        // Every answer, an API problem included, is never sniffed for another type.
        assert_eq!(reply.header("x-content-type-options"), Some("nosniff"));
        assert_eq!(app.get("/v1/currencies").header("x-content-type-options"), Some("nosniff"));
        let generated = app.send("GET", "/health/live", None, &[], None);
        assert_eq!(generated.header("x-request-id").map(str::len), Some(36));
        let problem = app.send("GET", "/v1/nothing-here", None, &[("X-Request-Id", "trace-43")], None);
        assert_eq!(problem.assert_problem(404)["requestId"], "trace-43");
        // The ids the service gives what it does outside the API are not a client's to take.
        for reserved in ["cli-create-user", "CLI-import-reference-data", "first-start", "First-Start"] {
            let reply = app.send("GET", "/health/live", None, &[("X-Request-Id", reserved)], None);
            assert_eq!(reply.header("x-request-id").map(str::len), Some(36), "{reserved}");
        }
    }

    fn unknown_routes_and_methods_are_problems(app) {
        let reply = app.get("/v1/no-such-resource");
        insta::assert_json_snapshot!(crate::support::plain(&reply.assert_problem(404)), { ".requestId" => "[id]" }, @r#"
        {
          "type": "about:blank",
          "title": "Not Found",
          "status": 404,
          "detail": "no route for GET /v1/no-such-resource",
          "instance": "/v1/no-such-resource",
          "requestId": "[id]",
          "error": "Not Found",
          "message": "no route for GET /v1/no-such-resource"
        }
        "#);
        let reply = app.send("DELETE", "/v1/charge-groups", Some(&app.admin_token), &[], None);
        reply.assert_problem(405);
        assert_eq!(reply.header("allow"), Some("GET, HEAD, POST"));
        let reply = app.send("POST", "/v1/countries", Some(&app.admin_token), &[], Some(("application/json", "{}".into())));
        reply.assert_problem(405);
        assert_eq!(reply.header("allow"), Some("GET, HEAD"));
        // Every path served by GET answers HEAD too (load balancers probe health with it):
        // the GET's status and headers, no body.
        for path in ["/health/live", "/health/ready", "/metrics", "/v1/openapi.json", "/console/"] {
            let (get, head) = (app.send("GET", path, None, &[], None), app.send("HEAD", path, None, &[], None));
            assert_eq!((head.status, head.header("content-type")), (get.status, get.header("content-type")), "HEAD {path}");
            assert!(head.text.is_empty(), "HEAD {path}: {}", head.text);
        }
        let reply = app.send("POST", "/health/live", None, &[], Some(("application/json", "{}".into())));
        reply.assert_problem(405);
        assert_eq!(reply.header("allow"), Some("GET, HEAD"));
    }

    fn paths_near_a_resource_route_as_before(app) {
        // Each resource is routed in a scope of its own (a cheaper match): the paths around
        // it answer as they did when routed flat.
        let token = Some(app.admin_token.as_str());
        let status = |method: &str, path: &str| app.send(method, path, token, &[], None).status;
        for path in ["/v1/charge-groups/", "/v1/charge-groups/1/x", "/v1/charge-groupsx", "/v1/charge-groups//1"] {
            for method in ["GET", "DELETE"] {
                assert_eq!(status(method, path), 404, "{method} {path}");
            }
        }
        assert_eq!(app.get("/v1/charge-groups/").assert_problem(404)["detail"], "no route for GET /v1/charge-groups/");
        assert_eq!(status("GET", "/v1/charge-groups/abc"), 400);
        assert_eq!(status("DELETE", "/v1/charge-groups/abc"), 400);
        assert_eq!(status("GET", "/v1/charge-groups?x=1"), 400);
        let reply = app.send("POST", "/v1/charge-groups/1", token, &[], None);
        reply.assert_problem(405);
        assert_eq!(reply.header("allow"), Some("GET, HEAD, PUT, PATCH, DELETE"));
    }

    fn swagger_ui_is_served_from_vendored_assets(app) {
        let page = app.send("GET", "/docs/", None, &[], None);
        assert_eq!(page.status, 200);
        assert!(page.text.contains("Swagger UI"));
        // It may not be framed by another page, nor its files sniffed.
        for (name, value) in billing_http::routes::documentation::DOCS_SECURITY_HEADERS {
            assert_eq!(page.header(name), Some(value), "{name}");
        }
        assert!(page.header("content-security-policy").is_some_and(|policy| policy.contains("frame-ancestors 'none'")));
        let initializer = app.send("GET", "/docs/swagger-initializer.js", None, &[], None);
        assert!(initializer.text.contains("/v1/openapi.json"));
        // A file it does not have is a 404 told like every other.
        let missing = app.send("GET", "/docs/no-such-file.js", None, &[], None);
        assert_eq!(missing.assert_problem(404)["detail"], "no route for GET /docs/no-such-file.js");
        let head = app.send("HEAD", "/docs/no-such-file.js", None, &[], None);
        assert_eq!((head.status, head.text.as_str()), (404, ""));
        // HEAD answers as GET does, with no body.
        let head = app.send("HEAD", "/docs/", None, &[], None);
        assert_eq!((head.status, head.header("content-type")), (200, page.header("content-type")));
        assert!(head.text.is_empty());
    }

    fn the_openapi_document_describes_every_route(app) {
        let reply = app.send("GET", "/v1/openapi.json", None, &[], None);
        assert_eq!(reply.status, 200);
        let document = reply.json();
        assert_eq!(document["openapi"], "3.1.0");
        let paths = document["paths"].as_object().expect("paths");
        for path in [
            "/v1/authenticate", "/v1/authenticate/refresh", "/v1/authenticate/revoke", "/v1/users", "/v1/users/{id}",
            "/v1/user-roles", "/v1/countries", "/v1/currencies/{id}", "/v1/locales/{id}", "/v1/reference-data-sources/{id}",
            "/v1/charge-group-categories/{id}", "/v1/charge-groups/{id}", "/v1/reference-data-source-charge-groups",
            "/v1/reference-data-source-charge-groups/{id}", "/health/ready",
        ] {
            assert!(paths.contains_key(path), "{path} is not documented");
        }
        let item = &paths["/v1/reference-data-source-charge-groups/{id}"];
        for method in ["get", "put", "patch", "delete"] {
            assert!(item.get(method).is_some(), "{method}");
        }
        assert!(paths["/v1/reference-data-source-charge-groups"].get("head").is_some());
        // The root points to the documentation: the client follows the 307 to the docs page.
        let home = app.send("GET", "/", None, &[], None);
        assert_eq!(home.status, 200);
        assert!(home.text.to_lowercase().contains("swagger"), "{}", home.text);
    }
}

/// `BILLING_METRICS_BIND`: `/metrics` is served there, and only there.
mod metrics_on_their_own_address {
    use crate::support::{Backend, TestApp};

    fn run(backend: Backend) {
        let Some(app) = TestApp::spawn_with(backend, |settings| {
            settings.metrics_bind = Some("127.0.0.1:0".parse().expect("address"));
        }) else {
            return;
        };
        let metrics_base = app.metrics_base.clone().expect("a metrics address");
        assert_ne!(metrics_base, app.base);
        app.get("/v1/charge-groups/1");
        let on_api = app.send("GET", "/metrics", None, &[], None);
        on_api.assert_problem(404);
        let reply = app.send("GET", &format!("{metrics_base}/metrics"), None, &[], None);
        assert_eq!(reply.status, 200);
        assert!(
            reply.text.contains(r#"billing_http_requests_total{method="GET",route="/v1/charge-groups/{id}",status="404"} 1"#),
            "the metrics address counts the API's requests: {}",
            reply.text
        );
        // Nothing but /metrics there.
        for path in ["/v1/charge-groups/1", "/health/live", "/v1/openapi.json"] {
            let elsewhere = app.send(
                "GET",
                &format!("{metrics_base}{path}"),
                Some(&app.admin_token),
                &[],
                None,
            );
            assert_eq!(elsewhere.status, 404, "{path}");
        }
    }

    #[test]
    fn sqlite() {
        run(Backend::Sqlite);
    }

    #[test]
    fn postgres() {
        run(Backend::Postgres);
    }
}
