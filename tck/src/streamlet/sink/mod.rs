//! The Streamlet sink verification: rules 3, 5 and 6, from the sink's
//! side, against the sinks a [`SinkFactory`] makes. The TCK connects each
//! sink to a [probe source](crate::streamlet::probe::SourceProbe), greets
//! it, feeds it and ends the stream, and judges every talkback call.
//!
//! # Two entry points
//!
//! In a test file,
//! [`streamlet_sink_verification!`](crate::streamlet_sink_verification)
//! generates one `#[test]` per condition:
//!
//! ```ignore
//! use reactive_streams_tck::streamlet_sink_verification;
//! streamlet_sink_verification!(take_five, TakeFiveFactory);
//! // → take_five::streamlet_sink::streamlet_3_c, …
//! ```
//!
//! As a library, [`SinkVerification::run_all`] returns the results as data:
//!
//! ```
//! use reactive_streams::Sink;
//! use reactive_streams_tck::outcome::Verdict;
//! use reactive_streams_tck::streamlet::sink::{SinkFactory, SinkVerification};
//! use reactive_streams_tck::streamlet::testkit::TakeN;
//!
//! struct TakeFive;
//! impl SinkFactory for TakeFive {
//!     type Element = u64;
//!     fn create_sink(&self) -> Box<dyn Sink<u64>> {
//!         Box::new(TakeN::new(5, true))
//!     }
//!     fn create_element(&self, index: u64) -> u64 {
//!         index
//!     }
//!     fn stops_after(&self) -> Option<u64> {
//!         Some(5)
//!     }
//! }
//!
//! let results = SinkVerification::new(TakeFive).run_all().unwrap();
//! assert!(results.iter().all(|r| r.verdict == Verdict::Passed));
//! ```
//!
//! # Test names
//!
//! `<module>::streamlet_sink::<test>`, where `<test>` is
//! `streamlet_<n>_<x>` for the condition `streamlet.<n>.<x>` and
//! `tck_<name>` (rule id `tck.<name>`) for checks of the factory itself.
//! See [`TESTS`]. Conditions no sink can break (`streamlet.3.a`, `.3.b`,
//! `.5.a`, `.5.b`, `.6.a`, `.6.b`: a sink holds a talkback only once
//! greeted) have no test; the catalogue says why.

mod factory;
mod rules;

pub use factory::SinkFactory;

use crate::engine::{Engine, Table, Vacuity};
use crate::streamlet::suite;

/// The sink rule tests, in order. The macro generates one `#[test]` for
/// each; this list and the macro come from one source.
pub const TESTS: &[&str] = &crate::__streamlet_sink_tests!(@names);

fn table<F: SinkFactory>() -> Table<F> {
    let mut table = suite::tests(crate::__streamlet_sink_tests!(@table streamlet::sink::rules));
    table.push(("tck_extended_schedules", super::extended::sink_test()));
    table
}

/// Runs the sink verification against one factory. (A sink's declarations
/// cannot skip everything: only `stops_after` is optional.)
pub struct SinkVerification<F: SinkFactory> {
    engine: Engine<F>,
}

crate::engine::verification!(
    SinkVerification<F: SinkFactory>, StreamletSink, subject: F, make: |factory| factory,
    parallelism: 8, table: table::<F>, vacuity: Vacuity::Allowed, example: "streamlet_3_c",
);

/// The list of sink rule tests, and what is generated from it. Not API:
/// use [`streamlet_sink_verification!`](crate::streamlet_sink_verification).
#[doc(hidden)]
#[macro_export]
macro_rules! __streamlet_sink_tests {
    ($($then:tt)*) => {
        $crate::__test_list! { [
            tck_starts, tck_stops_after,
            streamlet_3_c, streamlet_3_d, streamlet_3_e,
            streamlet_5_c, streamlet_5_d,
            streamlet_6_c, streamlet_6_d, streamlet_6_e
        ] [
            tck_extended_schedules
        ] $($then)* }
    };
}

/// Generates the Streamlet sink verification as `#[test]`s:
/// `<name>::streamlet_sink::<test>` for every test in
/// [`streamlet::sink::TESTS`](crate::streamlet::sink::TESTS).
///
/// `$factory` is an expression making a
/// [`SinkFactory`](crate::streamlet::sink::SinkFactory); it is
/// evaluated once per test where the macro is invoked (it sees what the
/// invocation sees; the macro works in any module, several times in one). Results carry `stringify!($name)`
/// as their target, or the display name given as a third argument.
///
/// ```ignore
/// streamlet_sink_verification!(take_five, TakeFiveFactory);
/// streamlet_sink_verification!(logger, LoggerFactory, "Logger sink");
/// ```
///
/// Each test writes its result to `RS_TCK_REPORT_DIR` (if set), panics with
/// the full failure text (condition, expected, actual, trace) if it failed,
/// and prints `skipped: <reason>` if it was skipped. `cargo test
/// streamlet_3_c` runs one condition.
#[macro_export]
macro_rules! streamlet_sink_verification {
    ($($invocation:tt)*) => {
        $crate::__verification_macro! {
            __streamlet_sink_tests, quick, streamlet_sink, $crate::streamlet::sink::SinkVerification<_>; $($invocation)*
        }
    };
}
