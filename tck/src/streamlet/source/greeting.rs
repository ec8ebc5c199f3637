//! A sink the source leaves ungreeted. Rule 1: "A source MAY greet a sink
//! with a talkback after they are connected." A source that never greets
//! breaks no rule, so a test that needed the greet is "not concluded",
//! never failed — unless the factory declares
//! [`greets_sinks()`](SourceFactory::greets_sinks): then it broke that
//! promise, and fails `tck.greets`.

use super::SourceFactory;
use crate::context::{Failure, Outcome, RuleBody, RuleCx};

/// The rule a greet that never came is filed under by the probe
/// ([`SinkProbe::expect_greet`](crate::streamlet::probe::SinkProbe::expect_greet)).
pub(super) const RULE: &str = "tck.greets";

/// What the factory's declaration means, as failures quote it.
const DECLARED: &str = "(the factory declares greets_sinks(): its sources greet every sink connected to them, up to max_sinks_at_once() at once)";

/// `body`'s result, with a greet that never came judged by the factory's
/// declaration: a failure of `tck.greets` if it declares `greets_sinks()`,
/// else "not concluded".
pub(crate) fn judged<F: SourceFactory>(cx: &RuleCx, f: &F, body: RuleBody) -> RuleBody {
    match body {
        Err(failure) if failure.rule == RULE => not_greeted(cx, f, failure),
        other => other,
    }
}

/// The outcome of a test whose source did not greet the sink it needed.
fn not_greeted<F: SourceFactory>(cx: &RuleCx, f: &F, failure: Failure) -> RuleBody {
    if f.greets_sinks() {
        return Err(Failure {
            expected: format!("{} {DECLARED}", failure.expected),
            ..failure
        });
    }
    let scenario = failure
        .scenario
        .as_ref()
        .map(|s| format!("[{s}] "))
        .unwrap_or_default();
    let message = format!(
        "not concluded: {scenario}the source did not greet: {} (rule 1 allows it: a source MAY greet a connected sink); a factory whose sources greet every sink declares greets_sinks(), and is then held to it",
        failure.actual
    );
    cx.trace(message.clone());
    Ok(Outcome::Skipped(message))
}

/// The outcome of a test whose extra sink (the `nth` connected at once,
/// within the factory's `max_sinks_at_once()`) was never greeted:
/// `message` ("not concluded: the source refused …"), or, if the factory
/// declares `greets_sinks()`, the failure [`judged`] holds it to.
pub(super) fn refused<F: SourceFactory>(
    cx: &RuleCx,
    f: &F,
    label: &str,
    message: String,
) -> RuleBody {
    if f.greets_sinks() {
        return Err(cx.failure_of(
            RULE,
            "a greet after connect",
            format!(
                "{label} was not greeted within {} ms",
                cx.env().timeout().as_millis()
            ),
        ));
    }
    cx.trace(message.clone());
    Ok(Outcome::Skipped(message))
}
