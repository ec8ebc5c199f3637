//! Runs a table of rule tests against one subject: one test by name (what a
//! generated `#[test]` does) or all of them at once (the library entry
//! point and the benchmark). Shared by the subscriber and processor
//! verifications.

use std::sync::Arc;

use crate::context::{RuleBody, RuleCx};
use crate::env::{ConfigError, TestEnv};
use crate::outcome::{RuleResult, Verdict, Verification};
use crate::runner::{self, rule_of_test, RuleMeta};

/// A rule test's body.
pub(crate) type Body<X> = Arc<dyn Fn(&RuleCx, &X) -> RuleBody + Send + Sync>;

/// A body from a plain function.
pub(crate) fn body<X: 'static>(f: fn(&RuleCx, &X) -> RuleBody) -> Body<X> {
    Arc::new(f)
}

pub(crate) struct Suite<X> {
    pub(crate) subject: Arc<X>,
    pub(crate) env: Option<TestEnv>,
    pub(crate) target: String,
    pub(crate) verification: Verification,
    pub(crate) parallelism: usize,
    pub(crate) table: fn() -> Vec<(&'static str, Body<X>)>,
}

/// The last segment of a type's path: how a verification names its target
/// when not told otherwise.
pub(crate) fn short_type_name<F>() -> String {
    let full = std::any::type_name::<F>();
    let base = full.split('<').next().unwrap_or(full);
    base.rsplit("::").next().unwrap_or(base).to_string()
}

impl<X: Send + Sync + 'static> Suite<X> {
    fn resolved_env(&self) -> Result<TestEnv, ConfigError> {
        match self.env {
            Some(env) => Ok(env),
            None => TestEnv::try_from_env(),
        }
    }

    fn run_body(&self, env: &TestEnv, name: &'static str, body: Body<X>) -> RuleResult {
        let meta = RuleMeta::new(
            self.verification,
            self.target.clone(),
            rule_of_test(name),
            name,
        );
        let subject = self.subject.clone();
        runner::run_rule(&meta, env, move |cx| body(cx, &subject))
    }

    /// Runs one rule test by name.
    ///
    /// # Panics
    ///
    /// If the table has no test of that name.
    pub(crate) fn run(&self, test: &str) -> Result<RuleResult, ConfigError> {
        let env = self.resolved_env()?;
        let (name, body) = (self.table)()
            .into_iter()
            .find(|(name, _)| *name == test)
            .unwrap_or_else(|| panic!("no {} rule test named {test}", self.verification));
        Ok(self.run_body(&env, name, body))
    }

    /// Runs every rule test, `parallelism` at a time (they mostly wait), and
    /// returns the results in table order. An error if every test skipped.
    pub(crate) fn run_all(&self) -> Result<Vec<RuleResult>, ConfigError> {
        let env = self.resolved_env()?;
        let mut pending: Vec<(usize, &'static str, Body<X>)> = (self.table)()
            .into_iter()
            .enumerate()
            .map(|(i, (name, body))| (i, name, body))
            .collect();
        let mut results: Vec<Option<RuleResult>> = pending.iter().map(|_| None).collect();
        pending.reverse();
        while !pending.is_empty() {
            let batch: Vec<_> = (0..self.parallelism)
                .filter_map(|_| pending.pop())
                .collect();
            std::thread::scope(|scope| {
                let handles: Vec<_> = batch
                    .into_iter()
                    .map(|(i, name, body)| {
                        (i, scope.spawn(move || self.run_body(&env, name, body)))
                    })
                    .collect();
                for (i, handle) in handles {
                    results[i] = handle.join().ok();
                }
            });
        }
        let results: Vec<RuleResult> = results.into_iter().flatten().collect();
        let reasons: Option<Vec<String>> = results
            .iter()
            .filter(|r| r.verdict != Verdict::EnforcedByTypes)
            .map(|r| {
                (r.verdict == Verdict::Skipped)
                    .then(|| format!("{}: {}", r.test, r.message.as_deref().unwrap_or_default()))
            })
            .collect();
        match reasons {
            Some(reasons) if !reasons.is_empty() => Err(ConfigError::EverythingSkipped { reasons }),
            _ => Ok(results),
        }
    }
}

/// Generates the builder shared by the public verification types.
macro_rules! verification_builder {
    ($ty:ident, $factory_trait:ident) => {
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

            /// How many rule tests [`run_all`](Self::run_all) runs at once
            /// (default 16; they mostly wait).
            pub fn parallelism(mut self, rules_at_once: usize) -> Self {
                self.suite.parallelism = rules_at_once.max(1);
                self
            }

            /// Runs one rule test by name (`"spec_2_05"`).
            ///
            /// # Panics
            ///
            /// If there is no rule test of that name.
            pub fn run(
                &self,
                test: &str,
            ) -> Result<$crate::outcome::RuleResult, $crate::env::ConfigError> {
                self.suite.run(test)
            }

            /// Runs every rule test and returns the results in test order.
            ///
            /// An error if the environment variables cannot be read, or if
            /// every rule test was skipped (a green run that proves nothing).
            pub fn run_all(
                &self,
            ) -> Result<Vec<$crate::outcome::RuleResult>, $crate::env::ConfigError> {
                self.suite.run_all()
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
