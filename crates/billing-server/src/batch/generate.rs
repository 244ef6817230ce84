//! `billing generate`: a deterministic synthetic tariff directory and usage file, for trying
//! `billing rate` and for benchmarks.

use std::io::Write;
use std::path::Path;

use billing_domain::rating::synthetic;

use super::BatchError;
use super::files::Named;
use super::tariff_csv;

/// Writes a tariff of about `dialstrings` dialstrings over `sources` sources into
/// `tariff_directory` and, when `usage_file` is given, `rows` usage rows against it.
pub fn generate(
    tariff_directory: &Path,
    dialstrings: usize,
    sources: i64,
    usage_file: Option<&Path>,
    rows: usize,
    seed: u64,
) -> Result<(), BatchError> {
    let tariff = synthetic::tariff(dialstrings, sources, seed);
    tariff_csv::save(&tariff, tariff_directory)?;
    let Some(usage_file) = usage_file else {
        return Ok(());
    };
    let file = Named::create(usage_file)?;
    let mut output = std::io::BufWriter::with_capacity(1 << 20, file);
    writeln!(
        output,
        "record_id,reference_data_source_id,date,dialled_number,call_class,service_id"
    )?;
    let mut random = synthetic::Random::new(seed ^ 0x5EED);
    for row in 0..rows {
        let usage = synthetic::usage_record(&tariff, sources, &mut random);
        writeln!(
            output,
            "{},{},{},{},{},{}",
            row + 1,
            usage.reference_data_source_id,
            usage.date,
            usage.dialled_number,
            usage.call_class,
            usage.service_id
        )?;
    }
    output.flush()?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A disk that fills names the file being written (here /dev/full, always full).
    #[test]
    fn a_full_disk_names_the_usage_file() {
        let directory =
            std::env::temp_dir().join(format!("billing_generate_full_{}", std::process::id()));
        let refused = generate(&directory, 20, 1, Some(Path::new("/dev/full")), 100_000, 5);
        let _ = std::fs::remove_dir_all(&directory);
        insta::assert_snapshot!(refused.unwrap_err(), @"/dev/full: No space left on device (os error 28)");
    }
}
