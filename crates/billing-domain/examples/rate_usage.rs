//! A batch job on the domain crate alone: rates a usage CSV file against a tariff directory
//! (the CSV files `billing export reference-data` and `billing generate --tariff` write) and
//! prints each row's outcome and source charge group, with no database and no service.
//!
//! ```text
//! cargo run -p billing-domain --example rate_usage -- \
//!     crates/billing-domain/examples/data/tariff crates/billing-domain/examples/data/usage.csv
//! ```
//!
//! The tariff is read by [`billing_domain::rating::tariff_files`] (this program only opens
//! the files) and rated by the engine the service uses ([`RatingIndex`]).

use std::fs::File;
use std::io::BufReader;
use std::path::Path;
use std::process::ExitCode;

use billing_domain::rating::RatingIndex;
use billing_domain::rating::tariff_files::{read_tariff, read_usage};

/// One line per usage row: `line N: OUTCOME code` or `line N: ERROR why`.
pub fn rate_file(tariff: &Path, usage: &Path) -> Result<Vec<String>, String> {
    let tariff = read_tariff(|name| {
        let path = tariff.join(name);
        match File::open(&path) {
            Ok(file) => Ok(Some(BufReader::new(file))),
            Err(error) if error.kind() == std::io::ErrorKind::NotFound => Ok(None),
            Err(error) => Err(format!("{}: {error}", path.display())),
        }
    })
    .map_err(|e| e.to_string())?;
    let index = RatingIndex::build(&tariff).map_err(|e| format!("{e:?}"))?;
    let file = File::open(usage).map_err(|e| format!("{}: {e}", usage.display()))?;
    let mut report = Vec::new();
    read_usage(BufReader::new(file), |line, request| {
        let rated = request.and_then(|request| index.rate(&request).map_err(|e| format!("{e:?}")));
        report.push(match rated {
            Ok(rating) => {
                let group = rating
                    .source_charge_group_id
                    .and_then(|id| index.source_charge_group(id));
                let code = group.map_or("", |group| group.code.as_str());
                format!("line {line}: {} {code}", rating.outcome.code())
                    .trim_end()
                    .to_owned()
            }
            Err(why) => format!("line {line}: ERROR {why}"),
        });
    })
    .map_err(|e| e.to_string())?;
    Ok(report)
}

#[allow(dead_code)]
fn main() -> ExitCode {
    let arguments: Vec<String> = std::env::args().skip(1).collect();
    let [tariff, usage] = arguments.as_slice() else {
        eprintln!("usage: rate_usage TARIFF_DIRECTORY USAGE.csv");
        return ExitCode::from(2);
    };
    match rate_file(Path::new(tariff), Path::new(usage)) {
        Ok(report) => {
            report.iter().for_each(|line| println!("{line}"));
            ExitCode::SUCCESS
        }
        Err(error) => {
            eprintln!("{error}");
            ExitCode::FAILURE
        }
    }
}
