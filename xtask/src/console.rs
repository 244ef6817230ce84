//! `cargo xtask console [--debug]`: the operator console (docs/console.md) end to end in a real
//! headless Chromium (Debian's package, installed with apt-get when missing), on SQLite.
//!
//! playwright-core (pinned in `xtask/console-e2e/package.json` and its lock file; it downloads
//! no browser) is installed with npm into `target/console-e2e/`, next to copies of the checked-in
//! scripts (`xtask/console-e2e/*.mjs`). The server starts on a fresh SQLite database with
//! one-minute access tokens, so the run also sees the console refresh (and rotate) its token.
//! `flow.mjs` then signs in, creates a user and an API key, creates a site with a mistake and
//! fixes it, moves the invoice contact, ends and removes inventory items, ends a site with its
//! inventory, renames a billing cycle (lists show the new name), rates a number, checks the
//! pages at 390 px wide (only tables scroll sideways), checks a limited and a READ_ONLY user,
//! and signs out (the old refresh token must no longer work); it
//! also replays the console's known races and slips (a removed contact's id, a slow page or
//! search answering late, a refresh failing on the network or after a sign-out, pages typed in
//! without the permission) so that each stays fixed. It
//! writes screenshots of the main pages to `docs/console/`; the first failing step fails the
//! task (a screenshot of the page in `target/console-e2e/failure.png`, the server's log in
//! `target/hostile/console-sqlite.log`).

use std::path::Path;
use std::process::Command;

use crate::hostile::{self, ADMIN_PASSWORD, Backend, Common};
use crate::server::workspace_root;

/// The checked-in files copied next to `node_modules`, so that node resolves playwright-core.
const FILES: [&str; 6] = [
    "package.json",
    "package-lock.json",
    "lib.mjs",
    "flow.mjs",
    "sessions.mjs",
    "late-answers.mjs",
];

pub fn run(args: &[String]) -> Result<(), String> {
    let common = Common::parse(args, crate::USAGE)?;
    let binary = common.binary()?;
    crate::cors::ensure_chromium()?;
    let root = workspace_root();
    let work = root.join("target").join("console-e2e");
    install(&root.join("xtask").join("console-e2e"), &work)?;
    let backend = Backend::Sqlite;
    hostile::fresh_log("console", &backend)?;
    let server = hostile::start_server(
        &binary,
        "console",
        &backend,
        None,
        None,
        &[("BILLING_ACCESS_TOKEN_MINUTES", "1")],
    )?;
    let screenshots = root.join("docs").join("console");
    let failure = work.join("failure.png");
    let _ = std::fs::remove_file(&failure);
    eprintln!("$ node flow.mjs (in {})", work.display());
    let status = Command::new("node")
        .arg("flow.mjs")
        .current_dir(&work)
        .env("CONSOLE_BASE_URL", format!("http://{}", server.address))
        .env("CONSOLE_ADMIN_PASSWORD", ADMIN_PASSWORD)
        .env("CONSOLE_SCREENSHOTS", &screenshots)
        .env("CONSOLE_FAILURE_SHOT", &failure)
        .env("CHROMIUM", crate::cors::CHROMIUM)
        .env_remove("CONSOLE_ASSETS_DIR")
        .status()
        .map_err(|e| {
            format!("node: {e} (the console's end-to-end test needs Node.js 20 and npm)")
        })?;
    drop(server);
    if status.success() {
        eprintln!(
            "console: every step passed; screenshots in {}",
            screenshots.display()
        );
        Ok(())
    } else {
        Err(format!(
            "console: the end-to-end flow failed ({status}); see {} and target/hostile/console-sqlite.log",
            failure.display()
        ))
    }
}

/// Node.js 20 or later (playwright-core's own requirement), said plainly when missing.
fn check_node() -> Result<(), String> {
    let version = hostile::output_of("node", &["--version"]).map_err(|e| {
        format!("{e}\nthe console's end-to-end test needs Node.js 20 or later, with npm")
    })?;
    let major = version
        .trim()
        .trim_start_matches('v')
        .split('.')
        .next()
        .and_then(|major| major.parse::<u32>().ok())
        .unwrap_or(0);
    if major < 20 {
        return Err(format!(
            "the console's end-to-end test needs Node.js 20 or later (playwright-core), found {}",
            version.trim()
        ));
    }
    Ok(())
}

/// Copies the scripts and the package files into `work` and installs playwright-core there.
fn install(source: &Path, work: &Path) -> Result<(), String> {
    check_node()?;
    std::fs::create_dir_all(work).map_err(|e| format!("{}: {e}", work.display()))?;
    for file in FILES {
        std::fs::copy(source.join(file), work.join(file))
            .map_err(|e| format!("{}: {e}", source.join(file).display()))?;
    }
    eprintln!("$ npm install --no-audit --no-fund (in {})", work.display());
    let status = Command::new("npm")
        .args(["install", "--no-audit", "--no-fund"])
        .current_dir(work)
        // playwright-core never downloads a browser; this says so to any tool that might.
        .env("PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD", "1")
        .status()
        .map_err(|e| {
            format!("npm: {e} (the console's end-to-end test needs Node.js 20 and npm)")
        })?;
    if status.success() {
        Ok(())
    } else {
        Err(format!("npm install failed in {}", work.display()))
    }
}
