//! The `billing serve` process as an operator runs it: its options, signals, logs, memory, a
//! second instance and a full disk.

use std::process::{Command, Stdio};

#[allow(unused_imports)]
use super::cli::{audit_events, billing, scratch};

/// The help of a command, as a user would see it, with no setting in the environment.
fn help_of(args: &[&str]) -> String {
    let output = Command::new(env!("CARGO_BIN_EXE_billing"))
        .args(args)
        .arg("--help")
        .env_clear()
        .stdin(Stdio::null())
        .output()
        .expect("run billing");
    assert!(output.status.success());
    String::from_utf8_lossy(&output.stdout).replace(
        &format!(
            "[default: {}]",
            billing_server::settings::default_db_pool_size()
        ),
        "[default: CORES*2]",
    )
}

#[test]
fn each_command_shows_only_the_options_it_uses() {
    insta::assert_snapshot!(help_of(&["import", "reference-data"]), @r#"
    The tariff CSV directory format of docs/rating.md: categories, charge groups, source charge groups, dialstrings, call classes, ignored call classes and ignored service ids. An import replaces the data of every source its files name (the only way data of siMaintained sources changes) and inserts or updates the shared records by id

    Usage: billing import reference-data [OPTIONS] <DIRECTORY>

    Arguments:
      <DIRECTORY>  The directory of CSV files

    Options:
          --user <USER>  The user the audit event names (an active user) [default: admin]
      -h, --help         Print help

    Configuration:
          --config <CONFIG>  Optional config file of KEY=VALUE lines using these options' environment variable names [env: BILLING_CONFIG=]

    Database:
          --data-dir <DATA_DIR>          Directory for the SQLite database and the generated token signing key [env: BILLING_DATA_DIR=] [default: data]
          --database-url <DATABASE_URL>  postgres://USER@HOST:PORT/DATABASE for PostgreSQL; unset for SQLite in the data directory (sqlite://PATH, or a file path starting with / ./ ../ or ending in .db, for another file) [env: DATABASE_URL]
          --db-pool-size <DB_POOL_SIZE>  Database connections kept in the pool (default: twice the cores, 4 to 32). Each worker's blocking pool gets as many threads [env: BILLING_DB_POOL_SIZE=] [default: CORES*2]

    Logging:
          --log-format <LOG_FORMAT>  Log format [env: BILLING_LOG_FORMAT=] [default: text] [possible values: text, json]
          --log <LOG>                Log filter: comma-separated levels (trace, debug, info, warn, error, off) and target=level pairs, e.g. info or info,billing_http=debug [env: BILLING_LOG=] [default: info]
    "#);
    for command in [
        &["migrate"][..],
        &["create-user"],
        &["export", "reference-data"],
        &["rate"],
    ] {
        let help = help_of(command);
        assert!(help.contains("DATABASE_URL"), "{command:?}: {help}");
        for serve_only in [
            "BILLING_BIND",
            "BILLING_JWT_SECRET",
            "BILLING_ADMIN_PASSWORD",
            "BILLING_WORKERS",
        ] {
            assert!(
                !help.contains(serve_only),
                "{command:?} shows {serve_only}: {help}"
            );
        }
    }
    let serve = help_of(&["serve"]);
    for setting in [
        "BILLING_BIND",
        "BILLING_METRICS_BIND",
        "DATABASE_URL",
        "BILLING_JWT_SECRET",
        "BILLING_LOG",
    ] {
        assert!(serve.contains(setting), "serve lacks {setting}: {serve}");
    }
    let generate = help_of(&["generate"]);
    assert!(!generate.contains("DATABASE_URL"), "{generate}");
}

/// A free port on the loopback (released just before the server takes it).
fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .map(|a| a.port())
        .expect("a free port")
}

