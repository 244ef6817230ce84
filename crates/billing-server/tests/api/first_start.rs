//! The first start: the administrator and signing key it makes, and what its log says.

use std::process::{Command, Stdio};

use super::cli::{billing, scratch};

/// Starts `billing serve` on port 0 (on SQLite in `dir`, or on `database_url`), waits until
/// it says it is serving (first-start work is done by then), stops it, returns what it
/// printed on stdout and the log lines up to the one saying it serves.
pub(crate) fn serve_briefly_on(
    dir: &std::path::Path,
    database_url: Option<&str>,
) -> (String, String) {
    use std::io::BufRead;
    let mut command = Command::new(env!("CARGO_BIN_EXE_billing"));
    command
        .args(["serve"])
        .env("BILLING_DATA_DIR", dir)
        .env("BILLING_BIND", "127.0.0.1:0")
        .env("BILLING_LOG", "info")
        .env("BILLING_LOG_FORMAT", "text")
        .env_remove("DATABASE_URL")
        .env_remove("BILLING_ADMIN_PASSWORD")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    if let Some(url) = database_url {
        command.env("DATABASE_URL", url);
    }
    let mut child = command.spawn().expect("start billing");
    let stderr = child.stderr.take().expect("stderr is piped");
    let mut log = String::new();
    let mut serving = false;
    for line in std::io::BufReader::new(stderr)
        .lines()
        .map_while(Result::ok)
    {
        // A pipe is not a terminal: no colour codes.
        assert!(!line.contains('\u{1b}'), "colour codes in a pipe: {line:?}");
        log.push_str(&line);
        log.push('\n');
        if line.contains("serving the billing API") {
            serving = true;
            break;
        }
    }
    let _ = child.kill();
    let output = child.wait_with_output().expect("stopped");
    let stdout = String::from_utf8_lossy(&output.stdout).into_owned();
    assert!(
        serving,
        "the server never said it was serving: {stdout}\n{log}"
    );
    (stdout, log)
}

pub(crate) fn serve_briefly(dir: &std::path::Path) -> String {
    serve_briefly_on(dir, None).0
}

#[test]
fn the_first_start_prints_a_random_admin_password_once() {
    let dir = scratch();
    let first = serve_briefly(&dir);
    let password = first
        .lines()
        .find_map(|line| {
            line.strip_prefix("Created the first administrator: username admin, password ")
        })
        .unwrap_or_else(|| panic!("no password printed: {first}"));
    assert!(password.len() >= 20, "a long random password");
    assert!(dir.join("billing.db").exists() && dir.join("jwt-signing-key").exists());
    let second = serve_briefly(&dir);
    assert!(!second.contains("password"), "printed once only: {second}");
    let _ = std::fs::remove_dir_all(dir);
}

/// A user of another role made before the first start does not stand in for the first
/// administrator (the platform had no one who could administer it).
#[test]
fn a_user_made_before_the_first_start_leaves_the_administrator_to_it() {
    let dir = scratch();
    let made = billing(
        &dir,
        &["create-user", "--username", "early", "--roles", "READ_ONLY"],
        &[("BILLING_NEW_USER_PASSWORD", "a-long-enough-password")],
    );
    assert!(
        made.status.success(),
        "{}",
        String::from_utf8_lossy(&made.stderr)
    );
    let first = serve_briefly(&dir);
    assert!(
        first.contains("Created the first administrator: username admin"),
        "{first}"
    );
    let _ = std::fs::remove_dir_all(&dir);
    // A user of other roles named `admin`: the service starts and says how to make one.
    let made = billing(
        &dir,
        &["create-user", "--username", "admin", "--roles", "READ_ONLY"],
        &[("BILLING_NEW_USER_PASSWORD", "a-long-enough-password")],
    );
    assert!(made.status.success());
    let (printed, log) = serve_briefly_on(&dir, None);
    assert!(!printed.contains("password"), "{printed}");
    assert!(
        log.contains("the username admin is taken by a user of other roles"),
        "{log}"
    );
    let _ = std::fs::remove_dir_all(dir);
}

#[test]
fn start_up_logs_name_the_database_the_migrations_and_the_address() {
    let dir = scratch();
    let (_, first) = serve_briefly_on(&dir, None);
    let database = std::path::absolute(dir.join("billing.db")).expect("absolute path");
    for expected in [
        format!("SQLite database {}", database.display()),
        "applied migrations".to_owned(),
        "2026-11-22-000001_foundation".to_owned(),
        "address=127.0.0.1:".to_owned(),
    ] {
        assert!(
            first.contains(&expected),
            "{expected} missing from\n{first}"
        );
    }
    let (_, second) = serve_briefly_on(&dir, None);
    assert!(
        second.contains("database schema up to date") && !second.contains("applied migrations"),
        "{second}"
    );
    let _ = std::fs::remove_dir_all(dir);
}

#[test]
fn start_up_logs_name_the_postgres_database_without_its_password() {
    let dir = scratch();
    let Some((log, name)) = crate::support::on_scratch_postgres("billing_start", |url, name| {
        (serve_briefly_on(&dir, Some(url)).1, name.to_owned())
    }) else {
        return;
    };
    let _ = std::fs::remove_dir_all(dir);
    assert!(
        log.contains(&format!("PostgreSQL database {name} on ")),
        "{log}"
    );
    assert!(log.contains("applied migrations"), "{log}");
    assert!(!log.contains("postgres://"), "the URL is not logged: {log}");
}
