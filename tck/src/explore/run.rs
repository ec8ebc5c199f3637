//! What every extended verification shares around its cases: its settings
//! (timing, budget and seed, target name), the watchdog of a whole run,
//! generated cases each run as a rule test of its own, and the loop of
//! stress iterations. Subjects plug in their case generators and case
//! runners; nothing here knows a subject.

use std::time::Duration;

use proptest::strategy::Strategy;

use super::config::{ExtendedConfig, SEED_ENV, STRESS_ITERATIONS_ENV, show_seed};
use super::{MAX_SHRINK_RUNS, Scripted, case_seed, explore};
use crate::context::{Failure, Outcome, RuleBody, RuleCx};
use crate::env::TestEnv;
use crate::outcome::{RuleResult, Verdict};
use crate::runner::{self, RuleMeta};

/// The watchdog of a whole extended test: each case has the usual one, so
/// this only has to outlast `rounds` of them.
pub(crate) fn whole_run(env: &TestEnv, rounds: u64) -> TestEnv {
    let rounds = u32::try_from(rounds.saturating_add(2)).unwrap_or(u32::MAX);
    TestEnv::builder()
        .timeout(env.timeout())
        .no_signal_timeout(env.no_signal_timeout())
        .prompt(env.prompt())
        .idle(env.idle())
        .watchdog(
            env.watchdog()
                .checked_mul(rounds)
                .unwrap_or(Duration::from_secs(24 * 3600)),
        )
        .build()
}

/// One rule test made of generated cases: `body` (which explores them,
/// typically with [`explore_cases`]) runs under a watchdog long enough for
/// every round of cases and of shrinking.
pub(crate) fn exploration<B>(
    meta: &RuleMeta,
    env: &TestEnv,
    config: &ExtendedConfig,
    body: B,
) -> RuleResult
where
    B: FnOnce(&RuleCx) -> RuleBody + Send + 'static,
{
    let rounds = config.cases().div_ceil(config.parallelism() as u64) + MAX_SHRINK_RUNS;
    runner::run_rule(meta, &whole_run(env, rounds), body)
}

/// One rule test of generated scripts: the `strategy` (made on the test's
/// thread) explored under [`exploration`], each case run by `run` as a
/// rule test of its own.
pub(crate) fn scripted<M, S, R>(
    (meta, env, config): (RuleMeta, TestEnv, ExtendedConfig),
    strategy: M,
    run: R,
) -> RuleResult
where
    M: FnOnce() -> S + Send + 'static,
    S: Strategy + Sync,
    S::Value: Scripted,
    R: Fn(&RuleCx, &S::Value) -> RuleBody + Clone + Send + Sync + 'static,
{
    let case_meta = meta.clone();
    exploration(&meta, &env, &config, move |cx| {
        explore_cases(cx, &config, "script", strategy(), (&case_meta, &env), run)
    })
}

/// [`explore`]s `strategy`, each case run by `run` as a rule test of its
/// own (`meta`, bounds `env`), so that a panic or hang fails that case.
pub(crate) fn explore_cases<S, R>(
    cx: &RuleCx,
    config: &ExtendedConfig,
    what: &str,
    strategy: S,
    (meta, env): (&RuleMeta, &TestEnv),
    run: R,
) -> RuleBody
where
    S: Strategy + Sync,
    S::Value: Scripted,
    R: Fn(&RuleCx, &S::Value) -> RuleBody + Clone + Send + Sync + 'static,
{
    explore(cx, config, what, strategy, |case: &S::Value| {
        let (run, case) = (run.clone(), case.clone());
        runner::run_rule(meta, env, move |cx| run(cx, &case))
    })
}

/// One stress test: `body` (which typically runs [`stress_rounds`]) under
/// a watchdog long enough for every iteration, given the metadata and
/// bounds its iterations run with.
pub(crate) fn stressed<B>(
    (meta, env, config): (RuleMeta, TestEnv, ExtendedConfig),
    body: B,
) -> RuleResult
where
    B: FnOnce(&RuleCx, (&RuleMeta, &TestEnv), &ExtendedConfig) -> RuleBody + Send + 'static,
{
    let case_meta = meta.clone();
    let whole = whole_run(&env, config.stress_iterations());
    runner::run_rule(&meta, &whole, move |cx| {
        body(cx, (&case_meta, &env), &config)
    })
}

/// How one stress test draws and shows its plans.
pub(crate) struct StressPlans<'a, D, S> {
    /// Who runs a plan, for the trace: `"threads"`, `"signalling threads"`.
    pub who: &'a str,
    /// The plan of an iteration, from its seed.
    pub draw: D,
    /// What the failure says about the failing plan, before its seed.
    pub show: S,
}

/// [`ExtendedConfig::stress_iterations`] iterations of a stress plan, each
/// drawn from its own seed and run by `run` as a rule test of its own; the
/// first failing iteration fails the test, with its plan and the seed that
/// replays it alone.
pub(crate) fn stress_rounds<P, D, S, R>(
    cx: &RuleCx,
    config: &ExtendedConfig,
    (meta, env): (&RuleMeta, &TestEnv),
    plans: StressPlans<'_, D, S>,
    run: R,
) -> RuleBody
where
    P: Clone + Send + 'static,
    D: Fn(u64) -> P,
    S: Fn(&P) -> String,
    R: Fn(&RuleCx, &P) -> RuleBody + Clone + Send + 'static,
{
    let threads = config.stress_threads();
    let iterations = config.stress_iterations();
    cx.trace(format!(
        "{iterations} iterations of {threads} {} from seed {} ({STRESS_ITERATIONS_ENV}, {SEED_ENV})",
        plans.who,
        show_seed(config.seed())
    ));
    for iteration in 0..iterations {
        let seed = case_seed(config.seed(), iteration);
        let plan = (plans.draw)(seed);
        let (run, run_plan) = (run.clone(), plan.clone());
        let result = runner::run_rule(meta, env, move |cx| run(cx, &run_plan));
        if result.verdict == Verdict::Failed {
            for event in &result.trace {
                cx.trace(format!("[{}] {}", event.thread, event.event));
            }
            return Err(Failure::new(
                cx.rule(),
                "every stress iteration to pass",
                format!(
                    "iteration {} of {iterations} → {}\n{}(seed {}; replay it alone with {SEED_ENV}={} {STRESS_ITERATIONS_ENV}=1)",
                    iteration + 1,
                    result.message.as_deref().unwrap_or("(no message)"),
                    (plans.show)(&plan),
                    show_seed(config.seed()),
                    show_seed(seed),
                ),
            ));
        }
    }
    Ok(Outcome::Passed)
}
