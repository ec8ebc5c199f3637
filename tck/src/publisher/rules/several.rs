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
//!
//! A publisher decides how many subscribers it serves (§1.11) and may
//! refuse any with `on_subscribe`, then `on_error` (§1.9). A scenario
//! uses at most the subscribers the factory declares it serves at once
//! ([`max_subscribers`](PublisherFactory::max_subscribers): one written
//! for three runs with two); a subscriber beyond the first that gets
//! `on_error` before any element was refused, and the scenario is not
//! concluded ([`Stop::Refused`]), never failed.

mod crosstalk;

pub(crate) use crosstalk::releasing_on_cancel;

use super::{create, show, subscribed, up_to};
use crate::context::{Failure, Outcome, RuleCx};
use crate::probe::{Probe, Signal};
use crate::publisher::PublisherFactory;

/// How a several-subscriber scenario ended early.
pub(crate) enum Stop {
    /// A rule was broken.
    Failed(Failure),
    /// The publisher refused the subscriber of this number (counted from
    /// 1 in the order they subscribed): §1.9 allows it, so the scenario
    /// proves nothing either way.
    Refused(usize),
}

impl From<Failure> for Stop {
    fn from(failure: Failure) -> Self {
        Stop::Failed(failure)
    }
}

/// What the several-subscriber scenarios of a test concluded: `None` if
/// every one did, else why one did not.
pub(crate) type Concluded = Result<Option<String>, Failure>;

/// The reason a scenario was not concluded, in the runner's vocabulary.
pub(crate) fn refused_reason(number: usize) -> String {
    crate::publisher::refused_reason(number)
}

/// The test's outcome once its own scenarios passed: passed, or not
/// concluded if a several-subscriber scenario was refused.
pub(crate) fn outcome(refused: Option<String>) -> Outcome {
    match refused {
        None => Outcome::Passed,
        Some(reason) => Outcome::Skipped(reason),
    }
}

/// Runs one scenario: a refusal is traced and reported as the reason it
/// was not concluded.
pub(crate) fn conclude(cx: &RuleCx, scenario: Result<(), Stop>) -> Concluded {
    match scenario {
        Ok(()) => Ok(None),
        Err(Stop::Failed(failure)) => Err(failure),
        Err(Stop::Refused(number)) => {
            let reason = refused_reason(number);
            cx.trace(reason.clone());
            Ok(Some(reason))
        }
    }
}

/// The first reason of two.
fn either(first: Option<String>, second: Option<String>) -> Option<String> {
    first.or(second)
}

/// How many subscribers one publisher of `f` serves at once: 1 if it
/// declares a single subscriber, its declared limit, or unbounded.
pub(crate) fn capacity<F: PublisherFactory>(f: &F) -> usize {
    if crate::publisher::serves_several(f) {
        f.max_subscribers().unwrap_or(usize::MAX)
    } else {
        1
    }
}

/// `result` of waiting at `probe` (subscriber `number`), or the refusal
/// that explains a miss (see [`refusal`]).
pub(crate) fn unless_refused<T: std::fmt::Debug + Send + 'static, R>(
    probe: &Probe<T>,
    number: usize,
    result: Result<R, Failure>,
) -> Result<R, Stop> {
    if result.is_err() {
        refusal(probe, number)?;
    }
    Ok(result?)
}

/// [`Stop::Refused`] if the publisher refused `probe`, subscriber
/// `number`: `on_error` before any element, to a subscriber beyond the
/// first, at subscribe time or later from another thread (§1.9: "the only
/// legal way to signal failure (or reject the Subscriber) is by calling
/// onError (after calling onSubscribe)", which sets no deadline).
pub(crate) fn refusal<T: std::fmt::Debug + Send + 'static>(
    probe: &Probe<T>,
    number: usize,
) -> Result<(), Stop> {
    if number > 1 && probe.refused() {
        return Err(Stop::Refused(number));
    }
    Ok(())
}

/// The rule an owed element that never comes breaks.
const LOST_DEMAND: &str = "3.8";

