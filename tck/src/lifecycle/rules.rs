//! The rule tests: each runs generated scripts and reports the first
//! violation of its own rule.

use std::sync::Arc;

use super::LifecycleFactory;
use super::scenario::{self, EndKind, Ends, Script, Seen};
use crate::context::{Outcome, RuleBody, RuleCx};
use crate::env::TestEnv;
use crate::explore::{self, config::ExtendedConfig};
use crate::outcome::{RuleResult, Verification};
use crate::probe::EXACTLY_ONCE;
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
    let disordered = Noted::new(&[EXACTLY_ONCE]);
    let stuck = Noted::new(STUCK_RULES);
    let outcome = explore::explore(
        cx,
        &config,
        "script",
        scenario::scripts(factory.inputs().max(1), ends),
        |script: &Script| {
            let (factory, case) = (factory.clone(), script.clone());
            let result =
                runner::run_rule(&meta, &env, move |cx| judge(cx, &factory, &case, verdict));
            disordered.note(script, &result);
            stuck.note(script, &result);
            result
        },
    );
    disordered.report(
        cx,
        "each output at most once and in order from output 0, by the factory's element_index, in every generated script",
    );
    let outcome = outcome?;
    // A script that waited for another rule's signal in vain: this rule's
    // test is not concluded, that rule is broken.
    if let Some(failure) = stuck.failure(cx) {
        if test != "done_6" {
            return Err(failure);
        }
        // done.6 stands on the types, whatever a run could not conclude.
        cx.record(failure);
    }
    if test == "done_6" {
        return Ok(Outcome::EnforcedByTypes(format!(
            "a token cannot be released twice in safe Rust (see {DONE_6_PROOF}); no run saw it either"
        )));
    }
    Ok(outcome)
}

/// One script against a fresh stage, judged by `verdict`; an output
/// delivered twice, out of order or after a skip (by the factory's
/// `element_index`) is recorded under its own rule, whichever rule the
/// script was run for.
fn judge<F: LifecycleFactory>(
    cx: &RuleCx,
    factory: &Arc<F>,
    script: &Script,
    verdict: Verdict,
) -> RuleBody {
    let seen = scenario::run(cx, factory, script);
    if let Some(wrong) = seen.disordered.first() {
        cx.record(cx.failure_of(
            EXACTLY_ONCE,
            "each output at most once and in order from output 0, by the factory's element_index",
            wrong.clone(),
        ));
    }
    if let Some(stuck) = seen.stuck {
        // Another rule's signal: the script is not concluded, and that
        // rule is broken (see `Noted`).
        return Err(cx.failure_of(stuck.rule, stuck.expected, stuck.actual));
    }
    if let Some((expected, actual)) = verdict(&seen) {
        return Err(cx.failure(expected, actual));
    }
    Ok(Outcome::Passed)
}

/// The rules a script's run may find broken while it waits for their
/// signal (see [`scenario::Stuck`]).
const STUCK_RULES: &[&str] = &["1.9", "1.5", "4.2"];

/// The smallest generated script whose run broke one of `rules` (an output
/// delivered twice, out of order or after a skip; a signal another rule
/// requires that never came), if any: the rule test that ran it reports
/// it under that rule, beside its own verdict.
struct Noted {
    rules: &'static [&'static str],
    found: parking_lot::Mutex<Option<(Vec<String>, RuleResult)>>,
}

impl Noted {
    fn new(rules: &'static [&'static str]) -> Self {
        Noted {
            rules,
            found: parking_lot::Mutex::new(None),
        }
    }

    fn broken<'r>(&self, result: &'r RuleResult) -> Option<&'r crate::outcome::Violation> {
        result
            .violations
            .iter()
            .find(|v| self.rules.contains(&v.rule.as_str()))
    }

    /// Keeps `result` if its run broke one of the rules and `script` is the
    /// smallest so far (fewest lines, then by text: the same one whatever
    /// the timing of the scripts running at once).
    fn note(&self, script: &Script, result: &RuleResult) {
        if self.broken(result).is_none() {
            return;
        }
        let lines = script.lines();
        let mut found = self.found.lock();
        let smaller = match found.as_ref() {
            Some((best, _)) => (lines.len(), &lines) < (best.len(), best),
            None => true,
        };
        if smaller {
            *found = Some((lines, result.clone()));
        }
    }

    /// The failure found, under its rule, with the script and its trace in
    /// `cx`; `expected` overrides the run's own.
    fn take(&self, cx: &RuleCx, expected: Option<&str>) -> Option<crate::context::Failure> {
        let (lines, result) = self.found.lock().take()?;
        let violation = self.broken(&result)?;
        cx.trace(format!(
            "the script that broke {}: {}",
            crate::context::rule_label(&violation.rule),
            lines.join("; ")
        ));
        for event in &result.trace {
            cx.trace(format!("[{}] {}", event.thread, event.event));
        }
        let (own_expected, actual) = violation
            .message
            .split_once("; actual: ")
            .unwrap_or(("", violation.message.as_str()));
        let own_expected = own_expected
            .split_once("expected ")
            .map_or(own_expected, |(_, expected)| expected);
        Some(cx.failure_of(
            violation.rule.clone(),
            expected.unwrap_or(own_expected).to_string(),
            format!("{} → {actual}", lines.join("; ")),
        ))
    }

    /// Records what was found in `cx`, expecting `expected`.
    fn report(&self, cx: &RuleCx, expected: &str) {
        if let Some(failure) = self.take(cx, Some(expected)) {
            cx.record(failure);
        }
    }

    /// What was found, as the failure that keeps the rule test from
    /// concluding.
    fn failure(&self, cx: &RuleCx) -> Option<crate::context::Failure> {
        self.take(cx, None)
    }
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
