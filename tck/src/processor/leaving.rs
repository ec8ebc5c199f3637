//! A downstream subscriber leaves the processor — `cancel()`, or
//! `request(0)`, which ends its subscription with `on_error` (§3.9) —
//! while another stays, or while upstream still owes the processor an
//! element. Filed under the rules a processor then breaks:
//!
//! - §3.8: the subscriber that stays is still served: its `request(1)`
//!   brings an element (or a terminal signal) once the other left, also
//!   when the leaver was still owed an element from upstream;
//! - §3.9: the leaver's `request(0)` gets its `on_error`, also when the
//!   processor was serving it element by element and upstream owes the
//!   processor nothing (the stayer asked for nothing), and also when the
//!   processor cancels upstream and upstream, as it may, then drops it;
//! - §3.13: a leaver's `cancel()` makes the processor drop it in that
//!   same state.
//!
//! The upstream is the TCK's [driver](crate::subscriber::Driver), on the
//! test's thread (the rig of the processor's own rule tests): it delivers
//! what the processor asks for, also while the test waits for the leaver's
//! signals, so a processor may settle a leave at its next upstream signal
//! as long as one is owed.

use super::ProcessorFactory;
use super::as_subscriber::ProcessorSubject;
use super::passing::inputs_for;
use super::rules::{Rig, concluded, rig, show, terminal_name, too_few_outputs};
use crate::context::{Failure, Outcome, RuleBody, RuleCx};
use crate::probe::{Probe, Signal};
use crate::publisher::rules::several::{Stop, refusal};

/// What the leaver requests before it leaves, in the scenario where the
/// stayer asks for nothing.
const LEAVER_DEMAND: u64 = 20;

/// How a subscriber leaves.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Leave {
    Cancel,
    IllegalDemand,
}

impl Leave {
    fn name(self) -> &'static str {
        match self {
            Leave::Cancel => "cancel()",
            Leave::IllegalDemand => "request(0)",
        }
    }

    fn call<T: std::fmt::Debug + Send + 'static>(self, probe: &Probe<T>) -> Result<(), Failure> {
        match self {
            Leave::Cancel => probe.cancel(),
            Leave::IllegalDemand => probe.request(0),
        }
    }
}

/// The reason to skip a scenario with two subscribers, if any.
fn two_subscribers<F: ProcessorFactory>(factory: &F) -> Option<Outcome> {
    if let Some(reason) = super::several_unmet(factory) {
        return Some(Outcome::Skipped(reason));
    }
    // The leaver's element, and the stayer's, with upstream still open.
    too_few_outputs(factory, 3)
}

/// §3.8: A `request(n)`, one element delivered, B subscribes, A leaves,
/// B `request(1)`: B gets an element or a terminal signal. With `n` = 1
/// upstream owes the processor nothing when A leaves; with `n` = 2 it owes
/// the element A did not get.
pub(crate) fn spec_3_08<F: ProcessorFactory>(
    cx: &RuleCx,
    subject: &ProcessorSubject<F>,
) -> RuleBody {
    let factory = &*subject.factory;
    if let Some(skipped) = two_subscribers(factory) {
        return Ok(skipped);
    }
    concluded(cx, stayer_after_leaves(cx, factory))
}

/// [`spec_3_08`]'s scenarios; B, refused at any time before its first
/// element, leaves them not concluded.
fn stayer_after_leaves<F: ProcessorFactory>(cx: &RuleCx, factory: &F) -> Result<(), Stop> {
    for asked in [1, 2] {
        for leave in [Leave::Cancel, Leave::IllegalDemand] {
            cx.scenario(format!(
                "A request({asked}), 1 element delivered, B subscribes, A {}, B request(1)",
                leave.name()
            ));
            let mut rig = rig(cx, factory)?;
            let leaver = rig.downstream(cx, "A (leaving)")?;
            leaver.request(asked)?;
            first_element(cx, &mut rig, &leaver, asked)?;
            let stayer = rig.another(cx, "B (staying)")?;
            leave.call(&leaver)?;
            stayer.request(1)?;
            rig.pump(cx, || {
                (stayer.received() >= 1 || stayer.is_terminated())
                    && (leave == Leave::Cancel || leaver.is_terminated())
            })?;
            refusal(&stayer, 2)?;
            if leave == Leave::IllegalDemand {
                leaver_failed(cx, &leaver)?;
            }
            stayer_served(cx, &rig, &stayer)?;
            finish(&mut rig)?;
        }
    }
    Ok(())
}

