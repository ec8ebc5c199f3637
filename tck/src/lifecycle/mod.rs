//! The datum-lifecycle verification: a stage that carries
//! [`Tracked`] data keeps each datum alive
//! exactly as long as it, or an output made from it, is in the pipeline
//! (ids `done.1` … `done.6` of
//! [`LIFECYCLE_RULES`](reactive_streams::rules::LIFECYCLE_RULES)).
//!
//! The verification feeds the stage inputs of `Tracked<u64>` whose value
//! is the datum's id and whose token comes from its own
//! [`DoneLedger`](reactive_streams::done::DoneLedger). Each input is either
//! a synchronous range emitting as the stage requests, or *driven*: it
//! emits one datum, or completes, only when the generated schedule
//! (proptest) says so, so the schedule decides how the inputs of a
//! multi-input stage interleave and when each ends. Between those steps
//! downstream requests and, at generated points, drops (consumes) the
//! outputs it holds. Every output is checked as it arrives (done.1,
//! done.2) and held outputs again when dropped; a stage that declares
//! [`LifecycleFactory::keeps_delivered`] must have released every other
//! consumed datum promptly (done.3, mid-stream). The run ends by
//! completion, cancellation or an upstream error; downstream then drops
//! what it held and waits, at most [`TestEnv::timeout`], until every
//! issued datum is done (done.3–5) — while still holding the stage itself,
//! so that it is the end of the stream, not dropping the processor, that
//! releases the data. A failing schedule is shrunk and printed with the
//! seed that replays it alone (`RS_TCK_SEED=<seed> RS_TCK_CASES=1`).
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
mod rules;
mod scenario;

use std::sync::Arc;

use reactive_streams::Publisher;
use reactive_streams::done::Tracked;

pub use lineage::Lineage;

use crate::context::RuleCx;
use crate::engine::{Body, Engine, Table, Test, Vacuity};
use crate::env::{ConfigError, TestEnv};
use crate::explore::config::{CASES_ENV, SEED_ENV, parse_seed};
use crate::explore::{MAX_SHRINK_RUNS, whole_run};
use crate::outcome::{RuleResult, Verification};

/// Generated scripts per rule test, unless [`LifecycleVerification::cases`]
/// says otherwise.
pub const DEFAULT_CASES: usize = 24;

/// The seed scripts are drawn from unless [`LifecycleVerification::seed`]
/// or `RS_TCK_SEED` says otherwise: runs are the same every time.
pub const DEFAULT_SEED: u64 = 0;

/// `RS_TCK_CASES` or `RS_TCK_SEED` if set; what it holds if unreadable.
fn read_env(var: &str) -> Result<Option<u64>, String> {
    match std::env::var(var) {
        Ok(text) if text.trim().is_empty() => Ok(None),
        Ok(text) => parse_seed(&text)
            .map(Some)
            .ok_or_else(|| format!("{var}={text:?} is not a number (decimal or 0x-hex)")),
        Err(_) => Ok(None),
    }
}

/// The rule tests, in order.
pub const TESTS: &[&str] = &crate::__lifecycle_tests!(@names);

/// The list of datum-lifecycle tests, and what is generated from it. Not
/// API: use [`datum_lifecycle_verification!`](crate::datum_lifecycle_verification).
#[doc(hidden)]
#[macro_export]
macro_rules! __lifecycle_tests {
    ($($then:tt)*) => {
        $crate::__test_list! { [done_1, done_2, done_3, done_4, done_5, done_6] [] $($then)* }
    };
}

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

    /// How many data of each input the stage may still hold after
    /// downstream has dropped every output made from them: its `k` most
    /// recent data per input that were delivered in some output (an
    /// operator that passes data on keeps 0; a combine-latest keeps the
    /// latest of each side, 1; a sliding window of `n` keeps `n - 1`; a
    /// flat-map keeps the datum whose outputs are still coming, 1).
    ///
    /// With `Some(k)`, done.3 also checks mid-stream, each time downstream
    /// drops what it holds, that every other consumed datum is done within
    /// the larger of `RS_TCK_NO_SIGNAL_MS` and `RS_TCK_PROMPT_MS`. The
    /// default, `None`, declares nothing: the stage may keep consumed data
    /// until the stream ends, and done.3–5 judge it only then.
    fn keeps_delivered(&self) -> Option<usize> {
        None
    }

    /// Which output is which: its index (from 0) among the outputs the
    /// stage makes, or `None` (the default) to tell nothing.
    ///
    /// The verification's inputs are numbered: the `i`-th datum of input 0
    /// has id `i` (input `j`'s ids start at `j × 1 000 000`), so a stage
    /// passing input 0's data on (a map, a buffer) declares
    /// `Some(output.value)`, a window of 3 the first datum's id divided by
    /// 3, a zip its left datum's id. A stage whose outputs cannot be
    /// numbered from what they carry (a merge of several inputs, a
    /// combine-latest, a flat-map emitting copies) declares nothing.
    ///
    /// Declared, every generated script also checks that downstream gets
    /// each output at most once and in order from output 0, none skipped
    /// between two it got (`tck.create_n_gives_exactly_n`): a duplicate,
    /// a swap or a lost output fails it, whichever `done` rule test's
    /// script saw it. How many outputs there are is the stage's own
    /// business (a filter drops data, a window emits a partial last one):
    /// declare the index among the outputs actually made, as a filter
    /// numbers its outputs by the inputs that pass.
    ///
    /// ```
    /// use reactive_streams::done::Tracked;
    /// use reactive_streams::Publisher;
    /// use reactive_streams_tck::lifecycle::LifecycleFactory;
    ///
    /// /// The input itself: output `i` is input 0's datum `i`.
    /// struct Wire;
    /// impl LifecycleFactory for Wire {
    ///     type Output = Tracked<u64>;
    ///     fn create_stage(
    ///         &self,
    ///         mut inputs: Vec<Box<dyn Publisher<Tracked<u64>>>>,
    ///     ) -> Box<dyn Publisher<Tracked<u64>>> {
    ///         inputs.remove(0)
    ///     }
    ///     fn element_index(&self, output: &Tracked<u64>) -> Option<u64> {
    ///         Some(output.value)
    ///     }
    /// }
    /// # use reactive_streams_tck::lifecycle::LifecycleVerification;
    /// # let results = LifecycleVerification::new(Wire).cases(4).run_all().unwrap();
    /// # assert!(results.iter().all(|r| r.broken_rules().is_empty()));
    /// ```
    fn element_index(&self, output: &Self::Output) -> Option<u64> {
        let _ = output;
        None
    }
}

