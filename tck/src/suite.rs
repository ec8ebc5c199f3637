//! Runs a table of rule tests against one subject: one test by name (what a
//! generated `#[test]` does) or all of them at once (the library entry
//! point and the benchmark). Every verification is a thin wrapper around
//! it: its own table, subject, [`Verification`] kind and builder.
//!
//! Rule bodies run through the core [runner](crate::runner), one thread and
//! one watchdog per rule.

use std::sync::Arc;

use crate::context::{Outcome, RuleBody, RuleCx};
use crate::env::{ConfigError, TestEnv};
use crate::outcome::{RuleResult, Verdict, Verification};
use crate::runner::{self, rule_of_test, RuleMeta};

/// A rule test's body.
pub(crate) type Body<X> = Arc<dyn Fn(&RuleCx, &X) -> RuleBody + Send + Sync>;

/// Why the subject cannot serve a rule test (it is then skipped), or `None`
/// when it can.
pub(crate) type Unmet<X> = Arc<dyn Fn(&X) -> Option<String> + Send + Sync>;

/// A body from a plain function.
pub(crate) fn body<X: 'static>(f: fn(&RuleCx, &X) -> RuleBody) -> Body<X> {
    Arc::new(f)
}

/// One rule test of a table: what it needs from the subject, and its body.
pub(crate) struct Test<X> {
    /// `None` when the test needs nothing from the subject.
    pub(crate) unmet: Option<Unmet<X>>,
    pub(crate) body: Body<X>,
}

impl<X> From<Body<X>> for Test<X> {
    fn from(body: Body<X>) -> Self {
        Test { unmet: None, body }
    }
}

