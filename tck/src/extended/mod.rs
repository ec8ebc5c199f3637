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
//!   create_publisher(2); probe: subscribe; probe: request(1); probe: request(∞)
//!   → tck.create_n_gives_exactly_n: expected exactly 2 on_next to probe from
//!   create_publisher(2); actual: on_next(1) was on_next number 3
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

pub mod config;
pub mod explore;
pub mod processor;
mod publisher;
pub mod schedule;
pub mod signals;
pub mod source_stress;
pub mod streamlet;
pub mod stress;
mod subscriber;
pub mod subscriber_stress;
mod upstream;

pub use config::{
    parse_seed, show_seed, ExtendedConfig, ExtendedConfigBuilder, ExtendedConfigError,
};
pub use processor::{ProcessorExtendedVerification, PROCESSOR_TESTS};
pub use publisher::{PublisherExtendedVerification, TESTS};
pub use subscriber::{
    SubscriberBlackboxExtendedVerification, SubscriberWhiteboxExtendedVerification, BLACKBOX_TESTS,
    SUBSCRIBER_TESTS,
};

#[doc(hidden)]
pub use processor::__run_generated_processor;
#[doc(hidden)]
pub use publisher::__run_generated;
#[doc(hidden)]
pub use streamlet::{__run_generated_sink, __run_generated_source};
pub use streamlet::{
    SinkExtendedVerification, SourceExtendedVerification, SINK_TESTS, SOURCE_TESTS,
};
#[doc(hidden)]
pub use subscriber::{__run_generated_blackbox, __run_generated_whitebox};

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

/// Generates the extended publisher verification as `#[test]`s:
/// `<name>::publisher::tck_extended_schedules` and
/// `<name>::publisher::tck_extended_stress`.
///
/// `$factory` is an expression making a
/// [`PublisherFactory`](crate::publisher::PublisherFactory), evaluated once
/// per test where the macro is invoked. The module
/// name must differ from the quick verification's; give the quick one's
/// name as the third argument so that reports list both under one target.
///
/// ```ignore
/// publisher_verification!(my_range, MyFactory::new());
/// publisher_extended_verification!(my_range_extended, MyFactory::new(), "my_range");
/// ```
///
/// Budget and seed come from `RS_TCK_CASES`, `RS_TCK_SEED` and
/// `RS_TCK_STRESS_ITERATIONS` (see [`ExtendedConfig`](crate::extended::ExtendedConfig)).
#[macro_export]
macro_rules! publisher_extended_verification {
    ($name:ident, $factory:expr $(,)?) => {
        $crate::publisher_extended_verification! { $name, $factory, stringify!($name) }
    };
    ($name:ident, $factory:expr, $target:expr $(,)?) => {
        $crate::__verification_tests! {
            $name, $factory, $target, publisher, $crate::extended::__run_generated,
            [tck_extended_schedules, tck_extended_stress]
        }
    };
}

/// Generates the extended processor verification as `#[test]`s:
/// `<name>::processor::tck_extended_schedules` and
/// `<name>::processor::tck_extended_stress` (the publisher's, against the
/// processor fed by a TCK upstream) and
/// `<name>::processor::tck_extended_upstream` (generated upstream and
/// downstream scripts: §4.2, bounded upstream demand, cancellation
/// reaching upstream; see [`processor`](crate::extended::processor)).
/// Same arguments as
/// [`processor_verification!`](crate::processor_verification); the module
/// name must differ from the quick verification's.
///
/// ```ignore
/// processor_verification!(my_map, MyFactory);
/// processor_extended_verification!(my_map_extended, MyFactory, "my_map");
/// ```
#[macro_export]
macro_rules! processor_extended_verification {
    ($name:ident, $factory:expr $(,)?) => {
        $crate::processor_extended_verification! { $name, $factory, stringify!($name) }
    };
    ($name:ident, $factory:expr, $target:expr $(,)?) => {
        $crate::__verification_tests! {
            $name, $factory, $target, processor, $crate::extended::__run_generated_processor,
            [tck_extended_schedules, tck_extended_stress, tck_extended_upstream]
        }
    };
}

