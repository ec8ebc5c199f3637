//! The datum-lifecycle verification: a stage that carries
//! [`Tracked`] data keeps each datum alive
//! exactly as long as it, or an output made from it, is in the pipeline
//! (ids `done.1` … `done.6` of
//! [`LIFECYCLE_RULES`](reactive_streams::rules::LIFECYCLE_RULES)).
//!
//! The verification feeds the stage synchronous inputs of `Tracked<u64>`
//! whose value is the datum's id and whose token comes from its own
//! [`DoneLedger`](reactive_streams::done::DoneLedger). Downstream, a
//! recording subscriber follows a generated demand schedule (proptest,
//! deterministic seed), checks every output as it arrives (done.1, done.2)
//! and holds it until the run ends by completion, cancellation or an
//! upstream error. It then drops what it held and waits, at most
//! [`TestEnv::timeout`], until every issued datum is done (done.3–5) —
//! while still holding the stage itself, so that it is the end of the
//! stream, not dropping the processor, that releases the data.
//!
//! # Two entry points
//!
//! ```ignore
//! use reactive_streams_tck::datum_lifecycle_verification;
//! datum_lifecycle_verification!(my_window, MyWindowFactory);
//! // → my_window::datum_lifecycle::done_1, …, my_window::datum_lifecycle::done_6
//! ```
//!
//! or [`LifecycleVerification::run_all`] for the results as data:
//!
//! ```
//! use reactive_streams::done::Tracked;
//! use reactive_streams::Publisher;
//! use reactive_streams_tck::lifecycle::{LifecycleFactory, LifecycleVerification};
//! use reactive_streams_tck::outcome::Verdict;
//!
//! /// The simplest stage there is: the input itself.
//! struct Wire;
//! impl LifecycleFactory for Wire {
//!     type Output = Tracked<u64>;
//!     fn create_stage(
//!         &self,
//!         mut inputs: Vec<Box<dyn Publisher<Tracked<u64>>>>,
//!     ) -> Box<dyn Publisher<Tracked<u64>>> {
//!         inputs.remove(0)
//!     }
//! }
//!
//! let results = LifecycleVerification::new(Wire).cases(4).run_all().unwrap();
//! assert!(results.iter().all(|r| r.verdict != Verdict::Failed));
//! ```
//!
//! # Test names
//!
//! `<module>::datum_lifecycle::done_<n>` for rule `done.<n>`; `cargo xtask
//! tck` relies on this shape. See [`TESTS`].

mod lineage;
#[doc(hidden)]
pub mod rules;
mod scenario;

use std::sync::Arc;

use reactive_streams::done::Tracked;
use reactive_streams::Publisher;

pub use lineage::Lineage;

use crate::context::RuleCx;
use crate::env::{ConfigError, TestEnv};
use crate::outcome::{RuleResult, Verification};
use crate::suite::{run_generated, type_tail, Body, Suite, Table, Test, Vacuity};

/// Generated scripts per rule test, unless [`LifecycleVerification::cases`]
/// says otherwise.
pub const DEFAULT_CASES: usize = 24;

/// The rule tests, in order.
pub const TESTS: &[&str] = &["done_1", "done_2", "done_3", "done_4", "done_5", "done_6"];

/// Makes fresh stages for the datum-lifecycle verification.
///
/// A stage is anything that subscribes to tracked inputs and publishes
/// outputs: a processor (`inputs[0].subscribe(processor.clone())`, then
/// return the processor), or a combinator of several inputs (zip,
/// combine-latest).
pub trait LifecycleFactory: Send + Sync + 'static {
    /// What the stage emits.
    type Output: Lineage + Send + 'static;

    /// How many inputs the stage takes (default 1).
    fn inputs(&self) -> usize {
        1
    }

    /// A fresh stage connected to `inputs` (exactly [`inputs`](Self::inputs)
    /// publishers of `Tracked<u64>`, each with one subscriber's worth of
    /// data), returning the publisher of its outputs. The verification
    /// subscribes to it once.
    fn create_stage(
        &self,
        inputs: Vec<Box<dyn Publisher<Tracked<u64>>>>,
    ) -> Box<dyn Publisher<Self::Output>>;
}

