//! `cargo xtask contract [--debug]`: the served OpenAPI document read by the ecosystem's own
//! linter, Spectral, with `spectral:oas` and the OWASP API Security ruleset: no finding of any
//! severity but the deliberate exceptions in `xtask/contract/spectral.yaml`, each with its
//! reason (docs/testing.md, "The contract").
//!
//! Spectral and the ruleset come from the npm registry at pinned versions, installed under
//! `target/contract/` (Node.js and npm from Debian's packages when missing).

use std::path::{Path, PathBuf};
use std::process::Command;

use crate::bench_http::workspace_root;
use crate::hostile::Common;

const SPECTRAL_CLI: &str = "6.16.3";
const OWASP_RULESET: &str = "2.0.1";

pub fn run(args: &[String]) -> Result<(), String> {
    let common = Common::parse(args, crate::USAGE)?;
    let binary = common.binary()?;
    let dir = workspace_root().join("target").join("contract");
    std::fs::create_dir_all(&dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    let spectral = ensure_spectral(&dir)?;
    let document = dir.join("openapi.json");
    let output = Command::new(&binary)
        .arg("openapi")
        .output()
        .map_err(|e| format!("{}: {e}", binary.display()))?;
    if !output.status.success() {
        return Err(String::from_utf8_lossy(&output.stderr).into_owned());
    }
    std::fs::write(&document, &output.stdout).map_err(|e| e.to_string())?;
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
        return Ok(());
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

/// The Spectral executable under `dir`, installed with npm at the pinned versions first when
/// missing or of another version.
fn ensure_spectral(dir: &Path) -> Result<PathBuf, String> {
    let executable = dir.join("node_modules/.bin/spectral");
    let manifest = dir.join("package.json");
    let wanted = serde_json::json!({
        "name": "billing-contract-checks",
        "private": true,
        "dependencies": {
            "@stoplight/spectral-cli": SPECTRAL_CLI,
            "@stoplight/spectral-owasp-ruleset": OWASP_RULESET,
        }
    })
    .to_string();
    let current = std::fs::read_to_string(&manifest).unwrap_or_default();
    if executable.exists() && current == wanted {
        return Ok(executable);
    }
    ensure_npm()?;
    std::fs::write(&manifest, &wanted).map_err(|e| e.to_string())?;
    let status = Command::new("npm")
        .current_dir(dir)
        .args(["install", "--no-audit", "--no-fund", "--loglevel=error"])
        .status()
        .map_err(|e| format!("npm: {e}"))?;
    if status.success() && executable.exists() {
        Ok(executable)
    } else {
        Err("npm install of Spectral failed".to_owned())
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
