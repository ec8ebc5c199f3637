//! The sink rule tests (`sink_1` … `sink_3`; `tck_extended_schedules` is
//! in `schedules`) and the TCK's driver of one
//! sink: named, instrumented wakers, every call traced.

use std::fmt::Debug;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};
use std::time::Instant;

use futures_sink::Sink;

use super::{Delivery, FuturesSinkFactory};
use crate::context::{Failure, Outcome, RuleBody, RuleCx};
use crate::wakers::{WakeProbe, WakerSet, poll_slice};

/// Items sent at most while filling a sink to make `poll_ready` return
/// `Pending` (`sink.1`).
pub const FILL_LIMIT: u64 = 64;
/// Items sent before a flush or a close (`sink.2`, `sink.3`).
pub const SENT: u64 = 3;

/// The body of a quick rule test.
pub(crate) fn body<F: FuturesSinkFactory>(test: &str) -> fn(&RuleCx, &F) -> RuleBody {
    match test {
        "sink_1" => sink_1::<F>,
        "sink_2" => sink_2::<F>,
        "sink_3" => sink_3::<F>,
        other => panic!("no sink rule test named {other}"),
    }
}

pub(super) type Answer<E> = Poll<Result<(), E>>;

pub(super) fn show<E: Debug>(answer: &Answer<E>) -> String {
    match answer {
        Poll::Pending => String::from("Pending"),
        Poll::Ready(Ok(())) => String::from("Ready(Ok(()))"),
        Poll::Ready(Err(error)) => format!("Ready(Err({error:?}))"),
    }
}

/// A sink under test, its delivery side and what has been sent and seen.
pub(super) struct Driver<F: FuturesSinkFactory> {
    pub(super) cx: RuleCx,
    sink: Pin<Box<F::Sink>>,
    delivery: Delivery,
    pub(super) wakers: WakerSet,
    pub(super) sent: u64,
    /// Every item taken from the delivery side, in order.
    pub(super) delivered: Vec<u64>,
    /// Whether the TCK holds the destination paused.
    pub(super) paused: bool,
}

impl<F: FuturesSinkFactory> Driver<F> {
    pub(super) fn new(cx: &RuleCx, factory: &F) -> Self {
        let (sink, delivery) = factory.create_sink();
        cx.trace("create_sink()");
        Driver {
            cx: cx.clone(),
            sink: Box::pin(sink),
            delivery,
            wakers: WakerSet::new(cx),
            sent: 0,
            delivered: Vec::new(),
            paused: false,
        }
    }

    /// Whether the delivery side can pause its destination.
    pub(super) fn can_pause(&self) -> bool {
        self.delivery.can_pause()
    }

    /// The delivery side, lent to another thread (a race making room from
    /// there); the driver holds a stand-in that takes nothing until
    /// [`return_delivery`](Self::return_delivery).
    pub(super) fn lend_delivery(&mut self) -> Delivery {
        std::mem::replace(&mut self.delivery, Delivery::new(|| None))
    }

    pub(super) fn return_delivery(&mut self, delivery: Delivery) {
        self.delivery = delivery;
    }

    /// Stalls (`true`) or resumes (`false`) the destination, traced.
    pub(super) fn pause(&mut self, paused: bool) {
        self.cx.trace(if paused {
            "delivery: paused"
        } else {
            "delivery: resumed"
        });
        self.paused = paused;
        self.delivery.pause(paused);
    }

    pub(super) fn call(
        &mut self,
        method: &str,
        waker: &Arc<WakeProbe>,
        rule: &str,
    ) -> Result<Answer<F::Error>, Failure> {
        let what = format!("{method} [{}]", waker.name());
        let std_waker = waker.waker();
        let sink = &mut self.sink;
        let answer = self.cx.try_step(rule, what.clone(), || {
            let mut cx = Context::from_waker(&std_waker);
            match method {
                "poll_ready" => sink.as_mut().poll_ready(&mut cx),
                "poll_flush" => sink.as_mut().poll_flush(&mut cx),
                _ => sink.as_mut().poll_close(&mut cx),
            }
        })?;
        self.cx.trace(format!("{what} → {}", show(&answer)));
        Ok(answer)
    }

    pub(super) fn start_send(&mut self, rule: &str) -> Result<Result<(), F::Error>, Failure> {
        let item = self.sent;
        let sink = &mut self.sink;
        let result = self.cx.try_step(rule, format!("start_send({item})"), || {
            sink.as_mut().start_send(item)
        })?;
        match &result {
            Ok(()) => self.sent += 1,
            Err(error) => self
                .cx
                .trace(format!("start_send({item}) → Err({error:?})")),
        }
        Ok(result)
    }

