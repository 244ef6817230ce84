//! `cargo xtask deploy-check`: the deployment recipes in `deploy/` are checked, not just written.
//!
//! - `deploy/Dockerfile` is linted with hadolint (every rule; an exception is written next to
//!   the line it excuses, with its reason).
//! - Every manifest in `deploy/k8s/` is validated against the Kubernetes JSON schemas with
//!   kubernetes-validate in strict mode (unknown members are errors). A manifest whose kind
//!   has no schema is an error too (the tool itself only warns), so a misspelt kind cannot pass.
//!   `kustomization.yaml` is kustomize's, not a Kubernetes resource: it is checked to name only
//!   files that exist.
//!
//! Both tools come from PyPI (`deploy/check-requirements.txt`, pinned) into a virtual
//! environment under `target/deploy-check/`, made once and remade when that file changes. The
//! schemas ship inside the kubernetes-validate wheel: nothing is downloaded at check time.
//! That every environment variable the recipes set is a setting of `billing` is a test of the
//! server crate (`tests/api/deploy_recipes.rs`), so `cargo test` checks it too.

use std::path::{Path, PathBuf};
use std::process::Command;

const REQUIREMENTS: &str = "deploy/check-requirements.txt";
const DOCKERFILE: &str = "deploy/Dockerfile";
const MANIFESTS: &str = "deploy/k8s";
const KUSTOMIZATION: &str = "kustomization.yaml";
const VENV: &str = "target/deploy-check/venv";

pub fn run() -> Result<(), String> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .ok_or("xtask has no parent directory")?;
    let venv = tools(root)?;
    hadolint(root, &venv)?;
    kubernetes_validate(root, &venv)?;
    eprintln!("deploy-check: the Dockerfile lints clean and every manifest validates");
    Ok(())
}

/// The virtual environment with the pinned tools, made (or remade) when the requirements change.
fn tools(root: &Path) -> Result<PathBuf, String> {
    let requirements = std::fs::read_to_string(root.join(REQUIREMENTS))
        .map_err(|e| format!("{REQUIREMENTS}: {e}"))?;
    let venv = root.join(VENV);
    let stamp = venv.join("installed-requirements.txt");
    if std::fs::read_to_string(&stamp).is_ok_and(|installed| installed == requirements) {
        return Ok(venv);
    }
    if venv.exists() {
        std::fs::remove_dir_all(&venv).map_err(|e| format!("{}: {e}", venv.display()))?;
    }
    let python = std::env::var("PYTHON").unwrap_or_else(|_| "python3".to_owned());
    let venv_text = venv.to_string_lossy();
    crate::run(&python, &python, &["-m", "venv", &venv_text]).map_err(|e| {
        format!(
            "{e} (a Python 3 with the venv module is needed; Debian: apt-get install python3-venv)"
        )
    })?;
    let pip = venv.join("bin/pip");
    let requirements_path = root.join(REQUIREMENTS);
    crate::run(
        &pip.to_string_lossy(),
        "pip",
        &[
            "install",
            "--quiet",
            "--disable-pip-version-check",
            // Wheels only: no build step may fetch anything from outside the registry.
            "--only-binary=:all:",
            "--requirement",
            &requirements_path.to_string_lossy(),
        ],
    )?;
    std::fs::write(&stamp, requirements).map_err(|e| format!("{}: {e}", stamp.display()))?;
    Ok(venv)
}

fn hadolint(root: &Path, venv: &Path) -> Result<(), String> {
    let dockerfile = root.join(DOCKERFILE);
    crate::run(
        &venv.join("bin/hadolint").to_string_lossy(),
        "hadolint",
        &["--no-color", &dockerfile.to_string_lossy()],
    )
    .map_err(|e| format!("{e}: {DOCKERFILE} breaks the rules above"))
}

fn kubernetes_validate(root: &Path, venv: &Path) -> Result<(), String> {
    let directory = root.join(MANIFESTS);
    let mut manifests = Vec::new();
    for entry in std::fs::read_dir(&directory).map_err(|e| format!("{MANIFESTS}: {e}"))? {
        let path = entry.map_err(|e| e.to_string())?.path();
        let yaml = path.extension().is_some_and(|e| e == "yaml" || e == "yml");
        if yaml && path.file_name().is_some_and(|name| name != KUSTOMIZATION) {
            manifests.push(path);
        }
    }
    manifests.sort();
    if manifests.is_empty() {
        return Err(format!("no manifests in {MANIFESTS}"));
    }
    check_kustomization(&directory)?;
    let mut args = vec!["--strict".to_owned()];
    args.extend(manifests.iter().map(|p| p.to_string_lossy().into_owned()));
    eprintln!("$ kubernetes-validate {}", args.join(" "));
    let output = Command::new(venv.join("bin/kubernetes-validate"))
        .args(&args)
        .output()
        .map_err(|e| format!("kubernetes-validate: {e}"))?;
    let report = format!(
        "{}{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
    eprint!("{report}");
    // Anything but "INFO … passed" fails, including the warning for a kind with no schema.
    let passed = report
        .lines()
        .filter(|line| line.starts_with("INFO") && line.contains(" passed "))
        .count();
    let other: Vec<&str> = report
        .lines()
        .filter(|line| !(line.starts_with("INFO") && line.contains(" passed ")))
        .filter(|line| !line.trim().is_empty())
        .collect();
    if output.status.success() && other.is_empty() && passed >= manifests.len() {
        Ok(())
    } else {
        Err(format!(
            "the manifests in {MANIFESTS} do not all validate against the Kubernetes schemas"
        ))
    }
}

/// Every file the kustomization names exists (kustomize's own schema is not bundled).
fn check_kustomization(directory: &Path) -> Result<(), String> {
    let path = directory.join(KUSTOMIZATION);
    let Ok(text) = std::fs::read_to_string(&path) else {
        return Ok(());
    };
    let mut in_resources = false;
    let mut missing = Vec::new();
    for line in text.lines() {
        if line.trim_start().starts_with('#') || line.trim().is_empty() {
            continue;
        }
        if !line.starts_with(' ') && !line.starts_with('-') {
            in_resources = line.trim_end() == "resources:";
            continue;
        }
        if in_resources
            && let Some(file) = line.trim().strip_prefix("- ")
            && !directory.join(file.trim()).exists()
        {
            missing.push(file.trim().to_owned());
        }
    }
    if missing.is_empty() {
        Ok(())
    } else {
        Err(format!(
            "{MANIFESTS}/{KUSTOMIZATION} names files that do not exist: {}",
            missing.join(", ")
        ))
    }
}
