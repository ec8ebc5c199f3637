//! The rule tests: each runs generated scripts and reports the first
//! violation of its own rule.

use proptest::strategy::{Strategy, ValueTree};
use proptest::test_runner::TestRunner;

use super::scenario::{self, EndKind, Ends, Seen};
use super::LifecycleFactory;
use crate::context::{Outcome, RuleBody, RuleCx};

/// The compile-fail test behind done.6.
pub const DONE_6_PROOF: &str = "spec/tests/compile-fail/done_token_released_twice.rs";

/// What one rule looks for in a run: `Some((expected, actual))` if broken.
type Verdict = fn(&Seen) -> Option<(String, String)>;

/// Runs the rule test `test` (`"done_1"` … `"done_6"`) with `cases`
/// generated scripts.
pub(crate) fn run<F: LifecycleFactory>(
    test: &str,
    cx: &RuleCx,
    factory: &F,
    cases: usize,
) -> RuleBody {
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
            undone(seen, "completion")
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
    let strategy = scenario::scripts(factory.inputs().max(1), ends);
    let mut runner = TestRunner::deterministic();
    for case in 0..cases {
        let script = strategy
            .new_tree(&mut runner)
            .map_err(|reason| cx.failure("the TCK to generate a script", reason.to_string()))?
            .current();
        cx.scenario(format!("case {case}: {script}"));
        let seen = scenario::run(cx, factory, &script);
        if let Some(stuck) = &seen.stuck {
            return Err(cx.failure("the stage to meet the demand or terminate", stuck.clone()));
        }
        if let Some((expected, actual)) = verdict(&seen) {
            return Err(cx.failure(expected, actual));
        }
    }
    if test == "done_6" {
        return Ok(Outcome::EnforcedByTypes(format!(
            "a token cannot be released twice in safe Rust (see {DONE_6_PROOF}); no run saw it either"
        )));
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
