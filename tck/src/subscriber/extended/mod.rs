//! The extended subscriber verifications: generated signal sequences
//! ([`signals`](super::signals)) against the subscribers a blackbox or
//! whitebox factory makes, shrunk to a minimal script on failure.

use std::sync::Arc;

use super::config::{
    show_seed, ExtendedConfig, ExtendedConfigError, SEED_ENV, STRESS_ITERATIONS_ENV,
};
use super::explore::{self, case_seed, MAX_SHRINK_RUNS};
use super::publisher::whole_run;
use super::signals::{self, SignalScript};
use super::subscriber_stress::{self, SignalPlan};
use crate::context::{Failure, Outcome};
use crate::env::TestEnv;
use crate::outcome::{RuleResult, Verdict, Verification};
use crate::runner::{self, rule_of_test, RuleMeta};
use crate::subscriber::blackbox::Blackbox;
use crate::subscriber::stage::Subject;
use crate::subscriber::whitebox::Whitebox;
use crate::subscriber::{SubscriberBlackboxFactory, SubscriberWhiteboxFactory};

/// The extended whitebox subscriber tests: `tck_extended_schedules` (rule
/// id `tck.extended_schedules`).
pub const SUBSCRIBER_TESTS: &[&str] = &["tck_extended_schedules"];

/// The extended blackbox subscriber tests: `tck_extended_schedules` and
/// `tck_extended_stress` (rule id `tck.extended_stress`; see
/// [`subscriber_stress`](super::subscriber_stress)).
pub const BLACKBOX_TESTS: &[&str] = &["tck_extended_schedules", "tck_extended_stress"];

/// Budget, timing and name of one extended subscriber verification.
struct Settings {
    env: Option<TestEnv>,
    config: Option<ExtendedConfig>,
    target: String,
}

