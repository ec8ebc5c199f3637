//! The sink rule tests (`sink_1` … `sink_3`; `tck_extended_schedules` is
//! in `schedules`) and the TCK's driver of one
//! sink: named, instrumented wakers, every call traced.

use std::task::Poll;

use super::FuturesSinkFactory;
use super::driver::{Driver, FILL_LIMIT, show};
use crate::context::{Failure, Outcome, RuleBody, RuleCx};

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
