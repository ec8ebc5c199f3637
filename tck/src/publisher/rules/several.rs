//! Several subscribers of one publisher, deterministically (issue 27 §2):
//! the scenarios `spec_1_11` runs after its own, for publishers that
//! declare several subscribers.
//!
//! Only the first subscriber of a fresh publisher sees the stream from its
//! start: a hot publisher may start its source on the first subscribe and
//! hand elements to that subscriber's buffer before anyone requests, so
//! even a subscriber that subscribed before any request may start later in
//! the stream. Each subscriber gets at most what it requested: an element beyond its
//! own demand is §1.1 (the probe reports it, per subscriber). What every
//! subscriber present has asked for is owed: an owed element that does not
//! come is demand lost (§3.8: `request` registers elements "to the
//! respective subscriber"), whether another subscriber's demand, its
//! joining, its cancel or its dropped handle took it. A multicast may go
//! at the pace of its slowest subscriber, so nothing is owed to one while
//! another present still lacks demand.
//!
//! A publisher may also find its end only when asked for one more element
//! (§1.5 binds once it has terminated), and a multicast asks its source at
//! its slowest subscriber's pace: so wherever `on_complete` is awaited,
//! every subscriber still present has asked for one more than the stream
//! holds, and none is left with its demand used up.
//!
//! Every later subscriber may have missed elements (a hot publisher): it
//! is owed the rest of the stream from wherever it joined, in order and
//! with no gap (the probe's identity check), up to its demand, then
//! `on_complete` once it has asked for more than it got.

use super::{create, show, subscribed, up_to};
use crate::context::{Failure, RuleCx};
use crate::probe::{Probe, Signal};
use crate::publisher::PublisherFactory;

/// The rule an owed element that never comes breaks.
const LOST_DEMAND: &str = "3.8";

/// The scenarios `spec_1_11` runs, for a factory of several subscribers
/// and at least 3 elements. (Each test spends its own time budget: the
/// late joiner and the dropped handle run in `spec_1_01` and `spec_3_08`.)
pub(crate) fn several_subscribers<F: PublisherFactory>(cx: &RuleCx, f: &F) -> Result<(), Failure> {
    let n = up_to(f, 6);
    if n < 3 {
        return Ok(());
    }
    unequal_demand(cx, f, n)?;
    one_cancels(cx, f, n)
}

/// The late-joiner scenario, for a factory of several subscribers and at
/// least 3 elements (run by `spec_1_01`: each subscriber gets at most its
/// own demand, also when another joins later).
pub(crate) fn joining_later<F: PublisherFactory>(cx: &RuleCx, f: &F) -> Result<(), Failure> {
    let n = up_to(f, 6);
    if !f.supports_multiple_subscribers() || n < 3 {
        return Ok(());
    }
    late_joiner(cx, f, n)
}

/// The dropped-handle scenario, for a factory of several subscribers and
/// at least 3 elements (run by `spec_3_08`: demand is registered to the
/// subscriber that asked, whatever becomes of another).
pub(crate) fn dropping_one<F: PublisherFactory>(cx: &RuleCx, f: &F) -> Result<(), Failure> {
    let n = up_to(f, 6);
    if !f.supports_multiple_subscribers() || n < 3 {
        return Ok(());
    }
    one_dropped(cx, f, n)
}

/// The scenario of a cancel inside `on_next` in the middle of a delivery,
/// for a factory of several subscribers and at least 3 elements (run by
/// `spec_3_12`: a cancel stops the signals to *its* subscriber, not to the
/// others).
pub(crate) fn cancelling_inside<F: PublisherFactory>(cx: &RuleCx, f: &F) -> Result<(), Failure> {
    let n = up_to(f, 6);
    if !f.supports_multiple_subscribers() || n < 3 {
        return Ok(());
    }
    one_cancels_inside(cx, f, n)
}

