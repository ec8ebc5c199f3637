//! The processor's own rule tests: §4.1 (both roles at once), §4.2 (an
//! upstream error reaches every subscriber at once, or is recovered from),
//! and the checks the spec recommends: a late subscriber's demand is
//! served, cancellation reaches upstream, upstream demand stays bounded.
//!
//! Each uses a rig: the processor, subscribed to the TCK's
//! [driver](crate::subscriber::Driver) as its upstream, and the core's
//! recording [`Probe`]s as downstream subscribers.

use std::time::Instant;

use reactive_streams::demand;

use super::ProcessorFactory;
use super::as_subscriber::{ProcessorSubject, create};
use crate::context::{Failure, Outcome, RuleBody, RuleCx};
use crate::probe::{Probe, Signal};
use crate::publisher::rules::several::{self, Stop, refusal};
use crate::subscriber::Driver;

pub(super) struct Rig<'a, F: ProcessorFactory> {
    pub(super) processor: F::Processor,
    pub(super) upstream: Driver<'a, F::Input, F::Processor>,
}

pub(super) fn rig<'a, F: ProcessorFactory>(
    cx: &RuleCx,
    factory: &'a F,
) -> Result<Rig<'a, F>, Failure> {
    let processor = create(cx, factory)?;
    let mut upstream = Driver::new(cx, Box::new(processor.clone()), move |i| factory.input(i));
    upstream.subscribe()?;
    Ok(Rig {
        processor,
        upstream,
    })
}

impl<F: ProcessorFactory> Rig<'_, F> {
    pub(super) fn downstream(&self, cx: &RuleCx, label: &str) -> Result<Probe<F::Output>, Failure> {
        let probe = Probe::new(cx, label);
        probe.subscribe_to(&self.processor)?;
        probe.expect_subscribed()?;
        Ok(probe)
    }

    /// Another downstream subscriber beside the first, subscriber 2:
    /// [`Stop::Refused`] if the processor refused it at subscribe time,
    /// `on_subscribe` then `on_error` (§1.9 allows it). A refusal can also
    /// come later, from another thread: the scenario looks for it with
    /// [`refusal`] once it has waited for what the subscriber is owed
    /// (see [`concluded`]).
    pub(super) fn another(&self, cx: &RuleCx, label: &str) -> Result<Probe<F::Output>, Stop> {
        let probe = self.downstream(cx, label)?;
        refusal(&probe, 2)?;
        Ok(probe)
    }

    /// Delivers inputs upstream as the processor's demand allows until
    /// `done` holds or the timeout passes; whether `done` held.
    pub(super) fn pump(&mut self, cx: &RuleCx, done: impl Fn() -> bool) -> Result<bool, Failure> {
        let deadline = Instant::now() + cx.env().timeout();
        let slice = cx.env().no_signal_timeout();
        loop {
            if done() {
                return Ok(true);
            }
            let now = Instant::now();
            if now >= deadline {
                return Ok(done());
            }
            if !self.upstream.next()? {
                if self.upstream.ended_by_illegal_demand() {
                    // The processor asked upstream for 0 and got on_error
                    // (§3.9): nothing more comes from upstream.
                    return Ok(done());
                }
                let wanted = self.upstream.delivered() + 1;
                self.upstream
                    .subscription()
                    .wait_demand(wanted, slice.min(deadline - now));
            }
        }
    }
}

pub(super) fn terminal_name<T: std::fmt::Debug>(signal: &Result<Signal<T>, Failure>) -> String {
    match signal {
        Ok(signal) => signal.describe(),
        Err(_) => String::from("nothing"),
    }
}

