//! A batch job on the domain crate alone: validates a JSON-lines file of site bodies (as
//! `POST /v1/sites` takes them) with no database and no web framework, and prints every broken
//! rule with its line number and the JSON path of its member.
//!
//! ```text
//! cargo run -p billing-domain --example validate_sites -- \
//!     crates/billing-domain/examples/data/sites.jsonl crates/billing-domain/examples/data/mandates.jsonl
//! ```
//!
//! `mandates.jsonl` lists the known mandates (`{"provider", "mandateReference", "status"}`),
//! the stored facts the mandate rule reads. The checks come from the declarations the service
//! is built from ([`billing_domain::sites::check_site_lines`]); those that need the service's
//! other records (that the customer, templates and receiving site exist) are the service's.

use std::process::ExitCode;

use billing_domain::sites::{KnownMandates, check_site_lines};

/// Every broken rule of a JSON-lines text, as `line N: path: message`.
pub fn validate_lines(sites: &str, mandates: &KnownMandates) -> Vec<String> {
    check_site_lines(sites, mandates)
        .into_iter()
        .map(|(line, error)| format!("line {line}: {}: {}", error.field, error.message))
        .collect()
}

/// The report of the files named by the arguments: `SITES.jsonl [MANDATES.jsonl]`.
fn run(arguments: &[String]) -> Result<Vec<String>, String> {
    let read = |path: &String| std::fs::read_to_string(path).map_err(|e| format!("{path}: {e}"));
    let (sites, mandates) = match arguments {
        [sites] => (read(sites)?, KnownMandates::default()),
        [sites, mandates] => (
            read(sites)?,
            KnownMandates::from_json_lines(&read(mandates)?)?,
        ),
        _ => return Err("usage: validate_sites SITES.jsonl [MANDATES.jsonl]".to_owned()),
    };
    Ok(validate_lines(&sites, &mandates))
}

#[allow(dead_code)]
fn main() -> ExitCode {
    let arguments: Vec<String> = std::env::args().skip(1).collect();
    match run(&arguments) {
        Ok(report) if report.is_empty() => {
            println!("every site is valid");
            ExitCode::SUCCESS
        }
        Ok(report) => {
            report.iter().for_each(|line| println!("{line}"));
            ExitCode::FAILURE
        }
        Err(error) => {
            eprintln!("{error}");
            ExitCode::from(2)
        }
    }
}