/// The rule tests of a verification, in order, by name.
pub(crate) type Table<X> = Vec<(&'static str, Test<X>)>;

/// A table of tests that need nothing from the subject.
pub(crate) fn plain<X>(table: Vec<(&'static str, Body<X>)>) -> Table<X> {
    table
        .into_iter()
        .map(|(name, body)| (name, Test::from(body)))
        .collect()
}

/// When [`Suite::run_all`] calls a run vacuous
/// ([`ConfigError::EverythingSkipped`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Vacuity {
    /// Never: every run counts.
    Allowed,
    /// After running, if every result that is not enforced by types is a
    /// skip.
    Observed,
}

/// Runs rule tests of one verification against one subject.
pub(crate) struct Suite<X> {
    pub(crate) subject: Arc<X>,
    pub(crate) env: Option<TestEnv>,
    pub(crate) target: String,
    pub(crate) verification: Verification,
    pub(crate) parallelism: usize,
}

/// The last segment of a type's path, generics stripped first.
pub(crate) fn short_type_name<F>() -> String {
    let full = std::any::type_name::<F>();
    let base = full.split('<').next().unwrap_or(full);
    base.rsplit("::").next().unwrap_or(base).to_string()
}

/// The last `::` segment of a type's full name (generics included).
pub(crate) fn type_tail<F>() -> String {
    let full = std::any::type_name::<F>();
    full.rsplit("::").next().unwrap_or(full).to_string()
}

impl<X: Send + Sync + 'static> Suite<X> {
    /// A suite of `verification` against `subject`, results named after
    /// its type, `parallelism` tests at a time.
    pub(crate) fn new(verification: Verification, subject: X, parallelism: usize) -> Self {
        Suite {
            subject: Arc::new(subject),
            env: None,
            target: type_tail::<X>(),
            verification,
            parallelism,
        }
    }

    pub(crate) fn resolved_env(&self) -> Result<TestEnv, ConfigError> {
        match self.env {
            Some(env) => Ok(env),
            None => TestEnv::try_from_env(),
        }
    }

    fn run_test(&self, env: &TestEnv, name: &'static str, test: Test<X>) -> RuleResult {
        let meta = RuleMeta::new(
            self.verification,
            self.target.clone(),
            rule_of_test(name),
            name,
        );
        let subject = self.subject.clone();
        runner::run_rule(&meta, env, move |cx| {
            cx.hold_subject(subject.clone());
            if let Some(reason) = test.unmet.and_then(|unmet| unmet(&subject)) {
                return Ok(Outcome::Skipped(reason));
            }
            (test.body)(cx, &subject)
        })
    }

    /// Runs one rule test by name.
    ///
    /// # Panics
    ///
    /// If the table has no test of that name.
    pub(crate) fn run(&self, table: Table<X>, test: &str) -> Result<RuleResult, ConfigError> {
        let env = self.resolved_env()?;
        let (name, found) = table
            .into_iter()
            .find(|(name, _)| *name == test)
            .unwrap_or_else(|| panic!("no {} rule test named {test}", self.verification));
        Ok(self.run_test(&env, name, found))
    }

    /// Runs every rule test, `parallelism` at a time (they mostly wait), and
    /// returns the results in table order; an error if the environment
    /// cannot be read or the run is vacuous by `vacuity`.
    pub(crate) fn run_all(
        &self,
        table: Table<X>,
        vacuity: Vacuity,
    ) -> Result<Vec<RuleResult>, ConfigError> {
        let env = self.resolved_env()?;
        let mut results: Vec<Option<RuleResult>> = table.iter().map(|_| None).collect();
        let mut pending: Vec<(usize, &'static str, Test<X>)> = table
            .into_iter()
            .enumerate()
            .map(|(i, (name, test))| (i, name, test))
            .collect();
        pending.reverse();
        while !pending.is_empty() {
            let batch: Vec<_> = (0..self.parallelism)
                .filter_map(|_| pending.pop())
                .collect();
            std::thread::scope(|scope| {
                let handles: Vec<_> = batch
                    .into_iter()
                    .map(|(i, name, test)| {
                        (i, scope.spawn(move || self.run_test(&env, name, test)))
                    })
                    .collect();
                for (i, handle) in handles {
                    results[i] = handle.join().ok();
                }
            });
        }
        let results: Vec<RuleResult> = results.into_iter().flatten().collect();
        if vacuity == Vacuity::Observed {
            if let Some(reasons) = observed_skips(&results) {
                return Err(ConfigError::EverythingSkipped { reasons });
            }
        }
        Ok(results)
    }
}

/// The skip reasons, if the subject's declarations skip every rule test
/// that needs anything from it: what still runs then proves next to
/// nothing. `None` when at least one such test runs (or none exists).
pub(crate) fn declared_skips<X>(table: &Table<X>, subject: &X) -> Option<Vec<String>> {
    let mut reasons = Vec::new();
    for (name, test) in table {
        if let Some(unmet) = &test.unmet {
            reasons.push(format!("{name}: {}", unmet(subject)?));
        }
    }
    (!reasons.is_empty()).then_some(reasons)
}

/// The skip reasons, if every result not enforced by types was skipped.
fn observed_skips(results: &[RuleResult]) -> Option<Vec<String>> {
    let reasons: Vec<String> = results
        .iter()
        .filter(|r| r.verdict != Verdict::EnforcedByTypes)
        .map(|r| {
            (r.verdict == Verdict::Skipped)
                .then(|| format!("{}: {}", r.test, r.message.as_deref().unwrap_or_default()))
        })
        .collect::<Option<_>>()?;
    (!reasons.is_empty()).then_some(reasons)
}

pub(crate) use runner::__conclude as run_generated;

/// Generates the settings every quick verification type has (`env`,
/// `target`, `parallelism`), for a struct with a `suite: Suite<F>` field
/// made with `$parallelism` rules at once.
macro_rules! suite_settings {
    ($ty:ident, $factory_trait:ident, $parallelism:literal) => {
        impl<F: $factory_trait> $ty<F> {
            /// Timing bounds (default: [`TestEnv::try_from_env`](crate::env::TestEnv::try_from_env)).
            pub fn env(mut self, env: $crate::env::TestEnv) -> Self {
                self.suite.env = Some(env);
                self
            }

            /// The name results carry as their `target` (default: the
            /// factory's type name).
            pub fn target(mut self, name: impl Into<String>) -> Self {
                self.suite.target = name.into();
                self
            }

            #[doc = concat!(
                        "How many rule tests [`run_all`](Self::run_all) runs at once (default ",
                        $parallelism,
                        "; they mostly wait)."
                    )]
            pub fn parallelism(mut self, rules_at_once: usize) -> Self {
                self.suite.parallelism = rules_at_once.max(1);
                self
            }
        }
    };
}
pub(crate) use suite_settings;

/// Generates `new` and `run`, and the settings, of a verification type
/// whose struct holds only `suite: Suite<F>`, made with 8 rules at once,
/// and whose rule tests come from a `table::<F>()` function of its module;
/// the module writes `run_all` (what makes a run vacuous differs).
macro_rules! table_verification_builder {
    ($ty:ident, $factory_trait:ident, $kind:ident, $noun:literal, $example:literal) => {
        $crate::suite::suite_settings!($ty, $factory_trait, 8);

        impl<F: $factory_trait> $ty<F> {
            #[doc = concat!("A verification of `factory`'s ", $noun, ", named after its type.")]
            pub fn new(factory: F) -> Self {
                $ty {
                    suite: $crate::suite::Suite::new(
                        $crate::outcome::Verification::$kind,
                        factory,
                        8,
                    ),
                }
            }

            #[doc = concat!("Runs one rule test by name (`\"", $example, "\"`).")]
            ///
            /// # Panics
            ///
            /// If `test` is not in [`TESTS`].
            pub fn run(
                &self,
                test: &str,
            ) -> Result<$crate::outcome::RuleResult, $crate::env::ConfigError> {
                self.suite.run(table::<F>(), test)
            }
        }
    };
}
pub(crate) use table_verification_builder;