fn start_server(dir: &std::path::Path, port: u16) -> std::process::Child {
    let child = Command::new(env!("CARGO_BIN_EXE_billing"))
        .args(["serve"])
        .env("BILLING_DATA_DIR", dir)
        .env("BILLING_BIND", format!("127.0.0.1:{port}"))
        .env("BILLING_ADMIN_PASSWORD", "durability-test-password")
        .env_remove("DATABASE_URL")
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("start billing");
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(20);
    while ureq::get(&format!("http://127.0.0.1:{port}/health/ready"))
        .call()
        .is_err()
    {
        assert!(
            std::time::Instant::now() < deadline,
            "the server did not become ready"
        );
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    child
}

fn token(port: u16) -> String {
    let reply: serde_json::Value = ureq::post(&format!("http://127.0.0.1:{port}/v1/authenticate"))
        .send_json(
            serde_json::json!({ "username": "admin", "password": "durability-test-password" }),
        )
        .expect("sign in")
        .into_json()
        .expect("json");
    reply["token"].as_str().expect("token").to_owned()
}

#[test]
fn an_acknowledged_write_survives_a_kill_and_sigterm_stops_gracefully() {
    let dir = scratch();
    let port = free_port();
    let mut server = start_server(&dir, port);
    let created = ureq::post(&format!("http://127.0.0.1:{port}/v1/charge-group-categories"))
        .set("Authorization", &format!("Bearer {}", token(port)))
        .send_json(serde_json::json!({ "name": "Durable", "chargingUnitType": "MB", "startDate": "2026-01-01" }))
        .expect("created");
    assert_eq!(created.status(), 201);
    server
        .kill()
        .expect("SIGKILL right after the acknowledgement");
    server.wait().expect("killed");

    let mut server = start_server(&dir, port);
    let listed: serde_json::Value = ureq::get(&format!(
        "http://127.0.0.1:{port}/v1/charge-group-categories?page=1&pageSize=10"
    ))
    .set("Authorization", &format!("Bearer {}", token(port)))
    .call()
    .expect("listed")
    .into_json()
    .expect("json");
    assert_eq!(listed[0]["name"], "Durable");
    let terminated = Command::new("kill")
        .args(["-TERM", &server.id().to_string()])
        .status()
        .expect("kill -TERM");
    assert!(terminated.success());
    let status = server.wait().expect("stopped");
    assert!(status.success(), "a graceful stop exits 0, got {status:?}");
    let _ = std::fs::remove_dir_all(dir);
}

#[test]
fn json_logs_carry_request_ids_and_never_secrets() {
    let dir = scratch();
    std::fs::create_dir_all(&dir).expect("dir");
    let log_path = dir.join("server.log");
    let port = free_port();
    let mut server = Command::new(env!("CARGO_BIN_EXE_billing"))
        .args(["serve"])
        // A data directory the service makes itself.
        .env("BILLING_DATA_DIR", dir.join("data"))
        .env("BILLING_BIND", format!("127.0.0.1:{port}"))
        .env("BILLING_ADMIN_PASSWORD", "durability-test-password")
        .env("BILLING_LOG_FORMAT", "json")
        .env_remove("DATABASE_URL")
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(std::fs::File::create(&log_path).expect("log file"))
        .spawn()
        .expect("start billing");
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(20);
    while ureq::get(&format!("http://127.0.0.1:{port}/health/live"))
        .call()
        .is_err()
    {
        assert!(
            std::time::Instant::now() < deadline,
            "the server did not start"
        );
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    let token = token(port);
    // What the service made is its owner's only: the directory, the database, the signing key.
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = |name: &str| {
            std::fs::metadata(dir.join(name))
                .expect(name)
                .permissions()
                .mode()
                & 0o777
        };
        assert_eq!(
            [
                mode("data"),
                mode("data/billing.db"),
                mode("data/jwt-signing-key")
            ],
            [0o700, 0o600, 0o600]
        );
    }
    let _ = ureq::get(&format!(
        "http://127.0.0.1:{port}/v1/users?page=1&pageSize=1"
    ))
    .set("Authorization", &format!("Bearer {token}"))
    .set("X-Request-Id", "log-check-1")
    .call();
    // A malformed request is the client's doing: answered 400, and no ERROR in the log.
    {
        use std::io::{Read, Write};
        let mut stream = std::net::TcpStream::connect(("127.0.0.1", port)).expect("connect");
        stream
            .set_read_timeout(Some(std::time::Duration::from_secs(5)))
            .expect("timeout");
        stream
            .write_all(b"GET /health/live HTTP/1.1\r\nHost: x\r\nno colon here\r\n\r\n")
            .expect("write");
        let mut answer = [0u8; 12];
        let _ = stream.read(&mut answer);
        assert_eq!(&answer, b"HTTP/1.1 400");
    }
    let _ = Command::new("kill")
        .args(["-TERM", &server.id().to_string()])
        .status();
    let _ = server.wait();
    let log = std::fs::read_to_string(&log_path).expect("log");
    assert!(
        !log.contains("durability-test-password"),
        "a password reached the log"
    );
    assert!(!log.contains(&token), "a token reached the log");
    let mut saw_request = false;
    let mut saw_sign_in = false;
    for line in log.lines().filter(|l| !l.trim().is_empty()) {
        let entry: serde_json::Value =
            serde_json::from_str(line).unwrap_or_else(|e| panic!("not JSON ({e}): {line}"));
        assert_ne!(entry["level"], "ERROR", "{line}");
        // A successful sign-in names whom it signed in, and from where.
        if entry["path"] == "/v1/authenticate" && entry["status"] == 200 {
            assert_eq!(
                (&entry["user_id"], &entry["client"]),
                (&serde_json::json!(1), &serde_json::json!("127.0.0.1")),
                "{line}"
            );
            saw_sign_in = true;
        }
        if entry["request_id"] == "log-check-1" {
            assert_eq!(entry["path"], "/v1/users");
            assert_eq!(entry["status"], 200);
            // The caller, and the time in milliseconds with at most two decimals.
            assert_eq!(entry["user_id"], 1, "{line}");
            // The client's address, as the sign-in throttle counts it.
            assert_eq!(entry["client"], "127.0.0.1", "{line}");
            let elapsed = entry["elapsed_ms"]
                .as_f64()
                .expect("elapsed_ms is a number");
            assert!(
                elapsed > 0.0 && (elapsed * 100.0 - (elapsed * 100.0).round()).abs() < 1e-6,
                "{line}"
            );
            saw_request = true;
        }
    }
    assert!(saw_request, "the request line is logged with its id: {log}");
    assert!(saw_sign_in, "the sign-in is logged: {log}");
    let _ = std::fs::remove_dir_all(dir);
}

/// Peak resident memory of a process, in MiB (Linux).
fn peak_resident_mib(pid: u32) -> u64 {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).expect("proc status");
    let line = status
        .lines()
        .find(|line| line.starts_with("VmHWM:"))
        .expect("VmHWM");
    let kib: u64 = line
        .split_whitespace()
        .nth(1)
        .and_then(|value| value.parse().ok())
        .expect("a number");
    kib / 1024
}

