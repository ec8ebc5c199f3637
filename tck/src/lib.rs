//! The Reactive Streams TCK for Rust.
//!
//! # Architecture
//!
//! | module | job |
//! |---|---|
//! | [`env`](mod@env) | timing bounds, from a builder or `RS_TCK_*` environment variables |
//! | [`context`] | one running rule test: trace, failures from any thread, current step |
//! | [`runner`] | runs one rule on its own thread under `catch_unwind` and a watchdog |
//! | [`probe`] | recording subscribers that check the publisher's side online and wait with deadlines |
//! | [`outcome`] | the result data every report is rendered from |
//! | [`publisher`] | the publisher verification (§1, §3) and [`publisher_verification!`] |
//! | [`subscriber`] | the blackbox and whitebox subscriber verifications (§2, §3) and [`subscriber_blackbox_verification!`], [`subscriber_whitebox_verification!`] |
//! | [`processor`] | the processor verification (§1–§4) and [`processor_verification!`] |
//! | [`streamlet`] | the Streamlet source and sink verifications (rules 1–6), [`streamlet_source_verification!`] and [`streamlet_sink_verification!`] |
//! | [`extended`] | the opt-in extended verification: generated schedules shrunk to minimal counterexamples, concurrency stress, [`publisher_extended_verification!`] |
//! | [`lifecycle`] | the datum-lifecycle verification (`done.1`–`done.6`) and [`datum_lifecycle_verification!`] |
//! | [`sink`](mod@sink) | the `futures::Sink` verification (`sink.1`–`sink.3`; not the Streamlet sink) and [`sink_verification!`] |
//! | [`stream`](mod@stream) | the `futures::Stream` verification (`stream.1`–`stream.7`), driven by the TCK's own executor and instrumented wakers, and [`stream_verification!`] |
//!
//! Later verifications (subscriber, processor, streamlet) reuse `env`,
//! `context`, `runner`, `probe` and `outcome`, and follow the same macro
//! shape: `<module>::<verification>::<test>`, one `#[test]` per rule.
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
//! The publisher verification is the pattern the others follow:
//!
//! 1. a factory trait the user implements (here
//!    [`publisher::PublisherFactory`]), with defaults for every declaration;
//! 2. one function per rule test, named as the test (`spec_3_09`,
//!    `tck_<name>`, `streamlet_<n>_<x>`), returning the body and what it
//!    needs from the factory (unmet needs skip with a reason);
//! 3. one list of those names in a hidden `#[macro_export]` macro, from
//!    which both the `#[test]` functions (`<module>::<verification>::<test>`,
//!    where `<verification>` is [`outcome::Verification::as_str`]) and the
//!    run-time table are generated, so they cannot drift apart;
//! 4. each generated test calls [`runner::run_rule`] with a
//!    [`runner::RuleMeta`] and hands the result to [`runner::conclude`],
//!    which writes it to `RS_TCK_REPORT_DIR`, panics with
//!    [`runner::failure_text`] if it failed and prints `skipped: <reason>`
//!    if it was skipped;
//! 5. a library entry point (`run_all`) returning the results as data, and
//!    a `tck_configuration` test failing when the declarations would skip
//!    everything.
//!
//! The rule id of a test is derived from its name
//! ([`runner::rule_of_test`]); the catalogue in `reactive_streams::rules`
//! names the tests back (`Check::Tested { tests: &["publisher::spec_3_09"] }`).

#![warn(missing_docs)]

pub mod context;
pub mod env;
pub mod extended;
pub mod lifecycle;
pub mod outcome;
pub mod probe;
pub mod processor;
pub mod publisher;
pub mod runner;
pub mod sink;
pub mod stream;
pub mod streamlet;
pub mod subscriber;
mod suite;
#[doc(hidden)]
pub mod testkit;
mod wakers;
