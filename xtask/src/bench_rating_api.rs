//! `cargo xtask bench rating-api`: `POST /v1/rating/lookups` over HTTP (docs/performance.md,
//! "Rating over the API").
//!
//! Generates a tariff of `BENCH_DIALSTRINGS` dialstrings (default 1,000,000) over 4 sources and
//! a usage file with `billing generate`, starts the release server pinned to core 0 with one
//! worker (SQLite; the lookups read only the in-memory index, whatever the backend), creates
//! the 4 sources through the API, imports the tariff with `billing import reference-data`
//! twice (into the empty database, then over the same data; timed, and the same on a scratch
//! PostgreSQL database first when `TEST_DATABASE_URL` is set) and waits until the server rates
//! from it. The usage rows become bodies of `BENCH_ITEMS` items
//! (default 10,000), one source each. Then, for each `Accept-Encoding` (none, gzip, br),
//! `BENCH_CLIENTS` client threads (default 2, pinned to core 1) send the bodies in turn on
//! keep-alive connections for `BENCH_SECONDS` (default 10). It prints items/s by the wall
//! clock, items per second of the server's CPU (its user + system time from `/proc`), the
//! latency of a request, and the size of an answer.

use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use crate::http_client::{Client, Response};
use crate::server::{ScratchDatabase, Server, workspace_root};

/// The tariff's sources, as `billing generate --sources` numbers them (1 to 4).
const SOURCES: u32 = 4;
/// The date every lookup rates on: inside every generated record's validity.
const RATING_DATE: &str = "2026-06-01";

struct Options {
    dialstrings: u64,
    items: usize,
    clients: usize,
    seconds: u64,
    binary: Option<PathBuf>,
}

fn env_number(name: &str, default: u64) -> Result<u64, String> {
    match std::env::var(name) {
        Ok(text) => text
            .parse()
            .map_err(|_| format!("{name} must be a whole number, not {text:?}")),
        Err(_) => Ok(default),
    }
}

impl Options {
    fn from_env() -> Result<Self, String> {
        Ok(Self {
            dialstrings: env_number("BENCH_DIALSTRINGS", 1_000_000)?,
            items: usize::try_from(env_number("BENCH_ITEMS", 10_000)?)
                .map_err(|e| e.to_string())?,
            clients: usize::try_from(env_number("BENCH_CLIENTS", 2)?).map_err(|e| e.to_string())?,
            seconds: env_number("BENCH_SECONDS", 10)?,
            binary: std::env::var_os("BENCH_BINARY").map(PathBuf::from),
        })
    }
}

