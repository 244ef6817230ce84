//! `cargo xtask fuzz [--debug]`: schemathesis against the served OpenAPI document, on SQLite
//! and PostgreSQL (docs/testing.md).
//!
//! Schemathesis is installed from PyPI, at [`SCHEMATHESIS_VERSION`], into `target/venv` (once).
//! For each backend the server starts on a free port with a fresh database, the task signs in
//! as `admin` and schemathesis runs every operation with every check, a fixed seed and at most
//! `FUZZ_MAX_EXAMPLES` examples per operation and phase. Any failure fails the task, except
//! what `xtask/schemathesis.toml` configures, each with its reason in docs/api.md ("Known
//! fuzzing findings").
//!
//! With both backends, the coverage phase's negative cases (each bound and one past it, wrong
//! types, missing members) are shared out instead of made twice: SQLite's run makes them for
//! the creates (`POST`), PostgreSQL's for every other method ([`NEGATIVE_COVERAGE_ON_SQLITE`]).
//! A refused value is refused by the same code before any storage is touched, whatever the
//! backend; what a backend can get wrong is storing and reading back valid values at their
//! bounds, and those positive cases, with every other phase, still run on both. Generating
//! them is most of the run's time (schemathesis' own CPU, not the server's: docs/testing.md).

use std::path::PathBuf;
use std::process::Command;
use std::time::Instant;

use crate::hostile::{self, ADMIN_PASSWORD, Backend, Common};
use crate::server::{sign_in, workspace_root};

/// The schemathesis release the task installs and was last run clean with.
pub const SCHEMATHESIS_VERSION: &str = "4.32.5";
/// Examples per operation when `FUZZ_MAX_EXAMPLES` is unset.
const DEFAULT_MAX_EXAMPLES: u64 = 100;
/// The seed when `FUZZ_SEED` is unset: the same requests every run.
const DEFAULT_SEED: u64 = 20_261_123;
/// The methods whose coverage-phase negative cases SQLite's run makes when PostgreSQL's run
/// makes the others (the creates' bodies are the costliest to generate, about half the time).
const NEGATIVE_COVERAGE_ON_SQLITE: &[&str] = &["POST"];

pub fn run(args: &[String]) -> Result<(), String> {
    run_with_default(args, DEFAULT_MAX_EXAMPLES)
}

/// As [`run`], with `default_examples` when `FUZZ_MAX_EXAMPLES` is unset.
pub fn run_with_default(args: &[String], default_examples: u64) -> Result<(), String> {
    let common = Common::parse(args, crate::USAGE)?;
    let max_examples = hostile::env_number("FUZZ_MAX_EXAMPLES", default_examples)?;
    let seed = hostile::env_number("FUZZ_SEED", DEFAULT_SEED)?;
    let schemathesis = ensure_schemathesis()?;
    let binary = common.binary()?;
    // The backends are fuzzed side by side (each schemathesis is one process and the server
    // mostly waits for it); each run's report is printed when it ends.
    let backends = Backend::available()?;
    let outcomes: Vec<_> = std::thread::scope(|scope| {
        let runs: Vec<_> = backends
            .iter()
            .map(|backend| {
                let (schemathesis, binary) = (&schemathesis, &binary);
                let shared = backends.len() > 1;
                scope.spawn(move || {
                    let started = Instant::now();
                    let result = config_for(backend, shared).and_then(|config| {
                        fuzz_backend(schemathesis, binary, backend, &config, max_examples, seed)
                    });
                    (backend.name(), started.elapsed(), result)
                })
            })
            .collect();
        runs.into_iter()
            .map(|run| run.join().expect("a fuzz run panicked"))
            .collect()
    });
    let mut failed = Vec::new();
    for (name, elapsed, result) in &outcomes {
        match result {
            Ok(()) => eprintln!("fuzz {name}: passed in {:.0} s", elapsed.as_secs_f64()),
            Err(message) => {
                eprintln!("fuzz {name}: FAILED in {:.0} s", elapsed.as_secs_f64());
                failed.push(format!("{name}: {message}"));
            }
        }
    }
    if failed.is_empty() {
        Ok(())
    } else {
        Err(failed.join("\n"))
    }
}

/// The schemathesis executable in `target/venv`, installed there first when missing or of
/// another version.
fn ensure_schemathesis() -> Result<PathBuf, String> {
    let venv = workspace_root().join("target").join("venv");
    let executable = venv.join("bin").join("schemathesis");
    let installed = Command::new(&executable)
        .arg("--version")
        .output()
        .is_ok_and(|output| {
            String::from_utf8_lossy(&output.stdout).contains(&format!(" {SCHEMATHESIS_VERSION}"))
        });
    if installed {
        return Ok(executable);
    }
    let python = std::env::var("PYTHON").unwrap_or_else(|_| "python3".to_owned());
    let venv_text = venv.to_string_lossy().into_owned();
    crate::run(&python, &python, &["-m", "venv", &venv_text])?;
    let pip = venv.join("bin").join("pip").to_string_lossy().into_owned();
    crate::run(
        &pip,
        "pip",
        &[
            "install",
            "--quiet",
            "--disable-pip-version-check",
            &format!("schemathesis=={SCHEMATHESIS_VERSION}"),
        ],
    )?;
    Ok(executable)
}