impl Settings {
    fn named<F>() -> Settings {
        Settings {
            env: None,
            config: None,
            target: std::any::type_name::<F>()
                .rsplit("::")
                .next()
                .unwrap_or("subscriber")
                .to_string(),
        }
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

    /// `tck_extended_stress` against a blackbox factory's subscribers.
    fn stress<F: SubscriberBlackboxFactory>(
        &self,
        subject: Arc<Blackbox<F>>,
    ) -> Result<RuleResult, ExtendedConfigError> {
        let (env, config) = self.resolved()?;
        let test = "tck_extended_stress";
        let meta = RuleMeta::new(
            Verification::SubscriberBlackbox,
            self.target.clone(),
            rule_of_test(test),
            test,
        );
        let case_meta = meta.clone();
        let iterations = config.stress_iterations();
        Ok(runner::run_rule(
            &meta,
            &whole_run(&env, iterations),
            move |cx| {
                let threads = config.stress_threads();
                cx.trace(format!(
                    "{iterations} iterations of {threads} signalling threads from seed {} ({STRESS_ITERATIONS_ENV}, {SEED_ENV})",
                    show_seed(config.seed())
                ));
                for iteration in 0..iterations {
                    let seed = case_seed(config.seed(), iteration);
                    let plan = SignalPlan::draw(seed, threads);
                    let (subject, run_plan) = (subject.clone(), plan.clone());
                    let result = runner::run_rule(&case_meta, &env, move |cx| {
                        subscriber_stress::run(cx, &subject.0, &run_plan)
                    });
                    if result.verdict == Verdict::Failed {
                        for event in &result.trace {
                            cx.trace(format!("[{}] {}", event.thread, event.event));
                        }
                        return Err(Failure::new(
                            cx.rule(),
                            "every stress iteration to pass",
                            format!(
                                "iteration {} of {iterations} → {}\nthe signals, one thread after the other: {plan}\n(seed {}; replay it alone with {SEED_ENV}={} {STRESS_ITERATIONS_ENV}=1)",
                                iteration + 1,
                                result.message.as_deref().unwrap_or("(no message)"),
                                show_seed(config.seed()),
                                show_seed(seed),
                            ),
                        ));
                    }
                }
                Ok(Outcome::Passed)
            },
        ))
    }

    fn run<X: Subject>(
        &self,
        subject: Arc<X>,
        verification: Verification,
        test: &str,
    ) -> Result<RuleResult, ExtendedConfigError> {
        assert!(
            SUBSCRIBER_TESTS.contains(&test),
            "no extended subscriber test named {test}"
        );
        let env = match self.env {
            Some(env) => env,
            None => TestEnv::try_from_env()?,
        };
        let config = match self.config {
            Some(config) => config,
            None => ExtendedConfig::try_from_env()?,
        };
        let meta = RuleMeta::new(verification, self.target.clone(), rule_of_test(test), test);
        let rounds = config.cases().div_ceil(config.parallelism() as u64) + MAX_SHRINK_RUNS;
        let case_meta = meta.clone();
        Ok(runner::run_rule(
            &meta,
            &whole_run(&env, rounds),
            move |cx| {
                explore::explore(
                    cx,
                    &config,
                    "script",
                    signals::signal_scripts(),
                    |case: &SignalScript| {
                        let (subject, case) = (subject.clone(), case.clone());
                        runner::run_rule(&case_meta, &env, move |cx| {
                            signals::run(cx, &*subject, &case)
                        })
                    },
                )
            },
        ))
    }
}

macro_rules! extended_subscriber_verification {
    ($(#[$doc:meta])* $name:ident, $factory:ident, $wrap:ident) => {
        $(#[$doc])*
        pub struct $name<F: $factory> {
            subject: Arc<$wrap<F>>,
            settings: Settings,
        }

        impl<F: $factory> $name<F> {
            /// An extended verification of `factory`'s subscribers, named
            /// after its type.
            pub fn new(factory: F) -> Self {
                $name {
                    subject: Arc::new($wrap(factory)),
                    settings: Settings::named::<F>(),
                }
            }

            /// Timing bounds, per case (default: [`TestEnv::try_from_env`]).
            pub fn env(mut self, env: TestEnv) -> Self {
                self.settings.env = Some(env);
                self
            }

            /// Budget and seed (default: [`ExtendedConfig::try_from_env`]).
            pub fn config(mut self, config: ExtendedConfig) -> Self {
                self.settings.config = Some(config);
                self
            }

            /// The name results carry as their `target`.
            pub fn target(mut self, name: impl Into<String>) -> Self {
                self.settings.target = name.into();
                self
            }

        }
    };
}

extended_subscriber_verification!(
    /// Generated signal sequences against a blackbox factory's subscribers.
    SubscriberBlackboxExtendedVerification,
    SubscriberBlackboxFactory,
    Blackbox
);

impl<F: SubscriberBlackboxFactory> SubscriberBlackboxExtendedVerification<F> {
    /// Runs one extended test by name (`"tck_extended_schedules"`,
    /// `"tck_extended_stress"`).
    ///
    /// # Panics
    ///
    /// If `test` is not in [`BLACKBOX_TESTS`].
    pub fn run(&self, test: &str) -> Result<RuleResult, ExtendedConfigError> {
        if test == "tck_extended_stress" {
            return self.settings.stress(self.subject.clone());
        }
        self.settings
            .run(self.subject.clone(), Verification::SubscriberBlackbox, test)
    }

    /// Runs every extended blackbox test, in [`BLACKBOX_TESTS`] order.
    pub fn run_all(&self) -> Result<Vec<RuleResult>, ExtendedConfigError> {
        BLACKBOX_TESTS.iter().map(|test| self.run(test)).collect()
    }
}

extended_subscriber_verification!(
    /// Generated signal sequences against a whitebox factory's subscribers
    /// (the nudge is the puppet's `trigger_request(1)`).
    SubscriberWhiteboxExtendedVerification,
    SubscriberWhiteboxFactory,
    Whitebox
);

impl<F: SubscriberWhiteboxFactory> SubscriberWhiteboxExtendedVerification<F> {
    /// Runs one extended test by name (`"tck_extended_schedules"`).
    ///
    /// # Panics
    ///
    /// If `test` is not in [`SUBSCRIBER_TESTS`].
    pub fn run(&self, test: &str) -> Result<RuleResult, ExtendedConfigError> {
        self.settings
            .run(self.subject.clone(), Verification::SubscriberWhitebox, test)
    }

    /// Runs every extended whitebox test.
    pub fn run_all(&self) -> Result<Vec<RuleResult>, ExtendedConfigError> {
        SUBSCRIBER_TESTS.iter().map(|test| self.run(test)).collect()
    }
}

/// What a generated blackbox `#[test]` calls. Not API.
#[doc(hidden)]
pub fn __run_generated_blackbox<F: SubscriberBlackboxFactory>(
    test: &str,
    target: &str,
    factory: F,
) {
    match SubscriberBlackboxExtendedVerification::new(factory)
        .target(target)
        .run(test)
    {
        Ok(result) => runner::conclude(&result),
        Err(error) => panic!("{error}"),
    }
}

/// What a generated whitebox `#[test]` calls. Not API.
#[doc(hidden)]
pub fn __run_generated_whitebox<F: SubscriberWhiteboxFactory>(
    test: &str,
    target: &str,
    factory: F,
) {
    match SubscriberWhiteboxExtendedVerification::new(factory)
        .target(target)
        .run(test)
    {
        Ok(result) => runner::conclude(&result),
        Err(error) => panic!("{error}"),
    }
}