/// `cargo xtask bench rating-api`.
pub fn run() -> Result<(), String> {
    let options = Options::from_env()?;
    if options.items == 0 || options.items > 10_000 {
        return Err("BENCH_ITEMS must be 1 to 10,000 (the service's limit)".to_owned());
    }
    if options.binary.is_none() {
        crate::cargo(&["build", "--release", "--bin", "billing"])?;
    }
    let binary = options
        .binary
        .clone()
        .unwrap_or_else(crate::billing_release);
    let work = workspace_root().join("target").join("bench-rating-api");
    let tariff = work.join(format!("tariff-{}", options.dialstrings));
    let usage = work.join(format!("usage-{}.csv", options.dialstrings));
    let rows = (options.items * 24).to_string();
    if !usage.exists() {
        std::fs::create_dir_all(&work).map_err(|e| e.to_string())?;
        crate::run(
            &binary.to_string_lossy(),
            "billing",
            &[
                "generate",
                "--tariff",
                &tariff.to_string_lossy(),
                "--dialstrings",
                &options.dialstrings.to_string(),
                "--sources",
                &SOURCES.to_string(),
                "--usage",
                &usage.to_string_lossy(),
                "--rows",
                &rows,
                "--seed",
                "7",
            ],
        )?;
    }
    let mut report = String::from(
        "\nFeed import of the tariff (`billing import reference-data`, one transaction)\n\n\
         | backend | into an empty database | again over the same data |\n|---|---:|---:|\n",
    );
    // The import twice, into a fresh database and over the same data; the last server stays
    // up for the rating requests.
    let import_twice =
        |backend: &str, url: Option<&str>| -> Result<(Server, String, String), String> {
            let (server, token) = Server::start_signed_in(
                Some(binary.clone()),
                url,
                &format!("rating-api-{}", backend.to_lowercase()),
            )?;
            create_sources(server.address, &token)?;
            let first = import(&binary, &tariff, &server, url)?;
            let again = import(&binary, &tariff, &server, url)?;
            Ok((
                server,
                token,
                format!("| {backend} | {first:.1} s | {again:.1} s |\n"),
            ))
        };
    if let Ok(admin_url) = std::env::var("TEST_DATABASE_URL") {
        let scratch = ScratchDatabase::create_with(
            &admin_url,
            &format!("bench_rating_api_{}", std::process::id()),
            "",
        )?;
        report.push_str(&import_twice("PostgreSQL", Some(&scratch.url))?.2);
    }
    let (server, token, row) = import_twice("SQLite", None)?;
    report.push_str(&row);
    let bodies = bodies(&usage, options.items)?;
    wait_until_rated(server.address, &token, &bodies[0])?;
    report.push_str(&format!(
        "\nRating over the API: {} dialstrings, {} items a request, {} clients, {} s each, \
         server on core 0 (one worker)\n\n\
         | Accept-Encoding | requests | items/s (wall clock) | items/s of server CPU | \
         ms a request (mean) | answer bytes |\n|---|---:|---:|---:|---:|---:|\n",
        options.dialstrings, options.items, options.clients, options.seconds
    ));
    pin_this_process_to_core(1)?;
    for encoding in ["identity", "gzip", "br"] {
        let figures = drive(&server, &token, &bodies, encoding, &options)?;
        report.push_str(&figures.row(encoding, options.items));
    }
    println!("{report}\n{}", server.log_summary());
    Ok(())
}

/// Runs `billing import reference-data` on the server's database; its wall-clock seconds.
fn import(
    binary: &std::path::Path,
    tariff: &std::path::Path,
    server: &Server,
    database_url: Option<&str>,
) -> Result<f64, String> {
    let started = Instant::now();
    let mut command = std::process::Command::new(binary);
    command
        .args(["import", "reference-data"])
        .arg(tariff)
        .env("BILLING_DATA_DIR", &server.data_dir)
        .env_remove("DATABASE_URL")
        .env("BILLING_LOG", "warn");
    if let Some(url) = database_url {
        command.env("DATABASE_URL", url);
    }
    let status = command
        .status()
        .map_err(|e| format!("billing import: {e}"))?;
    if !status.success() {
        return Err(format!("billing import reference-data failed ({status})"));
    }
    Ok(started.elapsed().as_secs_f64())
}

/// Creates sources 1 to [`SOURCES`] (and the currency and locale they need).
fn create_sources(address: SocketAddr, token: &str) -> Result<(), String> {
    let mut client = Client::new(address);
    let mut create = |path: &str, body: &str| -> Result<(), String> {
        client
            .send("POST", path, Some(token), Some(body))?
            .expect_status(201, path)
            .map(drop)
    };
    create(
        "/v1/currencies",
        r##"{"code":"GBP","symbol":"£","majorCurrencyName":"Pound","minorCurrencyName":"Penny",
            "majorCurrencyFormat":"£#,##0.00","minorCurrencyFormat":"#p","salesTaxName":"VAT"}"##,
    )?;
    create(
        "/v1/locales",
        r#"{"country":{"code":"GB"},"currency":{"id":1}}"#,
    )?;
    for source in 1..=SOURCES {
        create(
            "/v1/reference-data-sources",
            &format!(r#"{{"name":"Source {source}","locale":{{"id":1}},"siMaintained":true}}"#),
        )?;
    }
    Ok(())
}

