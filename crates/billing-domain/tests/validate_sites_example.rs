//! The batch example (`examples/validate_sites.rs`) validates sites with the domain crate
//! alone: every error of a sample file, with its line number and member path.

#[path = "../examples/validate_sites.rs"]
mod validate_sites;

use billing_domain::sites::KnownMandates;

#[test]
fn a_batch_of_sites_is_validated_without_a_database() {
    let mandates =
        KnownMandates::from_json_lines(include_str!("data/mandates.jsonl")).expect("mandates");
    let report = validate_sites::validate_lines(include_str!("data/sites.jsonl"), &mandates);
    insta::assert_snapshot!(report.join("\n"));
}

#[test]
fn a_broken_mandates_file_is_named_by_its_line() {
    let error = KnownMandates::from_json_lines("{\"provider\": \"PROVIDER_B\"}\n")
        .expect_err("no reference");
    insta::assert_snapshot!(error, @"mandates line 1: mandateReference is required");
}
