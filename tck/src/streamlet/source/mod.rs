//! The Streamlet source verification: rules 1, 2 and 4, from the source's
//! side, against the sources a [`SourceFactory`] makes.
//!
//! # Two entry points
//!
//! In a test file,
//! [`streamlet_source_verification!`](crate::streamlet_source_verification)
//! generates one `#[test]` per condition:
//!
//! ```ignore
//! use reactive_streams_tck::streamlet_source_verification;
//! streamlet_source_verification!(my_range, MyFactory::new());
//! // → my_range::streamlet_source::streamlet_2_c, …
//! ```
//!
//! As a library, [`SourceVerification::run_all`] returns the results as
//! data:
//!
//! ```
//! use reactive_streams::Source;
//! use reactive_streams_tck::outcome::Verdict;
//! use reactive_streams_tck::streamlet::source::{SourceFactory, SourceVerification};
//! use reactive_streams_tck::streamlet::testkit::PullRange;
//!
//! struct Ranges;
//! impl SourceFactory for Ranges {
//!     type Element = u64;
//!     fn create_source(&self, n: u64) -> Box<dyn Source<u64>> {
//!         Box::new(PullRange::new(n))
//!     }
//! }
//!
//! let results = SourceVerification::new(Ranges).run_all().unwrap();
//! assert!(results.iter().all(|r| r.verdict != Verdict::Failed));
//! ```
//!
//! # Test names
//!
//! `<module>::streamlet_source::<test>`, where `<test>` is
//! `streamlet_<n>_<x>` for the condition `streamlet.<n>.<x>` and
//! `tck_<name>` (rule id `tck.<name>`) for checks of the factory itself.
//! See [`TESTS`]. Conditions that no test can observe (`streamlet.1.b`,
//! `streamlet.2.a`, `streamlet.4.a`: a source only ever holds sinks handed
//! to it by `connect`) have no test; the catalogue says why.

mod crosstalk;
mod factory;
pub(crate) mod greeting;
mod rules;
mod several_sinks;

pub use factory::{SourceFactory, SourceKind};

use crate::engine::{Engine, Run, Table, Vacuity};
use crate::streamlet::suite;

/// The source rule tests, in order. The macro generates one `#[test]` for
/// each; this list and the macro come from one source.
pub const TESTS: &[&str] = &crate::__streamlet_source_tests!(@names);

fn table<F: SourceFactory>() -> Table<F> {
    let mut table = suite::tests(crate::__streamlet_source_tests!(@table streamlet::source::rules));
    for (_, test) in &mut table {
        if let Run::Quick(body) = &test.run {
            let body = body.clone();
            test.run = Run::Quick(std::sync::Arc::new(
                move |cx: &crate::context::RuleCx, f: &F| {
                    declare_identity::<F>(cx);
                    greeting::judged(cx, f, body(cx, f))
                },
            ));
        }
    }
    table.extend(
        EXTENDED
            .iter()
            .map(|&name| (name, super::extended::source_test(name))),
    );
    table
}

/// The extended tests, in order.
const EXTENDED: &[&str] = &crate::__streamlet_source_tests!(@extended_names);

/// Declares the factory's `element_index` to the rule `cx` runs, for its
/// sink probes (see [`Identity`](crate::probe::Identity)).
fn declare_identity<F: SourceFactory>(cx: &crate::context::RuleCx) {
    if let Some(factory) = cx.subject::<F>() {
        cx.declare_identity(crate::probe::Identity::new(move |data: &F::Element| {
            factory.element_index(data)
        }));
    }
}

/// The skip reasons, if `factory`'s declarations skip every rule test that
/// needs something from it.
pub(crate) fn everything_skipped<F: SourceFactory>(factory: &F) -> Option<Vec<String>> {
    crate::engine::declared_skips(&table::<F>(), factory)
}

/// Runs the source verification against one factory.
pub struct SourceVerification<F: SourceFactory> {
    engine: Engine<F>,
}

crate::engine::verification!(
    SourceVerification<F: SourceFactory>, StreamletSource, subject: F, make: |factory| factory,
    parallelism: 8, table: table::<F>, vacuity: Vacuity::Declared(everything_skipped::<F>),
    example: "streamlet_2_c",
);

/// The list of source rule tests, and what is generated from it. Not API:
/// use [`streamlet_source_verification!`](crate::streamlet_source_verification).
#[doc(hidden)]
#[macro_export]
macro_rules! __streamlet_source_tests {
    ($($then:tt)*) => {
        $crate::__test_list! { [
            tck_configuration, tck_greets, tck_create_n, tck_restart,
            streamlet_1_a,
            streamlet_2_b, streamlet_2_c, streamlet_2_d, streamlet_2_e,
            streamlet_4_b, streamlet_4_c, streamlet_4_d, streamlet_4_e
        ] [
            tck_extended_schedules, tck_extended_stress
        ] $($then)* }
    };
}

/// Generates the Streamlet source verification as `#[test]`s:
/// `<name>::streamlet_source::<test>` for every test in
/// [`streamlet::source::TESTS`](crate::streamlet::source::TESTS).
///
/// `$factory` is an expression making a
/// [`SourceFactory`](crate::streamlet::source::SourceFactory); it is
/// evaluated once per test where the macro is invoked (it sees what the
/// invocation sees; the macro works in any module, several times in one). Results carry `stringify!($name)`
/// as their target, or the display name given as a third argument.
///
/// ```ignore
/// streamlet_source_verification!(my_range, MyFactory::new());
/// streamlet_source_verification!(my_timer, TimerFactory, "Timer (listenable)");
/// ```
///
/// Each test writes its result to `RS_TCK_REPORT_DIR` (if set), panics with
/// the full failure text (condition, expected, actual, trace) if it failed,
/// and prints `skipped: <reason>` if it was skipped. `cargo test
/// streamlet_2_c` runs one condition.
#[macro_export]
macro_rules! streamlet_source_verification {
    ($($invocation:tt)*) => {
        $crate::__verification_macro! {
            __streamlet_source_tests, quick, streamlet_source, $crate::streamlet::source::SourceVerification<_>; $($invocation)*
        }
    };
}