/// §4.1: the processor is subscriber and publisher at once: downstream
/// demand becomes upstream demand, elements flow through within it, and
/// completion passes on.
pub(crate) fn spec_4_01<F: ProcessorFactory>(
    cx: &RuleCx,
    subject: &ProcessorSubject<F>,
) -> RuleBody {
    let max = subject.factory.max_outputs();
    if max < 2 {
        return ends_by_itself(cx, &*subject.factory, max);
    }
    let mut rig = rig(cx, &*subject.factory)?;
    let downstream = rig.downstream(cx, "downstream")?;
    downstream.request(2)?;
    if !rig.pump(cx, || downstream.received() >= 2)? {
        return Err(cx.failure(
            "the 2 elements requested downstream to flow through the processor",
            format!(
                "{} of 2 arrived downstream; upstream demand was {}",
                downstream.received(),
                show(rig.upstream.subscription().demand())
            ),
        ));
    }
    rig.upstream.complete()?;
    let terminal = downstream.expect_terminal();
    if !matches!(terminal, Ok(Signal::Complete)) {
        return Err(cx.failure(
            "on_complete from upstream to pass on downstream",
            format!("downstream received {}", terminal_name(&terminal)),
        ));
    }
    rig.upstream.drop_subscriber()?;
    Ok(Outcome::Passed)
}

/// §4.1 for a processor declaring fewer than 2 outputs (`take(0)`,
/// `take(1)`): downstream demand becomes upstream demand as far as it
/// needs, its `max` outputs flow through, and it completes downstream by
/// itself.
fn ends_by_itself<F: ProcessorFactory>(cx: &RuleCx, factory: &F, max: u64) -> RuleBody {
    cx.scenario(format!(
        "the factory's max_outputs() is {max}: request(2) downstream, {max} output(s), then on_complete without upstream's"
    ));
    let mut rig = rig(cx, factory)?;
    let downstream = rig.downstream(cx, "downstream")?;
    downstream.request(2)?;
    if !rig.pump(cx, || downstream.received() >= max)? {
        return Err(cx.failure(
            format!("the {max} element(s) requested downstream to flow through the processor"),
            format!(
                "{} of {max} arrived downstream; upstream demand was {}",
                downstream.received(),
                show(rig.upstream.subscription().demand())
            ),
        ));
    }
    let terminal = downstream.expect_terminal();
    if !matches!(terminal, Ok(Signal::Complete)) {
        return Err(cx.failure(
            format!("on_complete downstream after the {max} output(s) the factory's max_outputs() declares"),
            format!("downstream received {}", terminal_name(&terminal)),
        ));
    }
    rig.upstream.drop_subscriber()?;
    Ok(Outcome::Passed)
}

/// The reason to skip a test whose scenario needs `outputs` outputs, with
/// the upstream subscription still open, from a processor declaring fewer.
pub(super) fn too_few_outputs<F: ProcessorFactory>(factory: &F, outputs: u64) -> Option<Outcome> {
    let max = factory.max_outputs();
    (max < outputs).then(|| {
        Outcome::Skipped(format!(
            "needs {outputs} outputs with the upstream subscription still open; the factory's max_outputs() is {max}: the processor ends its own upstream subscription after at most {max} output{}",
            if max == 1 { "" } else { "s" }
        ))
    })
}

/// §4.2: an upstream `on_error` reaches every downstream subscriber at
/// once, with or without demand; or, for a processor that declares it
/// recovers, the upstream subscription is treated as cancelled.
pub(crate) fn spec_4_02<F: ProcessorFactory>(
    cx: &RuleCx,
    subject: &ProcessorSubject<F>,
) -> RuleBody {
    let factory = &*subject.factory;
    // One output, then the error while the processor is still subscribed.
    if let Some(skipped) = too_few_outputs(factory, 2) {
        return Ok(skipped);
    }
    let mut rig = rig(cx, factory)?;
    let first = rig.downstream(cx, "first downstream")?;
    first.request(1)?;
    rig.pump(cx, || first.received() >= 1)?;
    if factory.recovers_from_errors() {
        // Recovered, the processor must treat its upstream as cancelled
        // (§2.4 on its subscriber side), also while it keeps serving
        // downstream demand.
        cx.scenario("the processor recovers from upstream errors, downstream requests again");
        rig.upstream.watch_after_terminal("2.4");
        rig.upstream.error()?;
        first.request(2)?;
        let deadline = Instant::now() + cx.env().no_signal_timeout();
        rig.upstream.subscription().wait_failure_until(deadline);
        rig.upstream.drop_subscriber()?;
        return Ok(Outcome::Passed);
    }
    first.request(1)?;
    let mut downstreams = vec![("first downstream subscriber (with demand)", first)];
    if super::several_unmet(factory).is_none() {
        let second = rig.downstream(cx, "second downstream")?;
        downstreams.push(("second downstream subscriber (without demand)", second));
    }
    rig.upstream.error()?;
    for (label, probe) in &downstreams {
        let terminal = probe.expect_terminal();
        if !matches!(terminal, Ok(Signal::Error(_))) {
            return Err(cx.failure(
                "the upstream on_error at every downstream subscriber at once, even without demand",
                format!("the {label} received {}", terminal_name(&terminal)),
            ));
        }
    }
    rig.upstream.drop_subscriber()?;
    Ok(Outcome::Passed)
}

