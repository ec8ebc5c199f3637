//! The rule tests: each runs generated scripts and reports the first
//! violation of its own rule.

use std::sync::Arc;

use super::scenario::{self, EndKind, Ends, Script, Seen};
use super::LifecycleFactory;
use crate::context::{Outcome, RuleBody, RuleCx};
use crate::env::TestEnv;
use crate::explore::{self, config::ExtendedConfig};
use crate::outcome::Verification;
use crate::runner::{self, RuleMeta};

/// The compile-fail test behind done.6.
pub const DONE_6_PROOF: &str = "spec/tests/compile-fail/done_token_released_twice.rs";

/// What one rule looks for in a run: `Some((expected, actual))` if broken.
type Verdict = fn(&Seen) -> Option<(String, String)>;

/// How many generated scripts, from which seed, each case run with `env`.
#[derive(Debug, Clone)]
pub(crate) struct Budget {
    pub(crate) cases: u64,
    pub(crate) seed: u64,
    pub(crate) env: TestEnv,
    /// `RS_TCK_CASES` or `RS_TCK_SEED` is set but unreadable.
    pub(crate) unreadable: Option<Arc<String>>,
}

/// The scripts run at once (they mostly wait on the stage).
pub(crate) const PARALLELISM: usize = 4;

/// Runs the rule test `test` (`"done_1"` … `"done_6"`): `budget.cases`
/// generated scripts, each in its own rule run; the first failing one is
/// shrunk and printed with the seed that replays it.
pub(crate) fn run<F: LifecycleFactory>(
    test: &'static str,
    cx: &RuleCx,
    factory: &Arc<F>,
    budget: &Budget,
) -> RuleBody {
    if let Some(problem) = &budget.unreadable {
        return Err(cx.failure("readable RS_TCK_CASES and RS_TCK_SEED", problem.to_string()));
    }
    let (ends, verdict): (Ends, Verdict) = match test {
        "done_1" => (Ends::Any, |seen| {
            first(&seen.early).map(|actual| {
                (
                    "no datum done before every output made from it was delivered".into(),
                    actual,
                )
            })
        }),
        "done_2" => (Ends::Any, |seen| {
            first(&seen.uncarried).map(|actual| {
                (
                    "every output to carry the tokens of all the data it was made from".into(),
                    actual,
                )
            })
        }),
        "done_3" => (Ends::Only(EndKind::Complete), |seen| {
            first(&seen.lingering)
                .map(|actual| {
                    (
                        "every datum downstream has consumed, and the stage no longer holds, done at once".into(),
                        actual,
                    )
                })
                .or_else(|| undone(seen, "completion"))
        }),
        "done_4" => (Ends::Only(EndKind::Cancel), |seen| {
            undone(seen, "cancellation")
        }),
        "done_5" => (Ends::Only(EndKind::Fail), |seen| {
            undone(seen, "the upstream error")
        }),
        "done_6" => (Ends::Any, |seen| {
            (!seen.twice.is_empty()).then(|| {
                (
                    "each datum done exactly once".into(),
                    format!("the ledger was told twice that {:?} were done", seen.twice),
                )
            })
        }),
        other => panic!("no datum-lifecycle rule test named {other}"),
    };
    let config = ExtendedConfig::builder()
        .cases(budget.cases)
        .seed(budget.seed)
        .parallelism(PARALLELISM)
        .try_build()
        .map_err(|error| cx.failure("a readable configuration", error.to_string()))?;
    let meta = RuleMeta::new(
        Verification::DatumLifecycle,
        "case",
        cx.rule().to_string(),
        test,
    );
    let env = budget.env;
    let outcome = explore::explore(
        cx,
        &config,
        "script",
        scenario::scripts(factory.inputs().max(1), ends),
        |script: &Script| {
            let (factory, script) = (factory.clone(), script.clone());
            runner::run_rule(&meta, &env, move |cx| {
                judge(cx, &*factory, &script, verdict)
            })
        },
    )?;
    if test == "done_6" {
        return Ok(Outcome::EnforcedByTypes(format!(
            "a token cannot be released twice in safe Rust (see {DONE_6_PROOF}); no run saw it either"
        )));
    }
    Ok(outcome)
}

/// One script against a fresh stage, judged by `verdict`.
fn judge<F: LifecycleFactory>(
    cx: &RuleCx,
    factory: &F,
    script: &Script,
    verdict: Verdict,
) -> RuleBody {
    let seen = scenario::run(cx, factory, script);
    if let Some(stuck) = &seen.stuck {
        return Err(cx.failure("the stage to meet the demand or terminate", stuck.clone()));
    }
    if let Some((expected, actual)) = verdict(&seen) {
        return Err(cx.failure(expected, actual));
    }
    Ok(Outcome::Passed)
}

fn first(found: &[String]) -> Option<String> {
    found.first().cloned()
}

fn undone(seen: &Seen, end: &str) -> Option<(String, String)> {
    (!seen.undone.is_empty()).then(|| {
        (
            format!("every datum done after {end}, once downstream dropped its outputs"),
            format!("{:?} were still not done", seen.undone),
        )
    })
}
