//! `cargo xtask contract [--debug]`: the served OpenAPI document read by the ecosystem's own
//! linter, Spectral, with `spectral:oas` and the OWASP API Security ruleset: no finding of any
//! severity but the deliberate exceptions in `xtask/contract/spectral.yaml`, each with its
//! reason (docs/testing.md, "`cargo xtask contract`").
//!
//! Then every response is checked against the document by Prism's validating proxy, over a
//! request set that reaches every operation with seeded data, sends each documented example
//! body and provokes the documented errors (`contract_flow`), on SQLite and PostgreSQL.
//!
//! Spectral, the ruleset and Prism come from the npm registry at pinned versions, installed
//! under `target/contract/` (Node.js and npm from Debian's packages when missing).

use std::path::{Path, PathBuf};
use std::process::Command;

use crate::server::workspace_root;
use std::net::SocketAddr;

use crate::contract_flow::Flow;
use crate::hostile::{Backend, Common};
use crate::server::{Server, ServerOptions, free_local_address};

const SPECTRAL_CLI: &str = "6.16.3";
const OWASP_RULESET: &str = "2.0.1";
const PRISM_CLI: &str = "5.14.2";
/// The sign-in example's password: the admin's, so that the contract check can make the example's user.
const EXAMPLE_ADMIN_PASSWORD: &str = "choose-a-long-password";

