//! The one verification engine. A subject declares its test list (quick
//! and extended entries, each with what it needs and its body) and a
//! verification type holding an [`Engine`]; the [`verification!`] builder
//! gives every verification type the same methods (`new`, `env`, `target`,
//! `parallelism`, `extended`, `run`, `run_all`, `run_extended`), one
//! configuration and one error type.
//!
//! Quick tests run through the core [runner](crate::runner), one thread and
//! one watchdog per rule, several at once; extended tests (generated cases,
//! stress) run one at a time after them, each under the watchdog of its
//! whole run, and only when the verification was given `extended(config)`
//! (or is asked for one by name).

use std::sync::Arc;

use crate::context::{Outcome, RuleBody, RuleCx};
use crate::env::{ConfigError, TestEnv};
use crate::explore::config::ExtendedConfig;
use crate::outcome::{RuleResult, Verdict, Verification};
use crate::runner::{self, RuleMeta, rule_of_test};

/// A quick rule test's body.
pub(crate) type Body<X> = Arc<dyn Fn(&RuleCx, &X) -> RuleBody + Send + Sync>;

/// Why the subject cannot serve a rule test (it is then skipped), or `None`
/// when it can.
pub(crate) type Unmet<X> = Arc<dyn Fn(&X) -> Option<String> + Send + Sync>;

/// What an extended test runs with: its rule metadata, the timing bounds of
/// each of its cases, and the budget and seed.
pub(crate) type Prepared = (RuleMeta, TestEnv, ExtendedConfig);

/// An extended test: it runs its own cases (each a rule test of its own)
/// and returns the result of the whole.
pub(crate) type Explore<X> = Arc<dyn Fn(&Arc<X>, Prepared) -> RuleResult + Send + Sync>;

/// A body from a plain function.
pub(crate) fn body<X: 'static>(f: BodyFn<X>) -> Body<X> {
    Arc::new(f)
}

/// How one test of a list runs.
pub(crate) enum Run<X> {
    /// A quick rule test: one body under one watchdog.
    Quick(Body<X>),
    /// An extended test: generated cases or stress iterations.
    Extended(Explore<X>),
}

/// One test of a subject's list: what it needs from the subject, and how it
/// runs.
pub(crate) struct Test<X> {
    /// `None` when the test needs nothing from the subject (extended tests
    /// decide their skips themselves).
    pub(crate) unmet: Option<Unmet<X>>,
    pub(crate) run: Run<X>,
}

impl<X> Test<X> {
    /// An extended test.
    pub(crate) fn extended<E>(explore: E) -> Self
    where
        E: Fn(&Arc<X>, Prepared) -> RuleResult + Send + Sync + 'static,
    {
        Test {
            unmet: None,
            run: Run::Extended(Arc::new(explore)),
        }
    }

    /// An extended test that runs as one rule test, under the usual
    /// watchdog: `body` explores its cases itself.
    pub(crate) fn extended_rule(body: ExploreFn<X>) -> Self
    where
        X: Send + Sync + 'static,
    {
        Test::extended(move |subject: &Arc<X>, (meta, env, config): Prepared| {
            let subject = subject.clone();
            runner::run_rule(&meta, &env, move |cx| {
                cx.hold_subject(subject.clone());
                body(cx, &subject, config)
            })
        })
    }

    fn is_extended(&self) -> bool {
        matches!(self.run, Run::Extended(_))
    }
}

impl<X> From<Body<X>> for Test<X> {
    fn from(body: Body<X>) -> Self {
        Test {
            unmet: None,
            run: Run::Quick(body),
        }
    }
}