/// §3.9: the leaver's `request(0)` gets its `on_error` while the other
/// subscriber asked for nothing; and a single subscriber's, made with an
/// element still owed, also when the processor cancels upstream and
/// upstream drops it.
pub(crate) fn spec_3_09<F: ProcessorFactory>(
    cx: &RuleCx,
    subject: &ProcessorSubject<F>,
) -> RuleBody {
    let factory = &*subject.factory;
    if let Some(skipped) = too_few_outputs(factory, 2) {
        return Ok(skipped);
    }
    one_owed(cx, factory)?;
    beside_an_idle_subscriber(cx, factory, Leave::IllegalDemand)
}

/// §3.13: the leaver's `cancel()` makes the processor drop it while the
/// other subscriber asked for nothing.
pub(crate) fn spec_3_13<F: ProcessorFactory>(
    cx: &RuleCx,
    subject: &ProcessorSubject<F>,
) -> RuleBody {
    beside_an_idle_subscriber(cx, &*subject.factory, Leave::Cancel)
}

/// A and B subscribed, A asks for [`LEAVER_DEMAND`], B for nothing;
/// upstream delivers what the processor asks for (a processor at its
/// slowest subscriber's pace asks for no more than its buffer), then A
/// leaves: it gets its `on_error` (§3.9) or is dropped (§3.13); then B
/// `request(1)` is served (§3.8). A asks before B subscribes (a processor
/// may pass the first subscriber's demand on before the second arrives),
/// and after.
fn beside_an_idle_subscriber<F: ProcessorFactory>(
    cx: &RuleCx,
    factory: &F,
    leave: Leave,
) -> RuleBody {
    if let Some(skipped) = two_subscribers(factory) {
        return Ok(skipped);
    }
    concluded(cx, leaves_beside_an_idle_one(cx, factory, leave))
}

/// [`beside_an_idle_subscriber`]'s scenarios; B, refused at any time
/// before its first element, leaves them not concluded.
fn leaves_beside_an_idle_one<F: ProcessorFactory>(
    cx: &RuleCx,
    factory: &F,
    leave: Leave,
) -> Result<(), Stop> {
    for asks_alone in [true, false] {
        let order = if asks_alone {
            "A subscribes and requests, then B subscribes"
        } else {
            "A and B subscribe, then A requests"
        };
        cx.scenario(format!(
            "{order}: A request({LEAVER_DEMAND}), B no request; upstream delivers what the processor asks for; A {}, B request(1)",
            leave.name()
        ));
        let mut rig = rig(cx, factory)?;
        let leaver = rig.downstream(cx, "A (leaving)")?;
        let stayer = if asks_alone {
            leaver.request(LEAVER_DEMAND)?;
            rig.another(cx, "B (staying)")?
        } else {
            let stayer = rig.another(cx, "B (staying)")?;
            leaver.request(LEAVER_DEMAND)?;
            stayer
        };
        let cap = inputs_for(factory, 2 * LEAVER_DEMAND);
        rig.upstream.feed(cap, cx.env().no_signal_timeout())?;
        leave.call(&leaver)?;
        match leave {
            Leave::IllegalDemand => {
                rig.pump(cx, || leaver.is_terminated())?;
                leaver_failed(cx, &leaver)?;
            }
            Leave::Cancel => {
                rig.pump(cx, || leaver.is_dropped())?;
                if !leaver.is_dropped() {
                    return Err(Stop::Failed(cx.failure_of(
                        "3.13",
                        "the processor to drop A, which cancelled (while B stays without demand)",
                        format!(
                            "it still held A {} ms later; upstream delivered {} with demand {}",
                            cx.env().timeout().as_millis(),
                            rig.upstream.delivered(),
                            show(rig.upstream.subscription().demand())
                        ),
                    )));
                }
            }
        }
        stayer.request(1)?;
        rig.pump(cx, || stayer.received() >= 1 || stayer.is_terminated())?;
        refusal(&stayer, 2)?;
        stayer_served(cx, &rig, &stayer)?;
        finish(&mut rig)?;
    }
    Ok(())
}