/// A bulk create of the cap's size (each element a password to hash) stays small: hashing
/// runs on its pool before the transaction, not inside it (where 10,000 users once grew the
/// process to 24 GB on SQLite). One element over the cap is refused.
fn bulk_user_create_stays_small(database_url: Option<String>) {
    let dir = scratch();
    let port = free_port();
    let mut command = Command::new(env!("CARGO_BIN_EXE_billing"));
    command
        .args(["serve"])
        .env("BILLING_DATA_DIR", &dir)
        .env("BILLING_BIND", format!("127.0.0.1:{port}"))
        .env("BILLING_ADMIN_PASSWORD", "durability-test-password")
        .env_remove("DATABASE_URL")
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null());
    if let Some(url) = &database_url {
        command.env("DATABASE_URL", url);
    }
    let mut server = command.spawn().expect("start billing");
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(20);
    while ureq::get(&format!("http://127.0.0.1:{port}/health/ready"))
        .call()
        .is_err()
    {
        assert!(std::time::Instant::now() < deadline, "not ready");
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    let users = |count: usize| {
        serde_json::Value::Array(
            (0..count)
                .map(|i| serde_json::json!({ "username": format!("bulk{i}"), "password": format!("bulk-password-{i}"), "roles": ["READ_ONLY"] }))
                .collect(),
        )
    };
    let bearer = format!("Bearer {}", token(port));
    let post =
        |body: serde_json::Value| match ureq::post(&format!("http://127.0.0.1:{port}/v1/users"))
            .set("Authorization", &bearer)
            .send_json(body)
        {
            Ok(response) => response.status(),
            Err(ureq::Error::Status(status, _)) => status,
            Err(error) => panic!("{error}"),
        };
    assert_eq!(post(users(101)), 400, "over the cap");
    assert_eq!(post(users(100)), 201);
    let peak = peak_resident_mib(server.id());
    let _ = server.kill();
    let _ = server.wait();
    let _ = std::fs::remove_dir_all(&dir);
    assert!(peak < 200, "peak resident memory {peak} MiB");
}