    /// Takes every item delivered so far; how many.
    pub(super) fn take_delivered(&mut self) -> usize {
        let before = self.delivered.len();
        while let Some(item) = self.delivery.take() {
            self.cx.trace(format!("delivery: took {item}"));
            self.delivered.push(item);
        }
        self.delivered.len() - before
    }

    /// Calls `method` until it is ready, taking what was delivered after
    /// each `Pending` and waiting a little for a wake-up (lenient: the
    /// wake-up rule is `sink.1`'s).
    fn until_ready(&mut self, method: &str, rule: &str) -> Result<Result<(), F::Error>, Failure> {
        let timeout = self.cx.env().timeout();
        let slice = poll_slice(self.cx.env());
        let deadline = Instant::now() + timeout;
        let waker = self.wakers.fresh();
        loop {
            let since = waker.wakes();
            match self.call(method, &waker, rule)? {
                Poll::Ready(result) => return Ok(result),
                Poll::Pending if Instant::now() >= deadline => {
                    return Err(self.cx.failure(
                        format!("{method} to be ready while the TCK takes every delivered item"),
                        format!("Pending for {} ms", timeout.as_millis()),
                    ));
                }
                Poll::Pending => {
                    self.take_delivered();
                    waker.wait_woken(since, slice);
                }
            }
        }
    }

    /// Pauses the destination if it can be, then sends with `waker` until
    /// `poll_ready` returns `Pending`, at most [`FILL_LIMIT`] items: whether
    /// it did, or why the sink could not be filled (`poll_ready` failed).
    /// A refused `start_send` after a ready `poll_ready` fails
    /// `tck.sink_accepts_when_ready`.
    pub(super) fn fill(
        &mut self,
        waker: &Arc<WakeProbe>,
        rule: &str,
    ) -> Result<Result<bool, String>, Failure> {
        if self.can_pause() {
            self.pause(true);
        }
        while self.sent < FILL_LIMIT {
            match self.call("poll_ready", waker, rule)? {
                Poll::Ready(Ok(())) => {
                    if self.start_send(rule)?.is_err() {
                        return Err(self.cx.failure_of(
                            "tck.sink_accepts_when_ready",
                            "start_send after poll_ready returned Ready(Ok(())) to accept the item",
                            "Err",
                        ));
                    }
                }
                Poll::Ready(Err(error)) => {
                    return Ok(Err(format!(
                        "poll_ready failed before the sink was full: {error:?}"
                    )));
                }
                Poll::Pending => return Ok(Ok(true)),
            }
        }
        Ok(Ok(false))
    }

    /// `poll_ready` until ready, then `start_send`; `Ok(false)` if the sink
    /// refused with an error.
    fn send(&mut self, rule: &str) -> Result<bool, Failure> {
        if self.until_ready("poll_ready", rule)?.is_err() {
            return Ok(false);
        }
        Ok(self.start_send(rule)?.is_ok())
    }
}

/// The methods whose `Pending` `sink.1` holds to a wake-up.
const WAKING_METHODS: [&str; 3] = ["poll_ready", "poll_flush", "poll_close"];

/// The id under which a declaration of the factory that does not hold
/// fails.
const CONFIGURATION: &str = "tck.configuration";

/// `sink.1`: after `Pending`, the waker of that call is woken once the call
/// should be made again — for each of `poll_ready`, `poll_flush` and
/// `poll_close`, on a sink of its own. A sink the TCK never sees `Pending`
/// is skipped only if its factory declares
/// [`never_waits`](FuturesSinkFactory::never_waits).
pub(crate) fn sink_1<F: FuturesSinkFactory>(cx: &RuleCx, factory: &F) -> RuleBody {
    let mut unchecked = Vec::new();
    let mut pending = Vec::new();
    let mut pausable = false;
    let mut races = super::race::Races::new(cx);
    for method in WAKING_METHODS {
        let seen = woken_after_pending(cx, factory, method)?;
        pausable |= seen.pausable;
        match seen.unchecked {
            Some(reason) => unchecked.push(format!("{method}: {reason}")),
            None => {
                pending.push(method);
                // A sink declared never to wait fails its declaration
                // below, whatever its races.
                if !factory.never_waits() {
                    super::race::room_at_take(cx, factory, method, &mut races)?;
                }
            }
        }
    }
    if factory.never_waits() {
        if let Some(method) = pending.first() {
            return Err(cx.failure_of(
                CONFIGURATION,
                "no Pending from a sink whose factory declares never_waits()",
                format!("{method} returned Pending (see the trace)"),
            ));
        }
        return Ok(Outcome::Skipped(String::from(
            "the factory declares never_waits(): poll_ready, poll_flush and poll_close never return Pending, so there is nothing to wake",
        )));
    }
    if pending.is_empty() {
        let destination = if pausable {
            "though its destination was paused"
        } else {
            "and its Delivery cannot pause its destination"
        };
        cx.scenario("poll_ready, poll_flush and poll_close, each on a sink of its own");
        return Err(cx.failure_of(
            CONFIGURATION,
            "a sink the TCK can see Pending, to check its wake-ups: a Delivery that can pause its destination (Delivery::pausable, or the TCK's Outlet for a sink that forwards into another sink), or never_waits() declared for a sink that never waits",
            format!(
                "never Pending, {destination} ({})",
                unchecked.join("; ")
            ),
        ));
    }
    Ok(Outcome::Passed)
}

