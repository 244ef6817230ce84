//! The batch example (`examples/rate_usage.rs`) rates a usage file against a tariff directory
//! with the domain crate alone.

#[path = "../examples/rate_usage.rs"]
mod rate_usage;

use std::path::Path;

#[test]
fn a_usage_file_is_rated_against_a_tariff_directory() {
    let data = Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/data");
    let report =
        rate_usage::rate_file(&data.join("tariff"), &data.join("usage.csv")).expect("rated");
    insta::assert_snapshot!(report.join("\n"));
}

#[test]
fn a_broken_tariff_file_is_named_by_its_line() {
    let directory = std::env::temp_dir().join(format!("tariff_{}", std::process::id()));
    std::fs::create_dir_all(&directory).expect("directory");
    std::fs::write(
        directory.join("dialstrings.csv"),
        "id,dialstring,reference_data_source_charge_group_id,start_date,end_date\n1,44x,1,2024-01-01,\n",
    )
    .expect("file");
    let error = rate_usage::rate_file(&directory, Path::new("unused.csv")).expect_err("broken");
    let _ = std::fs::remove_dir_all(&directory);
    insta::assert_snapshot!(error, @"dialstrings.csv line 2: dialstring: expected 2 to 15 digits");
}
