//! `tck_bounded_upstream_demand`, while elements flow: the bound the
//! factory declares ([`max_upstream_demand`](super::ProcessorFactory::max_upstream_demand))
//! holds after elements have arrived and downstream asked again, not only
//! at the first request, and, for a multicast processor, with a second
//! subscriber that joined while the first was being served.
//!
//! The bound is the declaration's own: with `d` elements requested
//! downstream, upstream demand (in total) stays within
//! `d + max_upstream_demand()`, plus, for a declared filter, one
//! replacement for each input it dropped. With several subscribers, `d` is
//! the furthest any of them asked to go: the first subscriber's demand, or
//! a later one's plus the inputs delivered before it joined (it can need
//! none of those). A processor serving its fastest subscriber is within it;
//! only demand that no subscriber's request accounts for is beyond it.

use reactive_streams::demand;

use super::ProcessorFactory;
use super::as_subscriber::ProcessorSubject;
use super::rules::{Rig, concluded, rig, show};
use crate::context::{Failure, Outcome, RuleBody, RuleCx};
use crate::publisher::rules::several::{Stop, refusal};

/// At most this many inputs are delivered at once to give the processor
/// everything it asked for (a processor declaring a large prefetch need
/// not have all of it delivered to show the bound).
const DELIVER_CAP: u64 = 64;

/// The part of `tck_bounded_upstream_demand` that follows the first
/// request.
pub(crate) fn while_elements_flow<F: ProcessorFactory>(
    cx: &RuleCx,
    subject: &ProcessorSubject<F>,
) -> RuleBody {
    let factory = &*subject.factory;
    if factory.max_outputs() < 2 {
        return Ok(Outcome::Skipped(format!(
            "needs a processor that passes on at least 2 elements; the factory's max_outputs() is {}",
            factory.max_outputs()
        )));
    }
    one_subscriber(cx, factory)?;
    if super::several_unmet(factory).is_some() {
        return Ok(Outcome::Passed);
    }
    concluded(cx, second_joins(cx, factory))
}

/// request(1), one element through, request(1) with the rest of the
/// prefetch still owed, then everything asked for delivered and request(1)
/// once more.
fn one_subscriber<F: ProcessorFactory>(cx: &RuleCx, factory: &F) -> Result<(), Failure> {
    cx.scenario(
        "request(1), its element through; request(1) again; everything asked for delivered, request(1) once more: upstream demand within downstream's plus max_upstream_demand() each time",
    );
    let mut rig = rig(cx, factory)?;
    let downstream = rig.downstream(cx, "downstream")?;
    downstream.request(1)?;
    // Demand not passed on, or no element through, is other tests' (§4.1).
    if !rig.pump(cx, || downstream.received() >= 1)? {
        return end(&mut rig);
    }
    within(cx, &rig, factory, 1, "one element delivered downstream")?;
    downstream.request(1)?;
    within(cx, &rig, factory, 2, "request(1) again after it")?;
    deliver_asked(&mut rig)?;
    downstream.request(1)?;
    within(
        cx,
        &rig,
        factory,
        3,
        "everything asked for delivered, then request(1) again",
    )?;
    end(&mut rig)
}

/// The first subscriber asks for 3 and gets 1; a second joins and asks
/// for 1 while the first is still owed 2, which then arrive (the second
/// may get one beyond its demand, to pay back later); the first cancels,
/// and the second asks for more, before and after everything asked for
/// was delivered. A second refused at any time before its first element
/// leaves it not concluded: its demand was never the processor's to
/// follow.
fn second_joins<F: ProcessorFactory>(cx: &RuleCx, factory: &F) -> Result<(), Stop> {
    cx.scenario(
        "first subscriber request(3), 1 element through; a second joins and requests 1; what was asked for delivered; the first cancels, the second requests 1 three times: upstream demand within the furthest subscriber's plus max_upstream_demand() each time",
    );
    let mut rig = rig(cx, factory)?;
    let first = rig.downstream(cx, "first downstream")?;
    first.request(3)?;
    if !rig.pump(cx, || first.received() >= 1)? {
        return Ok(end(&mut rig)?);
    }
    // The second can need no input delivered before it joined.
    let joined = rig.upstream.delivered();
    let furthest = |second: u64| demand::add(joined, second).max(3);
    let second = rig.another(cx, "second downstream")?;
    second.request(1)?;
    within(
        cx,
        &rig,
        factory,
        furthest(1),
        "a second subscriber joined and requested 1",
    )?;
    deliver_asked(&mut rig)?;
    within(
        cx,
        &rig,
        factory,
        furthest(1),
        "what was asked for was delivered",
    )?;
    first.cancel()?;
    for requested in 2..=3 {
        second.request(1)?;
        within(
            cx,
            &rig,
            factory,
            furthest(requested),
            "the first cancelled and the second requested 1 more",
        )?;
    }
    deliver_asked(&mut rig)?;
    second.request(1)?;
    within(
        cx,
        &rig,
        factory,
        furthest(4),
        "everything asked for delivered, the second requested 1 more",
    )?;
    refusal(&second, 2)?;
    Ok(end(&mut rig)?)
}

/// Delivers the inputs upstream demand allows now (at most
/// [`DELIVER_CAP`]).
fn deliver_asked<F: ProcessorFactory>(rig: &mut Rig<'_, F>) -> Result<(), Failure> {
    for _ in 0..DELIVER_CAP {
        if !rig.upstream.next()? {
            break;
        }
    }
    Ok(())
}

fn end<F: ProcessorFactory>(rig: &mut Rig<'_, F>) -> Result<(), Failure> {
    rig.upstream.complete()?;
    rig.upstream.drop_subscriber()
}

/// Upstream demand, given a no-signal window to grow, is within `needed`
/// (downstream's, in outputs) plus the declared prefetch and the
/// replacements of the inputs delivered so far that a declared filter
/// drops.
fn within<F: ProcessorFactory>(
    cx: &RuleCx,
    rig: &Rig<'_, F>,
    factory: &F,
    needed: u64,
    when: &str,
) -> Result<(), Failure> {
    let prefetch = factory.max_upstream_demand();
    let dropped = (0..rig.upstream.delivered())
        .filter(|&index| !factory.passes(index))
        .count() as u64;
    let limit = demand::add(demand::add(needed, prefetch), dropped);
    let requested = rig
        .upstream
        .subscription()
        .wait_demand(demand::add(limit, 1), cx.env().no_signal_timeout());
    if demand::is_unbounded(limit) || requested <= limit {
        return Ok(());
    }
    let replacements = if dropped == 0 {
        String::new()
    } else {
        format!(" plus {dropped} replacements of inputs the declared filter dropped")
    };
    Err(cx.failure(
        format!(
            "upstream demand of at most {} once {when} (downstream's {} plus max_upstream_demand() {prefetch}{replacements})",
            show(limit),
            show(needed)
        ),
        format!(
            "upstream demand {} after {} input(s) delivered",
            show(requested),
            rig.upstream.delivered()
        ),
    ))
}