/// Three subscribers requesting `n + 1`, 2 and 1, then the rest and one
/// more (see the module docs: an end found late): none gets
/// more than its own demand at any time (§1.1, the probes), and once each
/// has asked for everything, the first gets all `n` and the others the
/// rest of the stream from where they started, once and in order, then
/// `on_complete`. Nothing is owed before that: a multicast may go at the
/// pace of its slowest subscriber.
fn unequal_demand<F: PublisherFactory>(cx: &RuleCx, f: &F, n: u64) -> Result<(), Failure> {
    cx.scenario(format!(
        "publisher of {n}, three subscribers (all subscribed before any request) requesting {}, 2 and 1, then the rest and one more",
        n + 1
    ));
    let publisher = create(cx, f, n)?;
    let first = subscribed(Probe::new(cx, "first").created_for(n), &*publisher)?;
    let second = subscribed(later(cx, "second", n), &*publisher)?;
    let third = subscribed(later(cx, "third", n), &*publisher)?;
    first.request(n + 1)?;
    second.request(2)?;
    third.request(1)?;
    third.request(n)?;
    second.request(n - 1)?;
    let why = format!("requested {} in all", show(n + 1));
    owed(cx, &first, n, &why)?;
    ended(cx, &first)?;
    for probe in [&second, &third] {
        if !rest(cx, probe, (n, n), &why)? {
            ended(cx, probe)?;
        }
    }
    Ok(())
}

/// Two subscribers take 2 each (the second, which may have started later,
/// fewer if the stream ends first); the first cancels; the second then
/// gets the rest it asks for (and one more, for an end found late),
/// untouched by the other's cancel.
fn one_cancels<F: PublisherFactory>(cx: &RuleCx, f: &F, n: u64) -> Result<(), Failure> {
    cx.scenario(format!(
        "publisher of {n}, two subscribers take 2 each, the first cancels, the second requests the rest and one more"
    ));
    let publisher = create(cx, f, n)?;
    let first = subscribed(Probe::new(cx, "first").created_for(n), &*publisher)?;
    let second = subscribed(later(cx, "second", n), &*publisher)?;
    first.request(2)?;
    second.request(2)?;
    owed(cx, &first, 2, "requested 2")?;
    if rest(cx, &second, (2, n), "requested 2")? {
        return Ok(());
    }
    first.cancel()?;
    second.request(n - 1)?;
    if rest(
        cx,
        &second,
        (n - 2, n),
        "requested the rest after the first subscriber cancelled",
    )? {
        return Ok(());
    }
    ended(cx, &second)
}

/// Three subscribers, all subscribed before any request, ask for `n`, 1
/// and 1, so that one element can go to all three at once; the first
/// cancels from inside its first `on_next`, while that element may still
/// be on its way to the other two. They then ask for the rest (and one
/// more, for an end found late) and get it,
/// each element once and in order, then `on_complete`: a subscriber
/// leaving in the middle of a delivery takes nobody else's place or
/// demand with it (§3.8).
fn one_cancels_inside<F: PublisherFactory>(cx: &RuleCx, f: &F, n: u64) -> Result<(), Failure> {
    cx.scenario(format!(
        "publisher of {n}, three subscribers (all subscribed before any request) request {n}, 1 and 1, the first cancels inside its 1st on_next, the others request the rest and one more"
    ));
    let publisher = create(cx, f, n)?;
    let first = subscribed(
        Probe::new(cx, "first").created_for(n).cancel_after(1),
        &*publisher,
    )?;
    let second = subscribed(later(cx, "second", n), &*publisher)?;
    let third = subscribed(later(cx, "third", n), &*publisher)?;
    first.request(n)?;
    second.request(1)?;
    third.request(1)?;
    owed(cx, &first, 1, &format!("requested {}", show(n)))?;
    let mut done = [false, false];
    for (probe, done) in [&second, &third].into_iter().zip(&mut done) {
        *done = rest(cx, probe, (1, n), "requested 1")?;
    }
    for (probe, done) in [&second, &third].into_iter().zip(&done) {
        if !done {
            probe.request(n)?;
        }
    }
    let why = "requested the rest after the first subscriber cancelled inside its on_next";
    for (probe, done) in [&second, &third].into_iter().zip(done) {
        if !done && !rest(cx, probe, (n - 1, n), why)? {
            ended(cx, probe)?;
        }
    }
    Ok(())
}

