//! The `billing` binary's subcommands, run as a user would.

use std::process::{Command, Stdio};

pub(crate) fn billing(
    data_dir: &std::path::Path,
    args: &[&str],
    env: &[(&str, &str)],
) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_billing"))
        .args(args)
        .env("BILLING_DATA_DIR", data_dir)
        .env_remove("DATABASE_URL")
        .envs(env.iter().copied())
        .stdin(Stdio::null())
        .output()
        .expect("run billing")
}

/// The audit trail of the SQLite database in `data_dir`, oldest first.
pub(crate) fn audit_events(
    data_dir: &std::path::Path,
) -> Vec<billing_persistence::audit_events::AuditEventRow> {
    let database = billing_persistence::Database::open(&billing_persistence::DatabaseConfig {
        url: None,
        data_dir: data_dir.to_owned(),
        pool_size: 1,
        connection_timeout: std::time::Duration::from_secs(5),
    })
    .expect("open the database");
    database
        .read(|c| {
            billing_persistence::audit_events::list(
                c,
                &billing_domain::query::ListQuery::everything(),
            )
        })
        .expect("audit events")
        .0
}

pub(crate) fn scratch() -> std::path::PathBuf {
    std::env::temp_dir().join(format!("billing_cli_{}", uuid::Uuid::new_v4().simple()))
}

#[test]
fn help_documents_every_setting_and_command() {
    let output = billing(&scratch(), &["--help"], &[]);
    assert!(output.status.success());
    let help = String::from_utf8_lossy(&output.stdout);
    for word in [
        "serve",
        "migrate",
        "create-user",
        "openapi",
        "BILLING_BIND",
        "DATABASE_URL",
        "BILLING_CONFIG",
        "BILLING_LOG_FORMAT",
    ] {
        assert!(help.contains(word), "{word} missing from --help");
    }
}

#[test]
fn migrate_then_create_user_from_the_environment() {
    let dir = scratch();
    let migrated = billing(&dir, &["migrate"], &[]);
    assert!(
        migrated.status.success(),
        "{}",
        String::from_utf8_lossy(&migrated.stderr)
    );
    assert!(dir.join("billing.db").exists());
    let created = billing(
        &dir,
        &[
            "create-user",
            "--username",
            "ops",
            "--roles",
            "BILLING_MANAGER,READ_ONLY",
        ],
        &[("BILLING_NEW_USER_PASSWORD", "a-long-enough-password")],
    );
    assert!(
        created.status.success(),
        "{}",
        String::from_utf8_lossy(&created.stderr)
    );
    assert_eq!(
        String::from_utf8_lossy(&created.stdout).trim(),
        "created user ops with id 1"
    );
    let events = audit_events(&dir);
    assert_eq!(events.len(), 1, "{events:?}");
    let event = &events[0];
    assert_eq!(
        (
            event.action.as_str(),
            event.resource.as_str(),
            event.record_id,
            event.request_id.as_str()
        ),
        ("CREATE", "users", 1, "cli-create-user")
    );
    assert_eq!((event.user_id, event.username.as_str()), (1, "ops"));
    let after: serde_json::Value =
        serde_json::from_str(event.after_state.as_deref().expect("after")).expect("JSON");
    assert_eq!(
        after["roles"],
        serde_json::json!(["BILLING_MANAGER", "READ_ONLY"])
    );
    assert!(
        after.get("password").is_none()
            && !event
                .after_state
                .as_deref()
                .unwrap_or_default()
                .contains("argon2")
    );
    let bad_email = billing(
        &dir,
        &[
            "create-user",
            "--username",
            "mailer",
            "--roles",
            "READ_ONLY",
            "--email",
            "not an email",
        ],
        &[("BILLING_NEW_USER_PASSWORD", "a-long-enough-password")],
    );
    assert!(!bad_email.status.success());
    let message = String::from_utf8_lossy(&bad_email.stderr);
    assert!(
        message.contains("email: must be an email address"),
        "{message}"
    );
    assert_eq!(audit_events(&dir).len(), 1, "nothing was written");
    let with_email = billing(
        &dir,
        &[
            "create-user",
            "--username",
            "mailer",
            "--roles",
            "READ_ONLY",
            "--email",
            "mailer@example.com",
        ],
        &[("BILLING_NEW_USER_PASSWORD", "a-long-enough-password")],
    );
    assert!(
        with_email.status.success(),
        "{}",
        String::from_utf8_lossy(&with_email.stderr)
    );
    assert_eq!(audit_events(&dir).len(), 2);
    let weak = billing(
        &dir,
        &["create-user", "--username", "weak", "--roles", "READ_ONLY"],
        &[("BILLING_NEW_USER_PASSWORD", "short")],
    );
    assert!(!weak.status.success());
    assert!(String::from_utf8_lossy(&weak.stderr).contains("password"));
    let _ = std::fs::remove_dir_all(dir);
}

