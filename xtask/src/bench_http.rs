//! `cargo xtask bench http`: the HTTP benchmark (docs/performance.md, "HTTP benchmark").
//!
//! For each backend (SQLite always, PostgreSQL when `TEST_DATABASE_URL` is set) it starts the
//! release server pinned to core 0 with one worker, signs in, seeds `BENCH_ROWS` charge groups
//! (default 100,000) through the API, then drives each scenario with `wrk` pinned to core 1 for
//! `BENCH_SECONDS` (default 10) and prints a table. Seeding is done before any measurement.
//!
//! The seeding client is a small HTTP/1.1 keep-alive client on std; `fuzz`, `auth-matrix` and
//! `crash` (`hostile`) start their servers and talk to them with the same code.

use std::io::{BufRead, BufReader, Write};
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

/// The admin password the benchmark server is started with (16+ characters, as required).
const ADMIN_PASSWORD: &str = "bench-admin-password-2026";
/// Threads seeding in parallel, each with its own keep-alive connection.
const SEED_THREADS: usize = 4;
/// Seeding prints a line each time this many charge groups have been created.
const SEED_PROGRESS_EVERY: usize = 10_000;
/// How long the server gets to answer `/health/ready` before the benchmark gives up.
const READY_TIMEOUT: Duration = Duration::from_secs(30);
/// How long a client waits for a response before giving up on it.
const RESPONSE_TIMEOUT: Duration = Duration::from_secs(60);

/// `cargo xtask bench http`.
pub fn run() -> Result<(), String> {
    let options = Options::from_env()?;
    if options.binary.is_none() {
        crate::cargo(&["build", "--release", "--bin", "billing"])?;
    }
    ensure_wrk()?;
    let mut reports = Vec::new();
    if !options.skip_sqlite {
        reports.push(bench_backend(&options, None)?);
    }
    if let Some(admin_url) = options.postgres_admin_url.as_deref() {
        reports.push(bench_backend(&options, Some(admin_url))?);
    }
    for report in &reports {
        println!("{report}");
    }
    Ok(())
}

/// What the environment chooses: rows to seed, seconds per scenario, and PostgreSQL or not.
struct Options {
    rows: usize,
    seconds: u64,
    postgres_admin_url: Option<String>,
    /// `BENCH_BINARY`: another build of `billing` to measure (an older one, to compare back
    /// to back); by default the release build of the checkout, built first.
    binary: Option<PathBuf>,
    /// `BENCH_BACKENDS=postgres` measures PostgreSQL only (`sqlite`: SQLite only).
    skip_sqlite: bool,
}

impl Options {
    fn from_env() -> Result<Self, String> {
        Ok(Self {
            rows: env_number("BENCH_ROWS", 100_000)?,
            seconds: env_number("BENCH_SECONDS", 10)?,
            postgres_admin_url: std::env::var("TEST_DATABASE_URL")
                .ok()
                .filter(|url| !url.is_empty())
                .filter(|_| std::env::var("BENCH_BACKENDS").as_deref() != Ok("sqlite")),
            binary: std::env::var_os("BENCH_BINARY").map(PathBuf::from),
            skip_sqlite: std::env::var("BENCH_BACKENDS").as_deref() == Ok("postgres"),
        })
    }
}

/// A positive integer from the environment, or `default` when the variable is unset.
fn env_number<T: std::str::FromStr + PartialEq + From<u8>>(
    name: &str,
    default: T,
) -> Result<T, String> {
    match std::env::var(name) {
        Err(_) => Ok(default),
        Ok(text) => match text.trim().parse::<T>() {
            Ok(value) if value != T::from(0) => Ok(value),
            _ => Err(format!("{name} must be a positive integer, not {text:?}")),
        },
    }
}

/// Installs `wrk` with apt-get when it is not on PATH (the benchmark machine runs Debian as root).
fn ensure_wrk() -> Result<(), String> {
    if wrk_available() {
        return Ok(());
    }
    eprintln!("wrk is not on PATH; installing it with apt-get");
    let installed = crate::run("apt-get", "apt-get", &["install", "-y", "wrk"]);
    if installed.is_ok() && wrk_available() {
        Ok(())
    } else {
        Err(
            "wrk is needed and could not be installed: run `apt-get install -y wrk` \
             (as root, on Debian or Ubuntu) or put wrk on PATH"
                .to_owned(),
        )
    }
}

/// True when `wrk` runs (it prints its usage and exits non-zero without a URL).
fn wrk_available() -> bool {
    Command::new("wrk")
        .arg("--version")
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok()
}

/// The workspace root: xtask's own directory's parent.
pub(crate) fn workspace_root() -> PathBuf {
    let manifest = Path::new(env!("CARGO_MANIFEST_DIR"));
    manifest.parent().unwrap_or(manifest).to_path_buf()
}

