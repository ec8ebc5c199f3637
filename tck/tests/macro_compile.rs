//! Every verification macro compiles in every placement, checked by
//! trybuild as a crate of its own: `tests/macro_placement.rs` (crate root,
//! a user's module, twice in one module under different names, a nested
//! module, factories named by `self::`/`super::`/`crate::` paths, a private
//! item named like the verification) must build and run as a program.
//! Outside the test harness the generated `#[test]` functions are left out;
//! the factory expressions, display names and the generated modules and
//! marker impls are all compiled, and `macro_placement` itself compiles the
//! tests too.

#[test]
fn every_macro_compiles_in_every_placement() {
    trybuild::TestCases::new().pass("tests/macro_placement.rs");
}
