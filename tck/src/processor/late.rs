//! Demand across a second subscriber's arrival: a processor may change
//! how it serves its first subscriber when a second joins (say, from
//! passing elements straight through to queueing them for each), and the
//! demand each has outstanding must survive the change — none lost (§3.8),
//! none granted twice (§1.1).
//!
//! [`after_the_first`] continues `tck_late_subscriber_demand` once the
//! late subscriber has its first element; [`idle_early_subscriber`] has the
//! early subscriber idle with demand while the late one is being served.
//! The upstream is the TCK's [driver](crate::subscriber::Driver); the
//! recording probes file an element beyond demand under §1.1 themselves.

use super::ProcessorFactory;
use super::as_subscriber::ProcessorSubject;
use super::passing::inputs_for;
use super::rules::{Rig, concluded, rig, show, too_few_outputs};
use crate::context::{Failure, Outcome, RuleBody, RuleCx};
use crate::probe::Probe;
use crate::publisher::rules::several::{Stop, refusal};

/// What the early subscriber asks for once the late one holds an element
/// beyond its demand, so that the late one is the slowest.
const EARLY_MORE: u64 = 20;

/// What the late subscriber asks for last: more than the early one still
/// lacks, so that a processor at its slowest subscriber's pace serves the
/// early one in full.
const LATE_MORE: u64 = 40;

/// `tck_late_subscriber_demand` after the late subscriber's first element
/// (the early one asked for 4 and had 2 before the late one came):
///
/// 1. upstream delivers what the processor asks for: once it has had the
///    inputs of the early subscriber's 4 outputs, the early one gets them
///    (it has the demand, the processor has the elements; a processor at
///    its slowest subscriber's pace may not have asked for them yet);
/// 2. the early one asks for more, so that the late one is the slowest,
///    and the late one's next two `request(1)`s are served (it may hold
///    an element beyond its demand since the early one's arrived);
/// 3. the late one asks for more than the early one lacks: the early one
///    gets exactly what it asked for, the probe filing any more under
///    §1.1.
pub(crate) fn after_the_first<F: ProcessorFactory>(
    cx: &RuleCx,
    factory: &F,
    rig: &mut Rig<'_, F>,
    early: &Probe<F::Output>,
    late: &Probe<F::Output>,
) -> Result<(), Failure> {
    let patience = cx.env().no_signal_timeout();
    cx.scenario(
        "early request(4), 2 delivered, late subscribes, request(1), 1 delivered: then upstream delivers what the processor asks for",
    );
    let owed = inputs_for(factory, 4);
    rig.upstream.feed(owed, patience)?;
    if rig.upstream.delivered() >= owed {
        served(
            cx,
            rig,
            early,
            4,
            "the early subscriber's request(4), whose elements the processor has",
        )?;
    } else {
        cx.trace(format!(
            "the processor asked upstream for {} inputs of the {owed} that make the early subscriber's 4 outputs (its slowest subscriber's pace)",
            rig.upstream.delivered()
        ));
    }
    cx.scenario(format!(
        "then early request({EARLY_MORE}), late request(1), and late request(1) again"
    ));
    early.request(EARLY_MORE)?;
    late.request(1)?;
    served(cx, rig, late, 2, "the late subscriber's second request(1)")?;
    late.request(1)?;
    served(cx, rig, late, 3, "the late subscriber's third request(1)")?;
    cx.scenario(format!(
        "then late request({LATE_MORE}): the early subscriber gets the {} it asked for, no more",
        4 + EARLY_MORE
    ));
    late.request(LATE_MORE)?;
    let cap = rig.upstream.delivered() + inputs_for(factory, 2 * LATE_MORE);
    rig.upstream.feed(cap, patience)?;
    served(
        cx,
        rig,
        early,
        4 + EARLY_MORE,
        "the early subscriber's request(4) and request(20)",
    )?;
    // Whatever the early subscriber got beyond its demand the probe has
    // filed under §1.1.
    Ok(())
}

/// A and B subscribe; A asks for 1, B for 3; upstream delivers what the
/// processor asks for, up to 2 outputs (A's lone element then leaves it
/// idle with nothing queued while B is being served); A asks for 2 more;
/// both must get all they asked for, each element once (§1.1, §3.8).
pub(crate) fn idle_early_subscriber<F: ProcessorFactory>(
    cx: &RuleCx,
    subject: &ProcessorSubject<F>,
) -> RuleBody {
    let factory = &*subject.factory;
    if let Some(reason) = super::several_unmet(factory) {
        return Ok(Outcome::Skipped(reason));
    }
    if let Some(skipped) = too_few_outputs(factory, 4) {
        return Ok(skipped);
    }
    cx.scenario(
        "A and B subscribe, A request(1), B request(3); upstream delivers up to 2 outputs' worth; A request(2); both served in full",
    );
    concluded(cx, both_served(cx, factory))
}

/// [`idle_early_subscriber`]'s scenario; B, refused at any time before
/// its first element, leaves it not concluded.
fn both_served<F: ProcessorFactory>(cx: &RuleCx, factory: &F) -> Result<(), Stop> {
    let mut rig = rig(cx, factory)?;
    let early = rig.downstream(cx, "A (early)")?;
    let late = rig.another(cx, "B (late)")?;
    early.request(1)?;
    late.request(3)?;
    rig.upstream
        .feed(inputs_for(factory, 2), cx.env().no_signal_timeout())?;
    early.request(2)?;
    served(cx, &mut rig, &early, 3, "A's request(1) and request(2)")?;
    served(cx, &mut rig, &late, 3, "B's request(3)")?;
    refusal(&late, 2)?;
    rig.upstream.complete()?;
    rig.upstream.drop_subscriber()?;
    Ok(())
}

/// Pumps upstream until `probe` has received `total` elements in all:
/// its demand must bring them (§3.8).
fn served<F: ProcessorFactory>(
    cx: &RuleCx,
    rig: &mut Rig<'_, F>,
    probe: &Probe<F::Output>,
    total: u64,
    what: &str,
) -> Result<(), Failure> {
    if rig.pump(cx, || probe.received() >= total || probe.is_terminated())? {
        return Ok(());
    }
    Err(cx.failure_of(
        "3.8",
        format!("{what} served: {total} elements in all"),
        format!(
            "{} arrived within {} ms; upstream delivered {} with demand {}",
            probe.received(),
            cx.env().timeout().as_millis(),
            rig.upstream.delivered(),
            show(rig.upstream.subscription().demand())
        ),
    ))
}