/// A subscriber that joins later neither steals nor resets an earlier
/// one's demand. The pacer asks for 1 and the first for all `n` and one
/// more (for an end found late, as every subscriber here), so a
/// multicast going at its slowest subscriber's pace still owes the first
/// the rest of its `n` when the late one joins (a cold publisher has sent
/// them all: nothing left to lose). The late one asks for everything, then
/// the pacer: the pacer gets all `n`, the first (which subscribed second,
/// so may have started later) and the late one the rest of the stream from
/// wherever they joined, in order, then `on_complete`.
fn late_joiner<F: PublisherFactory>(cx: &RuleCx, f: &F, n: u64) -> Result<(), Failure> {
    cx.scenario(format!(
        "publisher of {n}, a pacer requests 1 and the first subscriber {}; a late subscriber joins and requests {}, then the pacer the rest and one more",
        n + 1,
        n + 1
    ));
    let publisher = create(cx, f, n)?;
    let pacer = subscribed(Probe::new(cx, "pacer").created_for(n), &*publisher)?;
    let first = subscribed(later(cx, "first", n), &*publisher)?;
    first.request(n + 1)?;
    pacer.request(1)?;
    owed(cx, &pacer, 1, "requested 1")?;
    let first_done = rest(cx, &first, (1, n), &format!("requested {}", show(n + 1)))?;
    let late = subscribed(
        Probe::new(cx, "late").created_for(n).joins_later(),
        &*publisher,
    )?;
    // One more than the stream has: a publisher that finds its end only
    // when asked for more has demand left to complete with (§1.5).
    late.request(n + 1)?;
    pacer.request(n)?;
    let why = format!(
        "requested {} in all, before and after a later subscriber joined",
        show(n)
    );
    if !first_done && !rest(cx, &first, (n - 1, n), &why)? {
        ended(cx, &first)?;
    }
    owed(cx, &pacer, n - 1, &why)?;
    ended(cx, &pacer)?;
    rest_of_stream(cx, &late, n)
}

/// Two subscribers; the first asks for everything, the second for 2; once
/// each has 2, the first drops its subscription handle
/// without cancelling (a Rust subscriber letting go of it). The spec does
/// not make that a cancel: the publisher may go on serving the dropped
/// one's demand or stop, and is judged on neither. The second then asks
/// for the rest and gets it, in order, then `on_complete`: its
/// subscription did not shift onto the dropped one's place or cross with
/// it. The dropped one asked for all,
/// so even a multicast at its slowest subscriber's pace is not held back
/// by it.
fn one_dropped<F: PublisherFactory>(cx: &RuleCx, f: &F, n: u64) -> Result<(), Failure> {
    cx.scenario(format!(
        "publisher of {n}, two subscribers request {} and 2; once each has 2, the first drops its subscription handle (no cancel), the second requests the rest and one more",
        n + 1
    ));
    let publisher = create(cx, f, n)?;
    let dropped = subscribed(Probe::new(cx, "dropped").created_for(n), &*publisher)?;
    let second = subscribed(later(cx, "second", n), &*publisher)?;
    dropped.request(n + 1)?;
    second.request(2)?;
    owed(cx, &dropped, 2, &format!("requested {}", show(n)))?;
    if rest(cx, &second, (2, n), "requested 2")? {
        return Ok(());
    }
    dropped.drop_subscription()?;
    second.request(n - 1)?;
    if rest(
        cx,
        &second,
        (n - 2, n),
        "requested the rest after another subscriber dropped its subscription handle",
    )? {
        return Ok(());
    }
    ended(cx, &second)
}

