//! `cargo xtask <task>`: the project's chores, in Rust so they run wherever cargo does.
//!
//! - `ci`: everything CI checks: `lint`, then `cargo test --workspace`.
//! - `lint`: `cargo fmt --check`, clippy with `-D warnings`, and `deps`.
//! - `deps`: the dependency direction: the domain crate depends on no database, web or async
//!   framework; the auth and persistence crates on no web framework.
//! - `openapi`: writes the served OpenAPI document to `docs/openapi.json`.
//! - `bench`: the rating benchmarks (criterion) and `billing rate` on 10 million generated rows
//!   against 1 million dialstrings (release builds); figures go in docs/performance.md.

use std::process::{Command, ExitCode};

fn main() -> ExitCode {
    let task = std::env::args().nth(1).unwrap_or_default();
    let result = match task.as_str() {
        "ci" => lint().and_then(|()| cargo(&["test", "--workspace"])),
        "lint" => lint(),
        "deps" => check_dependency_direction(),
        "openapi" => openapi(),
        "bench" => bench(),
        _ => Err("usage: cargo xtask <ci|lint|deps|openapi|bench>".to_owned()),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(message) => {
            eprintln!("xtask: {message}");
            ExitCode::FAILURE
        }
    }
}

fn cargo(args: &[&str]) -> Result<(), String> {
    eprintln!("$ cargo {}", args.join(" "));
    let status = Command::new(env!("CARGO"))
        .args(args)
        .status()
        .map_err(|e| e.to_string())?;
    if status.success() {
        Ok(())
    } else {
        Err(format!("cargo {} failed", args.join(" ")))
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
    check_dependency_direction()
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
    cargo(&["build", "--release", "--bin", "billing"])?;
    let work = std::path::Path::new("target/bench-data");
    let tariff = work.join("tariff");
    let usage = work.join("usage.csv");
    std::fs::create_dir_all(work).map_err(|e| e.to_string())?;
    let billing = "target/release/billing";
    if !usage.exists() {
        eprintln!("$ billing generate (1,000,000 dialstrings, 10,000,000 usage rows)");
        let status = Command::new(billing)
            .args([
                "generate",
                "--tariff",
                &tariff.to_string_lossy(),
                "--dialstrings",
                "1000000",
                "--sources",
                "4",
            ])
            .args([
                "--usage",
                &usage.to_string_lossy(),
                "--rows",
                "10000000",
                "--seed",
                "7",
            ])
            .status()
            .map_err(|e| e.to_string())?;
        if !status.success() {
            return Err("billing generate failed".into());
        }
    }
    eprintln!(
        "$ billing rate --tariff {} --input {} --output /dev/null",
        tariff.display(),
        usage.display()
    );
    let status = Command::new(billing)
        .args([
            "rate",
            "--tariff",
            &tariff.to_string_lossy(),
            "--input",
            &usage.to_string_lossy(),
            "--output",
            "/dev/null",
        ])
        .status()
        .map_err(|e| e.to_string())?;
    if status.success() {
        Ok(())
    } else {
        Err("billing rate failed".into())
    }
}
