//! Findings of the review of 0cafd6a (request path optimisations).

use std::time::{Duration, Instant};

use diesel::Connection;
use diesel::connection::SimpleConnection;
use serde_json::json;

use crate::support::{Backend, TestApp};

/// A GET by id with an API key not yet in memory reads the caller on the async worker
/// (`ReadCaller::read_one` on SQLite), and reading an API-key caller notes its use
/// (`api_keys::touch`, an UPDATE): while another connection holds SQLite's write lock, that
/// UPDATE waits (busy_timeout 5 s) on the async worker, and every request on that worker waits
/// with it, `/health/live` included.
#[test]
fn an_api_key_get_by_id_does_not_stall_the_async_worker_on_a_locked_database() {
    let app = TestApp::spawn_with(Backend::Sqlite, |settings| settings.workers = 1).expect("app");
    let reply = app.post_as(
        &app.admin_token,
        "/v1/api-keys",
        json!({ "name": "script" }),
    );
    assert_eq!(reply.status, 201, "{}", reply.text);
    let key = reply.json()["key"].as_str().expect("key").to_owned();
    let created = app.create(
        "/v1/charge-group-categories",
        json!({ "name": "Calls", "chargingUnitType": "MB", "startDate": "2026-01-01" }),
    );
    let path = format!("/v1/charge-group-categories/{}", created["id"]);
    // Another writer (another instance, an import) holds the write lock for two seconds.
    let mut other =
        diesel::SqliteConnection::establish(&app.database_url()).expect("open the file");
    other
        .batch_execute("PRAGMA busy_timeout = 5000; BEGIN IMMEDIATE;")
        .expect("take the write lock");
    let waited = std::thread::scope(|scope| {
        // The lock is given back after two seconds, whatever the requests do.
        scope.spawn(move || {
            std::thread::sleep(Duration::from_secs(2));
            other.batch_execute("COMMIT").expect("release the lock");
        });
        let get = scope.spawn(|| app.send("GET", &path, Some(&key), &[], None));
        std::thread::sleep(Duration::from_millis(300));
        let started = Instant::now();
        let live = app.send("GET", "/health/live", None, &[], None);
        let waited = (started.elapsed(), live.status);
        assert_eq!(get.join().expect("get").status, 200);
        waited
    });
    assert!(
        waited.0 < Duration::from_millis(500) && waited.1 == 200,
        "/health/live answered {} after {:?}, behind a read on the async worker",
        waited.1,
        waited.0
    );
}