/// Runs the datum-lifecycle verification against one factory.
pub struct LifecycleVerification<F: LifecycleFactory> {
    suite: Suite<F>,
    cases: usize,
}

impl<F: LifecycleFactory> LifecycleVerification<F> {
    /// A verification of `factory`'s stages, named after its type.
    pub fn new(factory: F) -> Self {
        LifecycleVerification {
            // One rule at a time: each already runs many generated scripts.
            suite: Suite::new(Verification::DatumLifecycle, factory, type_tail::<F>(), 1),
            cases: DEFAULT_CASES,
        }
    }

    /// Timing bounds (default: [`TestEnv::try_from_env`]).
    pub fn env(mut self, env: TestEnv) -> Self {
        self.suite.env = Some(env);
        self
    }

    /// The name results carry as their `target`.
    pub fn target(mut self, name: impl Into<String>) -> Self {
        self.suite.target = name.into();
        self
    }

    /// Generated scripts per rule test (default [`DEFAULT_CASES`]).
    pub fn cases(mut self, cases: usize) -> Self {
        self.cases = cases.max(1);
        self
    }

    /// Every rule test, running `cases` scripts each.
    fn table(&self) -> Table<F> {
        let cases = self.cases;
        TESTS
            .iter()
            .map(|&name| {
                let body =
                    Arc::new(move |cx: &RuleCx, factory: &F| rules::run(name, cx, factory, cases))
                        as Body<F>;
                (name, Test::from(body))
            })
            .collect()
    }

    /// Runs one rule test by name (`"done_1"`).
    ///
    /// # Panics
    ///
    /// If `test` is not in [`TESTS`].
    pub fn run(&self, test: &str) -> Result<RuleResult, ConfigError> {
        assert!(
            TESTS.contains(&test),
            "no datum-lifecycle rule test named {test}"
        );
        self.suite.run(self.table(), test)
    }

    /// Runs every rule test, in [`TESTS`] order.
    pub fn run_all(&self) -> Result<Vec<RuleResult>, ConfigError> {
        self.suite.run_all(self.table(), Vacuity::Allowed)
    }
}

/// What a generated `#[test]` calls. Not API.
#[doc(hidden)]
pub fn __run_generated<F: LifecycleFactory>(test: &str, target: &str, factory: F) {
    run_generated(LifecycleVerification::new(factory).target(target).run(test));
}

/// Generates the datum-lifecycle verification as `#[test]`s:
/// `<name>::datum_lifecycle::<test>` for every test in
/// [`lifecycle::TESTS`](crate::lifecycle::TESTS).
///
/// `$factory` is an expression making a
/// [`LifecycleFactory`](crate::lifecycle::LifecycleFactory), evaluated once
/// per test where the macro is invoked (it sees what the invocation sees).
/// Results carry `stringify!($name)` as their target, or the display name
/// given as a third argument.
///
/// ```ignore
/// datum_lifecycle_verification!(window, WindowFactory { size: 3 });
/// ```
#[macro_export]
macro_rules! datum_lifecycle_verification {
    ($name:ident, $factory:expr $(,)?) => {
        $crate::datum_lifecycle_verification!($name, $factory, stringify!($name));
    };
    ($name:ident, $factory:expr, $target:expr $(,)?) => {
        $crate::__verification_tests! {
            $name, $factory, $target, datum_lifecycle, $crate::lifecycle::__run_generated,
            [done_1, done_2, done_3, done_4, done_5, done_6]
        }
    };
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::runner::rule_of_test;
    use reactive_streams::rules::{Check, LIFECYCLE_RULES};

    #[test]
    fn the_catalogue_and_the_tests_name_each_other() {
        assert_eq!(TESTS.len(), LIFECYCLE_RULES.len());
        for (test, rule) in TESTS.iter().zip(LIFECYCLE_RULES) {
            assert_eq!(rule_of_test(test), rule.id);
            match rule.check {
                Check::Tested { tests } => {
                    assert_eq!(tests, [format!("datum_lifecycle::{test}").as_str()])
                }
                Check::EnforcedByTypes { proof } => assert_eq!(proof, rules::DONE_6_PROOF),
                Check::Untested { .. } => panic!("{test} exists but {} is untested", rule.id),
            }
        }
    }
}
