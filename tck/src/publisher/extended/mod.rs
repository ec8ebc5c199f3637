//! The extended publisher verification: generated schedules and
//! concurrency stress against the publishers a [`PublisherFactory`] makes.

use std::sync::Arc;
use std::time::Duration;

use super::config::{
    show_seed, ExtendedConfig, ExtendedConfigError, SEED_ENV, STRESS_ITERATIONS_ENV,
};
use super::explore::{self, case_seed, MAX_SHRINK_RUNS};
use super::schedule::{self, Schedule};
use super::stress::{self, StressPlan};
use crate::context::{Failure, Outcome, RuleBody, RuleCx};
use crate::env::TestEnv;
use crate::outcome::{RuleResult, Verdict, Verification};
use crate::publisher::PublisherFactory;
use crate::runner::{self, rule_of_test, RuleMeta};

/// The extended rule tests, in order: `tck_extended_schedules` (rule id
/// `tck.extended_schedules`) and `tck_extended_stress`
/// (`tck.extended_stress`).
pub const TESTS: &[&str] = &["tck_extended_schedules", "tck_extended_stress"];

/// Runs the extended verification against one factory. See the
/// [module](super) docs.
pub struct PublisherExtendedVerification<F: PublisherFactory> {
    factory: Arc<F>,
    env: Option<TestEnv>,
    config: Option<ExtendedConfig>,
    target: String,
    verification: Verification,
}

impl<F: PublisherFactory> PublisherExtendedVerification<F> {
    /// An extended verification of `factory`'s publishers, named after its
    /// type.
    pub fn new(factory: F) -> Self {
        let target = std::any::type_name::<F>()
            .rsplit("::")
            .next()
            .unwrap_or("publisher")
            .to_string();
        PublisherExtendedVerification {
            factory: Arc::new(factory),
            env: None,
            config: None,
            target,
            verification: Verification::Publisher,
        }
    }

    /// The verification results name (a processor's output side is
    /// verified as a publisher, reported as a processor).
    pub(crate) fn reported_as(mut self, verification: Verification) -> Self {
        self.verification = verification;
        self
    }

    /// Timing bounds, per case (default: [`TestEnv::try_from_env`]).
    pub fn env(mut self, env: TestEnv) -> Self {
        self.env = Some(env);
        self
    }

    /// Budget and seed (default: [`ExtendedConfig::try_from_env`]).
    pub fn config(mut self, config: ExtendedConfig) -> Self {
        self.config = Some(config);
        self
    }

    /// The name results carry as their `target`.
    pub fn target(mut self, name: impl Into<String>) -> Self {
        self.target = name.into();
        self
    }

    fn resolved(&self) -> Result<(TestEnv, ExtendedConfig), ExtendedConfigError> {
        let env = match self.env {
            Some(env) => env,
            None => TestEnv::try_from_env()?,
        };
        let config = match self.config {
            Some(config) => config,
            None => ExtendedConfig::try_from_env()?,
        };
        Ok((env, config))
    }

    /// Runs one extended test by name (`"tck_extended_schedules"`).
    ///
    /// # Panics
    ///
    /// If `test` is not in [`TESTS`].
    pub fn run(&self, test: &str) -> Result<RuleResult, ExtendedConfigError> {
        let (env, config) = self.resolved()?;
        let meta = RuleMeta::new(
            self.verification,
            self.target.clone(),
            rule_of_test(test),
            test,
        );
        let factory = self.factory.clone();
        let target = (self.verification, self.target.clone());
        Ok(match test {
            "tck_extended_schedules" => {
                let rounds = config.cases().div_ceil(config.parallelism() as u64) + MAX_SHRINK_RUNS;
                runner::run_rule(&meta, &whole_run(&env, rounds), move |cx| {
                    schedules(cx, &factory, &env, &config, &target)
                })
            }
            "tck_extended_stress" => {
                let rounds = config.stress_iterations();
                runner::run_rule(&meta, &whole_run(&env, rounds), move |cx| {
                    stress(cx, &factory, &env, &config, &target)
                })
            }
            other => panic!("no extended publisher test named {other}"),
        })
    }

    /// Runs every extended test, in [`TESTS`] order.
    pub fn run_all(&self) -> Result<Vec<RuleResult>, ExtendedConfigError> {
        TESTS.iter().map(|test| self.run(test)).collect()
    }
}