/// Runs every scenario against one backend and returns its table. `postgres_admin_url` is
/// `TEST_DATABASE_URL` for PostgreSQL, `None` for SQLite.
fn bench_backend(options: &Options, postgres_admin_url: Option<&str>) -> Result<Report, String> {
    let backend = if postgres_admin_url.is_some() {
        "PostgreSQL"
    } else {
        "SQLite"
    };
    eprintln!("== {backend}");
    // Declared before the server so that it is dropped after it: the server stops first.
    let database = match postgres_admin_url {
        Some(url) => Some(ScratchDatabase::create(url)?),
        None => None,
    };
    let server = Server::start(
        options.binary.clone(),
        database.as_ref().map(|d| d.url.as_str()),
        server_log_path(backend)?,
    )?;
    let seeded = seed(
        server.address,
        &sign_in(server.address, ADMIN_PASSWORD)?,
        options.rows,
    )?;
    let fixtures = Fixtures {
        base: format!("http://{}", server.address),
        // A fresh token (they last 15 minutes) so that a long seeding cannot leave it expired.
        token: sign_in(server.address, ADMIN_PASSWORD)?,
        category_id: seeded.category_id,
        first_id: seeded.first_id,
        last_id: seeded.last_id,
    };
    check_scenarios(server.address, &fixtures)?;
    let results = run_scenarios(&fixtures, options.seconds)?;
    Ok(Report {
        server_log: server.log_summary(),
        title: format!(
            "{backend}: {} charge groups, {} s per scenario, server on core 0 (1 worker), \
             wrk -t1 on core 1",
            options.rows, options.seconds
        ),
        results,
    })
}