/// The usage rows as request bodies of `items` items, each body one source's rows.
fn bodies(usage: &std::path::Path, items: usize) -> Result<Vec<String>, String> {
    let text = std::fs::read_to_string(usage).map_err(|e| format!("{}: {e}", usage.display()))?;
    let mut per_source: Vec<Vec<String>> = vec![Vec::new(); SOURCES as usize + 1];
    for line in text.lines().skip(1) {
        // record_id,reference_data_source_id,date,dialled_number,call_class,service_id
        let columns: Vec<&str> = line.split(',').collect();
        let [_record, source, _date, number, call_class, service_id] = columns[..] else {
            continue;
        };
        let Some(items) = source
            .parse::<usize>()
            .ok()
            .and_then(|s| per_source.get_mut(s))
        else {
            continue;
        };
        let member = |name: &str, value: &str| {
            if value.is_empty() {
                String::new()
            } else {
                format!("{}:{}", json(name), json(value))
            }
        };
        let members: Vec<String> = [
            member("dialledNumber", number),
            member("callClass", call_class),
            member("serviceId", service_id),
        ]
        .into_iter()
        .filter(|m| !m.is_empty())
        .collect();
        items.push(format!("{{{}}}", members.join(",")));
    }
    let bodies: Vec<String> = per_source
        .iter()
        .enumerate()
        .flat_map(|(source, rows)| {
            rows.chunks_exact(items).map(move |chunk| {
                format!(
                    r#"{{"referenceDataSourceId":{source},"date":"{RATING_DATE}","items":[{}]}}"#,
                    chunk.join(",")
                )
            })
        })
        .collect();
    if bodies.is_empty() {
        return Err("the usage file gave no whole body".to_owned());
    }
    eprintln!(
        "{} bodies of {items} items ({} to {} bytes)",
        bodies.len(),
        bodies.iter().map(String::len).min().unwrap_or(0),
        bodies.iter().map(String::len).max().unwrap_or(0)
    );
    Ok(bodies)
}

fn json(text: &str) -> String {
    serde_json::Value::from(text).to_string()
}

/// Waits (up to 60 s) until a body's answer has dialstring matches: the server has followed
/// the import.
fn wait_until_rated(address: SocketAddr, token: &str, body: &str) -> Result<(), String> {
    let started = Instant::now();
    let mut client = Client::new(address);
    loop {
        let response = client
            .send("POST", "/v1/rating/lookups", Some(token), Some(body))?
            .expect_status(200, "POST /v1/rating/lookups")?;
        if response.body.contains(r#""outcome":"DIALSTRING""#) {
            return Ok(());
        }
        if started.elapsed() > Duration::from_secs(60) {
            return Err("the server did not rate from the import within 60 s".to_owned());
        }
        std::thread::sleep(Duration::from_millis(200));
    }
}

/// Pins every thread of this process (and those it starts) to `core`.
fn pin_this_process_to_core(core: u32) -> Result<(), String> {
    let status = std::process::Command::new("/usr/bin/taskset")
        .args([
            "-a",
            "-p",
            "-c",
            &core.to_string(),
            &std::process::id().to_string(),
        ])
        .stdout(std::process::Stdio::null())
        .status()
        .map_err(|e| format!("taskset: {e}"))?;
    if status.success() {
        Ok(())
    } else {
        Err(format!("taskset failed ({status})"))
    }
}

/// The user + system time of a process so far, from `/proc/<pid>/stat`, in clock ticks.
fn cpu_ticks(pid: u32) -> Result<u64, String> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).map_err(|e| e.to_string())?;
    // The fields after the command name (which may hold spaces) in parentheses.
    let after = stat
        .rsplit_once(')')
        .map(|(_, rest)| rest)
        .ok_or("unreadable /proc stat")?;
    let fields: Vec<&str> = after.split_whitespace().collect();
    // utime and stime are fields 14 and 15 of the whole line: 12 and 13 after the name.
    let number = |i: usize| -> Result<u64, String> {
        fields
            .get(i)
            .and_then(|f| f.parse().ok())
            .ok_or_else(|| "unreadable /proc stat".to_owned())
    };
    Ok(number(11)? + number(12)?)
}

/// Clock ticks per second of `/proc` times (`getconf CLK_TCK`; 100 on Linux).
const TICKS_PER_SECOND: f64 = 100.0;

