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
//! | [`lifecycle`] | the datum-lifecycle verification (`done.1`–`done.6`) and [`datum_lifecycle_verification!`] |
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

#![warn(missing_docs)]

pub mod context;
pub mod env;
pub mod lifecycle;
pub mod outcome;
pub mod probe;
pub mod publisher;
pub mod runner;
#[doc(hidden)]
pub mod testkit;
