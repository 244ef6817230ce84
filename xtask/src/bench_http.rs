//! `cargo xtask bench http`: the HTTP benchmark (docs/performance.md, "HTTP benchmark").
//!
//! For each backend (SQLite always, PostgreSQL when `TEST_DATABASE_URL` is set) it starts the
//! release server pinned to core 0 with one worker, signs in, seeds `BENCH_ROWS` charge groups
//! (default 100,000) through the API, then drives each scenario with `wrk` pinned to core 1 for
//! `BENCH_SECONDS` (default 10) and prints a table. Seeding is done before any measurement.
//!
//! The seeding client is a small HTTP/1.1 keep-alive client on std; `fuzz`, `auth-matrix` and
//! `crash` (`hostile`) start their servers and talk to them with the same code.

use std::net::SocketAddr;
use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Instant;

use crate::http_client::{Client, json_id};
use crate::server::{ScratchDatabase, Server, server_log_path, sign_in};
use crate::wrk::{ScriptDir, Wrk, WrkFigures, body_script, finish_wrk, flood_script};

/// The admin password the benchmark server is started with (16+ characters, as required).
pub(crate) const ADMIN_PASSWORD: &str = "bench-admin-password-2026";
/// Threads seeding in parallel, each with its own keep-alive connection.
const SEED_THREADS: usize = 4;
/// Seeding prints a line each time this many charge groups have been created.
const SEED_PROGRESS_EVERY: usize = 10_000;

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

#[cfg(test)]
mod tests {
    use super::*;

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
