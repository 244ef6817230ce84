//! The batch example (`examples/validate_sites.rs`) validates sites with the domain crate
//! alone: every error of a sample file, with its line number and member path.

#[path = "../examples/validate_sites.rs"]
mod validate_sites;

#[test]
fn a_batch_of_sites_is_validated_without_a_database() {
    let mandates =
        validate_sites::read_mandates(include_str!("data/mandates.jsonl")).expect("mandates");
    let report = validate_sites::validate_lines(include_str!("data/sites.jsonl"), &mandates);
    insta::assert_snapshot!(report.join("\n"));
}