struct Figures {
    requests: u64,
    seconds: f64,
    server_cpu_seconds: f64,
    mean_ms: f64,
    answer_bytes: u64,
}

impl Figures {
    fn row(&self, encoding: &str, items: usize) -> String {
        let items_done = self.requests as f64 * items as f64;
        format!(
            "| {encoding} | {} | {:.0} | {:.0} | {:.1} | {} |\n",
            self.requests,
            items_done / self.seconds,
            items_done / self.server_cpu_seconds.max(1e-9),
            self.mean_ms,
            self.answer_bytes
        )
    }
}

fn drive(
    server: &Server,
    token: &str,
    bodies: &[String],
    encoding: &str,
    options: &Options,
) -> Result<Figures, String> {
    let address = server.address;
    let stop = Arc::new(AtomicBool::new(false));
    let requests = Arc::new(AtomicU64::new(0));
    let busy_micros = Arc::new(AtomicU64::new(0));
    let answer_bytes = Arc::new(AtomicU64::new(0));
    let failure = Arc::new(Mutex::new(None::<String>));
    let bodies = Arc::new(bodies.to_vec());
    let cpu_before = cpu_ticks(server.pid())?;
    let started = Instant::now();
    let threads: Vec<_> = (0..options.clients)
        .map(|thread| {
            let (stop, requests, busy_micros, answer_bytes, failure, bodies) = (
                stop.clone(),
                requests.clone(),
                busy_micros.clone(),
                answer_bytes.clone(),
                failure.clone(),
                bodies.clone(),
            );
            let authorization = format!("Bearer {token}");
            let encoding = encoding.to_owned();
            std::thread::spawn(move || {
                let mut client = Client::new(address);
                let mut next = thread;
                while !stop.load(Ordering::Relaxed) {
                    let body = &bodies[next % bodies.len()];
                    next += 1;
                    let sent = Instant::now();
                    let outcome: Result<Response, String> = client.send_raw(
                        "POST",
                        "/v1/rating/lookups",
                        &[
                            ("Authorization", &authorization),
                            ("Content-Type", "application/json"),
                            ("Accept-Encoding", &encoding),
                        ],
                        Some(body),
                    );
                    match outcome {
                        Ok(response) if response.status == 200 => {
                            busy_micros
                                .fetch_add(sent.elapsed().as_micros() as u64, Ordering::Relaxed);
                            requests.fetch_add(1, Ordering::Relaxed);
                            let length = response
                                .header("content-length")
                                .and_then(|l| l.parse().ok())
                                .unwrap_or(0);
                            answer_bytes.store(length, Ordering::Relaxed);
                        }
                        Ok(response) => {
                            *failure.lock().unwrap_or_else(|p| p.into_inner()) =
                                Some(format!("status {}: {}", response.status, response.body));
                            stop.store(true, Ordering::Relaxed);
                        }
                        Err(error) => {
                            *failure.lock().unwrap_or_else(|p| p.into_inner()) = Some(error);
                            stop.store(true, Ordering::Relaxed);
                        }
                    }
                }
            })
        })
        .collect();
    while started.elapsed() < Duration::from_secs(options.seconds) && !stop.load(Ordering::Relaxed)
    {
        std::thread::sleep(Duration::from_millis(50));
    }
    stop.store(true, Ordering::Relaxed);
    for thread in threads {
        let _ = thread.join();
    }
    let seconds = started.elapsed().as_secs_f64();
    let cpu_after = cpu_ticks(server.pid())?;
    if let Some(error) = failure.lock().unwrap_or_else(|p| p.into_inner()).take() {
        return Err(format!("a lookup failed ({encoding}): {error}"));
    }
    let requests = requests.load(Ordering::Relaxed);
    Ok(Figures {
        requests,
        seconds,
        server_cpu_seconds: (cpu_after - cpu_before) as f64 / TICKS_PER_SECOND,
        mean_ms: busy_micros.load(Ordering::Relaxed) as f64 / 1000.0 / requests.max(1) as f64,
        answer_bytes: answer_bytes.load(Ordering::Relaxed),
    })
}
