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
        let reply = app.send("GET", "/metrics", None, &[], None);
        assert_eq!(reply.status, 200);
        assert!(reply.header("content-type").expect("type").starts_with("text/plain"));
        assert!(reply.text.contains(r#"billing_http_requests_total{method="GET",route="/v1/charge-groups/{id}",status="404"} 2"#), "{}", reply.text);
        assert!(reply.text.contains("billing_http_request_duration_seconds_count"));
    }

    fn request_ids_are_echoed_or_generated(app) {
        let reply = app.send("GET", "/health/live", None, &[("X-Request-Id", "trace-42")], None);
        assert_eq!(reply.header("x-request-id"), Some("trace-42"));
        let generated = app.send("GET", "/health/live", None, &[], None);
        assert_eq!(generated.header("x-request-id").map(str::len), Some(36));
        let problem = app.send("GET", "/v1/nothing-here", None, &[("X-Request-Id", "trace-43")], None);
        assert_eq!(problem.assert_problem(404)["requestId"], "trace-43");
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
        let initializer = app.send("GET", "/docs/swagger-initializer.js", None, &[], None);
        assert!(initializer.text.contains("/v1/openapi.json"));
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