#[test]
fn a_config_file_supplies_settings_and_bad_ones_are_refused() {
    let dir = scratch();
    std::fs::create_dir_all(&dir).expect("dir");
    let file = dir.join("billing.conf");
    std::fs::write(&file, "# pool\nBILLING_DB_POOL_SIZE='0'\n").expect("write");
    let output = billing(
        &dir,
        &["migrate", "--config", file.to_str().expect("path")],
        &[],
    );
    assert!(!output.status.success());
    // The error names the file and line (not the command-line flag the setting stands for).
    let refused = String::from_utf8_lossy(&output.stderr);
    let line = format!(
        "config file {} line 2: BILLING_DB_POOL_SIZE: ",
        file.display()
    );
    assert!(
        refused.starts_with(&line) && refused.contains("1..=256"),
        "{refused}"
    );
    std::fs::write(&file, "NOT_A_SETTING=1\n").expect("write");
    let output = billing(
        &dir,
        &["migrate", "--config", file.to_str().expect("path")],
        &[],
    );
    assert!(
        String::from_utf8_lossy(&output.stderr).contains("line 1: NOT_A_SETTING: unknown setting")
    );
    // A setting of another command is not unknown: serve's bind in the file migrate reads.
    // (Quoted: the quotes are not part of the value, which would not parse with them.)
    std::fs::write(&file, "BILLING_BIND='127.0.0.1:9999'\n").expect("write");
    let output = billing(
        &dir,
        &["migrate", "--config", file.to_str().expect("path")],
        &[],
    );
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    // An option given before the command is refused, not silently ignored.
    let output = billing(&dir, &["--data-dir", "elsewhere", "migrate"], &[]);
    assert!(!output.status.success());
    // A file past 1 MiB is not read whole (`--config /dev/zero` held gigabytes).
    let zero = billing(&dir, &["migrate", "--config", "/dev/zero"], &[]);
    assert!(!zero.status.success());
    assert!(
        String::from_utf8_lossy(&zero.stderr).contains("longer than 1048576 bytes"),
        "{}",
        String::from_utf8_lossy(&zero.stderr)
    );
    let _ = std::fs::remove_dir_all(dir);
}

#[test]
fn a_database_connection_failure_names_its_cause() {
    let output = billing(
        &scratch(),
        &["migrate"],
        &[("DATABASE_URL", "postgres://nobody@127.0.0.1:1/none")],
    );
    assert!(!output.status.success());
    let message = String::from_utf8_lossy(&output.stderr);
    assert!(
        message.contains("cannot connect to the database") && message.contains("127.0.0.1"),
        "{message}"
    );
}

#[test]
fn an_unknown_database_scheme_is_refused_and_creates_no_file() {
    for url in [
        "postgress://me@127.0.0.1/billing",
        "mysql://me@127.0.0.1/billing",
    ] {
        let directory = scratch();
        let output = billing(&directory, &["migrate"], &[("DATABASE_URL", url)]);
        assert!(!output.status.success(), "{url}");
        let message = String::from_utf8_lossy(&output.stderr);
        assert!(
            message.contains("postgres://") && message.contains("sqlite://"),
            "{message}"
        );
        let current = std::env::current_dir().expect("directory");
        let scheme = url
            .split_once(':')
            .map(|(scheme, _)| scheme)
            .unwrap_or_default();
        assert!(
            !current.join(format!("{scheme}:")).exists(),
            "a file named after {url} was made"
        );
        assert!(!directory.join("billing.db").exists());
    }
}

#[test]
fn rate_export_and_import_on_a_database_that_is_not_there_say_so() {
    let dir = scratch();
    let usage = dir.join("usage.csv");
    std::fs::create_dir_all(&dir).expect("scratch");
    std::fs::write(
        &usage,
        "record_id,reference_data_source_id,date,dialled_number,call_class,service_id\n",
    )
    .expect("usage");
    let missing = dir.join("mistyped");
    for args in [
        vec![
            "rate",
            "--database",
            "--input",
            usage.to_str().expect("path"),
        ],
        vec![
            "export",
            "reference-data",
            dir.join("out").to_str().expect("path"),
        ],
        // An import into a mistyped data directory made a new database, then blamed the user.
        vec!["import", "reference-data", dir.to_str().expect("path")],
    ] {
        let refused = billing(&missing, &args, &[]);
        assert!(!refused.status.success(), "{args:?}");
        let said = String::from_utf8_lossy(&refused.stderr);
        assert!(
            said.contains("there is no database at") && said.contains("mistyped"),
            "{args:?}: {said}"
        );
        assert!(
            !missing.join("billing.db").exists(),
            "{args:?}: no database was created"
        );
    }
}

