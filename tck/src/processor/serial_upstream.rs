//! §2.7 on the processor's upstream subscription with calls coming from
//! two threads: a downstream `request` the processor passes on from one,
//! and an input it drops (a declared filter), whose replacement it asks
//! for from inside `on_next`, delivered on another.
//!
//! The processor's call upstream made for the downstream `request` is
//! held open by the TCK's subscription (until the input's delivery has
//! returned, at most `RS_TCK_TIMEOUT_MS` or a quarter of the watchdog)
//! while the input is delivered:
//! a replacement asked for straight from inside that `on_next` overlaps
//! it. The processor is blamed only for an overlap, never for the wait.

use super::ProcessorFactory;
use super::as_subscriber::ProcessorSubject;
use super::rules::rig;
use crate::context::{Failure, Outcome, RuleBody, RuleCx};

/// The part of `spec_2_07` for a processor that drops inputs.
pub(crate) fn with_a_dropped_input<F: ProcessorFactory>(
    cx: &RuleCx,
    subject: &ProcessorSubject<F>,
) -> RuleBody {
    let factory = &*subject.factory;
    if factory.max_outputs() < 2 {
        return Ok(skipped());
    }
    let mut rig = rig(cx, factory)?;
    let downstream = rig.downstream(cx, "downstream")?;
    downstream.request(1)?;
    // Demand not passed on is §4.1's (its own tests).
    if !rig.pump(cx, || downstream.received() >= 1)? || factory.passes(rig.upstream.delivered()) {
        rig.upstream.complete()?;
        rig.upstream.drop_subscriber()?;
        return Ok(skipped());
    }
    cx.scenario(format!(
        "request(1), its element through; request(1) from a second thread, the processor's call upstream held open while input #{} (one the filter drops, the last owed) is delivered on the test's thread",
        rig.upstream.delivered() + 1
    ));
    let upstream = rig.upstream.subscription().clone();
    let before = upstream.demand();
    // Held until the delivery has returned: a processor that makes the
    // replacement wait for the held call (a lock around its calls
    // upstream) waits out the window instead, which is bounded so that
    // the rule test stays well within its watchdog.
    upstream.hold_calls_for(cx.env().timeout().min(cx.env().watchdog() / 4));
    std::thread::scope(|scope| -> Result<(), Failure> {
        let requester = scope.spawn(|| downstream.request(1));
        // The call is recorded as it enters, then held.
        if upstream.wait_demand(before + 1, cx.env().timeout()) > before {
            rig.upstream.next()?;
        }
        upstream.release_calls();
        requester
            .join()
            .unwrap_or_else(|panic| std::panic::resume_unwind(panic))
    })?;
    rig.upstream.complete()?;
    rig.upstream.drop_subscriber()?;
    Ok(Outcome::Passed)
}

fn skipped() -> Outcome {
    Outcome::Skipped(String::from(
        "the two-thread scenario needs a declared filter (passes) that drops the input after its first output",
    ))
}
