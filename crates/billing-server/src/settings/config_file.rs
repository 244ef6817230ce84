//! The config file (`--config`, `BILLING_CONFIG`): `KEY=VALUE` lines whose values become the
//! defaults of the options read from those environment variables, each checked where it is
//! read so that an error names the file and line.

use clap::{CommandFactory, FromArgMatches, Parser};

use super::Cli;

/// `KEY=VALUE` lines, each with its line number; blank lines and `#` comments are skipped;
/// values may be quoted ("…" or '…', the quotes not part of the value).
pub fn parse_config_file(text: &str) -> Result<Vec<(usize, String, String)>, String> {
    let mut lines = Vec::new();
    for (index, line) in text.lines().enumerate() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let (key, value) = line
            .split_once('=')
            .ok_or_else(|| format!("line {}: expected KEY=VALUE", index + 1))?;
        let value = value.trim();
        let value = ['"', '\'']
            .into_iter()
            .find_map(|quote| value.strip_prefix(quote)?.strip_suffix(quote))
            .unwrap_or(value);
        lines.push((index + 1, key.trim().to_owned(), value.to_owned()));
    }
    Ok(lines)
}

/// The largest config file read (`--config /dev/zero` would otherwise be read until memory
/// ran out).
pub const CONFIG_FILE_MAX_BYTES: u64 = 1024 * 1024;

/// The text of `path`, refused when longer than `most` bytes or not UTF-8.
fn read_at_most(path: &std::path::Path, most: u64) -> std::io::Result<String> {
    use std::io::Read;
    let mut text = String::new();
    std::fs::File::open(path)?
        .take(most + 1)
        .read_to_string(&mut text)?;
    if text.len() as u64 > most {
        return Err(std::io::Error::other(format!("longer than {most} bytes")));
    }
    Ok(text)
}

/// Parses the command line with the environment, folding in the config file's values as defaults.
pub fn load() -> Result<Cli, String> {
    // Help, version and usage errors are clap's to print (and to exit with the right code).
    let first = Cli::try_parse().unwrap_or_else(|error| error.exit());
    let Some(path) = first.config_file().cloned() else {
        return Ok(first);
    };
    let text = read_at_most(&path, CONFIG_FILE_MAX_BYTES)
        .map_err(|e| format!("cannot read config file {}: {e}", path.display()))?;
    let pairs =
        parse_config_file(&text).map_err(|e| format!("config file {}: {e}", path.display()))?;
    let mut command = Cli::command();
    for (number, key, value) in pairs {
        let at_line = || format!("config file {} line {number}: {key}", path.display());
        check_value(&command, &key, &value).map_err(|reason| format!("{}: {reason}", at_line()))?;
        let mut known = false;
        command = with_default(command, &key, &value, &mut known);
        if !known {
            return Err(format!("{}: unknown setting", at_line()));
        }
    }
    let matches = command
        .try_get_matches()
        .unwrap_or_else(|error| error.exit());
    Cli::from_arg_matches(&matches).map_err(|e| e.to_string())
}

/// Whether every option read from the environment variable `key` (in `command` and its
/// subcommands) accepts `value`; else why not. A config file's value is checked where it is
/// read, so that the error names its line, not the command-line flag it stands for.
fn check_value(command: &clap::Command, key: &str, value: &str) -> Result<(), String> {
    for arg in command
        .get_arguments()
        .filter(|arg| arg.get_env().is_some_and(|env| env == key))
    {
        // The option alone, with the value as its default (which clap checks as it would the
        // option's own value) and no environment variable of its own to take instead.
        let alone = arg
            .clone()
            .env(None::<&'static str>)
            .required(false)
            .default_value(value.to_owned());
        clap::Command::new("check")
            .no_binary_name(true)
            .arg(alone)
            .try_get_matches_from(Vec::<String>::new())
            .map_err(|error| reason(&error, value))?;
    }
    command
        .get_subcommands()
        .try_for_each(|sub| check_value(sub, key, value))
}

/// Why clap refused `value`, without the command-line flag its message names.
fn reason(error: &clap::Error, value: &str) -> String {
    use clap::error::{ContextKind, ContextValue};
    use std::error::Error;
    if let Some(reason) = error.source() {
        return reason.to_string();
    }
    match error.get(ContextKind::ValidValue) {
        Some(ContextValue::Strings(accepted)) => {
            format!("'{value}' is not one of {}", accepted.join(", "))
        }
        _ => error
            .render()
            .to_string()
            .lines()
            .next()
            .unwrap_or_default()
            .trim_start_matches("error: ")
            .to_owned(),
    }
}

/// `command` with `value` as the default of every option, in it and in its subcommands at any
/// depth, read from the environment variable `key`; `known` is set when there is one.
fn with_default(
    mut command: clap::Command,
    key: &str,
    value: &str,
    known: &mut bool,
) -> clap::Command {
    let ids: Vec<clap::Id> = command
        .get_arguments()
        .filter(|arg| arg.get_env().is_some_and(|env| env == key))
        .map(|arg| arg.get_id().clone())
        .collect();
    for id in ids {
        *known = true;
        command = command.mut_arg(id, |arg| arg.default_value(value.to_owned()));
    }
    let names: Vec<String> = command
        .get_subcommands()
        .map(|sub| sub.get_name().to_owned())
        .collect();
    for name in names {
        command = command.mut_subcommand(name, |sub| with_default(sub, key, value, known));
    }
    command
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn config_file_lines() {
        let pairs =
            parse_config_file("# comment\nBILLING_BIND=0.0.0.0:9000\n\nBILLING_BRAND=\"Acme\"\n")
                .expect("parses");
        insta::assert_debug_snapshot!(pairs, @r#"
        [
            (
                2,
                "BILLING_BIND",
                "0.0.0.0:9000",
            ),
            (
                4,
                "BILLING_BRAND",
                "Acme",
            ),
        ]
        "#);
        let quoted = parse_config_file("BILLING_BRAND='Acme'\nBILLING_LOG=\"info\"\nBILLING_X='\n")
            .expect("parses");
        assert_eq!(quoted[0].2, "Acme");
        assert_eq!(quoted[1].2, "info");
        assert_eq!(quoted[2].2, "'", "a lone quote is kept");
    }

    /// A refused value's reason, without the flag (the error names the file's line instead).
    #[test]
    fn a_refused_value_says_why_in_its_own_words() {
        let command = Cli::command();
        let refused = |key: &str, value: &str| check_value(&command, key, value).unwrap_err();
        insta::assert_snapshot!(refused("BILLING_LOG_FORMAT", "xml"), @"'xml' is not one of text, json");
        insta::assert_snapshot!(refused("BILLING_WORKERS", "513"), @"must be at most 512");
        assert!(check_value(&command, "BILLING_WORKERS", "4").is_ok());
        assert!(parse_config_file("nonsense").is_err());
    }
}