/// The tests of a verification, in order, by name.
pub(crate) type Table<X> = Vec<(&'static str, Test<X>)>;

/// A table of quick tests that need nothing from the subject.
pub(crate) fn plain<X>(table: Vec<(&'static str, Body<X>)>) -> Table<X> {
    table
        .into_iter()
        .map(|(name, body)| (name, Test::from(body)))
        .collect()
}

/// A quick rule test's body as a plain function.
pub(crate) type BodyFn<X> = fn(&RuleCx, &X) -> RuleBody;

/// An extended test's body that explores its cases as one rule test.
pub(crate) type ExploreFn<X> = fn(&RuleCx, &X, ExtendedConfig) -> RuleBody;

/// A table of quick tests whose bodies `body` finds by name, then
/// `extended`: the extended tests, each exploring its cases as one rule
/// test.
pub(crate) fn by_name<X: Send + Sync + 'static>(
    quick: &[&'static str],
    body: fn(&str) -> BodyFn<X>,
    extended: &[(&'static str, ExploreFn<X>)],
) -> Table<X> {
    let quick = quick
        .iter()
        .map(|&name| (name, Test::from(self::body(body(name)))));
    let extended = extended
        .iter()
        .map(|&(name, explore)| (name, Test::extended_rule(explore)));
    quick.chain(extended).collect()
}

/// When [`Engine::run_all`] calls a run vacuous
/// ([`ConfigError::EverythingSkipped`]).
#[derive(Clone, Copy)]
pub(crate) enum Vacuity<X> {
    /// Never: every run counts.
    Allowed,
    /// Before running, if the subject's declarations give these reasons.
    Declared(fn(&X) -> Option<Vec<String>>),
    /// After running, if every result that is not enforced by types is a
    /// skip.
    Observed,
}

/// Runs the tests of one verification against one subject.
pub(crate) struct Engine<X> {
    pub(crate) subject: Arc<X>,
    pub(crate) env: Option<TestEnv>,
    pub(crate) extended: Option<ExtendedConfig>,
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

impl<X: Send + Sync + 'static> Engine<X> {
    /// An engine of `verification` against `subject`, results named after
    /// the factory type `F`, `parallelism` quick tests at a time.
    pub(crate) fn new<F>(verification: Verification, subject: X, parallelism: usize) -> Self {
        Engine {
            subject: Arc::new(subject),
            env: None,
            extended: None,
            target: short_type_name::<F>(),
            verification,
            parallelism,
        }
    }

    fn resolved_env(&self) -> Result<TestEnv, ConfigError> {
        match self.env {
            Some(env) => Ok(env),
            None => TestEnv::try_from_env(),
        }
    }

    fn resolved_config(&self) -> Result<ExtendedConfig, ConfigError> {
        match self.extended {
            Some(config) => Ok(config),
            None => ExtendedConfig::try_from_env(),
        }
    }

    fn meta(&self, name: &'static str) -> RuleMeta {
        RuleMeta::new(
            self.verification,
            self.target.clone(),
            rule_of_test(name),
            name,
        )
    }

    fn run_quick(
        &self,
        env: &TestEnv,
        name: &'static str,
        unmet: Option<Unmet<X>>,
        body: Body<X>,
    ) -> RuleResult {
        let subject = self.subject.clone();
        runner::run_rule(&self.meta(name), env, move |cx| {
            cx.hold_subject(subject.clone());
            if let Some(reason) = unmet.and_then(|unmet| unmet(&subject)) {
                return Ok(Outcome::Skipped(reason));
            }
            body(cx, &subject)
        })
    }

    fn run_test(
        &self,
        env: &TestEnv,
        name: &'static str,
        test: Test<X>,
    ) -> Result<RuleResult, ConfigError> {
        Ok(match test.run {
            Run::Quick(body) => self.run_quick(env, name, test.unmet, body),
            Run::Extended(explore) => explore(
                &self.subject,
                (self.meta(name), *env, self.resolved_config()?),
            ),
        })
    }

    /// Runs one test by name, quick or extended.
    ///
    /// # Panics
    ///
    /// If the table has no test of that name.
    pub(crate) fn run(&self, table: Table<X>, test: &str) -> Result<RuleResult, ConfigError> {
        let env = self.resolved_env()?;
        let (name, found) = table
            .into_iter()
            .find(|(name, _)| *name == test)
            .unwrap_or_else(|| panic!("no {} test named {test}", self.verification));
        self.run_test(&env, name, found)
    }

    /// Runs every quick test, `parallelism` at a time (they mostly wait),
    /// then, given an extended configuration, every extended test in turn
    /// (each loads the machine on its own); the results in table order. An
    /// error if the environment cannot be read or the run is vacuous by
    /// `vacuity`.
    pub(crate) fn run_all(
        &self,
        table: Table<X>,
        vacuity: Vacuity<X>,
    ) -> Result<Vec<RuleResult>, ConfigError> {
        // Declarations first, before the environment: the order of the
        // errors is part of the contract.
        if let Vacuity::Declared(declared) = vacuity {
            if let Some(reasons) = declared(&self.subject) {
                return Err(ConfigError::EverythingSkipped { reasons });
            }
        }
        let env = self.resolved_env()?;
        let (extended, quick): (Table<X>, Table<X>) =
            table.into_iter().partition(|(_, test)| test.is_extended());
        let mut results = self.run_parallel(&env, quick);
        if self.extended.is_some() {
            for (name, test) in extended {
                results.push(self.run_test(&env, name, test)?);
            }
        }
        if let Vacuity::Observed = vacuity {
            if let Some(reasons) = observed_skips(&results) {
                return Err(ConfigError::EverythingSkipped { reasons });
            }
        }
        Ok(results)
    }

    /// Runs every extended test in turn, with the builder's configuration
    /// or the environment's.
    pub(crate) fn run_extended(&self, table: Table<X>) -> Result<Vec<RuleResult>, ConfigError> {
        let env = self.resolved_env()?;
        table
            .into_iter()
            .filter(|(_, test)| test.is_extended())
            .map(|(name, test)| self.run_test(&env, name, test))
            .collect()
    }

    fn run_parallel(&self, env: &TestEnv, table: Table<X>) -> Vec<RuleResult> {
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
                        (i, scope.spawn(move || self.run_test(env, name, test).ok()))
                    })
                    .collect();
                for (i, handle) in handles {
                    results[i] = handle.join().ok().flatten();
                }
            });
        }
        results.into_iter().flatten().collect()
    }
}