/// `target/bench-http/server-<backend>.log`, its directory created.
fn server_log_path(backend: &str) -> Result<PathBuf, String> {
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
    fn create(admin_url: &str) -> Result<Self, String> {
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
    fn start(
        binary: Option<PathBuf>,
        database_url: Option<&str>,
        log_path: PathBuf,
    ) -> Result<Self, String> {
        std::fs::File::create(&log_path).map_err(|e| format!("{}: {e}", log_path.display()))?;
        Self::start_with(ServerOptions {
            binary: binary.unwrap_or_else(|| workspace_root().join(crate::BILLING_RELEASE)),
            pin_to_core: Some(0),
            workers: 1,
            database_url: database_url.map(str::to_owned),
            data_dir: None,
            admin_password: ADMIN_PASSWORD.to_owned(),
            env: Vec::new(),
            log: log_path,
        })
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

/// What seeding made: the category and the range of charge group ids.
struct Seeded {
    category_id: u64,
    first_id: u64,
    last_id: u64,
}

/// Creates one category and `rows` charge groups in it from [`SEED_THREADS`] threads, printing
/// progress. Seeding is done before any measurement starts.
fn seed(address: SocketAddr, token: &str, rows: usize) -> Result<Seeded, String> {
    let category = Client::new(address)
        .send(
            "POST",
            "/v1/charge-group-categories",
            Some(token),
            Some(r#"{"name":"Bench","chargingUnitType":"DURATION","startDate":"2026-01-01"}"#),
        )?
        .expect_status(201, "POST /v1/charge-group-categories")?;
    let category_id = json_id(&category.body)?;
    let started = Instant::now();
    let created = AtomicUsize::new(0);
    let ranges = std::thread::scope(|scope| {
        let workers: Vec<_> = (0..SEED_THREADS)
            .map(|thread| {
                let created = &created;
                scope.spawn(move || {
                    seed_share(address, token, category_id, thread, rows, created, started)
                })
            })
            .collect();
        workers
            .into_iter()
            .map(|worker| {
                worker
                    .join()
                    .unwrap_or_else(|_| Err("a seeding thread panicked".into()))
            })
            .collect::<Result<Vec<_>, String>>()
    })?;
    let first_id = ranges.iter().map(|r| r.0).min().unwrap_or(0);
    let last_id = ranges.iter().map(|r| r.1).max().unwrap_or(0);
    eprintln!(
        "seeded {rows} charge groups (ids {first_id}..={last_id}) in {:.1} s",
        started.elapsed().as_secs_f64()
    );
    Ok(Seeded {
        category_id,
        first_id,
        last_id,
    })
}

/// One seeding thread's share: rows `thread`, `thread + SEED_THREADS`, …; returns the lowest
/// and highest id it was given.
fn seed_share(
    address: SocketAddr,
    token: &str,
    category_id: u64,
    thread: usize,
    rows: usize,
    created: &AtomicUsize,
    started: Instant,
) -> Result<(u64, u64), String> {
    let mut client = Client::new(address);
    let (mut lowest, mut highest) = (u64::MAX, 0);
    for n in (thread..rows).step_by(SEED_THREADS) {
        let body = format!(
            r#"{{"name":"Charge group {}","chargeGroupCategoryId":{category_id},"startDate":"2026-01-01"}}"#,
            n + 1
        );
        let response = client
            .send("POST", "/v1/charge-groups", Some(token), Some(&body))?
            .expect_status(201, "POST /v1/charge-groups")?;
        let id = json_id(&response.body)?;
        lowest = lowest.min(id);
        highest = highest.max(id);
        let done = created.fetch_add(1, Ordering::Relaxed) + 1;
        if done.is_multiple_of(SEED_PROGRESS_EVERY) {
            let seconds = started.elapsed().as_secs_f64();
            eprintln!(
                "  {done} charge groups created ({:.0}/s)",
                done as f64 / seconds
            );
        }
    }
    Ok((lowest, highest))
}

/// What the scenarios need: where the server is, the token, and the seeded ids.
struct Fixtures {
    base: String,
    token: String,
    category_id: u64,
    first_id: u64,
    last_id: u64,
}

impl Fixtures {
    /// The charge group the reads ask for: one in the middle of the seeded range.
    fn middle_id(&self) -> u64 {
        self.first_id + (self.last_id - self.first_id) / 2
    }
}

/// The list scenario's query: a page of 100 with a filter that matches many rows, sorted.
const LIST_QUERY: &str = "/v1/charge-groups?page=1&pageSize=100&name=like:9&sort=name:desc";
/// The JSON Patch the patch scenario sends.
const PATCH_BODY: &str = r#"[{"op":"replace","path":"/name","value":"Patched"}]"#;

/// Sends each measured request once and fails unless it succeeds, so that a wrong route, body
/// or header shows up as an error here instead of as a fast stream of 4xx in the table.
fn check_scenarios(address: SocketAddr, fixtures: &Fixtures) -> Result<(), String> {
    let token = Some(fixtures.token.as_str());
    let mut client = Client::new(address);
    let item = format!("/v1/charge-groups/{}", fixtures.middle_id());
    client
        .send("GET", "/health/live", None, None)?
        .expect_status(200, "GET /health/live")?;
    client
        .send("GET", &item, token, None)?
        .expect_status(200, &format!("GET {item}"))?;
    let list = client
        .send("GET", LIST_QUERY, token, None)?
        .expect_status(200, &format!("GET {LIST_QUERY}"))?;
    let rows = list.body.matches(r#""chargeGroupCategoryId""#).count();
    if rows != 100 {
        return Err(format!("GET {LIST_QUERY} returned {rows} rows, not 100"));
    }
    client
        .send(
            "POST",
            "/v1/charge-groups",
            token,
            Some(&create_body(fixtures)),
        )?
        .expect_status(201, "POST /v1/charge-groups")?;
    client
        .send_with_type(
            "PATCH",
            &item,
            token,
            Some(PATCH_BODY),
            "application/json-patch+json",
        )?
        .expect_status(200, &format!("PATCH {item}"))?;
    Ok(())
}

/// The body of the create scenario.
fn create_body(fixtures: &Fixtures) -> String {
    format!(
        r#"{{"name":"Bench create","chargeGroupCategoryId":{},"startDate":"2026-01-01"}}"#,
        fixtures.category_id
    )
}

/// One line of the table: a scenario's name and what wrk measured.
struct ScenarioResult {
    name: String,
    figures: WrkFigures,
    /// The sign-in flood is refused by design (401 and 429); every other scenario should succeed.
    refusals_expected: bool,
}

/// Runs the scenarios in order (the sign-in flood last: it leaves `admin` throttled).
fn run_scenarios(fixtures: &Fixtures, seconds: u64) -> Result<Vec<ScenarioResult>, String> {
    let item = format!(
        "{}/v1/charge-groups/{}",
        fixtures.base,
        fixtures.middle_id()
    );
    let list = format!("{}{LIST_QUERY}", fixtures.base);
    let collection = format!("{}/v1/charge-groups", fixtures.base);
    let token = Some(fixtures.token.as_str());
    let scripts = ScriptDir::new()?;
    let create = scripts.write(
        "create.lua",
        &body_script("POST", "application/json", &create_body(fixtures), token),
    )?;
    let patch = scripts.write("patch.lua", &patch_script(fixtures))?;
    let flood = scripts.write("flood.lua", &flood_script())?;
    let live = format!("{}/health/live", fixtures.base);
    let mut results = Vec::new();
    let mut measure = |name: &str, run: Wrk| -> Result<(), String> {
        eprintln!("-- {name}");
        let figures = run.measure(seconds)?;
        results.push(ScenarioResult {
            name: name.to_owned(),
            figures,
            refusals_expected: false,
        });
        Ok(())
    };
    measure("GET /health/live", Wrk::get(&live, 32, None))?;
    measure("GET /v1/charge-groups/{id}", Wrk::get(&item, 32, token))?;
    measure(
        "GET /v1/charge-groups (100 rows, like:9, sort name:desc)",
        Wrk::get(&list, 32, token),
    )?;
    measure(
        "POST /v1/charge-groups",
        Wrk::script(&collection, 32, &create),
    )?;
    measure(
        "PATCH /v1/charge-groups/{id} (random seeded ids)",
        Wrk::script(&item, 32, &patch),
    )?;
    measure(
        "GET /v1/charge-groups/{id}, 64 connections",
        Wrk::get(&item, 64, token),
    )?;
    let sign_in = format!("{}/v1/authenticate", fixtures.base);
    let (under_flood, flood) = measure_under_flood(
        Wrk::get(&item, 32, token),
        Wrk::script(&sign_in, 16, &flood),
        seconds,
    )?;
    results.push(ScenarioResult {
        name: "GET /v1/charge-groups/{id} during the sign-in flood".to_owned(),
        figures: under_flood,
        refusals_expected: false,
    });
    results.push(ScenarioResult {
        name: "POST /v1/authenticate flood (wrong passwords, 16 connections)".to_owned(),
        figures: flood,
        refusals_expected: true,
    });
    Ok(results)
}

/// Runs `measured` while `flood` runs at the same time (both wrk on core 1); returns both.
fn measure_under_flood(
    measured: Wrk,
    flood: Wrk,
    seconds: u64,
) -> Result<(WrkFigures, WrkFigures), String> {
    eprintln!("-- GET by id under a sign-in flood");
    let flooding = flood.spawn(seconds)?;
    let measured = measured.measure(seconds);
    let flood = finish_wrk(flooding);
    Ok((measured?, flood?))
}

/// The flood's script: wrong passwords, for `admin` half of the time and a random username
/// the other half (so both the per-username and the per-address limits are exercised).
const SIGN_IN_FLOOD_SCRIPT: &str = r#"wrk.method = "POST"
wrk.headers["Content-Type"] = "application/json"
function request()
  local username = "admin"
  if math.random() < 0.5 then
    username = "bench-user-" .. math.random(1, 1000000000)
  end
  local body = '{"username":"' .. username .. '","password":"not-the-password-at-all"}'
  return wrk.format(nil, nil, nil, body)
end
"#;

/// Appended to every script: seeds `math.random` per thread, counts the statuses and prints
/// `Status NNN: count` lines at the end, because wrk itself only says how many were not 2xx
/// (and a 409 or a 503 should not pass for the expected 401 or 429). Scripted scenarios only:
/// a Lua `response` per request would cost the plain GETs' wrk a little.
const STATUS_COUNTING_SCRIPT: &str = r#"
local threads = {}
function setup(thread)
  table.insert(threads, thread)
end
function init(args)
  math.randomseed(os.time() + os.clock() * 1000000)
  statuses = {}
end
function response(status, headers, body)
  statuses[status] = (statuses[status] or 0) + 1
end
function done(summary, latency, requests)
  for _, thread in ipairs(threads) do
    for status, count in pairs(thread:get("statuses")) do
      io.write(string.format("Status %d: %d\n", status, count))
    end
  end
end
"#;

/// The flood's whole script.
fn flood_script() -> String {
    format!("{SIGN_IN_FLOOD_SCRIPT}{STATUS_COUNTING_SCRIPT}")
}

/// A wrk script sending `body` with `method`, its content type and the bearer token.
fn body_script(method: &str, content_type: &str, body: &str, token: Option<&str>) -> String {
    let mut script = format!(
        "wrk.method = \"{method}\"\nwrk.body = {}\nwrk.headers[\"Content-Type\"] = \"{content_type}\"\n",
        lua_string(body)
    );
    if let Some(token) = token {
        script.push_str(&format!(
            "wrk.headers[\"Authorization\"] = \"Bearer {token}\"\n"
        ));
    }
    script.push_str(STATUS_COUNTING_SCRIPT);
    script
}

/// The patch scenario's script: each request patches a random seeded charge group. Patching
/// one row from 32 connections would mostly measure lost races, which are 409 by design on
/// PostgreSQL (docs/api.md, "Writes"); SQLite serialises writers and never loses one.
fn patch_script(fixtures: &Fixtures) -> String {
    let token = Some(fixtures.token.as_str());
    let mut script = body_script("PATCH", "application/json-patch+json", PATCH_BODY, token);
    script.push_str(&format!(
        "function request()\n  \
         return wrk.format(nil, \"/v1/charge-groups/\" .. math.random({}, {}))\nend\n",
        fixtures.first_id, fixtures.last_id
    ));
    script
}

/// `text` as a Lua long string literal (no escapes needed inside): its level is chosen so that
/// no `]=…=]` in the text, nor a `]` ending it, closes the literal early.
fn lua_string(text: &str) -> String {
    let mut level = String::new();
    while format!("{text}]").contains(&format!("]{level}]")) {
        level.push('=');
    }
    format!("[{level}[{text}]{level}]")
}

/// A temporary directory for the wrk scripts, removed when dropped.
struct ScriptDir(PathBuf);

impl ScriptDir {
    fn new() -> Result<Self, String> {
        fresh_temp_dir().map(Self)
    }

    fn write(&self, name: &str, text: &str) -> Result<PathBuf, String> {
        let path = self.0.join(name);
        std::fs::write(&path, text).map_err(|e| format!("{}: {e}", path.display()))?;
        Ok(path)
    }
}

impl Drop for ScriptDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// wrk's `--timeout`: long enough that slow responses are measured. With wrk's default (2 s)
/// a response that takes longer is counted as a timeout and left out of the latency
/// distribution, so the p99 of a slow scenario would read as just under 2 s.
const WRK_TIMEOUT: &str = "--timeout=30s";

/// One wrk run: `taskset -c 1 wrk -t1 -c<connections> -d<seconds>s --latency --timeout=30s …`.
struct Wrk {
    url: String,
    connections: u32,
    extra: Vec<String>,
}

impl Wrk {
    /// GETs `url`, with the bearer token when given.
    fn get(url: &str, connections: u32, token: Option<&str>) -> Self {
        let extra = token.map_or_else(Vec::new, |token| {
            vec!["-H".to_owned(), format!("Authorization: Bearer {token}")]
        });
        Self {
            url: url.to_owned(),
            connections,
            extra,
        }
    }

    /// Sends what the Lua `script` says to `url`.
    fn script(url: &str, connections: u32, script: &Path) -> Self {
        Self {
            url: url.to_owned(),
            connections,
            extra: vec!["-s".to_owned(), script.display().to_string()],
        }
    }

    fn command(&self, seconds: u64) -> Command {
        let mut command = Command::new("/usr/bin/taskset");
        command
            .args(["-c", "1", "wrk", "-t1"])
            .arg(format!("-c{}", self.connections))
            .arg(format!("-d{seconds}s"))
            .arg("--latency")
            .arg(WRK_TIMEOUT)
            .args(&self.extra)
            .arg(&self.url)
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        command
    }

    fn spawn(&self, seconds: u64) -> Result<Child, String> {
        self.command(seconds)
            .spawn()
            .map_err(|e| format!("could not start wrk: {e}"))
    }

    fn measure(&self, seconds: u64) -> Result<WrkFigures, String> {
        finish_wrk(self.spawn(seconds)?)
    }
}

/// Waits for a wrk run, echoes its output and parses it.
fn finish_wrk(child: Child) -> Result<WrkFigures, String> {
    let output = child.wait_with_output().map_err(|e| e.to_string())?;
    let stdout = String::from_utf8_lossy(&output.stdout);
    eprint!("{stdout}");
    if !output.status.success() {
        return Err(format!(
            "wrk failed: {}",
            String::from_utf8_lossy(&output.stderr).trim()
        ));
    }
    parse_wrk_output(&stdout)
}

/// The figures taken from wrk's report. Latencies stay as wrk prints them (`1.23ms`).
#[derive(Debug, PartialEq)]
struct WrkFigures {
    requests: u64,
    requests_per_second: f64,
    p50: String,
    p99: String,
    non_2xx: u64,
    socket_errors: Option<String>,
    /// `(status, count)` from `Status NNN: count` lines, which only the flood's script prints.
    statuses: Vec<(u16, u64)>,
}

/// Reads `N requests in`, `Requests/sec:`, the 50 % and 99 % lines of `--latency`, `Non-2xx or 3xx responses:`
/// (absent when there were none) and `Socket errors:` (absent when there were none).
fn parse_wrk_output(output: &str) -> Result<WrkFigures, String> {
    let mut requests = None;
    let mut requests_per_second = None;
    let (mut p50, mut p99) = (None, None);
    let mut non_2xx = 0;
    let mut socket_errors = None;
    let mut statuses = Vec::new();
    for line in output.lines().map(str::trim) {
        if let Some(value) = line.strip_prefix("Requests/sec:") {
            requests_per_second = value.trim().parse::<f64>().ok();
        } else if let Some(value) = line.strip_prefix("50%") {
            p50 = Some(value.trim().to_owned());
        } else if let Some(value) = line.strip_prefix("99%") {
            p99 = Some(value.trim().to_owned());
        } else if let Some(value) = line.strip_prefix("Non-2xx or 3xx responses:") {
            non_2xx = value
                .trim()
                .parse()
                .map_err(|_| format!("wrk: unreadable line {line:?}"))?;
        } else if let Some(value) = line.strip_prefix("Socket errors:") {
            socket_errors = Some(value.trim().to_owned());
        } else if let Some(status) = line.strip_prefix("Status ") {
            statuses.push(parse_status_count(status)?);
        } else if let Some((count, _)) = line.split_once(" requests in ") {
            requests = count.parse::<u64>().ok();
        }
    }
    match (requests, requests_per_second, p50, p99) {
        (Some(requests), Some(requests_per_second), Some(p50), Some(p99)) => Ok(WrkFigures {
            requests,
            requests_per_second,
            p50,
            p99,
            non_2xx,
            socket_errors,
            statuses,
        }),
        _ => Err(format!("could not read wrk's report:\n{output}")),
    }
}

/// `401: 17` as `(401, 17)`.
fn parse_status_count(text: &str) -> Result<(u16, u64), String> {
    text.split_once(':')
        .and_then(|(status, count)| Some((status.trim().parse().ok()?, count.trim().parse().ok()?)))
        .ok_or_else(|| format!("wrk: unreadable status line {text:?}"))
}

/// One backend's table, printed as Markdown so it can go into docs/performance.md as is.
struct Report {
    title: String,
    results: Vec<ScenarioResult>,
    server_log: String,
}

impl std::fmt::Display for Report {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let baseline = self
            .results
            .first()
            .map_or(0.0, |r| r.figures.requests_per_second);
        writeln!(f, "\n{}\n", self.title)?;
        writeln!(
            f,
            "| Scenario | Requests/s | p50 | p99 | Non-2xx | vs /health/live |"
        )?;
        writeln!(f, "|---|---:|---:|---:|---:|---:|")?;
        for result in &self.results {
            let figures = &result.figures;
            let ratio = if baseline > 0.0 {
                percent(100.0 * figures.requests_per_second / baseline)
            } else {
                "-".to_owned()
            };
            writeln!(
                f,
                "| {} | {:.0} | {} | {} | {} | {ratio} |",
                result.name, figures.requests_per_second, figures.p50, figures.p99, figures.non_2xx
            )?;
        }
        writeln!(f)?;
        for result in &self.results {
            let figures = &result.figures;
            if let Some(errors) = &figures.socket_errors {
                writeln!(f, "Socket errors in {}: {errors}", result.name)?;
            }
            if figures.non_2xx > 0 && !figures.statuses.is_empty() {
                let mut statuses = figures.statuses.clone();
                statuses.sort_unstable();
                let statuses: Vec<String> = statuses
                    .iter()
                    .map(|(status, count)| format!("{status}: {count}"))
                    .collect();
                writeln!(f, "Statuses of {}: {}", result.name, statuses.join(", "))?;
            }
            if !result.refusals_expected && figures.non_2xx * 100 > figures.requests {
                writeln!(
                    f,
                    "WARNING: {}: {} of {} responses were not 2xx",
                    result.name, figures.non_2xx, figures.requests
                )?;
            }
        }
        writeln!(f, "{}", self.server_log)
    }
}

/// A percentage with one decimal, or two below 1 % (so that a slow scenario does not read 0.0 %).
fn percent(value: f64) -> String {
    if value < 1.0 {
        format!("{value:.2} %")
    } else {
        format!("{value:.1} %")
    }
}

/// An HTTP/1.1 client on one keep-alive connection, for seeding and the checks. It reconnects
/// when the server has closed the connection, and reads bodies by `Content-Length` (which the
/// server always sends).
pub(crate) struct Client {
    address: SocketAddr,
    connection: Option<BufReader<TcpStream>>,
}

/// A response's status and body.
pub(crate) struct Response {
    pub status: u16,
    /// Header names in lower case, in the order received.
    pub headers: Vec<(String, String)>,
    pub body: String,
}

impl Response {
    /// The first header `name` (lower case).
    pub(crate) fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.as_str())
    }

    /// The response itself when its status is `expected`, else an error naming `what`.
    pub(crate) fn expect_status(self, expected: u16, what: &str) -> Result<Self, String> {
        if self.status == expected {
            Ok(self)
        } else {
            Err(format!(
                "{what} answered {} instead of {expected}: {}",
                self.status, self.body
            ))
        }
    }
}

impl Client {
    pub(crate) fn new(address: SocketAddr) -> Self {
        Self {
            address,
            connection: None,
        }
    }

    /// Where the client sends its requests.
    pub(crate) fn address(&self) -> SocketAddr {
        self.address
    }

    /// Sends a request (a body as `application/json`) and reads the response.
    pub(crate) fn send(
        &mut self,
        method: &str,
        path: &str,
        token: Option<&str>,
        body: Option<&str>,
    ) -> Result<Response, String> {
        self.send_with_type(method, path, token, body, "application/json")
    }

    /// Sends a request with a body of `content_type`; retries once on a fresh connection when
    /// a kept-alive one turns out to be closed before any of the response arrived.
    pub(crate) fn send_with_type(
        &mut self,
        method: &str,
        path: &str,
        token: Option<&str>,
        body: Option<&str>,
        content_type: &str,
    ) -> Result<Response, String> {
        let request = format_request(method, path, token, body, content_type);
        self.send_bytes(method, path, &request)
    }

    /// Sends a request with exactly these headers (besides `Host` and `Content-Length`) and
    /// reads the response; for requests no well-behaved client sends.
    pub(crate) fn send_raw(
        &mut self,
        method: &str,
        path: &str,
        headers: &[(&str, &str)],
        body: Option<&str>,
    ) -> Result<Response, String> {
        let mut request = format!("{method} {path} HTTP/1.1\r\nHost: 127.0.0.1\r\n");
        for (name, value) in headers {
            request.push_str(&format!("{name}: {value}\r\n"));
        }
        if let Some(body) = body {
            request.push_str(&format!("Content-Length: {}\r\n", body.len()));
        }
        request.push_str("\r\n");
        request.push_str(body.unwrap_or_default());
        self.send_bytes(method, path, request.as_bytes())
    }

    /// Sends `request`, retrying once on a fresh connection when a kept-alive one turns out to
    /// be closed before any of the response arrived.
    fn send_bytes(&mut self, method: &str, path: &str, request: &[u8]) -> Result<Response, String> {
        let head = method == "HEAD";
        let reused = self.connection.is_some();
        match self.exchange(request, head)? {
            Some(response) => Ok(response),
            None if reused => self
                .exchange(request, head)?
                .ok_or_else(|| format!("{method} {path}: the server closed the connection")),
            None => Err(format!("{method} {path}: the server closed the connection")),
        }
    }

    /// Writes the request and reads the response; `None` when the connection was closed
    /// before the status line.
    fn exchange(&mut self, request: &[u8], head: bool) -> Result<Option<Response>, String> {
        let connection = match &mut self.connection {
            Some(connection) => connection,
            None => {
                let stream = TcpStream::connect(self.address)
                    .map_err(|e| format!("connect {}: {e}", self.address))?;
                stream.set_nodelay(true).map_err(|e| e.to_string())?;
                stream
                    .set_read_timeout(Some(RESPONSE_TIMEOUT))
                    .map_err(|e| e.to_string())?;
                self.connection.insert(BufReader::new(stream))
            }
        };
        if connection.get_mut().write_all(request).is_err() {
            self.connection = None;
            return Ok(None);
        }
        match read_response_to(connection, head) {
            Ok(Some((response, keep_alive))) => {
                if !keep_alive {
                    self.connection = None;
                }
                Ok(Some(response))
            }
            Ok(None) => {
                self.connection = None;
                Ok(None)
            }
            Err(message) => {
                self.connection = None;
                Err(message)
            }
        }
    }
}

/// The bytes of one HTTP/1.1 request.
fn format_request(
    method: &str,
    path: &str,
    token: Option<&str>,
    body: Option<&str>,
    content_type: &str,
) -> Vec<u8> {
    let mut request = format!("{method} {path} HTTP/1.1\r\nHost: 127.0.0.1\r\n");
    if let Some(token) = token {
        request.push_str(&format!("Authorization: Bearer {token}\r\n"));
    }
    if let Some(body) = body {
        request.push_str(&format!(
            "Content-Type: {content_type}\r\nContent-Length: {}\r\n",
            body.len()
        ));
    }
    request.push_str("\r\n");
    request.push_str(body.unwrap_or_default());
    request.into_bytes()
}

/// Reads one response: the status line, the headers and a `Content-Length` body. `None` when
/// the connection ends before the status line; the flag says whether it may be kept alive.
#[cfg(test)]
fn read_response(reader: &mut impl BufRead) -> Result<Option<(Response, bool)>, String> {
    read_response_to(reader, false)
}

/// As [`read_response`]; the answer to a `HEAD` (`head`) has no body whatever its headers say.
fn read_response_to(
    reader: &mut impl BufRead,
    head: bool,
) -> Result<Option<(Response, bool)>, String> {
    let mut line = String::new();
    let read = reader.read_line(&mut line).map_err(|e| e.to_string());
    if read? == 0 {
        return Ok(None);
    }
    let status = line
        .split_whitespace()
        .nth(1)
        .and_then(|code| code.parse::<u16>().ok())
        .ok_or_else(|| format!("not an HTTP status line: {line:?}"))?;
    let mut content_length = None;
    let mut keep_alive = true;
    let mut headers = Vec::new();
    loop {
        line.clear();
        if reader.read_line(&mut line).map_err(|e| e.to_string())? == 0 {
            return Err("the connection ended inside the headers".to_owned());
        }
        let header = line.trim_end();
        if header.is_empty() {
            break;
        }
        let Some((name, value)) = header.split_once(':') else {
            return Err(format!("malformed header {header:?}"));
        };
        let value = value.trim();
        headers.push((name.to_ascii_lowercase(), value.to_owned()));
        if name.eq_ignore_ascii_case("content-length") {
            content_length = Some(value.parse::<usize>().map_err(|e| e.to_string())?);
        } else if name.eq_ignore_ascii_case("connection") {
            keep_alive = !value.eq_ignore_ascii_case("close");
        } else if name.eq_ignore_ascii_case("transfer-encoding") {
            return Err(format!("unexpected Transfer-Encoding: {value}"));
        }
    }
    let length = match (content_length, status) {
        _ if head => 0,
        (Some(length), _) => length,
        (None, 204 | 304) => 0,
        (None, _) => return Err(format!("a {status} response without Content-Length")),
    };
    let mut body = vec![0; length];
    reader.read_exact(&mut body).map_err(|e| e.to_string())?;
    let body = String::from_utf8(body).map_err(|e| e.to_string())?;
    Ok(Some((
        Response {
            status,
            headers,
            body,
        },
        keep_alive,
    )))
}

/// The first `"id"` member of a JSON object (the record's own id: it comes first).
pub(crate) fn json_id(json: &str) -> Result<u64, String> {
    json_member(json, "id")
        .and_then(|value| {
            let digits = value
                .find(|c: char| !c.is_ascii_digit())
                .unwrap_or(value.len());
            value[..digits].parse().ok()
        })
        .ok_or_else(|| format!("no id in {json}"))
}

/// The value of the first string member `name` of a JSON object (no escapes expected).
pub(crate) fn json_string_member(json: &str, name: &str) -> Option<String> {
    let value = json_member(json, name)?.strip_prefix('"')?;
    value.find('"').map(|end| value[..end].to_owned())
}

/// The text following the first member `name` and its colon.
fn json_member<'a>(json: &'a str, name: &str) -> Option<&'a str> {
    let key = format!("\"{name}\"");
    let after_key = &json[json.find(&key)? + key.len()..];
    after_key
        .trim_start()
        .strip_prefix(':')
        .map(str::trim_start)
}