/// The scenarios `spec_1_11` runs, for a factory of several subscribers
/// and at least 3 elements. (Each test spends its own time budget: the
/// late joiner and the dropped handle run in `spec_1_01` and `spec_3_08`.)
pub(crate) fn several_subscribers<F: PublisherFactory>(cx: &RuleCx, f: &F) -> Concluded {
    let n = up_to(f, 6);
    if n < 3 {
        return Ok(None);
    }
    let unequal = conclude(cx, unequal_demand(cx, f, n))?;
    let cancels = conclude(cx, one_cancels(cx, f, n))?;
    Ok(either(unequal, cancels))
}

/// The late-joiner scenario, for a factory of several subscribers and at
/// least 3 elements (run by `spec_1_01`: each subscriber gets at most its
/// own demand, also when another joins later).
pub(crate) fn joining_later<F: PublisherFactory>(cx: &RuleCx, f: &F) -> Concluded {
    let n = up_to(f, 6);
    if capacity(f) < 2 || n < 3 {
        return Ok(None);
    }
    conclude(cx, late_joiner(cx, f, n))
}

/// The dropped-handle scenario, for a factory of several subscribers and
/// at least 3 elements (run by `spec_3_08`: demand is registered to the
/// subscriber that asked, whatever becomes of another).
pub(crate) fn dropping_one<F: PublisherFactory>(cx: &RuleCx, f: &F) -> Concluded {
    let n = up_to(f, 6);
    if capacity(f) < 2 || n < 3 {
        return Ok(None);
    }
    conclude(cx, one_dropped(cx, f, n))
}

/// The scenario of a cancel inside `on_next` in the middle of a delivery,
/// for a factory of several subscribers and at least 3 elements (run by
/// `spec_3_12`: a cancel stops the signals to *its* subscriber, not to the
/// others).
pub(crate) fn cancelling_inside<F: PublisherFactory>(cx: &RuleCx, f: &F) -> Concluded {
    let n = up_to(f, 6);
    if capacity(f) < 2 || n < 3 {
        return Ok(None);
    }
    conclude(cx, one_cancels_inside(cx, f, n))
}

/// Three subscribers requesting `n + 1`, 2 and 1, then the rest and one
/// more (see the module docs: an end found late): none gets
/// more than its own demand at any time (§1.1, the probes), and once each
/// has asked for everything, the first gets all `n` and the others the
/// rest of the stream from where they started, once and in order, then
/// `on_complete`. Nothing is owed before that: a multicast may go at the
/// pace of its slowest subscriber. A publisher serving two at once gets
/// no third.
fn unequal_demand<F: PublisherFactory>(cx: &RuleCx, f: &F, n: u64) -> Result<(), Stop> {
    let three = capacity(f) >= 3;
    cx.scenario(if three {
        format!(
            "publisher of {n}, three subscribers (all subscribed before any request) requesting {}, 2 and 1, then the rest and one more",
            n + 1
        )
    } else {
        format!(
            "publisher of {n}, two subscribers (both subscribed before any request; the factory's max_subscribers() is 2) requesting {} and 2, then the rest and one more",
            n + 1
        )
    });
    let publisher = create(cx, f, n)?;
    let first = subscribed(Probe::new(cx, "first").created_for(n), &*publisher)?;
    let second = subscribed(later(cx, "second", n), &*publisher)?;
    let third = if three {
        Some(subscribed(later(cx, "third", n), &*publisher)?)
    } else {
        None
    };
    first.request(n + 1)?;
    second.request(2)?;
    if let Some(third) = &third {
        third.request(1)?;
        third.request(n)?;
    }
    second.request(n - 1)?;
    let why = format!("requested {} in all", show(n + 1));
    owed(cx, &first, 1, n, &why)?;
    ended(cx, &first, 1)?;
    for (number, probe) in [(2, Some(&second)), (3, third.as_ref())] {
        let Some(probe) = probe else { continue };
        if !rest(cx, probe, number, (n, n), &why)? {
            ended(cx, probe, number)?;
        }
    }
    Ok(())
}

