//! What many request bodies at once may hold (`body_budget`): each body takes its share
//! before it is read, waits its turn when the budget has no room, and is 503 with
//! `Retry-After` when no room comes within the body timeout; the sign-in routes, which anyone
//! may call, take small bodies only.

use std::io::{Read, Write};
use std::time::Duration;

use serde_json::json;

use crate::hostile::connect;
use crate::sites::{site_body, with, world};
use crate::support::TestApp;

/// Holds the database's write lock (SQLite: `BEGIN IMMEDIATE`) or the billing cycles table
/// (PostgreSQL: `LOCK TABLE`) for `how_long` from another connection, so that a create of a
/// billing cycle waits in its handler, holding its body's share.
fn hold_billing_cycles(url: &str, how_long: Duration) {
    use diesel::Connection;
    use diesel::connection::SimpleConnection;
    let lock = |connection: &mut dyn SimpleConnection, sql: &str| {
        connection.batch_execute(sql).expect("lock");
        std::thread::sleep(how_long);
        connection.batch_execute("ROLLBACK").expect("unlock");
    };
    if url.starts_with("postgres") {
        let mut connection = diesel::PgConnection::establish(url).expect("connect");
        lock(
            &mut connection,
            "BEGIN; LOCK TABLE billing_cycles IN EXCLUSIVE MODE",
        );
    } else {
        let mut connection = diesel::SqliteConnection::establish(url).expect("connect");
        lock(
            &mut connection,
            "PRAGMA busy_timeout = 5000; BEGIN IMMEDIATE",
        );
    }
}

/// A create of a billing cycle whose body arrives in two halves, `pause` apart: its status.
fn create_in_halves(app: &TestApp, name: &str, pause: Duration) -> u16 {
    let body = json!({ "name": name }).to_string();
    let head = format!(
        "POST /v1/billing-cycles HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer {}\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n",
        app.admin_token,
        body.len()
    );
    let mut stream = connect(app);
    let (first, second) = body.as_bytes().split_at(body.len() / 2);
    stream.write_all(head.as_bytes()).expect("head");
    stream.write_all(first).expect("first half");
    std::thread::sleep(pause);
    stream.write_all(second).expect("second half");
    let mut answer = String::new();
    let _ = stream.read_to_string(&mut answer);
    answer
        .get(9..12)
        .and_then(|status| status.parse().ok())
        .unwrap_or(0)
}