#[cfg(test)]
mod tests {
    use super::*;

    const WRK_REPORT: &str = "Running 10s test @ http://127.0.0.1:8080/health/live
  1 threads and 32 connections
  Thread Stats   Avg      Stdev     Max   +/- Stdev
    Latency     1.17ms  301.21us  10.05ms   91.02%
    Req/Sec    27.69k     1.33k   29.91k    72.00%
  Latency Distribution
     50%    1.12ms
     75%    1.22ms
     90%    1.39ms
     99%    2.20ms
  275568 requests in 10.00s, 26.81MB read
  Socket errors: connect 0, read 0, write 0, timeout 3
  Non-2xx or 3xx responses: 12
Requests/sec:  27550.41
Status 429: 10
Status 401: 2
Transfer/sec:      2.68MB
";

    #[test]
    fn reads_wrk_report() {
        assert_eq!(
            parse_wrk_output(WRK_REPORT).unwrap(),
            WrkFigures {
                requests: 275568,
                requests_per_second: 27550.41,
                p50: "1.12ms".to_owned(),
                p99: "2.20ms".to_owned(),
                non_2xx: 12,
                socket_errors: Some("connect 0, read 0, write 0, timeout 3".to_owned()),
                statuses: vec![(429, 10), (401, 2)],
            }
        );
    }