/// The watchdog of a whole extended test: each case has the usual one, so
/// this only has to outlast `rounds` of them.
pub(crate) fn whole_run(env: &TestEnv, rounds: u64) -> TestEnv {
    let rounds = u32::try_from(rounds.saturating_add(2)).unwrap_or(u32::MAX);
    TestEnv::builder()
        .timeout(env.timeout())
        .no_signal_timeout(env.no_signal_timeout())
        .prompt(env.prompt())
        .watchdog(
            env.watchdog()
                .checked_mul(rounds)
                .unwrap_or(Duration::from_secs(24 * 3600)),
        )
        .build()
}

fn case_meta((verification, target): &(Verification, String), test: &str) -> RuleMeta {
    RuleMeta::new(*verification, target.clone(), rule_of_test(test), test)
}

fn schedules<F: PublisherFactory>(
    cx: &RuleCx,
    factory: &Arc<F>,
    env: &TestEnv,
    config: &ExtendedConfig,
    target: &(Verification, String),
) -> RuleBody {
    let failed = match crate::publisher::rules::create_failed(cx, &**factory) {
        Ok(failed) => failed.is_some(),
        Err(failure) => return Err(failure),
    };
    let strategy = schedule::schedules_of_lengths(
        schedule::Offer {
            max_elements: factory.max_elements(),
            multiple_subscribers: factory.supports_multiple_subscribers(),
            failed,
        },
        factory.min_elements(),
    );
    let meta = case_meta(target, "tck_extended_schedules");
    explore::explore(cx, config, "schedule", strategy, |case: &Schedule| {
        let (factory, case) = (factory.clone(), case.clone());
        runner::run_rule(&meta, env, move |cx| {
            schedule::exec::run(cx, &*factory, &case)
        })
    })
}

fn stress<F: PublisherFactory>(
    cx: &RuleCx,
    factory: &Arc<F>,
    env: &TestEnv,
    config: &ExtendedConfig,
    target: &(Verification, String),
) -> RuleBody {
    let threads = config.stress_threads();
    let needed = StressPlan::max_elements_needed(threads);
    if !factory.run_stochastic() {
        return Ok(Outcome::Skipped(String::from(
            "a stochastic check; the factory's run_stochastic() is false",
        )));
    }
    if factory.max_elements() < needed {
        return Ok(Outcome::Skipped(format!(
            "needs publishers of up to {needed} elements; the factory's max_elements() is {}",
            factory.max_elements()
        )));
    }
    let fewest = StressPlan::min_elements_needed(threads);
    if factory.min_elements() > fewest {
        return Ok(Outcome::Skipped(format!(
            "needs publishers of as few as {fewest} elements; the factory's min_elements() is {}",
            factory.min_elements()
        )));
    }
    let meta = case_meta(target, "tck_extended_stress");
    let iterations = config.stress_iterations();
    cx.trace(format!(
        "{iterations} iterations of {threads} threads from seed {} ({STRESS_ITERATIONS_ENV}, {SEED_ENV})",
        show_seed(config.seed())
    ));
    for iteration in 0..iterations {
        let seed = case_seed(config.seed(), iteration);
        let plan = StressPlan::draw(seed, threads);
        let (factory, run_plan) = (factory.clone(), plan.clone());
        let result = runner::run_rule(&meta, env, move |cx| stress::run(cx, &*factory, &run_plan));
        if result.verdict == Verdict::Failed {
            for event in &result.trace {
                cx.trace(format!("[{}] {}", event.thread, event.event));
            }
            return Err(Failure::new(
                cx.rule(),
                "every stress iteration to pass",
                format!(
                    "iteration {} of {iterations} → {}\nwhat each thread did, lined up by a barrier before each call:\n{plan}\n(seed {}; replay it alone with {SEED_ENV}={} {STRESS_ITERATIONS_ENV}=1)",
                    iteration + 1,
                    result.message.as_deref().unwrap_or("(no message)"),
                    show_seed(config.seed()),
                    show_seed(seed),
                ),
            ));
        }
    }
    Ok(Outcome::Passed)
}

/// What a generated `#[test]` calls. Not API.
#[doc(hidden)]
pub fn __run_generated<F: PublisherFactory>(test: &str, target: &str, factory: F) {
    let verification = PublisherExtendedVerification::new(factory).target(target);
    match verification.run(test) {
        Ok(result) => runner::conclude(&result),
        Err(error) => panic!("{error}"),
    }
}
