//! The Reactive Streams TCK for Rust.
//!
//! # Architecture
//!
//! One home per verification: each subject folder holds its factory trait,
//! its quick rule tests, its extended part (generated cases and stress) and
//! its macros. What every subject uses lives once, in the core, which never
//! imports a subject: subjects plug in through traits and closures.
//!
//! | module | job |
//! |---|---|
//! | **core** | |
//! | [`env`](mod@env) | timing bounds, from a builder or `RS_TCK_*` environment variables |
//! | [`context`] | one running rule test: trace, failures from any thread, current step |
//! | [`runner`] | runs one rule on its own thread under `catch_unwind` and a watchdog; the hidden `__verification_tests!` every macro expands to |
//! | [`probe`] | recording subscribers that check the publisher's side online and wait with deadlines |
//! | [`outcome`] | the result data every report is rendered from |
//! | `explore` (private) | the extended verifications' shared core: budget and seed ([`ExtendedConfig`], `RS_TCK_CASES`/`RS_TCK_SEED`/`RS_TCK_STRESS_ITERATIONS`), exploring generated cases, shrinking and replay, the whole-run watchdog, the stress-iteration loop |
//! | `engine` (private) | the one verification engine: a subject's test list (quick and extended entries), run one, all, or the extended ones; the one builder every verification type has (`new`, `env`, `target`, `parallelism`, `extended`, `run`, `run_all`, `run_extended`) |
//! | **subjects** (`<subject>/mod.rs`: factory, verification type, macro; `rules*`: quick rule tests; `extended/`: generated cases and stress) | |
//! | [`publisher`] | §1, §3: [`publisher_verification!`]; `extended/`: schedules checked against a model, stress |
//! | [`subscriber`] | §2, §3, blackbox and whitebox: [`subscriber_blackbox_verification!`], [`subscriber_whitebox_verification!`]; `extended/`: signal scripts and stress |
//! | [`processor`] | §1–§4: [`processor_verification!`]; `extended/`: upstream scripts |
//! | [`streamlet`] | Streamlet sources and sinks (rules 1–6): [`streamlet_source_verification!`], [`streamlet_sink_verification!`]; `extended/`: sink and source scripts, source stress |
//! | [`lifecycle`] | the datum-lifecycle verification (`done.1`–`done.6`, generated lineages in `scenario`) and [`datum_lifecycle_verification!`] |
//! | [`futures::sink`] | the `futures::Sink` verification (`sink.1`–`sink.3`; not the Streamlet sink) and [`sink_verification!`] |
//! | [`futures::stream`] | the `futures::Stream` verification (`stream.1`–`stream.7`, extended schedules in `schedules`), driven by the TCK's own executor and instrumented wakers, and [`stream_verification!`] |
//! | [`futures::adapter`] | the stream-adapter verification (`adapter.1`–`adapter.6`): a `Stream` wrapping [`adapter::Inner`] streams the TCK provides, feeds and watches, and [`stream_adapter_verification!`] |
//!
//! Every verification reuses `env`, `context`, `runner`, `probe` and
//! `outcome`, and follows the same macro shape:
//! `<module>::<verification>::<test>`, one `#[test]` per rule.
//!
//! # Writing a rule test
//!
//! A rule body is a function `fn(&RuleCx, &Factory) -> RuleBody`. It names
//! its scenarios ([`context::RuleCx::scenario`]), drives [`probe::Probe`]s
//! and uses `?` on their expectations; a failure seen on another thread is
//! recorded in the context and fails the rule anyway. The
//! [`runner::run_rule`] function turns the body into a
//! [`outcome::RuleResult`].
//!
//! # Adding a verification
//!
//! The publisher verification is the pattern the others follow. A new
//! subject gets a folder `tck/src/<subject>/` holding:
//!
//! 1. a factory trait the user implements (here
//!    [`publisher::PublisherFactory`]), with defaults for every declaration;
//! 2. one function per rule test, named as the test (`spec_3_09`,
//!    `tck_<name>`, `streamlet_<n>_<x>`), returning the body and what it
//!    needs from the factory (unmet needs skip with a reason), in
//!    `rules.rs` or `rules/`;
//! 3. one list of those names in a hidden `#[macro_export]` macro that
//!    hands it, quick tests then extended ones, to the shared
//!    `__test_list!`: the `#[test]` functions
//!    (`<module>::<verification>::<test>`, where `<verification>` is
//!    [`outcome::Verification::as_str`]), the subject's `TESTS` and the
//!    run-time table all come from it, so they cannot drift apart;
//! 4. the public macro, two arms: `($name, $factory $(, $target)?)` for
//!    the quick tests and `(extended $name, …)` for the extended ones, each
//!    expanding to the hidden `$crate::__verification_tests!` with its
//!    module name, its verification type and the list: the factory and
//!    display name are evaluated where the user invoked the macro and the
//!    tests name them by path, so the macro works at the crate root, in any
//!    module and several times in one (add the new macro to
//!    `tck/tests/macro_placement.rs`, which `tck/examples/macro_placement.rs`
//!    also builds as a program of its own); each test runs
//!    `<type>::new(factory).target(target).run(test)` and hands the result
//!    to [`runner::conclude`], which writes it to `RS_TCK_REPORT_DIR`,
//!    panics with [`runner::failure_text`] if it failed and prints
//!    `skipped: <reason>` if it was skipped;
//! 5. its verification type: a struct holding the engine, given every
//!    method by the engine's one builder (`verification!` in `engine`,
//!    naming the subject, its table and what makes a run vacuous), and a
//!    `tck_configuration` test failing when the declarations would skip
//!    everything;
//! 6. if it has extended tests, `extended/`: its case generator (a
//!    proptest strategy of `explore::Scripted` cases) and its case
//!    runner, plugged into the core's exploration and stress loop in
//!    `explore`, each an extended entry of the subject's table;
//! 7. self-tests under `tck/tests/<subject>_verification/`, one test binary
//!    per subject: `broken.rs`, a broken implementation per rule test,
//!    failing exactly its rules, and `correct.rs`, conforming ones passing;
//!    the extended part beside them in `extended_broken.rs` and
//!    `extended_correct.rs` (shared assertions and settings in
//!    `tck/tests/support/`).
//!
//! The rule id of a test is derived from its name
//! ([`runner::rule_of_test`]); the catalogue in `reactive_streams::rules`
//! names the tests back (`Check::Tested { tests: &["publisher::spec_3_09"] }`).

