//! The extended verification (opt-in): generated schedules with minimal
//! counterexamples, and concurrency stress.
//!
//! The [publisher verification](crate::publisher) runs fixed scenarios,
//! one per rule. Some bugs only show under other schedules — demand that is
//! lost when several threads request in turn, an extra element only after `request(∞)`
//! follows a small request. The extended verification looks for them:
//!
//! * **`tck_extended_schedules`** (rule id `tck.extended_schedules`):
//!   [`RS_TCK_CASES`](config::CASES_ENV) generated [schedules](schedule)
//!   — `request(n)` with small and boundary amounts, requests from inside
//!   `on_subscribe` and `on_next` and from other threads, `cancel()`, a
//!   second subscriber — each checked step by step against a reference
//!   model of §1 and §3 (never more `on_next` than demanded, exactly the
//!   elements owed, exactly one terminal signal, nothing after it or after
//!   cancel, the subscriber dropped after either). A failure is shrunk to
//!   the shortest schedule that still fails and reported as a script:
//!
//!   ```text
//!   tck.extended_schedules: expected every generated schedule to pass; actual:
//!   create_publisher(2); first: subscribe; first: request(1); first: request(∞)
//!   → tck.create_n_gives_exactly_n: expected exactly 2 on_next to first from
//!   create_publisher(2); actual: on_next #3 (value 1)
//!   (schedule 5 of 256, seed 0x2a, shrunk from 7 to 4 lines in 23 runs;
//!   replay it alone with RS_TCK_SEED=0x… RS_TCK_CASES=1)
//!   ```
//!
//! * **`tck_extended_stress`** (rule id `tck.extended_stress`):
//!   [`RS_TCK_STRESS_ITERATIONS`](config::STRESS_ITERATIONS_ENV) rounds of
//!   several threads requesting — and sometimes one cancelling — at the
//!   same instants ([`stress`]). A failure says which thread did what.
//!
//! Budget and seed come from [`ExtendedConfig`] (builder or `RS_TCK_CASES`,
//! `RS_TCK_SEED`, `RS_TCK_STRESS_ITERATIONS`); timing from the usual
//! [`TestEnv`](crate::env::TestEnv), per case.
//!
//! # Two entry points
//!
//! In a test file, next to the quick verification:
//!
//! ```ignore
//! use reactive_streams_tck::{publisher_extended_verification, publisher_verification};
//! publisher_verification!(my_range, MyFactory::new());
//! publisher_extended_verification!(my_range_extended, MyFactory::new(), "my_range");
//! // → my_range_extended::publisher::tck_extended_schedules
//! //   my_range_extended::publisher::tck_extended_stress
//! ```
//!
//! `cargo xtask tck` skips these tests unless given `--extended`.
//!
//! As a library:
//!
//! ```
//! use reactive_streams::Publisher;
//! use reactive_streams_tck::extended::{ExtendedConfig, PublisherExtendedVerification};
//! use reactive_streams_tck::outcome::Verdict;
//! use reactive_streams_tck::publisher::PublisherFactory;
//! use reactive_streams_tck::testkit::SyncRange;
//!
//! struct Ranges;
//! impl PublisherFactory for Ranges {
//!     type Element = u64;
//!     fn create_publisher(&self, n: u64) -> Box<dyn Publisher<u64>> {
//!         Box::new(SyncRange::new(0, n))
//!     }
//! }
//!
//! let config = ExtendedConfig::builder().cases(32).stress_iterations(2).seed(7).build();
//! let results = PublisherExtendedVerification::new(Ranges).config(config).run_all().unwrap();
//! assert!(results.iter().all(|r| r.verdict == Verdict::Passed));
//! ```
//!
//! # Declarations
//!
//! The extended verification of a factory honours every declaration its
//! quick verification honours: implement the factory once, verify it both
//! ways. How each declaration shapes the extended tests:
//!
//! | factory | declaration | extended verification |
//! |---|---|---|
//! | [`PublisherFactory`](crate::publisher::PublisherFactory) | `min_elements`, `max_elements` | schedules only create publishers of lengths in range; stress is skipped, saying so, below 99 elements |
//! | | `create_failed_publisher` | schedules with a failed publisher are left out when `None` |
//! | | `supports_multiple_subscribers` | no second subscriber in schedules when `false` |
//! | | `max_sync_recursion_depth` | the probe's recursion bound |
//! | | `run_stochastic` | stress is skipped, saying so, when `false` |
//! | | `element_index` | schedules and stress check each element at most once and in order, from element 0 for the first subscriber (`tck.create_n_gives_exactly_n`, named in the failing case) |
//! | [`ProcessorFactory`](crate::processor::ProcessorFactory) | `passes` | schedules and stress feed inputs until `n` pass; upstream scripts owe only passing inputs and allow a replacement request per dropped one |
//! | | `recovers_from_errors` | no failed-publisher schedules; upstream scripts accept a fallback after an upstream error |
//! | | `propagates_cancellation` | upstream scripts check that a downstream `cancel()` reaches upstream only when `true` |
//! | | `max_upstream_demand` | the bound upstream scripts check after every step |
//! | | `max_outputs` | schedules only create publishers of up to that many outputs, stress is skipped below 99; upstream scripts accept `on_complete` (and a cancelled upstream) once that many came out, and fail a further output |
//! | | `supports_multiple_subscribers` | schedules subscribe one subscriber (a processor is a hot stage) |
//! | | `element_index` | schedules, stress and upstream scripts check each output at most once and in order, numbered by the passing inputs; a recovering processor's fallback after an upstream error goes unchecked |
//! | | `max_sync_recursion_depth`, `run_stochastic` | as for publishers |
//! | [`SubscriberBlackboxFactory`](crate::subscriber::SubscriberBlackboxFactory) | `trigger_request` | the nudge of signal scripts and stress |
//! | | `stops_after` | nothing extra: scripts send only what was requested, and a subscriber may cancel whenever it likes |
//! | [`SubscriberWhiteboxFactory`](crate::subscriber::SubscriberWhiteboxFactory) | `stops_after`, `create_subscriber_with_publisher` | as above; scripts use `create_subscriber` |
//! | [`SourceFactory`](crate::streamlet::source::SourceFactory) | `kind` | scripts drive each mode the kind allows; stress is skipped for a listenable source |
//! | | `max_elements` | scripts and stress create sources within it |
//! | | `ends` | an end is owed only when `true` |
//! | | `supports_restart` | restarts only when `true` |
//! | | `create_failed_source`, `supports_multiple_sinks` | not used: one sink per script, never a failed source |
//! | | `element_index` | scripts and stress check each element at most once and in order (`tck.create_n`); after a restart the stream may go on past what a stop left |
//! | [`SinkFactory`](crate::streamlet::sink::SinkFactory) | `stops_after` | a sink may stop whenever it likes; emissions go only while the stream is live |
//!
//! A subscriber may also end its own subscription at any time — from
//! `on_subscribe`, from `on_next`, through a helper it owns. Its requests
//! are then no-ops (§3.6), so demand may stay 0: every test, quick or
//! extended, that needs more demand is skipped, saying that the subscriber
//! cancelled itself.