#[test]
fn a_bulk_user_create_of_the_cap_stays_under_200_mib_on_sqlite() {
    bulk_user_create_stays_small(None);
}

#[test]
fn a_bulk_user_create_of_the_cap_stays_under_200_mib_on_postgres() {
    crate::support::on_scratch_postgres("billing_bulk", |url, _| {
        bulk_user_create_stays_small(Some(url.to_owned()));
    });
}

#[test]
fn a_second_instance_on_the_same_sqlite_database_is_refused() {
    let dir = scratch();
    let port = free_port();
    let mut first = start_server(&dir, port);
    let second = billing(
        &dir,
        &["serve"],
        &[
            ("BILLING_BIND", &format!("127.0.0.1:{}", free_port())),
            ("BILLING_ADMIN_PASSWORD", "durability-test-password"),
        ],
    );
    let _ = first.kill();
    let _ = first.wait();
    assert!(!second.status.success());
    let said = String::from_utf8_lossy(&second.stderr).into_owned();
    assert!(
        said.contains("another billing instance is serving the SQLite database")
            && said.contains("billing.db.serve-lock"),
        "{said}"
    );
    // Once the first has stopped, the claim is free again; a batch job never needed it.
    let users = billing(&dir, &["migrate"], &[]);
    assert!(
        users.status.success(),
        "{}",
        String::from_utf8_lossy(&users.stderr)
    );
    let port = free_port();
    let mut again = start_server(&dir, port);
    let _ = again.kill();
    let _ = again.wait();
}

/// A start refused for its settings creates nothing: no database, so no first administrator
/// whose one-time password would be printed by a server that never runs.
#[test]
fn a_start_with_a_short_signing_key_is_refused_before_anything_is_created() {
    let dir = scratch();
    let refused = billing(
        &dir,
        &["serve"],
        &[
            ("BILLING_BIND", &format!("127.0.0.1:{}", free_port())),
            ("BILLING_JWT_SECRET", "short"),
        ],
    );
    assert!(!refused.status.success());
    let said = format!(
        "{}{}",
        String::from_utf8_lossy(&refused.stdout),
        String::from_utf8_lossy(&refused.stderr)
    );
    assert!(
        said.contains("BILLING_JWT_SECRET must be at least 32 characters"),
        "{said}"
    );
    assert!(
        !said.contains("password"),
        "no administrator was created: {said}"
    );
    assert!(!dir.join("billing.db").exists(), "{said}");
}

/// A start on a full disk says which file it could not write. Needs a small tmpfs: where this
/// test may not mount one (not root, no CAP_SYS_ADMIN) it says so and checks nothing.
#[test]
fn a_start_on_a_full_disk_names_the_file() {
    let mount_point = scratch();
    std::fs::create_dir_all(&mount_point).expect("mount point");
    let mounted = Command::new("mount")
        .args(["-t", "tmpfs", "-o", "size=100k", "tmpfs"])
        .arg(&mount_point)
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|status| status.success());
    if !mounted {
        eprintln!("skipped: cannot mount a small tmpfs here to fill it");
        return;
    }
    let filled = std::fs::write(mount_point.join("fill"), vec![0u8; 90 * 1024]);
    let data_dir = mount_point.join("data");
    let output = billing(
        &data_dir,
        &["serve"],
        &[
            ("BILLING_BIND", &format!("127.0.0.1:{}", free_port())),
            ("BILLING_ADMIN_PASSWORD", "durability-test-password"),
        ],
    );
    let _ = Command::new("umount").arg(&mount_point).status();
    filled.expect("fill the disk");
    assert!(!output.status.success());
    let said = String::from_utf8_lossy(&output.stderr).into_owned();
    assert!(
        said.contains(&format!(
            "SQLite database {}",
            data_dir.join("billing.db").display()
        )),
        "{said}"
    );
}

