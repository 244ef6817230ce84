//! `cargo xtask clients [--debug]`: clients generated from the served document by the
//! ecosystem's own generators run a whole flow with no hand-written workaround
//! (docs/testing.md): openapi-python-client (PyPI) runs `xtask/clients/flow.py`, and
//! openapi-typescript with openapi-fetch (npm) run `xtask/clients/flow.ts`, type-checked by
//! `tsc --strict` first. Each flow gets a fresh SQLite server. Everything is pinned and
//! installed under `target/clients/`.

use std::path::{Path, PathBuf};
use std::process::Command;

use crate::hostile::Common;
use crate::server::{Server, ServerOptions, workspace_root};

const PYTHON_CLIENT_GENERATOR: &str = "0.29.1";
/// The sign-in password the flows use (the admin's).
const ADMIN_PASSWORD: &str = "clients-admin-password-2026";

pub fn run(args: &[String]) -> Result<(), String> {
    let common = Common::parse(args, crate::USAGE)?;
    let binary = common.binary()?;
    let dir = workspace_root().join("target").join("clients");
    std::fs::create_dir_all(&dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    crate::contract::write_document(&binary, &dir)?;
    let python = python_client(&dir)?;
    let script = workspace_root().join("xtask/clients/flow.py");
    with_server(&binary, "clients-python", |url| {
        flow(Command::new(&python).arg(&script), url, "python flow.py")
    })?;
    let compiled = typescript_client(&dir)?;
    with_server(&binary, "clients-typescript", |url| {
        flow(Command::new("node").arg(&compiled), url, "node flow.js")
    })?;
    eprintln!("clients: the Python and TypeScript flows passed");
    Ok(())
}

/// Runs a flow against the server at `url`.
fn flow(command: &mut Command, url: &str, name: &str) -> Result<(), String> {
    eprintln!("$ {name}");
    let status = command
        .env("BILLING_URL", url)
        .env("BILLING_ADMIN_PASSWORD", ADMIN_PASSWORD)
        .status()
        .map_err(|e| format!("{name}: {e}"))?;
    if status.success() {
        Ok(())
    } else {
        Err(format!("{name} failed"))
    }
}

/// Runs `flow` against a fresh SQLite server, given its URL.
fn with_server(
    binary: &Path,
    task: &str,
    flow: impl FnOnce(&str) -> Result<(), String>,
) -> Result<(), String> {
    let log = crate::hostile::output_path(&format!("{task}.log"))?;
    std::fs::write(&log, "").map_err(|e| e.to_string())?;
    let server = Server::start_with(ServerOptions {
        binary: binary.to_path_buf(),
        pin_to_core: None,
        workers: 2,
        database_url: None,
        data_dir: None,
        admin_password: ADMIN_PASSWORD.to_owned(),
        env: Vec::new(),
        log,
    })?;
    flow(&format!("http://{}", server.address))
}

/// The Python client generated into `dir/python` and installed, with its dependencies, into
/// `dir/venv`; the venv's interpreter.
fn python_client(dir: &Path) -> Result<PathBuf, String> {
    let venv = dir.join("venv");
    let python = venv.join("bin").join("python");
    let generator = venv.join("bin").join("openapi-python-client");
    let installed = Command::new(&generator)
        .arg("--version")
        .output()
        .is_ok_and(|output| {
            String::from_utf8_lossy(&output.stdout).contains(PYTHON_CLIENT_GENERATOR)
        });
    if !installed {
        let system = std::env::var("PYTHON").unwrap_or_else(|_| "python3".to_owned());
        crate::run(&system, &system, &["-m", "venv", &venv.to_string_lossy()])?;
        pip(
            &venv,
            &[&format!("openapi-python-client=={PYTHON_CLIENT_GENERATOR}")],
        )?;
    }
    let config = dir.join("python-client.yaml");
    // No formatter runs after generation (ruff is not installed).
    std::fs::write(&config, "post_hooks: []\n").map_err(|e| e.to_string())?;
    let generated = dir.join("python");
    let _ = std::fs::remove_dir_all(&generated);
    crate::run(
        &generator.to_string_lossy(),
        "openapi-python-client",
        &[
            "generate",
            "--path",
            &dir.join("openapi.json").to_string_lossy(),
            "--output-path",
            &generated.to_string_lossy(),
            "--config",
            &config.to_string_lossy(),
        ],
    )?;
    pip(
        &venv,
        &[
            "--force-reinstall",
            "--no-deps",
            &generated.to_string_lossy(),
        ],
    )?;
    pip(&venv, &[&generated.to_string_lossy()])?;
    Ok(python)
}

fn pip(venv: &Path, args: &[&str]) -> Result<(), String> {
    let pip = venv.join("bin").join("pip");
    let mut all = vec!["install", "--quiet", "--disable-pip-version-check"];
    all.extend_from_slice(args);
    crate::run(&pip.to_string_lossy(), "pip", &all)
}

/// The TypeScript types generated into `dir/ts/schema.d.ts`, the flow type-checked and
/// compiled next to them; the compiled flow.
fn typescript_client(dir: &Path) -> Result<PathBuf, String> {
    let ts = dir.join("ts");
    std::fs::create_dir_all(&ts).map_err(|e| e.to_string())?;
    crate::contract::npm_packages(
        &ts,
        "billing-client-flow",
        &[
            ("openapi-typescript", "7.13.0"),
            ("openapi-fetch", "0.17.0"),
            ("typescript", "5.9.3"),
            ("@types/node", "20.19.0"),
        ],
    )?;
    let bin = |name: &str| ts.join("node_modules/.bin").join(name);
    crate::run(
        &bin("openapi-typescript").to_string_lossy(),
        "openapi-typescript",
        &[
            &dir.join("openapi.json").to_string_lossy(),
            "--output",
            &ts.join("schema.d.ts").to_string_lossy(),
        ],
    )?;
    std::fs::copy(
        workspace_root().join("xtask/clients/flow.ts"),
        ts.join("flow.ts"),
    )
    .map_err(|e| format!("flow.ts: {e}"))?;
    let tsconfig = serde_json::json!({
        "compilerOptions": {
            "strict": true, "noUncheckedIndexedAccess": true, "target": "ES2022",
            "module": "NodeNext", "moduleResolution": "NodeNext", "outDir": "out",
            "types": ["node"]
        },
        "files": ["flow.ts"]
    });
    std::fs::write(ts.join("tsconfig.json"), tsconfig.to_string()).map_err(|e| e.to_string())?;
    crate::run(
        &bin("tsc").to_string_lossy(),
        "tsc --strict",
        &["-p", &ts.join("tsconfig.json").to_string_lossy()],
    )?;
    Ok(ts.join("out").join("flow.js"))
}
