//! Several instances on one database, as behind a load balancer (docs/scale-out.md): what one
//! instance is told, the other acts on — the sign-in throttle, refresh-token rotation,
//! idempotency keys, users' changes (within a second) and, in `rating_lookups.rs`, the rating
//! index (within a second). Each test runs two servers on one SQLite file and on one
//! PostgreSQL database.

use std::time::{Duration, Instant};

use serde_json::{Value, json};

use crate::support::{Reply, TestApp, currency_body};

const PASSWORD: &str = "a-long-enough-password";

fn sign_in(app: &TestApp, username: &str, password: &str) -> Reply {
    app.send(
        "POST",
        "/v1/authenticate",
        None,
        &[],
        Some((
            "application/json",
            json!({ "username": username, "password": password }).to_string(),
        )),
    )
}

fn user_id(app: &TestApp, username: &str) -> i64 {
    app.get(&format!("/v1/users?page=1&pageSize=10&username={username}"))
        .json()[0]["id"]
        .as_i64()
        .expect("id")
}

/// Polls `attempt` every 20 ms until it answers true; how long that took. Fails after 5 s.
#[track_caller]
fn time_until(mut attempt: impl FnMut() -> bool) -> Duration {
    let started = Instant::now();
    loop {
        if attempt() {
            return started.elapsed();
        }
        assert!(
            started.elapsed() < Duration::from_secs(5),
            "not within 5 seconds"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// What "within a second" allows: one second of memory, the polling step, a loaded machine.
const WITHIN_A_SECOND: Duration = Duration::from_millis(1500);

fn post_with_key(app: &TestApp, key: &str, body: &Value) -> Reply {
    app.send(
        "POST",
        "/v1/currencies",
        Some(&app.admin_token),
        &[("Idempotency-Key", key)],
        Some(("application/json", body.to_string())),
    )
}

api_test! {
    fn failed_sign_ins_are_counted_across_instances(app) {
        let second = app.second_instance();
        app.user_with_roles("guessed", &["READ_ONLY"]);
        // Five wrong passwords (the limit), spread over both instances.
        for (index, instance) in [&app, &second, &app, &second, &app].into_iter().enumerate() {
            sign_in(instance, "guessed", &format!("wrong-password-{index}")).assert_problem(401);
        }
        // Now both refuse even the right password.
        for instance in [&second, &app] {
            let reply = sign_in(instance, "guessed", PASSWORD);
            reply.assert_problem(429);
            assert!(reply.header("retry-after").is_some());
        }
        // Another user is not affected, on either.
        app.user_with_roles("bystander", &["READ_ONLY"]);
        assert_eq!(sign_in(&second, "bystander", PASSWORD).status, 200);
    }

    fn refresh_tokens_rotate_across_instances(app) {
        let second = app.second_instance();
        let first = sign_in(&app, "admin", crate::support::ADMIN_PASSWORD).json();
        // Exchanged on the other instance.
        let rotated = second.refresh(&first["refreshToken"]);
        assert_eq!(rotated.status, 200, "{}", rotated.text);
        let rotated = rotated.json();
        let token = rotated["token"].as_str().expect("token");
        assert_eq!(app.get_as(token, "/v1/user-roles?page=1&pageSize=5").status, 200, "a token of one instance works on the other");
        // The used one presented again, to the first instance: the whole family dies there too.
        app.refresh(&first["refreshToken"]).assert_problem(401);
        app.refresh(&rotated["refreshToken"]).assert_problem(401);
        second.refresh(&rotated["refreshToken"]).assert_problem(401);
    }

    fn an_idempotency_key_is_replayed_by_the_other_instance(app) {
        let second = app.second_instance();
        let body = currency_body("EUR");
        let first = post_with_key(&app, "create-eur", &body);
        assert_eq!(first.status, 201, "{}", first.text);
        let again = post_with_key(&second, "create-eur", &body);
        assert_eq!(again.status, 201, "{}", again.text);
        assert_eq!(again.header("idempotent-replayed"), Some("true"));
        assert_eq!(again.header("location"), first.header("location"));
        assert_eq!(again.json(), first.json());
        post_with_key(&second, "create-eur", &currency_body("USD")).assert_problem(409);
        // The same key sent to both at once: one currency, the same answer twice.
        let usd = currency_body("USD");
        let barrier = std::sync::Barrier::new(2);
        let replies: Vec<Reply> = std::thread::scope(|scope| {
            let sends: Vec<_> = [&app, &second]
                .into_iter()
                .map(|instance| {
                    let (barrier, usd) = (&barrier, &usd);
                    scope.spawn(move || {
                        barrier.wait();
                        post_with_key(instance, "create-usd", usd)
                    })
                })
                .collect();
            sends.into_iter().map(|send| send.join().expect("send")).collect()
        });
        for reply in &replies {
            assert_eq!(reply.status, 201, "{}", reply.text);
        }
        assert_eq!(replies[0].header("location"), replies[1].header("location"));
        let replayed = replies.iter().filter(|reply| reply.header("idempotent-replayed").is_some()).count();
        assert_eq!(replayed, 1);
        let usd_rows = second.get("/v1/currencies?page=1&pageSize=10&code=USD");
        assert_eq!(usd_rows.header("x-total-count"), Some("1"));
    }

    fn a_user_changed_through_one_instance_is_seen_by_the_other_within_a_second(app) {
        let second = app.second_instance();
        let token = app.user_with_roles("moved", &["READ_ONLY"]);
        let id = user_id(&app, "moved");
        let category = json!({ "name": "Data", "chargingUnitType": "MB", "startDate": "2026-01-01" });
        // Served by the second instance, which now holds the caller in memory.
        second.post_as(&token, "/v1/charge-group-categories", category.clone()).assert_problem(403);
        let reply = app.patch(&format!("/v1/users/{id}"), json!([{ "op": "replace", "path": "/roles", "value": ["REFERENCE_DATA_MANAGER"] }]));
        assert_eq!(reply.status, 200, "{}", reply.text);
        let granted_after = time_until(|| {
            let reply = second.post_as(&token, "/v1/charge-group-categories", category.clone());
            assert!(reply.status == 201 || reply.status == 403, "{}", reply.text);
            reply.status == 201
        });
        assert!(granted_after < WITHIN_A_SECOND, "the new role applied only after {granted_after:?}");
        assert_eq!(second.get_as(&token, "/v1/currencies?page=1&pageSize=5").status, 200);
        let reply = app.patch(&format!("/v1/users/{id}"), json!([{ "op": "replace", "path": "/active", "value": false }]));
        assert_eq!(reply.status, 200, "{}", reply.text);
        let refused_after = time_until(|| {
            let reply = second.get_as(&token, "/v1/currencies?page=1&pageSize=5");
            assert!(reply.status == 200 || reply.status == 401, "{}", reply.text);
            reply.status == 401
        });
        assert!(refused_after < WITHIN_A_SECOND, "refused only after {refused_after:?}");
        let reply = second.get_as(&token, "/v1/currencies?page=1&pageSize=5");
        assert_eq!(reply.assert_problem(401)["detail"], "the user account is inactive");
        // Nor can it sign in there.
        sign_in(&second, "moved", PASSWORD).assert_problem(401);
    }
}

/// Two instances starting at the same moment on an empty database: both come up, the
/// migrations ran once, and exactly one `admin` was created, with one audit event.
fn check_two_instances_started_at_once(first: &TestApp, second: &TestApp) {
    for app in [first, second] {
        assert_eq!(app.get("/health/ready").status, 200);
        assert_eq!(
            app.get("/v1/users/1").status,
            200,
            "each signed in as admin"
        );
    }
    let users = first
        .open_database()
        .read(billing_persistence::users::count)
        .expect("count");
    assert_eq!(users, 1, "exactly one first administrator");
    let trail = second.get("/v1/audit-events?page=1&pageSize=10&resource=users");
    assert_eq!(trail.status, 200, "{}", trail.text);
    assert_eq!(trail.header("x-total-count"), Some("1"), "{}", trail.text);
    assert!(trail.text.contains("\"first-start\""), "{}", trail.text);
}

mod two_instances_start_at_once_on_an_empty_database {
    use crate::support::{Backend, TestApp};

    #[test]
    fn sqlite() {
        let (first, second) = TestApp::spawn_two_at_once(Backend::Sqlite).expect("apps");
        super::check_two_instances_started_at_once(&first, &second);
    }

    #[test]
    fn postgres() {
        let Some((first, second)) = TestApp::spawn_two_at_once(Backend::Postgres) else {
            return;
        };
        super::check_two_instances_started_at_once(&first, &second);
    }
}
