//! The extended subscriber verifications: generated signal sequences
//! ([`signals`](super::signals)) against the subscribers a blackbox or
//! whitebox factory makes, shrunk to a minimal script on failure.

use std::sync::Arc;

use super::config::{ExtendedConfig, ExtendedConfigError};
use super::explore::{self, MAX_SHRINK_RUNS};
use super::publisher::whole_run;
use super::signals::{self, SignalScript};
use crate::env::TestEnv;
use crate::outcome::{RuleResult, Verification};
use crate::runner::{self, rule_of_test, RuleMeta};
use crate::subscriber::blackbox::Blackbox;
use crate::subscriber::stage::Subject;
use crate::subscriber::whitebox::Whitebox;
use crate::subscriber::{SubscriberBlackboxFactory, SubscriberWhiteboxFactory};

/// The extended subscriber tests: `tck_extended_schedules` (rule id
/// `tck.extended_schedules`).
pub const SUBSCRIBER_TESTS: &[&str] = &["tck_extended_schedules"];

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
    ($(#[$doc:meta])* $name:ident, $factory:ident, $wrap:ident, $verification:expr) => {
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

            /// Runs one extended test by name (`"tck_extended_schedules"`).
            ///
            /// # Panics
            ///
            /// If `test` is not in [`SUBSCRIBER_TESTS`].
            pub fn run(&self, test: &str) -> Result<RuleResult, ExtendedConfigError> {
                self.settings.run(self.subject.clone(), $verification, test)
            }

            /// Runs every extended subscriber test.
            pub fn run_all(&self) -> Result<Vec<RuleResult>, ExtendedConfigError> {
                SUBSCRIBER_TESTS.iter().map(|test| self.run(test)).collect()
            }
        }
    };
}

extended_subscriber_verification!(
    /// Generated signal sequences against a blackbox factory's subscribers.
    SubscriberBlackboxExtendedVerification,
    SubscriberBlackboxFactory,
    Blackbox,
    Verification::SubscriberBlackbox
);

extended_subscriber_verification!(
    /// Generated signal sequences against a whitebox factory's subscribers
    /// (the nudge is the puppet's `trigger_request(1)`).
    SubscriberWhiteboxExtendedVerification,
    SubscriberWhiteboxFactory,
    Whitebox,
    Verification::SubscriberWhitebox
);

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