/// Generates the extended blackbox subscriber verification as `#[test]`s:
/// `<name>::subscriber_blackbox::tck_extended_schedules` — generated signal
/// sequences (`on_next` bursts within demand, nudges, a second
/// `on_subscribe`, `on_complete` / `on_error` at any point) shrunk to a
/// minimal script on failure — and `…::tck_extended_stress`, signals from
/// several threads in turn ([`subscriber_stress`](crate::extended::subscriber_stress)). Same arguments as
/// [`subscriber_blackbox_verification!`](crate::subscriber_blackbox_verification);
/// the module name must differ from the quick verification's.
///
/// ```ignore
/// subscriber_blackbox_extended_verification!(my_sink_extended, MyFactory, "my_sink");
/// ```
#[macro_export]
macro_rules! subscriber_blackbox_extended_verification {
    ($name:ident, $factory:expr $(,)?) => {
        $crate::subscriber_blackbox_extended_verification! { $name, $factory, stringify!($name) }
    };
    ($name:ident, $factory:expr, $target:expr $(,)?) => {
        $crate::__verification_tests! {
            $name, $factory, $target, subscriber_blackbox, $crate::extended::__run_generated_blackbox,
            [tck_extended_schedules, tck_extended_stress]
        }
    };
}

/// Generates the extended whitebox subscriber verification as a `#[test]`:
/// `<name>::subscriber_whitebox::tck_extended_schedules`. See
/// [`subscriber_blackbox_extended_verification!`](crate::subscriber_blackbox_extended_verification).
#[macro_export]
macro_rules! subscriber_whitebox_extended_verification {
    ($name:ident, $factory:expr $(,)?) => {
        $crate::subscriber_whitebox_extended_verification! { $name, $factory, stringify!($name) }
    };
    ($name:ident, $factory:expr, $target:expr $(,)?) => {
        $crate::__verification_tests! {
            $name, $factory, $target, subscriber_whitebox, $crate::extended::__run_generated_whitebox,
            [tck_extended_schedules]
        }
    };
}

/// Generates the extended Streamlet source verification as `#[test]`s:
/// `<name>::streamlet_source::tck_extended_schedules` — generated sink
/// scripts (starts, restarts, requests, stops inside emissions), judged by
/// the source verification's sink probe and shrunk to a minimal script on
/// failure — and `…::tck_extended_stress`, requests and restarts from
/// several threads at once ([`source_stress`](crate::extended::source_stress)). Same arguments as
/// [`streamlet_source_verification!`](crate::streamlet_source_verification);
/// the module name must differ from the quick verification's.
#[macro_export]
macro_rules! streamlet_source_extended_verification {
    ($name:ident, $factory:expr $(,)?) => {
        $crate::streamlet_source_extended_verification! { $name, $factory, stringify!($name) }
    };
    ($name:ident, $factory:expr, $target:expr $(,)?) => {
        $crate::__verification_tests! {
            $name, $factory, $target, streamlet_source, $crate::extended::__run_generated_source,
            [tck_extended_schedules, tck_extended_stress]
        }
    };
}

/// Generates the extended Streamlet sink verification as a `#[test]`:
/// `<name>::streamlet_sink::tck_extended_schedules` — generated source
/// scripts (greet, bursts of emissions while live, an end with or without a
/// reason), the sink's talkback calls judged as they come, shrunk to a
/// minimal script on failure. Same arguments as
/// [`streamlet_sink_verification!`](crate::streamlet_sink_verification).
#[macro_export]
macro_rules! streamlet_sink_extended_verification {
    ($name:ident, $factory:expr $(,)?) => {
        $crate::streamlet_sink_extended_verification! { $name, $factory, stringify!($name) }
    };
    ($name:ident, $factory:expr, $target:expr $(,)?) => {
        $crate::__verification_tests! {
            $name, $factory, $target, streamlet_sink, $crate::extended::__run_generated_sink,
            [tck_extended_schedules]
        }
    };
}