#![warn(missing_docs)]

#[doc(hidden)]
pub mod batch;
pub mod context;
mod deprecated;
mod engine;
pub mod env;
mod explore;
pub mod futures;
pub mod lifecycle;
pub mod outcome;
pub mod probe;
pub mod processor;
pub mod publisher;
pub mod runner;
pub mod streamlet;
pub mod subscriber;

pub use env::{ConfigError, TestEnv};
pub use explore::config::{ExtendedConfig, ExtendedConfigBuilder};
#[doc(hidden)]
pub mod testkit;
mod wakers;

/// Moved to [`futures::stream`].
#[deprecated(note = "moved to `reactive_streams_tck::futures::stream`")]
#[doc(hidden)]
pub mod stream {
    pub use crate::futures::stream::*;
}

/// Moved to [`futures::sink`], with the names `FuturesSinkFactory` and
/// `FuturesSinkVerification`.
#[deprecated(
    note = "moved to `reactive_streams_tck::futures::sink` (`FuturesSinkFactory`, `FuturesSinkVerification`)"
)]
#[doc(hidden)]
pub mod sink {
    pub use crate::futures::sink::{
        Delivery, FuturesSinkFactory as SinkFactory, FuturesSinkVerification as SinkVerification,
        Outlet, TESTS,
    };
}

/// Moved to [`futures::adapter`].
#[deprecated(note = "moved to `reactive_streams_tck::futures::adapter`")]
#[doc(hidden)]
pub mod adapter {
    pub use crate::futures::adapter::*;
}