/// The outcome of a scenario with several downstream subscribers: passed,
/// or, if the processor refused one (§1.9: "the only legal way to signal
/// failure (or reject the Subscriber) is by calling onError (after calling
/// onSubscribe)"), at subscribe time or later, not concluded, never failed
/// (as the publisher's several-subscriber scenarios).
pub(super) fn concluded(cx: &RuleCx, scenario: Result<(), Stop>) -> RuleBody {
    Ok(several::outcome(several::conclude(cx, scenario)?))
}

/// A subscriber that arrives late is served when it requests.
pub(crate) fn tck_late_subscriber_demand<F: ProcessorFactory>(
    cx: &RuleCx,
    subject: &ProcessorSubject<F>,
) -> RuleBody {
    let factory = &*subject.factory;
    if let Some(reason) = super::several_unmet(factory) {
        return Ok(Outcome::Skipped(reason));
    }
    // Two to the early subscriber, then one to the late one.
    if let Some(skipped) = too_few_outputs(factory, 3) {
        return Ok(skipped);
    }
    concluded(cx, late_served(cx, factory))
}

/// The early subscriber asks for 4 and gets 2, a late one joins and asks
/// for 1, which must come; then [`after_the_first`](super::late::after_the_first).
fn late_served<F: ProcessorFactory>(cx: &RuleCx, factory: &F) -> Result<(), Stop> {
    let mut rig = rig(cx, factory)?;
    let early = rig.downstream(cx, "early downstream")?;
    early.request(4)?;
    rig.pump(cx, || early.received() >= 2)?;
    let late = rig.another(cx, "late downstream")?;
    late.request(1)?;
    rig.pump(cx, || late.received() >= 1 || late.is_terminated())?;
    refusal(&late, 2)?;
    if late.received() < 1 {
        return Err(Stop::Failed(cx.failure(
            "the late subscriber's request(1) to be served",
            "no element reached it",
        )));
    }
    super::late::after_the_first(cx, factory, &mut rig, &early, &late)?;
    rig.upstream.complete()?;
    rig.upstream.drop_subscriber()?;
    Ok(())
}