/// One subscriber: `request(2)`, one element delivered, `request(0)`
/// with the other still owed; upstream delivers what it owes unless the
/// processor cancels it, and then drops the processor (as a publisher may
/// after a cancel): the `on_error` must come all the same.
fn one_owed<F: ProcessorFactory>(cx: &RuleCx, factory: &F) -> Result<(), Failure> {
    cx.scenario(
        "request(2), 1 element delivered, request(0) with the other still owed; upstream drops the processor once it cancels",
    );
    let mut rig = rig(cx, factory)?;
    let downstream = rig.downstream(cx, "downstream")?;
    downstream.request(2)?;
    first_element(cx, &mut rig, &downstream, 2)?;
    downstream.request(0)?;
    let upstream = rig.upstream.subscription().clone();
    rig.pump(cx, || downstream.is_terminated() || upstream.is_cancelled())?;
    let cancelled = upstream.is_cancelled();
    if cancelled {
        rig.upstream.drop_subscriber()?;
    }
    leaver_failed(cx, &downstream)?;
    if !cancelled {
        finish(&mut rig)?;
    }
    Ok(())
}

/// Pumps upstream until the first element reaches `probe`, which asked
/// for `asked`.
fn first_element<F: ProcessorFactory>(
    cx: &RuleCx,
    rig: &mut Rig<'_, F>,
    probe: &Probe<F::Output>,
    asked: u64,
) -> Result<(), Failure> {
    if rig.pump(cx, || probe.received() >= 1)? {
        return Ok(());
    }
    // Demand not passed on at all is §4.1's (as in `spec_4_01`).
    Err(cx.failure_of(
        "4.1",
        format!("request({asked}) downstream to bring an element through the processor"),
        format!(
            "nothing arrived within {} ms; upstream demand was {}",
            cx.env().timeout().as_millis(),
            show(rig.upstream.subscription().demand())
        ),
    ))
}

/// The leaver's `request(0)` was answered with `on_error` (§3.9).
fn leaver_failed<T: std::fmt::Debug + Send + 'static>(
    cx: &RuleCx,
    probe: &Probe<T>,
) -> Result<(), Failure> {
    let terminal = probe.expect_terminal_as("on_error answering request(0)");
    if matches!(terminal, Ok(Signal::Error(_))) {
        return Ok(());
    }
    Err(cx.failure_of(
        "3.9",
        "on_error answering request(0)",
        match &terminal {
            Ok(_) => format!(
                "the leaving subscriber received {}",
                terminal_name(&terminal)
            ),
            Err(_) => format!(
                "nothing arrived at the leaving subscriber within {} ms",
                cx.env().timeout().as_millis()
            ),
        },
    ))
}

/// The subscriber that stayed got an element or a terminal signal (§3.8).
fn stayer_served<F: ProcessorFactory>(
    cx: &RuleCx,
    rig: &Rig<'_, F>,
    stayer: &Probe<F::Output>,
) -> Result<(), Failure> {
    if stayer.received() >= 1 || stayer.is_terminated() {
        return Ok(());
    }
    Err(cx.failure_of(
        "3.8",
        "B's request(1) served (an element, or a terminal signal) after the other subscriber left",
        format!(
            "nothing reached B within {} ms; upstream delivered {} with demand {}{}",
            cx.env().timeout().as_millis(),
            rig.upstream.delivered(),
            show(rig.upstream.subscription().demand()),
            if rig.upstream.subscription().is_cancelled() {
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
