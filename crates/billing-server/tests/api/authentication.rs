//! `/v1/authenticate*` and bearer checks on every route.

use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use jsonwebtoken::{EncodingKey, Header, encode};
use serde_json::{Value, json};

use crate::support::{ADMIN_PASSWORD, JWT_SECRET, TestApp};

fn sign_in(app: &TestApp, body: Value) -> crate::support::Reply {
    app.send(
        "POST",
        "/v1/authenticate",
        None,
        &[],
        Some(("application/json", body.to_string())),
    )
}

fn forged_token(claims: Value, secret: &str) -> String {
    encode(
        &Header::default(),
        &claims,
        &EncodingKey::from_secret(secret.as_bytes()),
    )
    .expect("token")
}

fn now() -> i64 {
    chrono::Utc::now().timestamp()
}

api_test! {
    fn sign_in_returns_a_token_pair(app) {
        let reply = sign_in(&app, json!({ "brand": "acme", "username": "admin", "password": ADMIN_PASSWORD }));
        assert_eq!(reply.status, 200, "{}", reply.text);
        assert_eq!(reply.header("cache-control"), Some("no-store"));
        let body = reply.json();
        insta::assert_json_snapshot!(crate::support::plain(&body), { ".token" => "[token]", ".refreshToken" => "[refresh]" }, @r#"
        {
          "token": "[token]",
          "tokenType": "Bearer",
          "expiresIn": 900,
          "refreshToken": "[refresh]",
          "username": "admin"
        }
        "#);
        let token = body["token"].as_str().expect("token");
        assert_eq!(app.get_as(token, "/v1/user-roles?page=1&pageSize=10").status, 200);
    }

    fn wrong_password_and_unknown_user_get_the_same_401(app) {
        let wrong = sign_in(&app, json!({ "username": "admin", "password": "not-the-password" }));
        let unknown = sign_in(&app, json!({ "username": "nobody", "password": "not-the-password" }));
        assert_eq!(wrong.assert_problem(401)["detail"], unknown.assert_problem(401)["detail"]);
        assert_eq!(wrong.json()["detail"], "invalid username or password");
        assert!(!wrong.text.contains("not-the-password"));
    }

    fn another_brand_is_refused(app) {
        let reply = sign_in(&app, json!({ "brand": "other", "username": "admin", "password": ADMIN_PASSWORD }));
        reply.assert_problem(401);
    }

    fn malformed_sign_in_bodies_get_400_or_415(app) {
        // The member itself is named, in the words every other body gets.
        let said = |body: Value| {
            let problem = sign_in(&app, body).assert_problem(400);
            let error = &problem["errors"][0];
            format!("{}: {}", error["field"].as_str().expect("field"), error["message"].as_str().expect("message"))
        };
        assert_eq!(said(json!({ "username": "admin" })), "password: is required");
        assert_eq!(said(json!({})), "username: is required");
        assert_eq!(said(json!({ "username": "admin", "password": ADMIN_PASSWORD, "extra": 1 })), "extra: unknown field");
        assert_eq!(said(json!({ "username": 5, "password": ADMIN_PASSWORD })), "username: must be a string");
        assert_eq!(said(json!({ "username": "admin", "password": null })), "password: must not be null");
        // What the OpenAPI document says: username 1..100, password 1..1024 characters.
        assert_eq!(sign_in(&app, json!({ "username": "", "password": ADMIN_PASSWORD })).error_fields(), vec!["username"]);
        assert_eq!(sign_in(&app, json!({ "username": "admin", "password": "" })).error_fields(), vec!["password"]);
        assert_eq!(sign_in(&app, json!({ "username": "admin", "password": "p".repeat(1025) })).error_fields(), vec!["password"]);
        // Text as every member's: a NUL (which PostgreSQL refuses) or another control character
        // is 400 naming the member, on both backends, never 500.
        assert_eq!(sign_in(&app, json!({ "username": "ad\u{0}min", "password": ADMIN_PASSWORD })).error_fields(), vec!["username"]);
        assert_eq!(sign_in(&app, json!({ "brand": "b\u{7}", "username": "admin", "password": ADMIN_PASSWORD })).error_fields(), vec!["brand"]);
        let broken = app.send("POST", "/v1/authenticate", None, &[], Some(("application/json", "{\"username\":".into())));
        broken.assert_problem(400);
        let form = app.send("POST", "/v1/authenticate", None, &[], Some(("text/plain", "{}".into())));
        form.assert_problem(415);
    }

    fn repeated_failures_are_throttled_with_retry_after(app) {
        for _ in 0..5 {
            sign_in(&app, json!({ "username": "admin", "password": "wrong-password-1" })).assert_problem(401);
        }
        let reply = sign_in(&app, json!({ "username": "admin", "password": ADMIN_PASSWORD }));
        reply.assert_problem(429);
        let wait: u64 = reply.header("retry-after").expect("Retry-After").parse().expect("seconds");
        assert!(wait > 0 && wait <= 900);
    }

    fn concurrent_wrong_passwords_are_verified_at_most_the_limit(app) {
        // All 20 start before any is answered: the check and the count must be one step.
        let barrier = std::sync::Barrier::new(20);
        let statuses: Vec<u16> = std::thread::scope(|scope| {
            let attempts: Vec<_> = (0..20)
                .map(|i| {
                    let (app, barrier) = (&app, &barrier);
                    scope.spawn(move || {
                        barrier.wait();
                        sign_in(app, json!({ "username": "admin", "password": format!("wrong-password-{i}") })).status
                    })
                })
                .collect();
            attempts.into_iter().map(|attempt| attempt.join().expect("attempt")).collect()
        });
        let unauthorized = statuses.iter().filter(|status| **status == 401).count();
        let throttled = statuses.iter().filter(|status| **status == 429).count();
        assert!(unauthorized <= 5, "{unauthorized} wrong passwords were verified: {statuses:?}");
        assert_eq!(unauthorized + throttled, 20, "{statuses:?}");
        sign_in(&app, json!({ "username": "admin", "password": ADMIN_PASSWORD })).assert_problem(429);
    }

    fn missing_and_malformed_authorization_get_401_with_a_challenge(app) {
        let missing = app.send("GET", "/v1/currencies?page=1&pageSize=10", None, &[], None);
        missing.assert_problem(401);
        assert_eq!(missing.header("www-authenticate"), Some("Bearer realm=\"billing\""));
        for header in ["Basic YWRtaW46eA==", "Bearer", "Bearer a b", "Bearer <script>"] {
            let reply = app.send("GET", "/v1/currencies?page=1&pageSize=10", None, &[("Authorization", header)], None);
            reply.assert_problem(401);
            assert!(reply.header("www-authenticate").expect("challenge").contains("invalid_request"), "{header}");
        }
    }

    fn bad_tokens_get_401_naming_the_reason(app) {
        let claims = |exp: i64, aud: &str| json!({ "iss": "billing", "aud": aud, "sub": "1", "exp": exp, "iat": now(), "nbf": now() - 10, "jti": "x" });
        let expired = forged_token(claims(now() - 3600, "billing-api"), JWT_SECRET);
        let wrong_key = forged_token(claims(now() + 600, "billing-api"), "a-completely-different-signing-key-of-length");
        let wrong_audience = forged_token(claims(now() + 600, "someone-else"), JWT_SECRET);
        let header = URL_SAFE_NO_PAD.encode(br#"{"alg":"none","typ":"JWT"}"#);
        let body = URL_SAFE_NO_PAD.encode(claims(now() + 600, "billing-api").to_string().as_bytes());
        let unsigned = format!("{header}.{body}.");
        let mut details = Vec::new();
        for token in [expired, wrong_key, wrong_audience, unsigned, "not.a.jwt".to_owned()] {
            let reply = app.get_as(&token, "/v1/currencies?page=1&pageSize=10");
            let problem = reply.assert_problem(401);
            assert!(reply.header("www-authenticate").expect("challenge").contains("invalid_token"));
            assert!(!reply.text.contains(&token), "the token is never echoed");
            details.push(problem["detail"].as_str().expect("detail").to_owned());
        }
        insta::assert_snapshot!(details.join("\n"), @r"
        the access token has expired
        the access token signature is invalid
        the access token is meant for another audience
        the access token uses an algorithm this service does not accept
        the access token is malformed
        ");
    }

    fn refresh_tokens_rotate_and_reuse_revokes_the_family(app) {
        let first = sign_in(&app, json!({ "username": "admin", "password": ADMIN_PASSWORD })).json();
        let refresh = |token: &Value| {
            app.send("POST", "/v1/authenticate/refresh", None, &[], Some(("application/json", json!({ "refreshToken": token }).to_string())))
        };
        let second = refresh(&first["refreshToken"]);
        assert_eq!(second.status, 200, "{}", second.text);
        let second = second.json();
        assert_ne!(second["refreshToken"], first["refreshToken"]);
        assert_eq!(app.get_as(second["token"].as_str().expect("token"), "/v1/user-roles?page=1&pageSize=10").status, 200);
        // The first token again: theft suspected, the whole family dies, including the second.
        refresh(&first["refreshToken"]).assert_problem(401);
        refresh(&second["refreshToken"]).assert_problem(401);
        refresh(&json!("made-up-token")).assert_problem(401);
    }

    fn malformed_refresh_tokens_get_400_naming_the_member(app) {
        // 1 to 256 visible ASCII characters (the document's schema); anything else is 400
        // naming refreshToken, on refresh and on revoke alike.
        for path in ["/v1/authenticate/refresh", "/v1/authenticate/revoke"] {
            for token in ["x".repeat(257), String::new(), "two words".to_owned()] {
                let body = json!({ "refreshToken": token }).to_string();
                let problem = app.send("POST", path, None, &[], Some(("application/json", body))).assert_problem(400);
                assert_eq!(problem["errors"][0]["field"], "refreshToken", "{path}: {problem}");
            }
        }
    }

    fn revoke_signs_out(app) {
        let pair = sign_in(&app, json!({ "username": "admin", "password": ADMIN_PASSWORD })).json();
        let body = json!({ "refreshToken": pair["refreshToken"] }).to_string();
        let revoked = app.send("POST", "/v1/authenticate/revoke", None, &[], Some(("application/json", body.clone())));
        assert_eq!(revoked.status, 204);
        let refreshed = app.send("POST", "/v1/authenticate/refresh", None, &[], Some(("application/json", body)));
        refreshed.assert_problem(401);
    }

    fn revoking_or_reusing_a_token_ends_its_family_and_no_other(app) {
        let admin = json!({ "username": "admin", "password": ADMIN_PASSWORD });
        let send = |path: &str, token: &Value| {
            app.send("POST", path, None, &[], Some(("application/json", json!({ "refreshToken": token }).to_string())))
        };
        let (first, other) = (sign_in(&app, admin.clone()).json(), sign_in(&app, admin.clone()).json());
        let rotated = send("/v1/authenticate/refresh", &first["refreshToken"]).json();
        // Revoking the used token of a family ends the token it was rotated into.
        assert_eq!(send("/v1/authenticate/revoke", &first["refreshToken"]).status, 204);
        send("/v1/authenticate/refresh", &rotated["refreshToken"]).assert_problem(401);
        // Another sign-in is another family: it lives on.
        let other = send("/v1/authenticate/refresh", &other["refreshToken"]);
        assert_eq!(other.status, 200, "{}", other.text);
        // Reuse ends its own family only.
        let (third, fourth) = (sign_in(&app, admin.clone()).json(), sign_in(&app, admin).json());
        send("/v1/authenticate/refresh", &third["refreshToken"]);
        send("/v1/authenticate/refresh", &third["refreshToken"]).assert_problem(401);
        assert_eq!(send("/v1/authenticate/refresh", &fourth["refreshToken"]).status, 200);
        assert_eq!(send("/v1/authenticate/refresh", &other.json()["refreshToken"]).status, 200);
    }

    fn a_refresh_token_lives_thirty_days_and_is_refused_after(app) {
        use diesel::prelude::*;
        use billing_persistence::schema::refresh_tokens;
        let refresh = |pair: &Value| {
            let body = json!({ "refreshToken": pair["refreshToken"] }).to_string();
            app.send("POST", "/v1/authenticate/refresh", None, &[], Some(("application/json", body)))
        };
        let pair = sign_in(&app, json!({ "username": "admin", "password": ADMIN_PASSWORD })).json();
        let database = app.open_database();
        let set_expiry = |expires_at: chrono::NaiveDateTime| {
            database
                .write(|c| {
                    diesel::update(refresh_tokens::table.filter(refresh_tokens::used.eq(false)))
                        .set(refresh_tokens::expires_at.eq(expires_at))
                        .execute(c)
                        .map_err(billing_persistence::PersistenceError::from)
                })
                .expect("move the expiry")
        };
        let stored: Vec<(chrono::NaiveDateTime, chrono::NaiveDateTime)> = database
            .read(|c| {
                refresh_tokens::table
                    .select((refresh_tokens::created_date, refresh_tokens::expires_at))
                    .load(c)
                    .map_err(billing_persistence::PersistenceError::from)
            })
            .expect("read the stored token");
        // The test app's own sign-in and this one.
        assert_eq!(stored.len(), 2, "{stored:?}");
        for (created, expires) in stored {
            assert_eq!(expires - created, chrono::Duration::days(30), "BILLING_REFRESH_TOKEN_DAYS is 30 by default");
        }
        // A minute before its end it still works.
        let now = chrono::Utc::now().naive_utc();
        assert_eq!(set_expiry(now + chrono::Duration::minutes(1)), 2);
        let next = refresh(&pair);
        assert_eq!(next.status, 200, "{}", next.text);
        let next = next.json();
        // Past its end it is refused like any unknown token, and nothing is issued.
        assert_eq!(set_expiry(now - chrono::Duration::seconds(1)), 2);
        let refused = refresh(&next).assert_problem(401);
        assert_eq!(refused["detail"], refresh(&json!({ "refreshToken": "made-up-token" })).assert_problem(401)["detail"]);
    }

    fn a_deactivated_user_is_refused_at_once(app) {
        let token = app.user_with_roles("reader", &["READ_ONLY"]);
        assert_eq!(app.get_as(&token, "/v1/currencies?page=1&pageSize=5").status, 200);
        let users = app.get("/v1/users?page=1&pageSize=10&username=reader").json();
        let id = users[0]["id"].as_i64().expect("id");
        assert_eq!(app.patch(&format!("/v1/users/{id}"), json!([{ "op": "replace", "path": "/active", "value": false }])).status, 200);
        let reply = app.get_as(&token, "/v1/currencies?page=1&pageSize=5");
        assert_eq!(reply.assert_problem(401)["detail"], "the user account is inactive");
        sign_in(&app, json!({ "username": "reader", "password": "a-long-enough-password" })).assert_problem(401);
    }

    fn deactivating_a_user_or_changing_their_password_revokes_their_refresh_tokens(app) {
        let refresh = |pair: &Value| {
            let body = json!({ "refreshToken": pair["refreshToken"] }).to_string();
            app.send("POST", "/v1/authenticate/refresh", None, &[], Some(("application/json", body)))
        };
        app.user_with_roles("reader", &["READ_ONLY"]);
        let id = app.get("/v1/users?page=1&pageSize=10&username=reader").json()[0]["id"].as_i64().expect("id");
        let path = format!("/v1/users/{id}");
        let pair = sign_in(&app, json!({ "username": "reader", "password": "a-long-enough-password" })).json();
        assert_eq!(app.patch(&path, json!([{ "op": "replace", "path": "/password", "value": "another-long-password" }])).status, 200);
        refresh(&pair).assert_problem(401);
        sign_in(&app, json!({ "username": "reader", "password": "a-long-enough-password" })).assert_problem(401);
        let pair = sign_in(&app, json!({ "username": "reader", "password": "another-long-password" }));
        assert_eq!(pair.status, 200, "{}", pair.text);
        let pair = pair.json();
        // A change of anything else leaves them working.
        assert_eq!(app.patch(&path, json!([{ "op": "replace", "path": "/email", "value": "reader@example.com" }])).status, 200);
        let pair = refresh(&pair);
        assert_eq!(pair.status, 200, "{}", pair.text);
        let pair = pair.json();
        assert_eq!(app.patch(&path, json!([{ "op": "replace", "path": "/active", "value": false }])).status, 200);
        refresh(&pair).assert_problem(401);
        // Reactivated, the revoked token stays dead; an inactive user's sign-in looked like a
        // wrong password.
        assert_eq!(app.patch(&path, json!([{ "op": "replace", "path": "/active", "value": true }])).status, 200);
        refresh(&pair).assert_problem(401);
    }

    fn an_inactive_users_sign_in_is_refused_like_a_wrong_password(app) {
        app.user_with_roles("leaver", &["READ_ONLY"]);
        let wrong = sign_in(&app, json!({ "username": "leaver", "password": "not-the-password" })).assert_problem(401);
        let id = app.get("/v1/users?page=1&pageSize=10&username=leaver").json()[0]["id"].as_i64().expect("id");
        assert_eq!(app.patch(&format!("/v1/users/{id}"), json!([{ "op": "replace", "path": "/active", "value": false }])).status, 200);
        let inactive = sign_in(&app, json!({ "username": "leaver", "password": "a-long-enough-password" })).assert_problem(401);
        assert_eq!(inactive["detail"], wrong["detail"]);
        assert_eq!(inactive["title"], wrong["title"]);
    }

    fn a_read_checks_the_caller_before_the_request(app) {
        // The first request reads the caller with its own work (one trip to the database);
        // the next ones find the caller in memory. Both refuse a missing permission (403)
        // before looking at the query or the id (400), and a missing record is 404 after both.
        let token = app.user_with_roles("browser", &["READ_ONLY"]);
        for round in ["read with the request", "served from memory"] {
            app.get_as(&token, "/v1/users?bogus=1").assert_problem(403);
            app.get_as(&token, "/v1/users/abc").assert_problem(403);
            let head = app.send("HEAD", "/v1/users?bogus=1", Some(&token), &[], None);
            assert_eq!(head.status, 403, "{round}");
            app.get_as(&token, "/v1/currencies?bogus=1").assert_problem(400);
            app.get_as(&token, "/v1/charge-groups/0").assert_problem(400);
            app.get_as(&token, "/v1/charge-groups/999").assert_problem(404);
            assert_eq!(app.get_as(&token, "/v1/currencies?page=1&pageSize=5").status, 200, "{round}");
        }
        let id = app.get("/v1/users?page=1&pageSize=10&username=browser").json()[0]["id"].as_i64().expect("id");
        assert_eq!(app.patch(&format!("/v1/users/{id}"), json!([{ "op": "replace", "path": "/active", "value": false }])).status, 200);
        // Forgotten by the change, so read with the request again: now inactive, 401 first.
        let reply = app.get_as(&token, "/v1/users?bogus=1");
        assert_eq!(reply.assert_problem(401)["detail"], "the user account is inactive");
        app.get_as(&token, "/v1/charge-groups/0").assert_problem(401);
    }

    fn a_user_changed_outside_this_instance_is_refused_within_a_second(app) {
        use diesel::prelude::*;
        use billing_persistence::schema::users;
        let token = app.user_with_roles("elsewhere", &["READ_ONLY"]);
        // Served once, so the caller's state is now held in memory.
        assert_eq!(app.get_as(&token, "/v1/currencies?page=1&pageSize=5").status, 200);
        let database = app.open_database();
        database
            .write(|c| {
                diesel::update(users::table.filter(users::username.eq("elsewhere")))
                    .set(users::active.eq(false))
                    .execute(c)
                    .map_err(billing_persistence::PersistenceError::from)
            })
            .expect("deactivate behind the server's back");
        let changed = std::time::Instant::now();
        let refused_after = loop {
            let reply = app.get_as(&token, "/v1/currencies?page=1&pageSize=5");
            if reply.status == 401 {
                break changed.elapsed();
            }
            assert_eq!(reply.status, 200, "{}", reply.text);
            assert!(changed.elapsed() < std::time::Duration::from_secs(5), "still served after 5 s");
            std::thread::sleep(std::time::Duration::from_millis(50));
        };
        // One second of memory, plus the polling step and a loaded machine's slack.
        assert!(refused_after < std::time::Duration::from_millis(1500), "refused only after {refused_after:?}");
    }

    fn a_role_change_applies_to_an_existing_token(app) {
        let token = app.user_with_roles("clerk", &["READ_ONLY"]);
        let category = json!({ "name": "Data", "chargingUnitType": "MB", "startDate": "2026-01-01" });
        app.post_as(&token, "/v1/charge-group-categories", category.clone()).assert_problem(403);
        let id = app.get("/v1/users?page=1&pageSize=10&username=clerk").json()[0]["id"].as_i64().expect("id");
        let reply = app.patch(&format!("/v1/users/{id}"), json!([{ "op": "replace", "path": "/roles", "value": ["REFERENCE_DATA_MANAGER"] }]));
        assert_eq!(reply.status, 200, "{}", reply.text);
        assert_eq!(app.post_as(&token, "/v1/charge-group-categories", category).status, 201);
    }
}

/// A wrong password for a user who does not exist (a new name each time, so the per-username
/// limit never applies), sent with `X-Forwarded-For: forwarded`.
fn failure_forwarded_for(app: &TestApp, forwarded: &str, attempt: usize) -> crate::support::Reply {
    app.send(
        "POST",
        "/v1/authenticate",
        None,
        &[("X-Forwarded-For", forwarded)],
        Some((
            "application/json",
            json!({ "username": format!("nobody-{attempt}"), "password": "wrong-password-1" })
                .to_string(),
        )),
    )
}

fn admin_forwarded_for(app: &TestApp, forwarded: &str) -> crate::support::Reply {
    app.send(
        "POST",
        "/v1/authenticate",
        None,
        &[("X-Forwarded-For", forwarded)],
        Some((
            "application/json",
            json!({ "username": "admin", "password": ADMIN_PASSWORD }).to_string(),
        )),
    )
}

// With BILLING_LOGIN_MAX_FAILURES=2 the per-address limit is 8 failures in the window.
api_test! {
    fn behind_a_trusted_proxy_failures_are_counted_per_forwarded_address(app, settings => {
        settings.trusted_proxies = Some("10.0.0.0/8, 127.0.0.1".into());
        settings.login_max_failures = 2;
    }) {
        for attempt in 0..8 {
            failure_forwarded_for(&app, "198.51.100.1", attempt).assert_problem(401);
        }
        failure_forwarded_for(&app, "198.51.100.1", 8).assert_problem(429);
        // Addresses the client wrote left of its own do not help it; trusted proxies right of
        // it are skipped.
        failure_forwarded_for(&app, "203.0.113.77, 198.51.100.1", 9).assert_problem(429);
        failure_forwarded_for(&app, "198.51.100.1, 10.1.2.3", 10).assert_problem(429);
        admin_forwarded_for(&app, "198.51.100.1").assert_problem(429);
        // Another forwarded client is not locked out, nor is the proxy's own address.
        failure_forwarded_for(&app, "198.51.100.2", 11).assert_problem(401);
        assert_eq!(admin_forwarded_for(&app, "198.51.100.2").status, 200);
        assert_eq!(admin_forwarded_for(&app, "").status, 200);
    }

    fn without_trusted_proxies_x_forwarded_for_is_ignored(app, settings => settings.login_max_failures = 2) {
        for attempt in 0..8 {
            failure_forwarded_for(&app, &format!("198.51.100.{attempt}"), attempt).assert_problem(401);
        }
        // Every attempt came from 127.0.0.1, whatever the header said.
        failure_forwarded_for(&app, "198.51.100.200", 8).assert_problem(429);
        admin_forwarded_for(&app, "203.0.113.5").assert_problem(429);
    }

    fn a_peer_that_is_not_a_trusted_proxy_is_not_believed(app, settings => {
        settings.trusted_proxies = Some("10.0.0.0/8, ::1".into());
        settings.login_max_failures = 2;
    }) {
        for attempt in 0..8 {
            failure_forwarded_for(&app, &format!("198.51.100.{attempt}"), attempt).assert_problem(401);
        }
        failure_forwarded_for(&app, "198.51.100.200", 8).assert_problem(429);
    }
}

#[test]
fn an_invalid_trusted_proxies_setting_stops_the_start_naming_it() {
    let data_dir =
        std::env::temp_dir().join(format!("billing_test_{}", uuid::Uuid::new_v4().simple()));
    let mut settings = crate::support::settings_for(data_dir.clone(), None);
    settings.trusted_proxies = Some("10.0.0.0/8, 10.0.0.0/40".into());
    let error = billing_server::build_state(&settings)
        .err()
        .expect("refused");
    insta::assert_snapshot!(error, @"configuration: BILLING_TRUSTED_PROXIES (--trusted-proxies): '10.0.0.0/40': the prefix length must be a number from 0 to 32");
    assert!(!data_dir.exists(), "nothing was created");
}

#[test]
fn a_short_admin_password_stops_the_start_before_anything_is_created() {
    let data_dir =
        std::env::temp_dir().join(format!("billing_test_{}", uuid::Uuid::new_v4().simple()));
    let mut settings = crate::support::settings_for(data_dir.clone(), None);
    settings.admin_password = Some("short".into());
    let error = billing_server::build_state(&settings)
        .err()
        .expect("refused");
    insta::assert_snapshot!(error, @"configuration: BILLING_ADMIN_PASSWORD: password: must be 12 to 128 characters long (got 5)");
    assert!(
        !data_dir.exists(),
        "no database, signing key or administrator was created"
    );
}

api_test! {
    fn the_tokens_answer_keeps_to_the_document_at_the_longest_lifetime(app, settings => settings.access_token_minutes = 1440) {
        let document = app.get("/v1/openapi.json").json();
        let tokens = &document["components"]["schemas"]["Tokens"]["properties"];
        let signed_in = sign_in(&app, json!({ "username": "admin", "password": ADMIN_PASSWORD, "brand": null }));
        assert_eq!(signed_in.status, 200, "brand null is as if left out: {}", signed_in.text);
        let expires_in = signed_in.json()["expiresIn"].as_i64().expect("expiresIn");
        assert_eq!(expires_in, 1440 * 60);
        assert!(expires_in <= tokens["expiresIn"]["maximum"].as_i64().expect("maximum"), "{}", tokens["expiresIn"]);
        let brand = &document["components"]["schemas"]["SignIn"]["properties"]["brand"]["anyOf"];
        assert!(brand.as_array().is_some_and(|choices| choices.contains(&json!({ "type": "null" }))), "{brand}");
    }
}
