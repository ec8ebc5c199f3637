//! Proofs for the catalogue's `enforced_by_types` entries: each file under
//! `tests/compile-fail/` must fail to compile, with the error pinned in the
//! `.stderr` file beside it.

#[test]
fn type_enforced_rules() {
    let cases = trybuild::TestCases::new();
    cases.compile_fail("tests/compile-fail/*.rs");
}