/// Starts the server, sends a request whose body stops halfway, sends `signals` to the server
/// (300 ms apart), then the rest of the body: what the client got, and how the process ended.
fn signals_during_a_request(signals: &[&str]) -> (String, std::process::ExitStatus) {
    use std::io::{Read, Write};
    let dir = scratch();
    let port = free_port();
    let mut server = start_server(&dir, port);
    let token = token(port);
    let body = r#"{"name":"Calls","chargingUnitType":"DURATION","startDate":"2026-01-01"}"#;
    let mut stream = std::net::TcpStream::connect(("127.0.0.1", port)).expect("connect");
    stream
        .set_read_timeout(Some(std::time::Duration::from_secs(20)))
        .expect("timeout");
    let head = format!(
        "POST /v1/charge-group-categories HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer {token}\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n",
        body.len()
    );
    // Half the body now, the signals, then the rest: the request is in flight throughout.
    stream.write_all(head.as_bytes()).expect("head");
    stream.write_all(&body.as_bytes()[..10]).expect("half");
    for signal in signals {
        std::thread::sleep(std::time::Duration::from_millis(300));
        let sent = Command::new("kill")
            .args([&format!("-{signal}"), &server.id().to_string()])
            .status()
            .expect("kill");
        assert!(sent.success());
    }
    std::thread::sleep(std::time::Duration::from_millis(300));
    let _ = stream.write_all(&body.as_bytes()[10..]);
    let mut answer = String::new();
    let _ = stream.read_to_string(&mut answer);
    let status = server.wait().expect("stopped");
    let _ = std::fs::remove_dir_all(dir);
    (answer, status)
}

/// Ctrl-C (SIGINT) and SIGHUP (the terminal closed) stop as gracefully as SIGTERM: a request
/// in flight is answered before the process exits, with status 0.
#[test]
fn sigint_and_sighup_let_a_request_in_flight_finish() {
    for signal in ["INT", "HUP"] {
        let (answer, status) = signals_during_a_request(&[signal]);
        assert!(answer.starts_with("HTTP/1.1 201"), "SIG{signal}: {answer}");
        assert!(status.success(), "SIG{signal}: {status:?}");
    }
}

/// A second SIGINT while the server stops ends it at once (status 130), the request in flight
/// dropped unanswered.
#[test]
fn a_second_sigint_stops_at_once() {
    let (answer, status) = signals_during_a_request(&["INT", "INT"]);
    assert_eq!(answer, "", "the request in flight is dropped");
    assert_eq!(status.code(), Some(130), "{status:?}");
}

#[test]
fn an_address_in_use_is_named_before_anything_is_created() {
    let taken = std::net::TcpListener::bind("127.0.0.1:0").expect("a port");
    let address = taken.local_addr().expect("address").to_string();
    let dir = scratch();
    let output = Command::new(env!("CARGO_BIN_EXE_billing"))
        .args(["serve"])
        .env("BILLING_DATA_DIR", &dir)
        .env("BILLING_BIND", &address)
        .env_remove("DATABASE_URL")
        .env_remove("BILLING_ADMIN_PASSWORD")
        .env_remove("BILLING_JWT_SECRET")
        .stdin(Stdio::null())
        .output()
        .expect("run billing");
    assert!(!output.status.success());
    let message = String::from_utf8_lossy(&output.stderr);
    assert!(
        message.contains(&format!("cannot listen on {address} (BILLING_BIND)")),
        "{message}"
    );
    assert!(
        !String::from_utf8_lossy(&output.stdout).contains("administrator"),
        "no administrator was made"
    );
    assert!(
        !dir.join("billing.db").exists() && !dir.join("jwt-signing-key").exists(),
        "no database and no signing key were made"
    );
    drop(taken);
}