/// `xtask/schemathesis.toml` as `backend`'s run uses it: with `shared` (both backends run),
/// the coverage phase makes only positive cases for the methods whose negative cases the
/// other backend's run makes. Written to `target/hostile/schemathesis-<backend>.toml`.
fn config_for(backend: &Backend, shared: bool) -> Result<PathBuf, String> {
    let base_path = workspace_root().join("xtask").join("schemathesis.toml");
    let mut config =
        std::fs::read_to_string(&base_path).map_err(|e| format!("{}: {e}", base_path.display()))?;
    if shared {
        let on_sqlite = |method: &&str| NEGATIVE_COVERAGE_ON_SQLITE.contains(method);
        let positive_only: Vec<String> = ["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE"]
            .iter()
            .filter(|method| match backend {
                Backend::Sqlite => !on_sqlite(method),
                Backend::Postgres(_) => on_sqlite(method),
            })
            .map(|method| format!("\"{method}\""))
            .collect();
        config.push_str(&format!(
            "\n# Added by `cargo xtask fuzz`: the other backend's run makes these methods' \
             negative coverage cases.\n[[operations]]\ninclude-method = [{}]\n\
             phases.coverage.generation.mode = \"positive\"\n",
            positive_only.join(", ")
        ));
    }
    let path = hostile::output_path(&format!(
        "schemathesis-{}.toml",
        backend.name().to_lowercase()
    ))?;
    std::fs::write(&path, config).map_err(|e| format!("{}: {e}", path.display()))?;
    Ok(path)
}

fn fuzz_backend(
    schemathesis: &std::path::Path,
    binary: &std::path::Path,
    backend: &Backend,
    config: &std::path::Path,
    max_examples: u64,
    seed: u64,
) -> Result<(), String> {
    eprintln!("== fuzz: {}", backend.name());
    hostile::fresh_log("fuzz", backend)?;
    // Declared before the server so that it is dropped after it: the server stops first.
    let database = backend.scratch_database("fuzz")?;
    let server = hostile::start_server(
        binary,
        "fuzz",
        backend,
        database.as_ref(),
        None,
        // A token for the whole run, however long it takes.
        &[("BILLING_ACCESS_TOKEN_MINUTES", "1440")],
    )?;
    let token = sign_in(server.address, ADMIN_PASSWORD)?;
    let base = format!("http://{}", server.address);
    let report_dir = hostile::output_path(&format!("fuzz-{}", backend.name().to_lowercase()))?;
    let authorization = format!("Authorization: Bearer {token}");
    let args: Vec<String> = vec![
        "--config-file".into(),
        config.to_string_lossy().into_owned(),
        "run".into(),
        format!("{base}/v1/openapi.json"),
        "--url".into(),
        base.clone(),
        "--checks".into(),
        "all".into(),
        "--seed".into(),
        seed.to_string(),
        "--max-examples".into(),
        max_examples.to_string(),
        // No example database: the same seed gives the same requests on every machine.
        "--generation-database".into(),
        "none".into(),
        "--workers".into(),
        "1".into(),
        "--request-timeout".into(),
        "30".into(),
        "--no-color".into(),
        "--report".into(),
        "junit,ndjson".into(),
        "--report-dir".into(),
        report_dir.to_string_lossy().into_owned(),
        "--header".into(),
        authorization,
    ];
    eprintln!(
        "$ schemathesis run {base}/v1/openapi.json --checks all --seed {seed} --max-examples \
         {max_examples} (report in {})",
        report_dir.display()
    );
    let output = Command::new(schemathesis)
        .args(&args)
        .current_dir(workspace_root())
        .output()
        .map_err(|e| format!("schemathesis: {e}"))?;
    let status = output.status;
    eprintln!(
        "== fuzz: {}, schemathesis' report\n{}{}",
        backend.name(),
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
    let log = server.log_summary();
    eprintln!("{log}");
    if !status.success() {
        return Err(format!(
            "schemathesis found failures ({status}); see above and {}",
            report_dir.display()
        ));
    }
    // The run must not have locked the fuzzing user out halfway: a token refused at the end
    // would mean most requests only exercised the 401 path.
    let still = crate::http_client::Client::new(server.address).send(
        "GET",
        "/v1/user-roles?page=1&pageSize=1",
        Some(&token),
        None,
    )?;
    if still.status != 200 {
        eprintln!(
            "warning: the admin token was refused by the end of the run ({}): part of the run \
             only reached the 401 path",
            still.status
        );
    }
    if !server_stayed_up(server) {
        return Err("the server exited during the run".to_owned());
    }
    Ok(())
}

fn server_stayed_up(mut server: crate::server::Server) -> bool {
    server.is_running()
}