/// What one `sink.1` scenario saw.
struct Seen {
    /// Why the method's wake-up could not be checked (it never returned
    /// `Pending`), or `None` if it was checked.
    unchecked: Option<String>,
    /// Whether the destination could be paused.
    pausable: bool,
}

/// One `sink.1` scenario: the destination paused if it can be, a sink
/// filled until `poll_ready` returns `Pending`, then `method` called with
/// two wakers in turn, then the destination resumed (or, if it cannot
/// pause, one item taken); the second waker must be woken.
fn woken_after_pending<F: FuturesSinkFactory>(
    cx: &RuleCx,
    factory: &F,
    method: &str,
) -> Result<Seen, Failure> {
    const RULE: &str = "sink.1";
    let mut d = Driver::new(cx, factory);
    let pausable = d.can_pause();
    let unchecked = |reason: String| {
        Ok(Seen {
            unchecked: Some(reason),
            pausable,
        })
    };
    let (start, release) = if pausable {
        ("its destination paused, ", "the destination resumed")
    } else {
        ("", "one item taken")
    };
    cx.scenario(format!(
        "{start}a sink filled until poll_ready returns Pending (at most {FILL_LIMIT} items), {method} called with two wakers, then {release}"
    ));
    let fill = d.wakers.fresh();
    let full = match d.fill(&fill, RULE)? {
        Ok(full) => full,
        Err(reason) => return unchecked(reason),
    };
    let nothing_taken = if pausable {
        "its destination paused"
    } else {
        "nothing taken"
    };
    let first = if method == "poll_ready" {
        if !full {
            return unchecked(format!(
                "never Pending in {FILL_LIMIT} sends with {nothing_taken}"
            ));
        }
        fill
    } else {
        let first = d.wakers.fresh();
        match d.call(method, &first, RULE)? {
            Poll::Pending => first,
            answer => {
                return unchecked(format!(
                    "{} after {} sends with {nothing_taken}",
                    show(&answer),
                    d.sent
                ));
            }
        }
    };
    let second = d.wakers.fresh();
    if d.call(method, &second, RULE)?.is_ready() {
        return Ok(Seen {
            unchecked: None,
            pausable,
        });
    }
    let timeout = cx.env().timeout();
    let why = if pausable {
        // A buffered sink may have delivered nothing yet: what it waits
        // for is the destination, and the destination is free again.
        d.pause(false);
        d.take_delivered();
        "its destination was resumed"
    } else {
        let taken = d.delivery.take();
        cx.trace(format!("delivery: took {taken:?}"));
        if taken.is_none() {
            // Nothing delivered to take: the sink is Pending for reasons of
            // its own ("not ready yet", then ready a moment later), which
            // the Sink docs allow; the wake-up is owed all the same, once
            // it can go on.
            "it could go on (nothing had been delivered for the TCK to take: it was Pending for reasons of its own)"
        } else {
            "an item was taken from the full sink"
        }
    };
    if !second.wait_woken(0, timeout) {
        let stale = if first.wakes() > 0 {
            format!(
                ", though {} (the waker of an earlier call) was woken",
                first.name()
            )
        } else {
            String::new()
        };
        return Err(cx.failure(
            format!(
                "a wake-up of {} (the waker of the most recent {method}, which returned Pending) once {why}",
                second.name()
            ),
            format!("no wake-up of {} within {} ms{stale}", second.name(), timeout.as_millis()),
        ));
    }
    Ok(Seen {
        unchecked: None,
        pausable,
    })
}

