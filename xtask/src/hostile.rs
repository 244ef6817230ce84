//! What `fuzz`, `auth-matrix` and `crash` share: which binary to run, which backends to run
//! on, and a server started for one of them (docs/testing.md).
//!
//! The servers are started with bench_http's [`Server`]: a free port, a fresh data directory
//! or a fresh PostgreSQL database, `/health/ready` awaited, killed when dropped.

use std::path::PathBuf;
use std::process::Command;

use crate::server::{ScratchDatabase, Server, ServerOptions, workspace_root};

/// The admin password of the servers these tasks start (16+ characters, as required).
pub const ADMIN_PASSWORD: &str = "hostile-admin-password-2026";
/// The PostgreSQL server tried when `TEST_DATABASE_URL` is unset (the README's).
const LOCAL_POSTGRES: &str = "postgres://root@127.0.0.1:5432/postgres";

/// The command line of these tasks: `--debug` runs `target/debug/billing` as `cargo test
/// --workspace` builds it (as does `XTASK_BILLING_PROFILE=debug`), else the release binary is
/// built and run.
pub struct Common {
    pub debug: bool,
}

impl Common {
    pub fn parse(args: &[String], usage: &str) -> Result<Self, String> {
        let mut debug = std::env::var("XTASK_BILLING_PROFILE").is_ok_and(|p| p == "debug");
        for arg in args {
            match arg.as_str() {
                "--debug" => debug = true,
                "--release" => debug = false,
                other => return Err(format!("unexpected argument {other:?}\n{usage}")),
            }
        }
        Ok(Self { debug })
    }

    /// Builds the binary (a no-op when it is up to date) and returns its path. The debug one
    /// is the one the README's test command builds (`cargo test --workspace` builds every
    /// test, then the binary with the features the tests' dependencies add): built any other
    /// way, its crates would be built again with other features, and the next test run would
    /// build them back (two minutes each way in CI).
    pub fn binary(&self) -> Result<PathBuf, String> {
        if self.debug {
            crate::cargo(&["test", "--workspace", "--no-run"])?;
            Ok(cargo_target_dir().join("debug/billing"))
        } else {
            crate::cargo(&["build", "--release", "--bin", "billing"])?;
            Ok(cargo_target_dir().join("release/billing"))
        }
    }
}

/// Where cargo puts what it builds: `CARGO_TARGET_DIR` when set (relative to the workspace
/// root, as cargo reads it from here), else the workspace's `target/`.
pub(crate) fn cargo_target_dir() -> PathBuf {
    match std::env::var_os("CARGO_TARGET_DIR").filter(|dir| !dir.is_empty()) {
        Some(dir) => workspace_root().join(dir),
        None => workspace_root().join("target"),
    }
}

/// One database backend to run against.
#[derive(Clone)]
pub enum Backend {
    Sqlite,
    /// The admin URL of a PostgreSQL server where scratch databases are created.
    Postgres(String),
}

