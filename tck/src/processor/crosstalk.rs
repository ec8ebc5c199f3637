//! One party never moves another's stream (issue 39 §3): with two
//! downstream subscribers, A (early) and B (late), each action of one —
//! subscribing, requesting, cancelling — leaves the other's demand as it
//! was: still owed (§3.8), and never grown (§1.1, filed by the probes).
//! Run in both orders: the late one acting while the early one is idle
//! with demand or has none, and the reverse.
//!
//! What is owed follows the text and nothing more. A multicast may go at
//! the pace of its slowest subscriber (§1.11 leaves the pace to it, §3.8
//! only registers demand), so nothing is owed to one while another present
//! has no demand left; a late subscriber may be served only from elements
//! that arrive after it joined; a processor may ask upstream one element
//! at a time, or for its hungriest subscriber, or for the sum. Whenever
//! every present subscriber has demand left, though, each is owed its next
//! element: upstream (the TCK's [driver](crate::subscriber::Driver), on the
//! test's thread) delivers whatever the processor asks for, and a stall
//! then is demand lost. A terminal signal to the one owed also serves it
//! (a processor may end its own stream).
//!
//! The other cells of the matrix are run elsewhere: a party that left
//! (`cancel()` or `request(0)`, §3.9) while the other then requests, in
//! `spec_3_08` and `spec_3_13` (`leaving.rs`); a late subscriber's
//! demand after the early one's, in `tck_late_subscriber_demand` itself
//! (`late.rs`). A party that has ended with upstream's completion leaves
//! nothing to move: upstream's terminal signal ends every stream.

use super::ProcessorFactory;
use super::as_subscriber::ProcessorSubject;
use super::passing::inputs_for;
use super::rules::{Rig, rig, show, too_few_outputs};
use crate::context::{Failure, Outcome, RuleBody, RuleCx};
use crate::probe::Probe;

/// A downstream subscriber of the scenario, with the name messages use.
type Party<'p, T> = (&'p str, &'p Probe<T>);

/// Which party acts, while the other is in the state the scenario set up.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Actor {
    Late,
    Early,
}

/// The part of `tck_late_subscriber_demand` on cross-talk: a request of
/// one party while the other is idle with demand, or has none; a cancel of
/// one while the other is idle with demand; each in both orders.
pub(crate) fn one_party_never_moves_another<F: ProcessorFactory>(
    cx: &RuleCx,
    subject: &ProcessorSubject<F>,
) -> RuleBody {
    let factory = &*subject.factory;
    if let Some(reason) = super::several_unmet(factory) {
        return Ok(Outcome::Skipped(reason));
    }
    // The most a scenario takes: A's 5 outputs, with upstream open.
    if let Some(skipped) = too_few_outputs(factory, 6) {
        return Ok(skipped);
    }
    for actor in [Actor::Late, Actor::Early] {
        if let Some(skipped) = request_beside_demand(cx, factory, actor)? {
            return Ok(skipped);
        }
        if let Some(skipped) = request_beside_none(cx, factory, actor)? {
            return Ok(skipped);
        }
        if let Some(skipped) = cancel_beside_demand(cx, factory, actor)? {
            return Ok(skipped);
        }
    }
    Ok(Outcome::Passed)
}

/// A `request(4)`, its first element through; B subscribes (A idle with
/// demand) and requests 4, its first element through; then the actor asks
/// for 1 more while the other is idle with demand. A processor that lets
/// that request replace, reset or lower what it asks upstream for the
/// other stalls with both still owed (§3.8).
fn request_beside_demand<F: ProcessorFactory>(
    cx: &RuleCx,
    factory: &F,
    actor: Actor,
) -> Result<Option<Outcome>, Failure> {
    let (acting, other) = names(actor);
    cx.scenario(format!(
        "A request(4), 1 element through; B subscribes and requests 4, 1 element through; {acting} request(1) while {other} is idle with demand: both still served"
    ));
    let Some((mut rig, early, late)) = b_joins_after_one(cx, factory, 4)? else {
        return Ok(Some(not_concluded(cx)));
    };
    late.request(4)?;
    owed(
        cx,
        &mut rig,
        ("B", &late),
        1,
        &[("A", &early)],
        "B's request(4), made while A was idle with demand",
    )?;
    let why = format!("after {acting} request(1) while {other} was idle with demand");
    match actor {
        Actor::Late => late.request(1)?,
        Actor::Early => early.request(1)?,
    }
    // The other party first: its demand is the one a cross-talk would move.
    let a = (("A", &early), if actor == Actor::Early { 5 } else { 4 });
    let b = (("B", &late), if actor == Actor::Late { 5 } else { 4 });
    let order = match actor {
        Actor::Late => [a, b],
        Actor::Early => [b, a],
    };
    for (i, ((name, probe), total)) in order.iter().enumerate() {
        let other = order[1 - i].0;
        let why = format!("{name}'s {total} requested, {why}");
        owed(cx, &mut rig, (name, probe), *total, &[other], &why)?;
    }
    finish(&mut rig)?;
    Ok(refused_later(cx, &late))
}