api_test! {
    fn bodies_past_the_memory_budget_wait_their_turn_and_are_all_read(app, settings => settings.body_memory_bytes = 1) {
        // A budget of one unit: each body takes all of it, so the second is read only once
        // the first has been handled, and both are created.
        let (first, second) = std::thread::scope(|scope| {
            let first = scope.spawn(|| create_in_halves(&app, "First", Duration::from_millis(1500)));
            std::thread::sleep(Duration::from_millis(300));
            let started = std::time::Instant::now();
            let second = app.post("/v1/billing-cycles", json!({ "name": "Second" }));
            let waited = started.elapsed();
            (first.join().expect("first"), (second.status, waited))
        });
        assert_eq!(first, 201);
        assert_eq!(second.0, 201);
        assert!(second.1 >= Duration::from_millis(900), "read before the first body was done: {:?}", second.1);
        assert_eq!(app.head("/v1/billing-cycles").header("x-total-count"), Some("2"));
    }

    fn a_body_that_gets_no_room_within_the_body_timeout_is_503(app, settings => {
        settings.body_memory_bytes = 1;
        settings.body_timeout_seconds = 1;
    }) {
        // The first create holds the whole budget while it waits for the database.
        let url = app.database_url();
        let holder = std::thread::spawn(move || hold_billing_cycles(&url, Duration::from_secs(3)));
        std::thread::sleep(Duration::from_millis(300));
        std::thread::scope(|scope| {
            let first = scope.spawn(|| app.post("/v1/billing-cycles", json!({ "name": "First" })).status);
            std::thread::sleep(Duration::from_millis(300));
            let second = app.post("/v1/billing-cycles", json!({ "name": "Second" }));
            second.assert_problem(503);
            assert!(second.header("retry-after").is_some());
            holder.join().expect("holder");
            assert_eq!(first.join().expect("first"), 201);
        });
        assert_eq!(app.head("/v1/billing-cycles").header("x-total-count"), Some("1"));
        // With room again, the same body is read.
        assert_eq!(app.post("/v1/billing-cycles", json!({ "name": "Second" })).status, 201);
    }

    fn the_sign_in_routes_take_small_bodies_only(app) {
        let long = "x".repeat(40 * 1024);
        for path in ["/v1/authenticate", "/v1/authenticate/refresh", "/v1/authenticate/revoke"] {
            let body = json!({ "username": long, "password": "p" }).to_string();
            let reply = app.send("POST", path, None, &[], Some(("application/json", body)));
            reply.assert_problem(413);
            assert!(reply.json()["detail"].as_str().is_some_and(|d| d.contains("32768 bytes")), "{path}: {}", reply.text);
        }
        // A sign-in at its longest fits: every character of a 1,024-character password
        // beyond U+FFFF, written as escapes.
        let password: String = "\\ud83d\\ude00".repeat(1024);
        let body = format!(r#"{{"brand":"{b}","username":"{u}","password":"{password}"}}"#, b = "b".repeat(100), u = "u".repeat(100));
        assert!(body.len() < 32 * 1024 && body.len() > 12 * 1024, "{}", body.len());
        let reply = app.send("POST", "/v1/authenticate", None, &[], Some(("application/json", body)));
        reply.assert_problem(401);
    }

    fn an_unread_answer_keeps_its_writes_share_until_the_client_takes_it(app, settings => {
        settings.body_memory_bytes = 1024 * 1024;
        settings.body_limit_bytes = 1024 * 1024;
        // A client reading nothing is let go only after this (the connection's stall limit).
        settings.body_timeout_seconds = 10;
    }) {
        // A customer created with 100 sites of long text: an answer of about 1 MB, from a
        // body the budget of 1 MiB holds whole while it is handled.
        let world = world(&app);
        // Two-byte letters at every text member's longest, and ten contacts.
        let long = |characters: usize| "é".repeat(characters);
        let pointers = ["/siteName", "/siteReference", "/siteAddress/businessName", "/siteAddress/address1", "/siteAddress/address2", "/siteAddress/address3"];
        let site = pointers
            .into_iter()
            .fold(site_body(&world, "S"), |site, pointer| with(site, pointer, json!(long(100))));
        let contacts: Vec<_> = (0..10).map(|_| json!({ "contactName": long(100), "contactRole": "TECHNICAL" })).collect();
        let site = with(site, "/siteContacts", json!(contacts));
        let site = with(with(site, "/customerId", json!(0)), "/siteInvoiceDetails/invoiceNotes", json!(long(1000)));
        let body = json!({
            "customerName": "Replayed", "customerReference": "C-R", "contractOwnerId": world.owner,
            "billingCycleId": world.cycle, "startDate": "2026-01-01", "sites": vec![site; 100],
        })
        .to_string();
        let replay = || app.send("POST", "/v1/customers", Some(&app.admin_token), &[("Idempotency-Key", "large")], Some(("application/json", body.clone())));
        let first = replay();
        assert_eq!(first.status, 201, "{}", &first.text[..first.text.len().min(300)]);
        assert!(first.text.len() > 800_000, "{}", first.text.len());
        // A client sends the replay and reads none of its answer: the answer keeps its share.
        let mut unread = connect(&app);
        let head = format!(
            "POST /v1/customers HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer {}\r\nContent-Type: application/json\r\nIdempotency-Key: large\r\nContent-Length: {}\r\n\r\n",
            app.admin_token,
            body.len()
        );
        unread.write_all(head.as_bytes()).expect("head");
        unread.write_all(body.as_bytes()).expect("body");
        std::thread::sleep(Duration::from_millis(700));
        // Another replay needs the whole budget while it is handled: it waits until the first
        // client lets its answer go (closing its connection a second from now).
        let (waited, again) = std::thread::scope(|scope| {
            scope.spawn(move || {
                std::thread::sleep(Duration::from_secs(1));
                drop(unread);
            });
            let started = std::time::Instant::now();
            let again = replay();
            (started.elapsed(), again)
        });
        assert!(waited >= Duration::from_millis(900), "handled while the unread answer held the budget: {waited:?}");
        assert_eq!(again.status, 201, "{}", &again.text[..again.text.len().min(300)]);
        assert_eq!(again.header("idempotent-replayed"), Some("true"));
        assert_eq!(again.text, first.text);
    }

    fn connections_past_the_limit_wait_until_one_closes(app, settings => settings.max_connections = 2) {
        // Two connections (one a worker) are held open, each partway through a request head.
        let held: Vec<_> = (0..2)
            .map(|_| {
                let mut stream = connect(&app);
                stream.write_all(b"GET /health/live HTTP/1.1\r\n").expect("partial head");
                stream
            })
            .collect();
        std::thread::sleep(Duration::from_millis(300));
        // A third is accepted by the kernel but not served while they are open.
        let mut third = connect(&app);
        third.set_read_timeout(Some(Duration::from_millis(1500))).expect("timeout");
        third.write_all(b"GET /health/live HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n").expect("request");
        let mut answer = Vec::new();
        let waited = third.read_to_end(&mut answer);
        assert!(waited.is_err() && answer.is_empty(), "served past the limit: {}", String::from_utf8_lossy(&answer));
        // Once they close, it is.
        drop(held);
        third.set_read_timeout(Some(Duration::from_secs(10))).expect("timeout");
        let _ = third.read_to_end(&mut answer);
        assert!(answer.starts_with(b"HTTP/1.1 200"), "{}", String::from_utf8_lossy(&answer));
    }
}