/// Runs the datum-lifecycle verification against one factory.
pub struct LifecycleVerification<F: LifecycleFactory> {
    engine: Engine<F>,
    cases: Option<usize>,
    seed: Option<u64>,
}

impl<F: LifecycleFactory> LifecycleVerification<F> {
    /// A verification of `factory`'s stages, named after its type.
    pub fn new(factory: F) -> Self {
        LifecycleVerification {
            // One rule at a time: each already runs many generated scripts.
            engine: Engine::new::<F>(Verification::DatumLifecycle, factory, 1),
            cases: None,
            seed: None,
        }
    }

    /// Timing bounds (default: [`TestEnv::try_from_env`]).
    pub fn env(mut self, env: TestEnv) -> Self {
        self.engine.env = Some(env);
        self
    }

    /// The name results carry as their `target`.
    pub fn target(mut self, name: impl Into<String>) -> Self {
        self.engine.target = name.into();
        self
    }

    /// How many rule tests [`run_all`](Self::run_all) runs at once
    /// (default 1: each already runs many generated scripts at once).
    pub fn parallelism(mut self, tests_at_once: usize) -> Self {
        self.engine.parallelism = tests_at_once.max(1);
        self
    }

    /// The budget and seed of the generated scripts, as every verification
    /// takes them: sets [`cases`](Self::cases) and [`seed`](Self::seed).
    /// (Every datum-lifecycle test explores generated scripts; none is
    /// left out without it.)
    pub fn extended(self, config: crate::explore::config::ExtendedConfig) -> Self {
        let cases = usize::try_from(config.cases()).unwrap_or(usize::MAX);
        self.cases(cases).seed(config.seed())
    }

    /// Generated scripts per rule test (default: `RS_TCK_CASES`, else
    /// [`DEFAULT_CASES`]).
    pub fn cases(mut self, cases: usize) -> Self {
        self.cases = Some(cases.max(1));
        self
    }

    /// The seed scripts are drawn from (default: `RS_TCK_SEED`, else
    /// [`DEFAULT_SEED`]). A failure prints the seed that replays its
    /// shrunk script alone (`RS_TCK_SEED=<seed> RS_TCK_CASES=1`).
    pub fn seed(mut self, seed: u64) -> Self {
        self.seed = Some(seed);
        self
    }

    /// The budget of every rule test, and a suite whose watchdog covers
    /// a whole exploration (each script has the usual watchdog).
    fn prepare(&self) -> Result<(Engine<F>, Table<F>), ConfigError> {
        let env = match self.engine.env {
            Some(env) => env,
            None => TestEnv::try_from_env()?,
        };
        let mut unreadable = None;
        let mut setting = |set: Option<u64>, var: &str, default: u64| {
            set.or_else(|| {
                read_env(var).unwrap_or_else(|problem| {
                    unreadable = Some(problem);
                    None
                })
            })
            .unwrap_or(default)
        };
        let cases = setting(
            self.cases.map(|c| c as u64),
            CASES_ENV,
            DEFAULT_CASES as u64,
        )
        .max(1);
        let seed = setting(self.seed, SEED_ENV, DEFAULT_SEED);
        let budget = rules::Budget {
            cases,
            seed,
            env,
            unreadable: unreadable.map(Arc::new),
        };
        let rounds = cases.div_ceil(rules::PARALLELISM as u64) + MAX_SHRINK_RUNS;
        let engine = Engine {
            subject: self.engine.subject.clone(),
            env: Some(whole_run(&env, rounds)),
            extended: None,
            target: self.engine.target.clone(),
            verification: self.engine.verification,
            parallelism: self.engine.parallelism,
        };
        let subject = self.engine.subject.clone();
        let table = TESTS
            .iter()
            .map(|&name| {
                let subject = subject.clone();
                let budget = budget.clone();
                let body =
                    Arc::new(move |cx: &RuleCx, _: &F| rules::run(name, cx, &subject, &budget))
                        as Body<F>;
                (name, Test::from(body))
            })
            .collect();
        Ok((engine, table))
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
        let (engine, table) = self.prepare()?;
        engine.run(table, test)
    }

    /// Runs every rule test, in [`TESTS`] order.
    pub fn run_all(&self) -> Result<Vec<RuleResult>, ConfigError> {
        let (engine, table) = self.prepare()?;
        engine.run_all(table, Vacuity::Allowed)
    }
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
    ($($invocation:tt)*) => {
        $crate::__verification_macro! {
            __lifecycle_tests, quick, datum_lifecycle, $crate::lifecycle::LifecycleVerification<_>; $($invocation)*
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