/// A `request(1)`, its element through (A has no demand left); B
/// subscribes. Late acting: B requests 2 while A has none; early acting:
/// A requests 2 while B has asked for nothing. Upstream delivers what the
/// processor asks for meanwhile (a no-signal window, if it holds back for
/// the party without demand): that party gets nothing (§1.1, the probe).
/// Then both ask for 2 more, and both are served.
fn request_beside_none<F: ProcessorFactory>(
    cx: &RuleCx,
    factory: &F,
    actor: Actor,
) -> Result<Option<Outcome>, Failure> {
    let (acting, other) = names(actor);
    cx.scenario(format!(
        "A request(1), its element through; B subscribes; {acting} request(2) while {other} has no demand, upstream delivers what the processor asks for: {other} gets nothing; then both request(2): both served"
    ));
    let Some((mut rig, early, late)) = b_joins_after_one(cx, factory, 1)? else {
        return Ok(Some(not_concluded(cx)));
    };
    let (acts, waits) = match actor {
        Actor::Late => (&late, &early),
        Actor::Early => (&early, &late),
    };
    acts.request(2)?;
    let cap = rig.upstream.delivered() + inputs_for(factory, 4);
    rig.upstream.feed(cap, cx.env().no_signal_timeout())?;
    // Both ask again, so that neither holds the other back.
    waits.request(2)?;
    acts.request(2)?;
    let why = format!("{acting} requested 2 while {other} had no demand, then both requested 2");
    let (a_total, b_total) = match actor {
        Actor::Late => (3, 4),
        Actor::Early => (5, 2),
    };
    owed(cx, &mut rig, ("A", &early), a_total, &[("B", &late)], &why)?;
    owed(cx, &mut rig, ("B", &late), b_total, &[("A", &early)], &why)?;
    finish(&mut rig)?;
    Ok(refused_later(cx, &late))
}

/// The party holding the other back cancels. Late acting: A requests 3
/// (idle with demand, nothing delivered), B subscribes, asks for nothing
/// and cancels: A is owed its 3. Early acting: A requests 1 and gets it,
/// B subscribes and requests 3 (idle with demand: A has none), A cancels:
/// B is owed its 3. A cancel that takes the other's demand with it, stops
/// upstream, or leaves the other waiting for a request it already made
/// loses that demand (§3.8).
fn cancel_beside_demand<F: ProcessorFactory>(
    cx: &RuleCx,
    factory: &F,
    actor: Actor,
) -> Result<Option<Outcome>, Failure> {
    let (mut rig, stayer, why) = match actor {
        Actor::Late => {
            cx.scenario(
                "A request(3), nothing delivered yet; B subscribes, no request, and cancels while A is idle with demand: A still served",
            );
            let rig = rig(cx, factory)?;
            let early = rig.downstream(cx, "A (early)")?;
            early.request(3)?;
            let Some(late) = joins(cx, &rig)? else {
                return Ok(Some(not_concluded(cx)));
            };
            late.cancel()?;
            (rig, ("A", early), "A's request(3), after B cancelled")
        }
        Actor::Early => {
            cx.scenario(
                "A request(1), its element through; B subscribes and requests 3; A cancels while B is idle with demand: B still served",
            );
            let Some((rig, early, late)) = b_joins_after_one(cx, factory, 1)? else {
                return Ok(Some(not_concluded(cx)));
            };
            late.request(3)?;
            early.cancel()?;
            (rig, ("B", late), "B's request(3), after A cancelled")
        }
    };
    owed(cx, &mut rig, (stayer.0, &stayer.1), 3, &[], why)?;
    finish(&mut rig)?;
    // Only B can have been refused; a refused B that cancelled is moot.
    Ok(if stayer.0 == "B" {
        refused_later(cx, &stayer.1)
    } else {
        None
    })
}