    #[test]
    fn no_non_2xx_line_means_none() {
        let report = WRK_REPORT.replace("  Non-2xx or 3xx responses: 12\n", "");
        assert_eq!(parse_wrk_output(&report).unwrap().non_2xx, 0);
    }

    #[test]
    fn a_report_without_latencies_is_an_error() {
        assert!(parse_wrk_output("  10 requests in 1.00s, 1MB read\nRequests/sec: 10\n").is_err());
    }

    #[test]
    fn reads_a_content_length_response() {
        let mut wire = &b"HTTP/1.1 201 Created\r\ncontent-length: 9\r\nlocation: /x/1\r\n\r\n{\"id\":17}HTTP/1.1 200 OK\r\nContent-Length: 2\r\nConnection: close\r\n\r\n[]"[..];
        let (first, keep_alive) = read_response(&mut wire).unwrap().unwrap();
        assert_eq!(
            (first.status, first.body.as_str(), keep_alive),
            (201, "{\"id\":17}", true)
        );
        let (second, keep_alive) = read_response(&mut wire).unwrap().unwrap();
        assert_eq!(
            (second.status, second.body.as_str(), keep_alive),
            (200, "[]", false)
        );
        assert!(read_response(&mut wire).unwrap().is_none());
    }

    #[test]
    fn a_head_answer_has_no_body_whatever_its_length_says() {
        let mut wire =
            &b"HTTP/1.1 200 OK\r\nContent-Length: 9\r\nETag: \"1\"\r\n\r\nHTTP/1.1 404 Not Found\r\n\r\n"[..];
        let (first, _) = read_response_to(&mut wire, true).unwrap().unwrap();
        assert_eq!((first.status, first.body.as_str()), (200, ""));
        assert_eq!(first.header("etag"), Some("\"1\""));
        let (second, _) = read_response_to(&mut wire, true).unwrap().unwrap();
        assert_eq!(second.status, 404);
    }

