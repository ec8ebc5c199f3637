//! Every verification macro compiles in every placement outside the test
//! harness, as a program of a crate of its own: `tests/macro_placement.rs`
//! (crate root, a user's module, twice in one module under different
//! names, a nested module, factories named by `self::`/`super::`/`crate::`
//! paths, a private item named like the verification) built as an example.
//! `cargo test` builds every example, so a placement that stops compiling
//! outside `cfg(test)` fails the build; the test target of the same file
//! compiles and runs the generated tests.

// Outside the test harness the generated tests are left out, and with them
// the only uses of the factories they name.
#![allow(dead_code)]

include!("../tests/macro_placement.rs");