/// Every item owed once `method` returned `Ready(Ok(()))` with the first
/// `sent` items accepted: all of them, or, for a latest-value sink, the
/// last; a failure of `rule` otherwise.
pub(super) fn check_delivered<F: FuturesSinkFactory>(
    d: &Driver<F>,
    latest_value: bool,
    sent: u64,
    method: &str,
    rule: &str,
) -> Result<(), Failure> {
    let Some(last) = sent.checked_sub(1) else {
        return Ok(());
    };
    let list = |items: &mut dyn Iterator<Item = u64>| {
        items.map(|i| i.to_string()).collect::<Vec<_>>().join(", ")
    };
    if latest_value {
        if d.delivered.contains(&last) {
            return Ok(());
        }
        return Err(d.cx.failure_of(
            rule,
            format!(
                "item {last}, the latest accepted before {method} returned Ready(Ok(())), to be visible to the delivery side (a latest-value sink: earlier items may be skipped)"
            ),
            format!(
                "items delivered: [{}]",
                list(&mut d.delivered.iter().copied())
            ),
        ));
    }
    let missing: Vec<u64> = (0..sent).filter(|i| !d.delivered.contains(i)).collect();
    if missing.is_empty() {
        return Ok(());
    }
    let hint = if d.delivered.contains(&last) {
        format!(
            " (the latest, item {last}, was: if the sink keeps only the newest item, as a watch does, its factory declares latest_value())"
        )
    } else {
        String::new()
    };
    let noun = if missing.len() == 1 { "item" } else { "items" };
    Err(d.cx.failure_of(
        rule,
        format!("every one of the {sent} items accepted before {method} returned Ready(Ok(())) to be delivered"),
        format!(
            "{noun} {} never delivered{hint}",
            list(&mut missing.iter().copied())
        ),
    ))
}

/// `sink.2`: after `poll_flush` returns `Ready(Ok(()))`, every item
/// accepted before has been delivered.
pub(crate) fn sink_2<F: FuturesSinkFactory>(cx: &RuleCx, factory: &F) -> RuleBody {
    const RULE: &str = "sink.2";
    cx.scenario(format!("{SENT} items sent, then poll_flush"));
    let mut d = Driver::new(cx, factory);
    if let Some(skipped) = sent_then_delivered(&mut d, factory, "flush", RULE)? {
        return Ok(skipped);
    }
    Ok(Outcome::Passed)
}

/// Sends [`SENT`] items, then calls `poll_<ending>` (`flush` or `close`)
/// until it is ready: every item accepted before must have been delivered
/// by then. The skip, if the sink refused an item or the call failed.
fn sent_then_delivered<F: FuturesSinkFactory>(
    d: &mut Driver<F>,
    factory: &F,
    ending: &str,
    rule: &str,
) -> Result<Option<Outcome>, Failure> {
    for _ in 0..SENT {
        if !d.send(rule)? {
            return Ok(Some(Outcome::Skipped(format!(
                "the sink refused an item before the {ending}"
            ))));
        }
    }
    let method = format!("poll_{ending}");
    if d.until_ready(&method, rule)?.is_err() {
        return Ok(Some(Outcome::Skipped(format!("{method} failed"))));
    }
    d.take_delivered();
    check_delivered(d, factory.latest_value(), d.sent, &method, rule)?;
    Ok(None)
}

/// `sink.3`: after `poll_close` returns `Ready(Ok(()))`, every item
/// accepted before has been delivered, and no later item is accepted and
/// lost.
pub(crate) fn sink_3<F: FuturesSinkFactory>(cx: &RuleCx, factory: &F) -> RuleBody {
    const RULE: &str = "sink.3";
    cx.scenario(format!(
        "{SENT} items sent, then poll_close, then one more send"
    ));
    let mut d = Driver::new(cx, factory);
    if let Some(skipped) = sent_then_delivered(&mut d, factory, "close", RULE)? {
        return Ok(skipped);
    }
    // A send after the close: refusing it is fine, losing it is not.
    let waker = d.wakers.fresh();
    let Poll::Ready(Ok(())) = d.call("poll_ready", &waker, RULE)? else {
        return Ok(Outcome::Passed);
    };
    if d.start_send(RULE)?.is_err() {
        return Ok(Outcome::Passed);
    }
    let late = d.sent - 1;
    match d.call("poll_flush", &waker, RULE)? {
        Poll::Ready(Ok(())) => {}
        _ => return Ok(Outcome::Passed),
    }
    d.take_delivered();
    if !d.delivered.contains(&late) {
        return Err(cx.failure(
            format!(
                "item {late}, sent after poll_close returned Ready(Ok(())), to be refused (an error from poll_ready, start_send or poll_flush) or delivered"
            ),
            String::from("poll_ready, start_send and poll_flush all succeeded, and it was never delivered"),
        ));
    }
    Ok(Outcome::Passed)
}
