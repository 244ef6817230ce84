//! The server under test: the `billing` binary started on a free port with a fresh data
//! directory (or a scratch PostgreSQL database), signed in to, and stopped when dropped.

use std::net::{SocketAddr, TcpListener};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use crate::bench_http::ADMIN_PASSWORD;
use crate::http_client::{Client, json_string_member};

/// How long the server may take to answer `/health/ready` after it starts.
const READY_TIMEOUT: Duration = Duration::from_secs(30);

/// `target/bench-http/server-<backend>.log`, its directory created.
pub(crate) fn server_log_path(backend: &str) -> Result<PathBuf, String> {
    let dir = workspace_root().join("target").join("bench-http");
    std::fs::create_dir_all(&dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    Ok(dir.join(format!("server-{}.log", backend.to_lowercase())))
}

/// A database created for one run on the PostgreSQL server of `TEST_DATABASE_URL` and dropped
/// (with `FORCE`, closing any connection left) when this is dropped, whatever happened.
pub(crate) struct ScratchDatabase {
    admin_url: String,
    name: String,
    pub url: String,
}

impl ScratchDatabase {
    pub(crate) fn create(admin_url: &str) -> Result<Self, String> {
        Self::create_with(admin_url, &format!("bench_http_{}", std::process::id()), "")
    }

    /// Creates database `name` (dropped first if left over), `options` added to the
    /// `CREATE DATABASE`.
    pub(crate) fn create_with(admin_url: &str, name: &str, options: &str) -> Result<Self, String> {
        let name = name.to_owned();
        psql(
            admin_url,
            &format!("DROP DATABASE IF EXISTS {name} WITH (FORCE)"),
        )?;
        psql(admin_url, &format!("CREATE DATABASE {name} {options}"))?;
        Ok(Self {
            url: database_url_with_name(admin_url, &name)?,
            admin_url: admin_url.to_owned(),
            name,
        })
    }
}

impl Drop for ScratchDatabase {
    fn drop(&mut self) {
        let drop = format!("DROP DATABASE IF EXISTS {} WITH (FORCE)", self.name);
        if let Err(message) = psql(&self.admin_url, &drop) {
            eprintln!("xtask: could not drop the benchmark database: {message}");
        }
    }
}

/// Runs one SQL command with `psql`, quietly; an error with psql's message unless it succeeds.
pub(crate) fn psql(url: &str, sql: &str) -> Result<(), String> {
    let output = Command::new("psql")
        .args([
            url,
            "--quiet",
            "--no-psqlrc",
            "-v",
            "ON_ERROR_STOP=1",
            "-c",
            sql,
        ])
        .output()
        .map_err(|e| format!("psql: {e}"))?;
    if output.status.success() {
        Ok(())
    } else {
        Err(format!(
            "psql {sql:?} failed: {}",
            String::from_utf8_lossy(&output.stderr).trim()
        ))
    }
}

/// `url` with its database (the path) replaced by `name`, keeping any `?query`.
pub(crate) fn database_url_with_name(url: &str, name: &str) -> Result<String, String> {
    let authority_start = url
        .find("://")
        .map(|i| i + 3)
        .ok_or_else(|| format!("TEST_DATABASE_URL is not a URL: {url}"))?;
    let rest = &url[authority_start..];
    let authority_end = authority_start + rest.find(['/', '?']).unwrap_or(rest.len());
    let query = url[authority_end..]
        .find('?')
        .map_or("", |i| &url[authority_end + i..]);
    Ok(format!("{}/{name}{query}", &url[..authority_end]))
}

/// How to start a server: which binary, pinned or not, on which database, with what settings.
pub(crate) struct ServerOptions {
    pub binary: PathBuf,
    /// `taskset -c CORE` when set.
    pub pin_to_core: Option<u32>,
    pub workers: u32,
    /// `None`: SQLite in the data directory.
    pub database_url: Option<String>,
    /// A directory to reuse (kept when the server is dropped); `None`: a fresh one, removed.
    pub data_dir: Option<PathBuf>,
    pub admin_password: String,
    /// More settings, as environment variables.
    pub env: Vec<(String, String)>,
    pub log: PathBuf,
}

/// The server on a free port, by default with a fresh data directory. Dropping it kills the
/// process and removes a fresh directory, so a failure midway leaves nothing running. Its
/// output (warnings and errors only) goes to `log`, which is kept for a look afterwards.
pub(crate) struct Server {
    child: Child,
    pub address: SocketAddr,
    pub data_dir: PathBuf,
    keep_data_dir: bool,
    log: PathBuf,
}

impl Server {
    /// The server's process id (for its resident memory in `/proc`).
    pub(crate) fn pid(&self) -> u32 {
        self.child.id()
    }

    /// The benchmark's server: the release binary pinned to core 0 with one worker.
    pub(crate) fn start(
        binary: Option<PathBuf>,
        database_url: Option<&str>,
        log_path: PathBuf,
    ) -> Result<Self, String> {
        std::fs::File::create(&log_path).map_err(|e| format!("{}: {e}", log_path.display()))?;
        Self::start_with(ServerOptions {
            binary: binary.unwrap_or_else(crate::billing_release),
            pin_to_core: Some(0),
            workers: 1,
            database_url: database_url.map(str::to_owned),
            data_dir: None,
            admin_password: ADMIN_PASSWORD.to_owned(),
            env: Vec::new(),
            log: log_path,
        })
    }

    /// The benchmark's server ([`Server::start`], its log named `log_name`) and the
    /// administrator's access token.
    pub(crate) fn start_signed_in(
        binary: Option<PathBuf>,
        database_url: Option<&str>,
        log_name: &str,
    ) -> Result<(Self, String), String> {
        let server = Self::start(binary, database_url, server_log_path(log_name)?)?;
        let token = sign_in(server.address, ADMIN_PASSWORD)?;
        Ok((server, token))
    }

    pub(crate) fn start_with(options: ServerOptions) -> Result<Self, String> {
        let address = free_local_address()?;
        let (data_dir, keep_data_dir) = match options.data_dir {
            Some(dir) => (dir, true),
            None => (fresh_temp_dir()?, false),
        };
        let log_path = options.log;
        let log = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(&log_path)
            .map_err(|e| format!("{}: {e}", log_path.display()))?;
        let log_err = log.try_clone().map_err(|e| e.to_string())?;
        let mut command = match options.pin_to_core {
            Some(core) => {
                let mut command = Command::new("/usr/bin/taskset");
                command.arg("-c").arg(core.to_string()).arg(&options.binary);
                command
            }
            None => Command::new(&options.binary),
        };
        command
            .env("BILLING_BIND", address.to_string())
            .env("BILLING_DATA_DIR", &data_dir)
            .env("BILLING_ADMIN_PASSWORD", &options.admin_password)
            .env("BILLING_WORKERS", options.workers.to_string())
            .env("BILLING_LOG", "warn")
            .env_remove("BILLING_CONFIG")
            .env_remove("DATABASE_URL")
            .envs(options.env)
            .stdin(Stdio::null())
            .stdout(log)
            .stderr(log_err);
        if let Some(url) = options.database_url {
            command.env("DATABASE_URL", url);
        }
        let child = command
            .spawn()
            .map_err(|e| format!("could not start {}: {e}", options.binary.display()))?;
        let mut server = Self {
            child,
            address,
            data_dir,
            keep_data_dir,
            log: log_path,
        };
        server.wait_until_ready()?;
        Ok(server)
    }

    /// Kills the process with SIGKILL (no shutdown of any kind) and waits for it to be gone.
    pub(crate) fn kill(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }

    /// True while the process runs.
    pub(crate) fn is_running(&mut self) -> bool {
        matches!(self.child.try_wait(), Ok(None))
    }

    /// Polls `GET /health/ready` until it answers 200; the server's log is in the error.
    fn wait_until_ready(&mut self) -> Result<(), String> {
        let started = Instant::now();
        loop {
            if let Ok(Some(status)) = self.child.try_wait() {
                return Err(self.failure(&format!("the server exited ({status})")));
            }
            let ready = Client::new(self.address)
                .send("GET", "/health/ready", None, None)
                .is_ok_and(|response| response.status == 200);
            if ready {
                eprintln!("server ready on {}", self.address);
                return Ok(());
            }
            if started.elapsed() > READY_TIMEOUT {
                return Err(self.failure("the server was not ready within 30 s"));
            }
            std::thread::sleep(Duration::from_millis(100));
        }
    }

    pub(crate) fn failure(&self, what: &str) -> String {
        format!("{what}; its log:\n{}", self.log_text())
    }

    pub(crate) fn log_text(&self) -> String {
        std::fs::read_to_string(&self.log).unwrap_or_default()
    }

    /// A line for the report saying how much the server logged (at `warn`, anything is news).
    pub(crate) fn log_summary(&self) -> String {
        let lines = self.log_text().lines().count();
        format!("Server log: {lines} lines in {}", self.log.display())
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        self.kill();
        if !self.keep_data_dir {
            let _ = std::fs::remove_dir_all(&self.data_dir);
        }
    }
}

/// An address on 127.0.0.1 with a port the system just handed out (and that is free again).
pub(crate) fn free_local_address() -> Result<SocketAddr, String> {
    TcpListener::bind("127.0.0.1:0")
        .and_then(|listener| listener.local_addr())
        .map_err(|e| format!("no free port: {e}"))
}

/// A new empty directory under the system's temporary directory.
pub(crate) fn fresh_temp_dir() -> Result<PathBuf, String> {
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.subsec_nanos());
    let dir = std::env::temp_dir().join(format!("billing-xtask-{}-{nanos}", std::process::id()));
    std::fs::create_dir_all(&dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    Ok(dir)
}

/// Signs in as `admin` and returns the access token.
pub(crate) fn sign_in(address: SocketAddr, password: &str) -> Result<String, String> {
    sign_in_as(address, "admin", password)
}

/// Signs in as `username` and returns the access token.
pub(crate) fn sign_in_as(
    address: SocketAddr,
    username: &str,
    password: &str,
) -> Result<String, String> {
    let body = format!(r#"{{"username":"{username}","password":"{password}"}}"#);
    let response = Client::new(address).send("POST", "/v1/authenticate", None, Some(&body))?;
    let response = response.expect_status(200, "POST /v1/authenticate")?;
    json_string_member(&response.body, "token")
        .ok_or_else(|| format!("no token in the sign-in answer: {}", response.body))
}

/// The workspace root: xtask's own directory's parent.
pub(crate) fn workspace_root() -> PathBuf {
    let manifest = Path::new(env!("CARGO_MANIFEST_DIR"));
    manifest.parent().unwrap_or(manifest).to_path_buf()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn replaces_the_database_of_a_url() {
        let cases = [
            (
                "postgres://root@127.0.0.1:5432/postgres",
                "postgres://root@127.0.0.1:5432/b",
            ),
            ("postgres://root@localhost", "postgres://root@localhost/b"),
            (
                "postgres://u@h/db?sslmode=disable",
                "postgres://u@h/b?sslmode=disable",
            ),
        ];
        for (url, expected) in cases {
            assert_eq!(database_url_with_name(url, "b").unwrap(), expected);
        }
    }
}