/// What a late subscriber that asked for more than `n` is owed: the rest
/// of the stream from wherever it joined (at most `n` elements, in order:
/// the probe checks), then `on_complete`.
fn rest_of_stream<T: std::fmt::Debug + Send + 'static>(
    cx: &RuleCx,
    probe: &Probe<T>,
    n: u64,
) -> Result<(), Failure> {
    if rest(
        cx,
        probe,
        (n + 1, n),
        "requested the whole stream after joining late",
    )? {
        return Ok(());
    }
    ended(cx, probe)
}

/// A probe for a subscriber that is not the first of a fresh publisher:
/// it may start anywhere in the stream of `n`, then goes on in order.
fn later<T: std::fmt::Debug + Send + 'static>(cx: &RuleCx, label: &str, n: u64) -> Probe<T> {
    Probe::new(cx, label).created_for(n).joins_later()
}

/// The next `k` signals at a probe that may have started later in the
/// stream of `n`, owed by its own demand: elements, or `on_complete` once
/// the stream has nothing left from where it started (`true`: it ended).
/// One that does not come, or an end before the stream's (where
/// `element_index` tells), is demand lost (§3.8).
fn rest<T: std::fmt::Debug + Send + 'static>(
    cx: &RuleCx,
    probe: &Probe<T>,
    (k, n): (u64, u64),
    why: &str,
) -> Result<bool, Failure> {
    for _ in 0..k {
        let signal = probe
            .expect_signal_as("the rest of the stream from where it joined, then on_complete")
            .map_err(|failure| as_lost_demand(cx, probe, failure, why))?;
        match signal {
            Signal::Next(_) => {}
            Signal::Complete => {
                // Wherever it joined, it is owed the stream to its end.
                return match probe.index_owed() {
                    Some(owed) if owed < n => Err(cx.failure_of(
                        LOST_DEMAND,
                        format!(
                            "elements {owed} … {} of the publisher of {n}, then on_complete ({why})",
                            n - 1
                        ),
                        format!("on_complete after element {}", owed.saturating_sub(1)),
                    )),
                    _ => Ok(true),
                };
            }
            Signal::Error(error) => {
                return Err(cx.failure(
                    "the rest of the stream, then on_complete",
                    format!("on_error({error}) arrived"),
                ));
            }
        }
    }
    Ok(false)
}

/// The next `k` elements at `probe`, owed by its own demand: one that does
/// not come is demand lost (§3.8), unless the probe already saw a rule
/// broken first (its failure says which).
fn owed<T: std::fmt::Debug + Send + 'static>(
    cx: &RuleCx,
    probe: &Probe<T>,
    k: u64,
    why: &str,
) -> Result<(), Failure> {
    for _ in 0..k {
        if let Err(failure) = probe.expect_next() {
            return Err(as_lost_demand(cx, probe, failure, why));
        }
    }
    Ok(())
}

/// `on_complete` at the end of `probe`'s stream, or lost demand.
fn ended<T: std::fmt::Debug + Send + 'static>(
    cx: &RuleCx,
    probe: &Probe<T>,
) -> Result<(), Failure> {
    probe
        .expect_complete_at_end()
        .map_err(|failure| as_lost_demand(cx, probe, failure, "all its elements delivered"))
}

/// A miss of the test's own check, filed as lost demand; a failure the
/// probe filed under another rule, or under the excess it set aside (which
/// is §1.1, this very test's rule in `spec_1_01`), stays as it is.
fn as_lost_demand<T: std::fmt::Debug + Send + 'static>(
    cx: &RuleCx,
    probe: &Probe<T>,
    failure: Failure,
    why: &str,
) -> Failure {
    if failure.rule != cx.rule() || probe.saw_beyond_demand() {
        return failure;
    }
    cx.failure_of(
        LOST_DEMAND,
        format!(
            "{} ({why}; each subscriber's demand is its own, §3.8)",
            failure.expected
        ),
        failure.actual,
    )
}
