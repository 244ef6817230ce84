//! Rules of the house that the compiler does not check, read from the sources as text: where
//! `unsafe` may be allowed, how long a source file may grow and how many `macro_rules` definitions the
//! workspace may hold (docs/ARCHITECTURE.md "Invariants").

use std::path::{Path, PathBuf};

/// The files that may allow `unsafe`: a prefetch hint on the rating engine's hot path, and the
/// calls into glibc's allocator that give memory back after bursts.
pub const UNSAFE_ALLOWED_IN: [&str; 2] = [
    "crates/billing-domain/src/rating/prefetch.rs",
    "crates/billing-server/src/memory.rs",
];

/// The longest a source file may be, in lines.
const MAX_FILE_LINES: usize = 600;

/// The one source file allowed past [`MAX_FILE_LINES`]: the rating trie, kept whole so that
/// its hot loop and the layout it walks read together.
const LONG_FILE_ALLOWED: &str = "crates/billing-domain/src/rating/trie.rs";

/// The most `macro_rules` definitions the workspace may define; none may re-parse the declaration
/// grammar, which `billing-declare` parses once.
const MAX_MACRO_RULES: usize = 15;

/// The extensions of the files counted as source (the console's script and styles, the
/// clients' flows, xtask's scripts).
const SOURCE_EXTENSIONS: [&str; 6] = ["rs", "mjs", "js", "py", "css", "html"];

fn workspace_root() -> Result<&'static Path, String> {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .ok_or_else(|| "xtask has no parent directory".to_owned())
}

/// Every source file under `crates/` and `xtask/`, relative to the workspace root, with its
/// text.
fn source_files() -> Result<Vec<(PathBuf, String)>, String> {
    let root = workspace_root()?;
    let mut pending = vec![root.join("crates"), root.join("xtask")];
    let mut files = Vec::new();
    while let Some(directory) = pending.pop() {
        for entry in std::fs::read_dir(&directory).map_err(|e| e.to_string())? {
            let path = entry.map_err(|e| e.to_string())?.path();
            if path.is_dir() {
                if !path.ends_with("node_modules") {
                    pending.push(path);
                }
            } else if path
                .extension()
                .and_then(|e| e.to_str())
                .is_some_and(|e| SOURCE_EXTENSIONS.contains(&e))
            {
                let text = std::fs::read_to_string(&path).map_err(|e| e.to_string())?;
                let relative = path.strip_prefix(root).unwrap_or(&path).to_path_buf();
                files.push((relative, text));
            }
        }
    }
    files.sort();
    Ok(files)
}

/// Fails when a Rust file other than those in [`UNSAFE_ALLOWED_IN`] allows `unsafe` code.
pub fn check_unsafe_allowances() -> Result<(), String> {
    let offenders: Vec<String> = source_files()?
        .into_iter()
        .filter(|(path, text)| {
            path.extension().is_some_and(|e| e == "rs")
                && text.contains(concat!("allow(", "unsafe_code)"))
                && !UNSAFE_ALLOWED_IN
                    .iter()
                    .any(|allowed| path == Path::new(allowed))
        })
        .map(|(path, _)| path.display().to_string())
        .collect();
    if offenders.is_empty() {
        eprintln!("unsafe: allowed only in {}", UNSAFE_ALLOWED_IN.join(", "));
        Ok(())
    } else {
        Err(format!(
            "unsafe code allowed outside {}:\n  {}",
            UNSAFE_ALLOWED_IN.join(", "),
            offenders.join("\n  ")
        ))
    }
}

/// Fails when a source file but [`LONG_FILE_ALLOWED`] is longer than [`MAX_FILE_LINES`], or
/// when the workspace defines more than [`MAX_MACRO_RULES`] `macro_rules` definitions.
pub fn check_house_rules() -> Result<(), String> {
    let files = source_files()?;
    let mut problems: Vec<String> = files
        .iter()
        .filter(|(path, _)| path != Path::new(LONG_FILE_ALLOWED))
        .filter_map(|(path, text)| {
            let lines = text.lines().count();
            (lines > MAX_FILE_LINES).then(|| {
                format!(
                    "{} has {lines} lines (at most {MAX_FILE_LINES}: split it by concern)",
                    path.display()
                )
            })
        })
        .collect();
    let macro_rules = concat!("macro_rules", "!");
    let macros = files
        .iter()
        .filter(|(path, _)| path.extension().is_some_and(|e| e == "rs"))
        .map(|(_, text)| {
            text.lines()
                .filter(|line| line.trim_start().starts_with(macro_rules))
                .count()
        })
        .sum::<usize>();
    if macros > MAX_MACRO_RULES {
        problems.push(format!(
            "the workspace defines {macros} {macro_rules} (at most {MAX_MACRO_RULES})"
        ));
    }
    if problems.is_empty() {
        eprintln!(
            "house: no source file over {MAX_FILE_LINES} lines but {LONG_FILE_ALLOWED}; {macros} {macro_rules} (at most {MAX_MACRO_RULES})"
        );
        Ok(())
    } else {
        Err(problems.join("\n"))
    }
}
