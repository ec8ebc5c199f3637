//! A processor that asks upstream for elements before downstream does
//! (a prefetch, a buffer) may hold them when upstream completes: the
//! elements and `on_complete` then come from what it holds, in answer to
//! downstream requests made after the end. Filed under §1.5: once
//! downstream has asked for everything held, `on_complete` must follow
//! (the processor knows its end: no further request may be needed, as
//! `spec_4_01` holds a processor to without a prefetch); a request for
//! everything at once must return normally (§3.16, the probe's check).

use super::ProcessorFactory;
use super::as_subscriber::ProcessorSubject;
use super::passing::{inputs_for, outputs_for};
use super::rules::{rig, terminal_name};
use crate::context::{Outcome, RuleBody, RuleCx};
use crate::probe::{Signal, show_demand};

/// How many outputs' worth of inputs upstream delivers at most before
/// downstream asks.
const HELD: u64 = 5;

/// §1.5 for what a processor holds at upstream's completion: the subscriber
/// asks, after the end, for exactly what the processor was given (or for
/// everything), and gets `on_complete` after it.
pub(crate) fn spec_1_05<F: ProcessorFactory>(
    cx: &RuleCx,
    subject: &ProcessorSubject<F>,
) -> RuleBody {
    let factory = &*subject.factory;
    if factory.max_outputs() == 0 {
        return Ok(Outcome::Skipped(String::from(
            "needs a processor that asks upstream for elements; the factory's max_outputs() is 0",
        )));
    }
    for exactly in [true, false] {
        let mut rig = rig(cx, factory)?;
        let downstream = rig.downstream(cx, "downstream")?;
        rig.upstream
            .feed(inputs_for(factory, HELD), cx.env().no_signal_timeout())?;
        let given = rig.upstream.delivered();
        if given == 0 {
            cx.trace("the processor asked upstream for nothing before downstream did: nothing held to check");
            return Ok(Outcome::Skipped(String::from(
                "needs a processor that asks upstream for elements before downstream does (a prefetch); this one asked for none",
            )));
        }
        let held = outputs_for(factory, given).min(factory.max_outputs());
        let asked = if exactly && held > 0 { held } else { u64::MAX };
        cx.scenario(format!(
            "upstream delivers {given} input(s) before any downstream request, then completes; request({})",
            show_demand(asked)
        ));
        rig.upstream.complete()?;
        rig.upstream.drop_subscriber()?;
        downstream.request(asked)?;
        let terminal = downstream.expect_terminal_as("on_complete after the elements held");
        if !matches!(terminal, Ok(Signal::Complete)) {
            return Err(cx.failure(
                format!(
                    "on_complete once downstream asked for the {held} element(s) the processor held at upstream's completion"
                ),
                format!(
                    "downstream received {} ({} element(s) before it)",
                    terminal_name(&terminal),
                    downstream.received()
                ),
            ));
        }
    }
    Ok(Outcome::Passed)
}