/// The skip reasons, if the subject's declarations skip every quick test
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

/// The builder every verification type has, for a struct
/// `$ty<F: $factory>` holding `engine: Engine<$subject>`: `new` (making the
/// subject from the factory with `$make`), `env`, `target`, `parallelism`,
/// `extended`, `run` and `run_all` (over `$table`, vacuous by `$vacuity`),
/// and `Debug`.
macro_rules! verification {
    (
        $ty:ident<F: $factory:ident>, $kind:ident, subject: $subject:ty, make: $make:expr,
        parallelism: $parallelism:literal, table: $table:expr, vacuity: $vacuity:expr,
        example: $example:literal $(,)?
    ) => {
        impl<F: $factory> $ty<F> {
            /// A verification of `factory`, its results named after the
            /// factory's type.
            pub fn new(factory: F) -> Self {
                let make: fn(F) -> $subject = $make;
                $ty {
                    engine: $crate::engine::Engine::new::<F>(
                        $crate::outcome::Verification::$kind,
                        make(factory),
                        $parallelism,
                    ),
                }
            }

            /// Timing bounds (default: [`TestEnv::try_from_env`](crate::env::TestEnv::try_from_env)).
            pub fn env(mut self, env: $crate::env::TestEnv) -> Self {
                self.engine.env = Some(env);
                self
            }

            /// The name results carry as their `target` (default: the
            /// factory's type name).
            pub fn target(mut self, name: impl Into<String>) -> Self {
                self.engine.target = name.into();
                self
            }

            #[doc = concat!(
                        "How many quick tests [`run_all`](Self::run_all) runs at once (default ",
                        stringify!($parallelism),
                        "; they mostly wait)."
                    )]
            pub fn parallelism(mut self, tests_at_once: usize) -> Self {
                self.engine.parallelism = tests_at_once.max(1);
                self
            }

            /// Includes the extended tests (`tck_extended_…`: generated
            /// cases shrunk to a minimal counterexample, stress) in
            /// [`run_all`](Self::run_all), with this budget and seed. A
            /// test run by name with [`run`](Self::run) reads them from
            /// `RS_TCK_CASES`, `RS_TCK_SEED` and `RS_TCK_STRESS_ITERATIONS`
            /// when this is not given.
            pub fn extended(mut self, config: $crate::explore::config::ExtendedConfig) -> Self {
                self.engine.extended = Some(config);
                self
            }

            #[doc = concat!("Runs one test by name (`\"", $example, "\"`), quick or extended.")]
            ///
            /// An error if the environment variables cannot be read.
            ///
            /// # Panics
            ///
            /// If `test` is not in [`TESTS`].
            pub fn run(
                &self,
                test: &str,
            ) -> Result<$crate::outcome::RuleResult, $crate::env::ConfigError> {
                let table: fn() -> $crate::engine::Table<$subject> = $table;
                self.engine.run(table(), test)
            }

            /// Runs every quick test, and every extended one when
            /// [`extended`](Self::extended) was given, and returns the
            /// results in [`TESTS`] order.
            ///
            /// An error if the environment variables cannot be read, or if
            /// the factory's declarations skip every test that needs
            /// anything from it (a green run that proves nothing).
            pub fn run_all(
                &self,
            ) -> Result<Vec<$crate::outcome::RuleResult>, $crate::env::ConfigError> {
                let table: fn() -> $crate::engine::Table<$subject> = $table;
                self.engine.run_all(table(), $vacuity)
            }
        }

        impl<F: $factory> $ty<F> {
            /// Runs only the extended tests, in [`TESTS`] order, with the
            /// [`extended`](Self::extended) configuration or, without it,
            /// `RS_TCK_CASES`, `RS_TCK_SEED` and `RS_TCK_STRESS_ITERATIONS`:
            /// for a job that runs the quick tests elsewhere.
            pub fn run_extended(
                &self,
            ) -> Result<Vec<$crate::outcome::RuleResult>, $crate::env::ConfigError> {
                let table: fn() -> $crate::engine::Table<$subject> = $table;
                self.engine.run_extended(table())
            }
        }

        impl<F: $factory> std::fmt::Debug for $ty<F> {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.debug_struct(stringify!($ty))
                    .field("target", &self.engine.target)
                    .finish_non_exhaustive()
            }
        }
    };
}
pub(crate) use verification;