    #[test]
    fn refuses_a_response_without_content_length() {
        let mut wire = &b"HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\n"[..];
        assert!(read_response(&mut wire).is_err());
    }

    #[test]
    fn formats_a_request_with_body_and_token() {
        let request = format_request("POST", "/v1/x", Some("t"), Some("{}"), "application/json");
        assert_eq!(
            String::from_utf8(request).unwrap(),
            "POST /v1/x HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer t\r\n\
             Content-Type: application/json\r\nContent-Length: 2\r\n\r\n{}"
        );
    }

    #[test]
    fn reads_json_members() {
        let json = r#"{"id": 42, "chargeGroupCategoryId":7, "token":"a.b.c"}"#;
        assert_eq!(json_id(json).unwrap(), 42);
        assert_eq!(json_string_member(json, "token").unwrap(), "a.b.c");
        assert!(json_id(r#"{"chargeGroupCategoryId":7}"#).is_err());
    }

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

    #[test]
    fn patch_script_spreads_over_the_seeded_ids() {
        let fixtures = Fixtures {
            base: "http://127.0.0.1:1".to_owned(),
            token: "t".to_owned(),
            category_id: 1,
            first_id: 2,
            last_id: 100_001,
        };
        let script = patch_script(&fixtures);
        assert!(script.contains(r#"wrk.method = "PATCH""#), "{script}");
        assert!(
            script.contains(r#"wrk.headers["Authorization"] = "Bearer t""#),
            "{script}"
        );
        assert!(script.contains("math.random(2, 100001)"), "{script}");
        assert_eq!(fixtures.middle_id(), 50_001);
    }

    #[test]
    fn small_percentages_keep_two_decimals() {
        assert_eq!(percent(100.0), "100.0 %");
        assert_eq!(percent(7.56), "7.6 %");
        assert_eq!(percent(0.0338), "0.03 %");
    }

    #[test]
    fn lua_strings_need_no_escapes() {
        assert_eq!(lua_string(r#"[{"op":"x"}]"#), r#"[=[[{"op":"x"}]]=]"#);
        assert_eq!(lua_string("{}"), "[[{}]]");
    }

    #[test]
    fn report_shows_ratio_to_the_first_scenario() {
        let figures = |rate: f64, non_2xx| WrkFigures {
            requests: 1000,
            requests_per_second: rate,
            p50: "1ms".to_owned(),
            p99: "2ms".to_owned(),
            non_2xx,
            socket_errors: None,
            statuses: Vec::new(),
        };
        let report = Report {
            title: "T".to_owned(),
            server_log: "Server log: 0 lines".to_owned(),
            results: vec![
                ScenarioResult {
                    name: "live".to_owned(),
                    figures: figures(2000.0, 0),
                    refusals_expected: false,
                },
                ScenarioResult {
                    name: "get".to_owned(),
                    figures: figures(500.0, 30),
                    refusals_expected: false,
                },
                ScenarioResult {
                    name: "flood".to_owned(),
                    figures: WrkFigures {
                        statuses: vec![(429, 980), (401, 20)],
                        ..figures(100.0, 1000)
                    },
                    refusals_expected: true,
                },
            ],
        };
        let text = report.to_string();
        assert!(
            text.contains("| live | 2000 | 1ms | 2ms | 0 | 100.0 % |"),
            "{text}"
        );
        assert!(
            text.contains("| get | 500 | 1ms | 2ms | 30 | 25.0 % |"),
            "{text}"
        );
        assert!(
            text.contains("WARNING: get: 30 of 1000 responses were not 2xx"),
            "{text}"
        );
        assert!(!text.contains("WARNING: flood"), "{text}");
        assert!(
            text.contains("Statuses of flood: 401: 20, 429: 980"),
            "{text}"
        );
    }
}
