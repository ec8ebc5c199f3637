//! Running a table of rule tests against one factory: the part the source
//! and the sink verifications share. Rule bodies run through the core
//! [runner](crate::runner), one thread and one watchdog per rule.

use std::sync::Arc;

use crate::context::{Outcome, RuleBody, RuleCx};
use crate::env::{ConfigError, TestEnv};
use crate::outcome::{RuleResult, Verification};
use crate::runner::{self, rule_of_test, RuleMeta};

/// One rule test: when it cannot run, and its body.
pub struct RuleDef<F> {
    /// What the test needs from the factory: a function saying why the
    /// factory cannot serve it (it is then skipped), or `None` when it
    /// needs nothing.
    pub unmet: Option<fn(&F) -> Option<String>>,
    /// The body.
    pub run: fn(&RuleCx, &F) -> RuleBody,
}

/// Runs rule tests of one verification against one factory.
pub(crate) struct Suite<F> {
    pub(crate) verification: Verification,
    pub(crate) factory: Arc<F>,
    pub(crate) env: Option<TestEnv>,
    pub(crate) target: String,
    pub(crate) parallelism: usize,
}

impl<F: Send + Sync + 'static> Suite<F> {
    pub(crate) fn new(verification: Verification, factory: F) -> Self {
        let target = std::any::type_name::<F>()
            .rsplit("::")
            .next()
            .unwrap_or("factory")
            .to_string();
        Suite {
            verification,
            factory: Arc::new(factory),
            env: None,
            target,
            parallelism: 8,
        }
    }

    fn resolved_env(&self) -> Result<TestEnv, ConfigError> {
        match self.env {
            Some(env) => Ok(env),
            None => TestEnv::try_from_env(),
        }
    }

    pub(crate) fn run(
        &self,
        table: Vec<(&'static str, RuleDef<F>)>,
        test: &str,
    ) -> Result<RuleResult, ConfigError> {
        let env = self.resolved_env()?;
        let (name, def) = table
            .into_iter()
            .find(|(name, _)| *name == test)
            .unwrap_or_else(|| panic!("no {} rule test named {test}", self.verification));
        Ok(self.run_def(&env, name, def))
    }

    fn run_def(&self, env: &TestEnv, name: &'static str, def: RuleDef<F>) -> RuleResult {
        let meta = RuleMeta::new(
            self.verification,
            self.target.clone(),
            rule_of_test(name),
            name,
        );
        let factory = self.factory.clone();
        runner::run_rule(&meta, env, move |cx| {
            if let Some(reason) = def.unmet.and_then(|unmet| unmet(&factory)) {
                return Ok(Outcome::Skipped(reason));
            }
            (def.run)(cx, &factory)
        })
    }

    pub(crate) fn run_all(
        &self,
        table: Vec<(&'static str, RuleDef<F>)>,
    ) -> Result<Vec<RuleResult>, ConfigError> {
        let env = self.resolved_env()?;
        let mut results: Vec<Option<RuleResult>> = (0..table.len()).map(|_| None).collect();
        let mut pending: Vec<(usize, &'static str, RuleDef<F>)> = table
            .into_iter()
            .enumerate()
            .map(|(i, (name, def))| (i, name, def))
            .collect();
        pending.reverse();
        while !pending.is_empty() {
            let batch: Vec<_> = (0..self.parallelism)
                .filter_map(|_| pending.pop())
                .collect();
            std::thread::scope(|scope| {
                let handles: Vec<_> = batch
                    .into_iter()
                    .map(|(i, name, def)| (i, scope.spawn(move || self.run_def(&env, name, def))))
                    .collect();
                for (i, handle) in handles {
                    results[i] = handle.join().ok();
                }
            });
        }
        Ok(results.into_iter().flatten().collect())
    }
}

/// The skip reasons, if the factory's declarations skip every rule test
/// that needs anything from it: what still runs then proves next to
/// nothing. `None` when at least one such test runs (or none exists).
pub(crate) fn everything_skipped<F>(
    table: &[(&'static str, RuleDef<F>)],
    factory: &F,
) -> Option<Vec<String>> {
    let mut reasons = Vec::new();
    for (name, def) in table {
        if let Some(unmet) = def.unmet {
            reasons.push(format!("{name}: {}", unmet(factory)?));
        }
    }
    (!reasons.is_empty()).then_some(reasons)
}

/// What a generated `#[test]` does: runs one rule test and concludes it
/// (report folder, panic on failure, `skipped:` line).
pub(crate) fn run_generated(result: Result<RuleResult, ConfigError>) {
    match result {
        Ok(result) => runner::conclude(&result),
        Err(error) => panic!("{error}"),
    }
}

/// `3`, or `∞` for `u64::MAX`.
pub(crate) fn show(n: u64) -> String {
    if n == u64::MAX {
        String::from("∞")
    } else {
        n.to_string()
    }
}