/// The rig, A and B: A requests `asked` and its first element comes
/// through, then B subscribes; `None` if the processor refused B (§1.9).
#[allow(clippy::type_complexity)]
fn b_joins_after_one<'a, F: ProcessorFactory>(
    cx: &RuleCx,
    factory: &'a F,
    asked: u64,
) -> Result<Option<(Rig<'a, F>, Probe<F::Output>, Probe<F::Output>)>, Failure> {
    let mut rig = rig(cx, factory)?;
    let early = rig.downstream(cx, "A (early)")?;
    early.request(asked)?;
    let why = format!("A's request({asked})");
    owed(cx, &mut rig, ("A", &early), 1, &[], &why)?;
    Ok(joins(cx, &rig)?.map(|late| (rig, early, late)))
}

/// B subscribes: `None` if the processor refused it at subscribe time,
/// `on_subscribe` then `on_error` (§1.9 allows it).
fn joins<F: ProcessorFactory>(
    cx: &RuleCx,
    rig: &Rig<'_, F>,
) -> Result<Option<Probe<F::Output>>, Failure> {
    let late = rig.downstream(cx, "B (late)")?;
    Ok((!late.refused()).then_some(late))
}

/// The scenario's outcome once it ran through: not concluded if the
/// processor refused B later, from another thread (`on_error` before any
/// element; §1.9 sets no deadline). A refused B counts as served, and A is
/// judged alone, so the scenario failed nothing on its account.
fn refused_later<T: std::fmt::Debug + Send + 'static>(
    cx: &RuleCx,
    late: &Probe<T>,
) -> Option<Outcome> {
    late.refused().then(|| not_concluded(cx))
}

/// Not concluded: the processor refused B, subscriber 2 (§1.9: "the only
/// legal way to signal failure (or reject the Subscriber) is by calling
/// onError (after calling onSubscribe)").
fn not_concluded(cx: &RuleCx) -> Outcome {
    let reason = crate::publisher::refused_reason(2);
    cx.trace(reason.clone());
    Outcome::Skipped(reason)
}

/// The acting party's name and the other's.
fn names(actor: Actor) -> (&'static str, &'static str) {
    match actor {
        Actor::Late => ("B", "A"),
        Actor::Early => ("A", "B"),
    }
}

/// Whether one of `others` (still subscribed) has no demand left: a
/// processor at its slowest subscriber's pace then owes nothing more.
fn held_back<T: std::fmt::Debug + Send + 'static>(others: &[Party<'_, T>]) -> bool {
    others
        .iter()
        .any(|(_, probe)| !probe.is_terminated() && probe.received() >= probe.requested())
}

/// Pumps upstream until `party` has received `total` elements in all (or
/// a terminal signal), or until one of `others` has no demand left: while
/// each has demand, the processor owes `party` its next element (§3.8).
fn owed<F: ProcessorFactory>(
    cx: &RuleCx,
    rig: &mut Rig<'_, F>,
    (name, probe): Party<'_, F::Output>,
    total: u64,
    others: &[Party<'_, F::Output>],
    why: &str,
) -> Result<(), Failure> {
    let served = || probe.received() >= total || probe.is_terminated() || held_back(others);
    if rig.pump(cx, served)? {
        return Ok(());
    }
    let upstream = rig.upstream.subscription();
    let beside = others
        .iter()
        .map(|(other, p)| format!("; {other} has {} of {}", p.received(), show(p.requested())))
        .collect::<String>();
    Err(cx.failure_of(
        "3.8",
        format!(
            "{name} served: {total} elements in all ({why}; each subscriber's demand is its own)"
        ),
        format!(
            "{name} has {} within {} ms{beside}; upstream delivered {} with demand {}{}",
            probe.received(),
            cx.env().timeout().as_millis(),
            rig.upstream.delivered(),
            show(upstream.demand()),
            if upstream.is_cancelled() {
                ", and was cancelled"
            } else {
                ""
            }
        ),
    ))
}

/// Ends the scenario as the other processor tests do.
fn finish<F: ProcessorFactory>(rig: &mut Rig<'_, F>) -> Result<(), Failure> {
    rig.upstream.complete()?;
    rig.upstream.drop_subscriber()
}