impl Backend {
    pub fn name(&self) -> &'static str {
        match self {
            Backend::Sqlite => "SQLite",
            Backend::Postgres(_) => "PostgreSQL",
        }
    }

    /// SQLite, and PostgreSQL when `TEST_DATABASE_URL` is set or the local server answers.
    /// `TEST_DATABASE_URL` set but unreachable is an error, not a silent skip.
    pub fn available() -> Result<Vec<Backend>, String> {
        let mut backends = vec![Backend::Sqlite];
        match std::env::var("TEST_DATABASE_URL")
            .ok()
            .filter(|u| !u.is_empty())
        {
            Some(url) => {
                crate::server::psql(&url, "select 1")
                    .map_err(|e| format!("TEST_DATABASE_URL is set but does not answer: {e}"))?;
                backends.push(Backend::Postgres(url));
            }
            None => {
                if crate::server::psql(LOCAL_POSTGRES, "select 1").is_ok() {
                    backends.push(Backend::Postgres(LOCAL_POSTGRES.to_owned()));
                } else {
                    eprintln!(
                        "skipped: PostgreSQL (set TEST_DATABASE_URL, or run one at {LOCAL_POSTGRES})"
                    );
                }
            }
        }
        Ok(backends)
    }

    /// A fresh database for one run: `None` for SQLite (the server's fresh data directory).
    pub fn scratch_database(&self, task: &str) -> Result<Option<ScratchDatabase>, String> {
        match self {
            Backend::Sqlite => Ok(None),
            Backend::Postgres(admin_url) => {
                let name = format!("xtask_{}_{}", task.replace('-', "_"), std::process::id());
                // UTF-8 with a UTF-8 character type, as the test suite's databases (docs/api.md).
                ScratchDatabase::create_with(
                    admin_url,
                    &name,
                    "TEMPLATE template0 ENCODING 'UTF8' LC_CTYPE 'C.UTF-8' LC_COLLATE 'C.UTF-8'",
                )
                .map(Some)
            }
        }
    }
}

/// `target/hostile/<file>`, its directory created.
pub fn output_path(file: &str) -> Result<PathBuf, String> {
    let dir = workspace_root().join("target").join("hostile");
    std::fs::create_dir_all(&dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    Ok(dir.join(file))
}

/// Starts `binary` (two workers, unpinned) for `task` on `database` (`None`: SQLite) with the
/// extra settings `env`; its log in `target/hostile/<task>-<backend>.log`.
pub fn start_server(
    binary: &std::path::Path,
    task: &str,
    backend: &Backend,
    database: Option<&ScratchDatabase>,
    data_dir: Option<PathBuf>,
    env: &[(&str, &str)],
) -> Result<Server, String> {
    let log = output_path(&format!("{task}-{}.log", backend.name().to_lowercase()))?;
    Server::start_with(ServerOptions {
        binary: binary.to_path_buf(),
        pin_to_core: None,
        workers: 2,
        database_url: database.map(|d| d.url.clone()),
        data_dir,
        admin_password: ADMIN_PASSWORD.to_owned(),
        env: env
            .iter()
            .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
            .collect(),
        log,
    })
}

/// Truncates a task's server log so that each run starts with an empty one.
pub fn fresh_log(task: &str, backend: &Backend) -> Result<(), String> {
    let log = output_path(&format!("{task}-{}.log", backend.name().to_lowercase()))?;
    std::fs::write(&log, "").map_err(|e| format!("{}: {e}", log.display()))
}

/// 32 random bytes as hex, from the system's random source.
pub fn random_secret() -> Result<String, String> {
    use std::io::Read;
    let mut bytes = [0u8; 32];
    std::fs::File::open("/dev/urandom")
        .and_then(|mut f| f.read_exact(&mut bytes))
        .map_err(|e| format!("/dev/urandom: {e}"))?;
    Ok(bytes.iter().map(|b| format!("{b:02x}")).collect())
}

/// Runs `program` with `args`, returning its standard output; an error with its standard
/// error unless it succeeds.
pub fn output_of(program: &str, args: &[&str]) -> Result<String, String> {
    let output = Command::new(program)
        .args(args)
        .output()
        .map_err(|e| format!("{program}: {e}"))?;
    if output.status.success() {
        Ok(String::from_utf8_lossy(&output.stdout).into_owned())
    } else {
        Err(format!(
            "{program} {} failed: {}",
            args.join(" "),
            String::from_utf8_lossy(&output.stderr).trim()
        ))
    }
}

/// A positive integer from the environment, or `default` when unset.
pub fn env_number(name: &str, default: u64) -> Result<u64, String> {
    match std::env::var(name) {
        Err(_) => Ok(default),
        Ok(text) => match text.trim().parse::<u64>() {
            Ok(value) if value > 0 => Ok(value),
            _ => Err(format!("{name} must be a positive integer, not {text:?}")),
        },
    }
}