/// Two subscribers take 2 each (the second, which may have started later,
/// fewer if the stream ends first); the first cancels; the second then
/// gets the rest it asks for (and one more, for an end found late),
/// untouched by the other's cancel.
fn one_cancels<F: PublisherFactory>(cx: &RuleCx, f: &F, n: u64) -> Result<(), Stop> {
    cx.scenario(format!(
        "publisher of {n}, two subscribers take 2 each, the first cancels, the second requests the rest and one more"
    ));
    let publisher = create(cx, f, n)?;
    let first = subscribed(Probe::new(cx, "first").created_for(n), &*publisher)?;
    let second = subscribed(later(cx, "second", n), &*publisher)?;
    first.request(2)?;
    second.request(2)?;
    owed(cx, &first, 1, 2, "requested 2")?;
    if rest(cx, &second, 2, (2, n), "requested 2")? {
        return Ok(());
    }
    first.cancel()?;
    second.request(n - 1)?;
    if rest(
        cx,
        &second,
        2,
        (n - 2, n),
        "requested the rest after the first subscriber cancelled",
    )? {
        return Ok(());
    }
    ended(cx, &second, 2)
}

/// Three subscribers, all subscribed before any request, ask for `n`, 1
/// and 1, so that one element can go to all three at once; the first
/// cancels from inside its first `on_next`, while that element may still
/// be on its way to the other two. They then ask for the rest (and one
/// more, for an end found late) and get it,
/// each element once and in order, then `on_complete`: a subscriber
/// leaving in the middle of a delivery takes nobody else's place or
/// demand with it (§3.8).
fn one_cancels_inside<F: PublisherFactory>(cx: &RuleCx, f: &F, n: u64) -> Result<(), Stop> {
    let three = capacity(f) >= 3;
    cx.scenario(if three {
        format!(
            "publisher of {n}, three subscribers (all subscribed before any request) request {n}, 1 and 1, the first cancels inside its 1st on_next, the others request the rest and one more"
        )
    } else {
        format!(
            "publisher of {n}, two subscribers (both subscribed before any request; the factory's max_subscribers() is 2) request {n} and 1, the first cancels inside its 1st on_next, the other requests the rest and one more"
        )
    });
    let publisher = create(cx, f, n)?;
    let first = subscribed(
        Probe::new(cx, "first").created_for(n).cancel_after(1),
        &*publisher,
    )?;
    let mut others = vec![(2, subscribed(later(cx, "second", n), &*publisher)?)];
    if three {
        others.push((3, subscribed(later(cx, "third", n), &*publisher)?));
    }
    first.request(n)?;
    for (_, probe) in &others {
        probe.request(1)?;
    }
    owed(cx, &first, 1, 1, &format!("requested {}", show(n)))?;
    let mut done = Vec::new();
    for (number, probe) in &others {
        done.push(rest(cx, probe, *number, (1, n), "requested 1")?);
    }
    for ((_, probe), done) in others.iter().zip(&done) {
        if !done {
            probe.request(n)?;
        }
    }
    let why = "requested the rest after the first subscriber cancelled inside its on_next";
    for ((number, probe), done) in others.iter().zip(done) {
        if !done && !rest(cx, probe, *number, (n - 1, n), why)? {
            ended(cx, probe, *number)?;
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
fn late_joiner<F: PublisherFactory>(cx: &RuleCx, f: &F, n: u64) -> Result<(), Stop> {
    let three = capacity(f) >= 3;
    cx.scenario(if three {
        format!(
            "publisher of {n}, a pacer requests 1 and the first subscriber {}; a late subscriber joins and requests {}, then the pacer the rest and one more",
            n + 1,
            n + 1
        )
    } else {
        format!(
            "publisher of {n}, a pacer requests 1; a late subscriber joins (the factory's max_subscribers() is 2) and requests {}, then the pacer the rest and one more",
            n + 1
        )
    });
    let publisher = create(cx, f, n)?;
    let pacer = subscribed(Probe::new(cx, "pacer").created_for(n), &*publisher)?;
    let first = if three {
        Some(subscribed(later(cx, "first", n), &*publisher)?)
    } else {
        None
    };
    if let Some(first) = &first {
        first.request(n + 1)?;
    }
    pacer.request(1)?;
    owed(cx, &pacer, 1, 1, "requested 1")?;
    let first_done = match &first {
        Some(first) => rest(cx, first, 2, (1, n), &format!("requested {}", show(n + 1)))?,
        None => true,
    };
    let late_number = if three { 3 } else { 2 };
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
    if let Some(first) = first.as_ref().filter(|_| !first_done) {
        if !rest(cx, first, 2, (n - 1, n), &why)? {
            ended(cx, first, 2)?;
        }
    }
    owed(cx, &pacer, 1, n - 1, &why)?;
    ended(cx, &pacer, 1)?;
    rest_of_stream(cx, &late, late_number, n)
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
fn one_dropped<F: PublisherFactory>(cx: &RuleCx, f: &F, n: u64) -> Result<(), Stop> {
    cx.scenario(format!(
        "publisher of {n}, two subscribers request {} and 2; once each has 2, the first drops its subscription handle (no cancel), the second requests the rest and one more",
        n + 1
    ));
    let publisher = create(cx, f, n)?;
    let dropped = subscribed(Probe::new(cx, "dropped").created_for(n), &*publisher)?;
    let second = subscribed(later(cx, "second", n), &*publisher)?;
    dropped.request(n + 1)?;
    second.request(2)?;
    owed(cx, &dropped, 1, 2, &format!("requested {}", show(n)))?;
    if rest(cx, &second, 2, (2, n), "requested 2")? {
        return Ok(());
    }
    dropped.drop_subscription()?;
    second.request(n - 1)?;
    if rest(
        cx,
        &second,
        2,
        (n - 2, n),
        "requested the rest after another subscriber dropped its subscription handle",
    )? {
        return Ok(());
    }
    ended(cx, &second, 2)
}

/// What a late subscriber that asked for more than `n` is owed: the rest
/// of the stream from wherever it joined (at most `n` elements, in order:
/// the probe checks), then `on_complete`.
fn rest_of_stream<T: std::fmt::Debug + Send + 'static>(
    cx: &RuleCx,
    probe: &Probe<T>,
    number: usize,
    n: u64,
) -> Result<(), Stop> {
    if rest(
        cx,
        probe,
        number,
        (n + 1, n),
        "requested the whole stream after joining late",
    )? {
        return Ok(());
    }
    ended(cx, probe, number)
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
/// `element_index` tells), is demand lost (§3.8); `on_error` before any
/// element, to subscriber `number` beyond the first, a refusal.
fn rest<T: std::fmt::Debug + Send + 'static>(
    cx: &RuleCx,
    probe: &Probe<T>,
    number: usize,
    (k, n): (u64, u64),
    why: &str,
) -> Result<bool, Stop> {
    for _ in 0..k {
        let signal = probe
            .expect_signal_as("the rest of the stream from where it joined, then on_complete")
            .map_err(|failure| as_lost_demand(cx, probe, failure, why));
        let signal = unless_refused(probe, number, signal)?;
        match signal {
            Signal::Next(_) => {}
            Signal::Complete => {
                // Wherever it joined, it is owed the stream to its end.
                return match probe.index_owed() {
                    Some(owed) if owed < n => Err(Stop::Failed(cx.failure_of(
                        LOST_DEMAND,
                        format!(
                            "elements {owed} … {} of the publisher of {n}, then on_complete ({why})",
                            n - 1
                        ),
                        format!("on_complete after element {}", owed.saturating_sub(1)),
                    ))),
                    _ => Ok(true),
                };
            }
            Signal::Error(error) => {
                refusal(probe, number)?;
                return Err(Stop::Failed(cx.failure(
                    "the rest of the stream, then on_complete",
                    format!("on_error({error}) arrived"),
                )));
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
    number: usize,
    k: u64,
    why: &str,
) -> Result<(), Stop> {
    for _ in 0..k {
        let next = probe
            .expect_next()
            .map_err(|failure| as_lost_demand(cx, probe, failure, why));
        unless_refused(probe, number, next)?;
    }
    Ok(())
}

/// `on_complete` at the end of `probe`'s stream, or lost demand.
fn ended<T: std::fmt::Debug + Send + 'static>(
    cx: &RuleCx,
    probe: &Probe<T>,
    number: usize,
) -> Result<(), Stop> {
    let end = probe
        .expect_complete_at_end()
        .map_err(|failure| as_lost_demand(cx, probe, failure, "all its elements delivered"));
    unless_refused(probe, number, end)
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
