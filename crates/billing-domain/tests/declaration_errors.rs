//! A mistake in a declaration is reported at the declaration's line, not inside the machinery
//! (the expected compiler output is in `declaration_errors/*.stderr`).

#[test]
fn mistakes_are_reported_where_they_are_written() {
    let cases = trybuild::TestCases::new();
    cases.compile_fail("tests/declaration_errors/*.rs");
    cases.pass("tests/declaration_errors/ok/*.rs");
}