/// When the last downstream subscriber cancels, the processor cancels
/// upstream (recommended by §4; a factory may declare it does not).
pub(crate) fn tck_cancel_propagates<F: ProcessorFactory>(
    cx: &RuleCx,
    subject: &ProcessorSubject<F>,
) -> RuleBody {
    let factory = &*subject.factory;
    if !factory.propagates_cancellation() {
        return Ok(Outcome::Skipped(String::from(
            "the factory's propagates_cancellation() is false",
        )));
    }
    cx.scenario("request(1), the element delivered, cancel() from the test's thread");
    let mut first = rig(cx, factory)?;
    let downstream = first.downstream(cx, "downstream")?;
    downstream.request(1)?;
    // A processor declaring max_outputs() 0 (a take(0)) completes
    // downstream without an output: nothing to wait for.
    first.pump(cx, || {
        downstream.received() >= 1 || downstream.is_terminated()
    })?;
    downstream.cancel()?;
    upstream_cancelled(cx, &first)?;
    first.upstream.drop_subscriber()?;
    if factory.max_outputs() == 0 {
        // A take(0) gives no on_next to cancel from.
        return Ok(Outcome::Passed);
    }
    // A cancel from inside on_next, on the thread delivering it: on the
    // last element owed, and while another is still owed (asked for
    // downstream and upstream). The cancel reaches upstream eventually;
    // downstream, what follows that on_next (the other element owed, a
    // terminal signal) is "eventually" too, within the probe's §1.8 bound.
    for (requested, label) in [
        (1, "the last element owed"),
        (2, "the 1st of 2, the 2nd still owed"),
    ] {
        cx.scenario(format!(
            "request({requested}), cancel() from inside on_next of {label}"
        ));
        let mut rig = rig(cx, factory)?;
        let downstream = Probe::new(cx, "downstream").cancel_after(1);
        downstream.subscribe_to(&rig.processor)?;
        downstream.expect_subscribed()?;
        downstream.request(requested)?;
        if !rig.pump(cx, || downstream.received() >= 1)? {
            // Demand not passed on at all is §4.1's (as in `spec_4_01`),
            // and leaves no on_next to cancel from.
            return Err(cx.failure_of(
                "4.1",
                format!("request({requested}) downstream to bring an element through the processor, so that the subscriber could cancel from inside on_next"),
                format!("nothing arrived within {} ms", cx.env().timeout().as_millis()),
            ));
        }
        upstream_cancelled(cx, &rig)?;
        downstream.expect_next()?;
        // Upstream lets go of the processor, as a publisher does once
        // cancelled (§3.13), before the wait: a processor that keeps its
        // cancelled subscriber until then shows it has stopped by dropping
        // it, without waiting out §1.8's bound.
        rig.upstream.drop_subscriber()?;
        downstream.expect_quiet("the cancel() from inside on_next")?;
    }
    if factory.max_outputs() >= 3 {
        cancel_with_one_in_flight(cx, factory)?;
    }
    Ok(Outcome::Passed)
}

/// A cancel from inside `on_next` while another element is in flight:
/// delivered upstream to the processor and not yet emitted downstream.
/// Downstream takes one element and then has no demand; the TCK delivers
/// upstream, within the processor's own demand, inputs for two more
/// outputs, which the processor must hold. Downstream asks for 2 and
/// cancels from inside the first: the other is still held, owed and
/// cancelled. The cancel reaches upstream all the same, and signals
/// downstream stop eventually (§1.8: the one in flight may still come,
/// within the probe's bound). A processor asking upstream only for
/// what downstream asked cannot hold an element while downstream has no
/// demand: the scenario is left out for it, saying so.
fn cancel_with_one_in_flight<F: ProcessorFactory>(cx: &RuleCx, factory: &F) -> Result<(), Failure> {
    cx.scenario(
        "request(1), its element delivered; upstream delivers what the processor asked for beyond it (2 elements held, no demand downstream); request(2), cancel() from inside on_next of the 1st of them, the 2nd still in flight",
    );
    let mut rig = rig(cx, factory)?;
    let downstream = Probe::new(cx, "downstream").cancel_after(2);
    downstream.subscribe_to(&rig.processor)?;
    downstream.expect_subscribed()?;
    downstream.request(1)?;
    if !rig.pump(cx, || downstream.received() >= 1)? {
        return Err(cx.failure_of(
            "4.1",
            "request(1) downstream to bring an element through the processor",
            format!(
                "nothing arrived within {} ms",
                cx.env().timeout().as_millis()
            ),
        ));
    }
    downstream.expect_next()?;
    let held = hold(cx, &mut rig, factory, 2)?;
    if held < 2 {
        cx.trace(format!(
            "left out: the processor asked upstream for {} with 1 requested downstream, enough for {held} more output(s) held; 2 are needed to cancel with one in flight",
            show(rig.upstream.subscription().demand())
        ));
        rig.upstream.complete()?;
        rig.upstream.drop_subscriber()?;
        return Ok(());
    }
    downstream.request(2)?;
    downstream.expect_next()?;
    if !rig
        .upstream
        .subscription()
        .wait_cancelled(cx.env().timeout())
    {
        return Err(cx.failure(
            "cancel() upstream once the last downstream subscriber cancelled, also with an element still in flight",
            "the upstream subscription was not cancelled",
        ));
    }
    rig.upstream.drop_subscriber()?;
    downstream.expect_quiet("the cancel() from inside on_next")?;
    Ok(())
}