pub fn run(args: &[String]) -> Result<(), String> {
    let common = Common::parse(args, crate::USAGE)?;
    let binary = common.binary()?;
    let dir = workspace_root().join("target").join("contract");
    std::fs::create_dir_all(&dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    let spectral = ensure_spectral(&dir)?;
    let document = write_document(&binary, &dir)?;
    // Spectral resolves the ruleset's packages beside the ruleset file.
    let ruleset = dir.join("spectral.yaml");
    std::fs::copy(
        workspace_root().join("xtask/contract/spectral.yaml"),
        &ruleset,
    )
    .map_err(|e| format!("the ruleset: {e}"))?;
    eprintln!("$ spectral lint openapi.json (spectral:oas + OWASP)");
    let linted = Command::new(&spectral)
        .current_dir(&dir)
        .args([
            "lint",
            "openapi.json",
            "--ruleset",
            "spectral.yaml",
            "--format",
            "json",
            "--fail-severity",
            "hint",
            "--quiet",
        ])
        .output()
        .map_err(|e| format!("spectral: {e}"))?;
    let findings: Vec<serde_json::Value> = serde_json::from_slice(&linted.stdout).map_err(|e| {
        format!(
            "spectral gave no report ({e}): {}",
            String::from_utf8_lossy(&linted.stderr)
        )
    })?;
    if findings.is_empty() && linted.status.success() {
        eprintln!("contract: Spectral finds nothing beyond the documented exceptions");
        return validate_responses(&binary, &dir, &document);
    }
    let lines: Vec<String> = findings
        .iter()
        .map(|finding| {
            let path: Vec<String> = finding["path"]
                .as_array()
                .into_iter()
                .flatten()
                .map(|part| {
                    part.as_str()
                        .map_or_else(|| part.to_string(), str::to_owned)
                })
                .collect();
            format!(
                "{} at {}: {}",
                finding["code"].as_str().unwrap_or("?"),
                path.join("."),
                finding["message"].as_str().unwrap_or("")
            )
        })
        .collect();
    Err(format!(
        "contract: Spectral has {} findings:\n  {}",
        lines.len(),
        lines.join("\n  ")
    ))
}

/// The document `binary` serves, written to `dir/openapi.json`; its path.
pub(crate) fn write_document(binary: &Path, dir: &Path) -> Result<PathBuf, String> {
    let document = dir.join("openapi.json");
    let output = Command::new(binary)
        .arg("openapi")
        .output()
        .map_err(|e| format!("{}: {e}", binary.display()))?;
    if !output.status.success() {
        return Err(String::from_utf8_lossy(&output.stderr).into_owned());
    }
    std::fs::write(&document, &output.stdout).map_err(|e| e.to_string())?;
    Ok(document)
}

/// The Spectral and Prism executables' directory under `dir`, installed with npm at the
/// pinned versions first when missing or of another version; Spectral's executable.
fn ensure_spectral(dir: &Path) -> Result<PathBuf, String> {
    npm_packages(
        dir,
        "billing-contract-checks",
        &[
            ("@stoplight/spectral-cli", SPECTRAL_CLI),
            ("@stoplight/spectral-owasp-ruleset", OWASP_RULESET),
            ("@stoplight/prism-cli", PRISM_CLI),
        ],
    )?;
    Ok(dir.join("node_modules/.bin/spectral"))
}

/// Installs `packages` (name, exact version) with npm into `dir` unless its `package.json`
/// already names exactly them and they are installed.
pub(crate) fn npm_packages(
    dir: &Path,
    name: &str,
    packages: &[(&str, &str)],
) -> Result<(), String> {
    let dependencies: serde_json::Map<String, serde_json::Value> = packages
        .iter()
        .map(|(package, version)| ((*package).to_owned(), serde_json::json!(version)))
        .collect();
    let wanted = serde_json::json!({
        "name": name, "private": true, "type": "module", "dependencies": dependencies
    })
    .to_string();
    let manifest = dir.join("package.json");
    let current = std::fs::read_to_string(&manifest).unwrap_or_default();
    if current == wanted && dir.join("node_modules").exists() {
        return Ok(());
    }
    ensure_npm()?;
    std::fs::write(&manifest, &wanted).map_err(|e| e.to_string())?;
    let status = Command::new("npm")
        .current_dir(dir)
        .args(["install", "--no-audit", "--no-fund", "--loglevel=error"])
        .status()
        .map_err(|e| format!("npm: {e}"))?;
    if status.success() {
        Ok(())
    } else {
        Err(format!("npm install in {} failed", dir.display()))
    }
}

/// The request set through Prism's validating proxy, on each backend: no response may
/// contradict the document, every example body must be accepted, every operation reached.
fn validate_responses(binary: &Path, dir: &Path, document_path: &Path) -> Result<(), String> {
    let text = std::fs::read_to_string(document_path).map_err(|e| e.to_string())?;
    let document: serde_json::Value = serde_json::from_str(&text).map_err(|e| e.to_string())?;
    let mut failures = Vec::new();
    let mut order = Vec::new();
    for backend in Backend::available()? {
        let database = backend.scratch_database("contract")?;
        let log = crate::hostile::output_path(&format!(
            "contract-{}.log",
            backend.name().to_lowercase()
        ))?;
        std::fs::write(&log, "").map_err(|e| e.to_string())?;
        let server = Server::start_with(ServerOptions {
            binary: binary.to_path_buf(),
            pin_to_core: None,
            workers: 2,
            database_url: database.as_ref().map(|d| d.url.clone()),
            data_dir: None,
            admin_password: EXAMPLE_ADMIN_PASSWORD.to_owned(),
            env: Vec::new(),
            log,
        })?;
        let prism = Prism::start(dir, server.address)?;
        let report = Flow::run(prism.address, server.address, &document, &order)?;
        if order.is_empty() {
            order = report.creation_order.clone();
        }
        eprintln!(
            "contract {}: {} requests through Prism, {} failures",
            backend.name(),
            report.requests,
            report.failures.len()
        );
        failures.extend(
            report
                .failures
                .into_iter()
                .map(|failure| format!("{}: {failure}", backend.name())),
        );
    }
    if failures.is_empty() {
        Ok(())
    } else {
        Err(format!(
            "contract: {} failures:\n  {}",
            failures.len(),
            failures.join("\n  ")
        ))
    }
}

/// Prism's validating proxy in front of `upstream`, stopped when dropped.
struct Prism {
    child: std::process::Child,
    address: SocketAddr,
}

impl Prism {
    fn start(dir: &Path, upstream: SocketAddr) -> Result<Self, String> {
        let address = free_local_address()?;
        let log = std::fs::File::create(dir.join("prism.log")).map_err(|e| e.to_string())?;
        let child = Command::new(dir.join("node_modules/.bin/prism"))
            .current_dir(dir)
            .args([
                "proxy",
                "openapi.json",
                &format!("http://{upstream}"),
                "--host",
                "127.0.0.1",
                "--port",
                &address.port().to_string(),
            ])
            .stdout(log.try_clone().map_err(|e| e.to_string())?)
            .stderr(log)
            .spawn()
            .map_err(|e| format!("prism: {e}"))?;
        let prism = Prism { child, address };
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(120);
        while std::net::TcpStream::connect(address).is_err() {
            if std::time::Instant::now() > deadline {
                return Err(
                    "Prism did not start within 2 minutes (target/contract/prism.log)".into(),
                );
            }
            std::thread::sleep(std::time::Duration::from_millis(250));
        }
        Ok(prism)
    }
}

impl Drop for Prism {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Installs Node.js and npm from Debian's packages when missing.
fn ensure_npm() -> Result<(), String> {
    if Command::new("npm").arg("--version").output().is_ok() {
        return Ok(());
    }
    eprintln!("installing nodejs and npm from Debian's packages");
    for args in [
        &["update", "-qq"][..],
        &["install", "-y", "-qq", "nodejs", "npm"][..],
    ] {
        let status = Command::new("apt-get")
            .args(args)
            .env("DEBIAN_FRONTEND", "noninteractive")
            .status()
            .map_err(|e| format!("apt-get: {e}"))?;
        if !status.success() {
            return Err(format!("apt-get {} failed", args.join(" ")));
        }
    }
    Ok(())
}