/// Generates the builder the subscriber and processor verification types
/// share: `$table` is the function making their table.
macro_rules! verification_builder {
    ($ty:ident, $factory_trait:ident, $table:path) => {
        $crate::suite::suite_settings!($ty, $factory_trait, 16);

        impl<F: $factory_trait> $ty<F> {
            /// Runs one rule test by name (`"spec_2_05"`).
            ///
            /// # Panics
            ///
            /// If there is no rule test of that name.
            pub fn run(
                &self,
                test: &str,
            ) -> Result<$crate::outcome::RuleResult, $crate::env::ConfigError> {
                self.suite.run($crate::suite::plain($table()), test)
            }

            /// Runs every rule test and returns the results in test order.
            ///
            /// An error if the environment variables cannot be read, or if
            /// every rule test was skipped (a green run that proves nothing).
            pub fn run_all(
                &self,
            ) -> Result<Vec<$crate::outcome::RuleResult>, $crate::env::ConfigError> {
                self.suite.run_all(
                    $crate::suite::plain($table()),
                    $crate::suite::Vacuity::Observed,
                )
            }
        }

        impl<F: $factory_trait> std::fmt::Debug for $ty<F> {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.debug_struct(stringify!($ty))
                    .field("target", &self.suite.target)
                    .finish_non_exhaustive()
            }
        }
    };
}
pub(crate) use verification_builder;

/// Generates the builder the `futures::Stream` and `futures::Sink`
/// verifications share: quick rule tests from `$rules::body` plus the
/// generated schedules of `$schedules::explore_schedules`, run as the test
/// `tck_extended_schedules`. The type holds `suite` and `extended`.
macro_rules! scheduled_verification_builder {
    ($ty:ident, $factory_trait:ident, $kind:ident, $rules:path, $schedules:path, $noun:literal, $example:literal) => {
        $crate::suite::suite_settings!($ty, $factory_trait, "8");

        impl<F: $factory_trait> $ty<F> {
            /// A verification of `factory`, named after its type.
            pub fn new(factory: F) -> Self {
                $ty {
                    suite: $crate::suite::Suite::new(
                        $crate::outcome::Verification::$kind,
                        factory,
                        8,
                    ),
                    extended: None,
                }
            }

            /// Budget and seed of `tck_extended_schedules` (default:
            /// [`ExtendedConfig::try_from_env`](crate::explore::config::ExtendedConfig::try_from_env)).
            pub fn extended(mut self, config: $crate::explore::config::ExtendedConfig) -> Self {
                self.extended = Some(config);
                self
            }

            fn table(&self) -> $crate::suite::Table<F> {
                use $rules as rules;
                use $schedules as schedules;
                let extended = self.extended;
                TESTS
                    .iter()
                    .map(|&name| {
                        let body = if name == $crate::explore::SCHEDULES_TEST {
                            std::sync::Arc::new(move |cx: &$crate::context::RuleCx, factory: &F| {
                                schedules::explore_schedules(cx, factory, extended)
                            }) as $crate::suite::Body<F>
                        } else {
                            std::sync::Arc::new(rules::body::<F>(name)) as $crate::suite::Body<F>
                        };
                        (name, $crate::suite::Test::from(body))
                    })
                    .collect()
            }

            #[doc = concat!("Runs one rule test by name (`\"", $example, "\"`).")]
            ///
            /// # Panics
            ///
            /// If `test` is not in [`TESTS`].
            pub fn run(
                &self,
                test: &str,
            ) -> Result<$crate::outcome::RuleResult, $crate::env::ConfigError> {
                assert!(TESTS.contains(&test), "no {} rule test named {test}", $noun);
                self.suite.run(self.table(), test)
            }

            /// Runs every rule test, in [`TESTS`] order.
            pub fn run_all(
                &self,
            ) -> Result<Vec<$crate::outcome::RuleResult>, $crate::env::ConfigError> {
                self.suite
                    .run_all(self.table(), $crate::suite::Vacuity::Allowed)
            }

            /// Runs the quick rule tests (every test but
            /// `tck_extended_schedules`), in [`TESTS`] order.
            pub fn run_quick(
                &self,
            ) -> Result<Vec<$crate::outcome::RuleResult>, $crate::env::ConfigError> {
                let table = self
                    .table()
                    .into_iter()
                    .filter(|(name, _)| *name != $crate::explore::SCHEDULES_TEST)
                    .collect();
                self.suite.run_all(table, $crate::suite::Vacuity::Allowed)
            }
        }

        impl<F: $factory_trait> std::fmt::Debug for $ty<F> {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.debug_struct(stringify!($ty))
                    .field("target", &self.suite.target)
                    .finish_non_exhaustive()
            }
        }
    };
}
pub(crate) use scheduled_verification_builder;