// The shared core lives in `crate::explore`, each subject's extended part
// in its own folder; these re-exports keep every path users write.
pub use crate::explore;
pub use crate::explore::config;
pub use crate::processor::extended as processor;
pub use crate::publisher::extended::{schedule, stress};
pub use crate::streamlet::extended as streamlet;
pub use crate::streamlet::extended::source_stress;
pub use crate::subscriber::extended::signals;
pub use crate::subscriber::extended::stress as subscriber_stress;

pub use crate::publisher::extended::{PublisherExtendedVerification, TESTS};
pub use crate::subscriber::extended::{
    SubscriberBlackboxExtendedVerification, SubscriberWhiteboxExtendedVerification, BLACKBOX_TESTS,
    SUBSCRIBER_TESTS,
};
pub use config::{
    parse_seed, show_seed, ExtendedConfig, ExtendedConfigBuilder, ExtendedConfigError,
};
pub use processor::{ProcessorExtendedVerification, PROCESSOR_TESTS};

#[doc(hidden)]
pub use crate::subscriber::extended::{__run_generated_blackbox, __run_generated_whitebox};
pub use streamlet::{
    SinkExtendedVerification, SourceExtendedVerification, SINK_TESTS, SOURCE_TESTS,
};

/// Whether a rule id is one of the extended verification's (`tck.extended_…`):
/// `cargo xtask tck` runs those only with `--extended`.
///
/// ```
/// use reactive_streams_tck::extended::is_extended_rule;
/// assert!(is_extended_rule("tck.extended_schedules"));
/// assert!(!is_extended_rule("3.9"));
/// ```
pub fn is_extended_rule(rule: &str) -> bool {
    rule.starts_with("tck.extended_")
}