/// Delivers upstream, within the processor's own demand, inputs until
/// `outputs` of them make outputs (downstream has no demand: the
/// processor holds them); how many it holds. Waits a no-signal window for
/// demand that may not come.
fn hold<F: ProcessorFactory>(
    cx: &RuleCx,
    rig: &mut Rig<'_, F>,
    factory: &F,
    outputs: u64,
) -> Result<u64, Failure> {
    let window = cx.env().no_signal_timeout();
    let mut held = 0;
    while held < outputs {
        let index = rig.upstream.delivered();
        if rig.upstream.next()? {
            if factory.passes(index) {
                held += 1;
            }
            continue;
        }
        let upstream = rig.upstream.subscription();
        if upstream.is_cancelled() || rig.upstream.ended_by_illegal_demand() {
            break;
        }
        if upstream.wait_demand(index + 1, window) <= index {
            break;
        }
    }
    Ok(held)
}

/// The processor's upstream subscription is cancelled within the timeout.
fn upstream_cancelled<F: ProcessorFactory>(cx: &RuleCx, rig: &Rig<'_, F>) -> Result<(), Failure> {
    if rig
        .upstream
        .subscription()
        .wait_cancelled(cx.env().timeout())
    {
        return Ok(());
    }
    Err(cx.failure(
        "cancel() upstream once the last downstream subscriber cancelled",
        "the upstream subscription was not cancelled",
    ))
}

/// Upstream demand follows downstream demand: with one element requested
/// downstream, the processor requests at most that one plus its prefetch,
/// `max_upstream_demand()` (the bound the extended verification applies to
/// every downstream demand).
pub(crate) fn tck_bounded_upstream_demand<F: ProcessorFactory>(
    cx: &RuleCx,
    subject: &ProcessorSubject<F>,
) -> RuleBody {
    let factory = &*subject.factory;
    if factory.max_outputs() == 0 {
        return Ok(Outcome::Skipped(String::from(
            "needs a processor that asks upstream for elements; the factory's max_outputs() is 0: it ends its own upstream subscription without demand",
        )));
    }
    let prefetch = factory.max_upstream_demand();
    let max = demand::add(1, prefetch);
    let mut rig = rig(cx, factory)?;
    let downstream = rig.downstream(cx, "downstream")?;
    downstream.request(1)?;
    let upstream = rig.upstream.subscription().clone();
    if upstream.wait_demand(1, cx.env().timeout()) == 0 {
        // The bound is this test's rule; demand not passed on at all is
        // §4.1's (as in `spec_4_01`), and leaves no bound to judge.
        return Err(cx.failure_of(
            "4.1",
            "downstream request(1) to become upstream demand",
            "no request arrived upstream",
        ));
    }
    let deadline = Instant::now() + cx.env().no_signal_timeout();
    upstream.wait_failure_until(deadline);
    let requested = upstream.demand();
    if requested > max {
        return Err(cx.failure(
            format!("upstream demand of at most {} (downstream's 1 plus max_upstream_demand() {prefetch})", show(max)),
            format!("upstream demand {}", show(requested)),
        ));
    }
    rig.pump(cx, || downstream.received() >= 1)?;
    rig.upstream.complete()?;
    rig.upstream.drop_subscriber()?;
    Ok(Outcome::Passed)
}

/// A demand in the one vocabulary of every message.
pub(super) fn show(n: u64) -> String {
    crate::probe::show_demand(n)
}