#[test]
fn generate_needs_a_source_for_its_dialstrings() {
    let dir = scratch();
    let tariff = dir.join("tariff");
    for sources in ["0", "1001"] {
        let refused = billing(
            &dir,
            &[
                "generate",
                "--tariff",
                tariff.to_str().expect("path"),
                "--sources",
                sources,
            ],
            &[],
        );
        assert!(!refused.status.success(), "--sources {sources}");
        let said = String::from_utf8_lossy(&refused.stderr);
        assert!(
            said.contains("--sources") && said.contains("1..=1000"),
            "{said}"
        );
        assert!(!tariff.exists(), "nothing is written");
    }
}

#[test]
fn generate_then_rate_a_usage_file() {
    let dir = scratch();
    let tariff = dir.join("tariff");
    let usage = dir.join("usage.csv");
    let rated = dir.join("rated.csv");
    let path = |p: &std::path::Path| p.to_str().expect("path").to_owned();
    let generated = billing(
        &dir,
        &[
            "generate",
            "--tariff",
            &path(&tariff),
            "--dialstrings",
            "500",
            "--sources",
            "2",
            "--usage",
            &path(&usage),
            "--rows",
            "2000",
        ],
        &[],
    );
    assert!(
        generated.status.success(),
        "{}",
        String::from_utf8_lossy(&generated.stderr)
    );
    let output = billing(
        &dir,
        &[
            "rate",
            "--tariff",
            &path(&tariff),
            "--input",
            &path(&usage),
            "--output",
            &path(&rated),
        ],
        &[],
    );
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let report = String::from_utf8_lossy(&output.stderr);
    assert!(report.contains("rated 2000 rows"), "{report}");
    for outcome in ["DIALSTRING", "CALL_CLASS", "IGNORED", "UNRATED", "ERROR"] {
        assert!(report.contains(outcome), "{outcome} missing from {report}");
    }
    assert!(
        report.contains("line "),
        "bad rows are listed with their line numbers: {report}"
    );
    let text = std::fs::read_to_string(&rated).expect("rated file");
    assert_eq!(text.lines().count(), 2001);
    let checked = dir.join("checked.csv");
    let reference = billing(
        &dir,
        &[
            "rate",
            "--reference",
            "--tariff",
            &path(&tariff),
            "--input",
            &path(&usage),
            "--output",
            &path(&checked),
        ],
        &[],
    );
    assert!(reference.status.success());
    let checked = std::fs::read_to_string(&checked).expect("reference output");
    assert!(
        checked == text,
        "the engine and the prefix-map reference rate the file differently"
    );
    let bad_tariff = billing(
        &dir,
        &[
            "rate",
            "--tariff",
            &path(&dir.join("missing")),
            "--input",
            &path(&usage),
        ],
        &[],
    );
    assert!(!bad_tariff.status.success());
    assert!(String::from_utf8_lossy(&bad_tariff.stderr).contains("is not a directory"));
    // The output may not be the input (creating it would empty the usage file), by any name.
    let before = std::fs::read(&usage).expect("usage");
    let same = dir.join(".").join("usage.csv");
    let overwrite = billing(
        &dir,
        &[
            "rate",
            "--tariff",
            &path(&tariff),
            "--input",
            &path(&usage),
            "--output",
            &path(&same),
        ],
        &[],
    );
    assert!(!overwrite.status.success());
    assert!(
        String::from_utf8_lossy(&overwrite.stderr).contains("names the usage file being rated")
    );
    assert_eq!(
        std::fs::read(&usage).expect("usage"),
        before,
        "the usage file is intact"
    );
    // Generating more dialstrings than fit in memory is refused before any work.
    let huge = billing(
        &dir,
        &[
            "generate",
            "--tariff",
            &path(&dir.join("huge")),
            "--dialstrings",
            "1000000000000",
        ],
        &[],
    );
    assert!(!huge.status.success());
    assert!(
        String::from_utf8_lossy(&huge.stderr).contains("must be at most 20000000"),
        "{}",
        String::from_utf8_lossy(&huge.stderr)
    );
    let _ = std::fs::remove_dir_all(dir);
}
