//! Several subscribers of one publisher, deterministically (issue 27 §2):
//! the scenarios `spec_1_11` runs after its own, for publishers that
//! declare several subscribers.
//!
//! Every subscriber subscribes before anyone requests, so a hot publisher
//! (whose source starts on the first request) serves each from the start.
//! Each subscriber gets at most what it requested: an element beyond its
//! own demand is §1.1 (the probe reports it, per subscriber). What every
//! subscriber present has asked for is owed: an owed element that does not
//! come is demand lost (§3.8: `request` registers elements "to the
//! respective subscriber"), whether another subscriber's demand or its
//! cancel took it. A multicast may go at the pace of its slowest
//! subscriber, so nothing is owed to one while another present still
//! lacks demand.

use super::{create, show, subscribed, up_to};
use crate::context::{Failure, RuleCx};
use crate::probe::Probe;
use crate::publisher::PublisherFactory;

/// The rule an owed element that never comes breaks.
const LOST_DEMAND: &str = "3.8";

/// The scenarios, for a factory of several subscribers and at least 3
/// elements.
pub(crate) fn several_subscribers<F: PublisherFactory>(cx: &RuleCx, f: &F) -> Result<(), Failure> {
    let n = up_to(f, 6);
    if n < 3 {
        return Ok(());
    }
    unequal_demand(cx, f, n)?;
    one_cancels(cx, f, n)
}

/// Three subscribers requesting `n`, 2 and 1, then the rest: none gets
/// more than its own demand at any time (§1.1, the probes), and once each
/// has asked for everything, each gets all `n`, once and in order, then
/// `on_complete`. Nothing is owed before that: a multicast may go at the
/// pace of its slowest subscriber.
fn unequal_demand<F: PublisherFactory>(cx: &RuleCx, f: &F, n: u64) -> Result<(), Failure> {
    cx.scenario(format!(
        "publisher of {n}, three subscribers (all subscribed before any request) requesting {n}, 2 and 1, then the rest"
    ));
    let publisher = create(cx, f, n)?;
    let first = subscribed(Probe::new(cx, "first").created_for(n), &*publisher)?;
    let second = subscribed(Probe::new(cx, "second").created_for(n), &*publisher)?;
    let third = subscribed(Probe::new(cx, "third").created_for(n), &*publisher)?;
    first.request(n)?;
    second.request(2)?;
    third.request(1)?;
    third.request(n - 1)?;
    second.request(n - 2)?;
    for probe in [&first, &second, &third] {
        owed(cx, probe, n, &format!("requested {} in all", show(n)))?;
        ended(cx, probe)?;
    }
    Ok(())
}

/// Two subscribers take 2 each; the first cancels; the second then gets
/// the rest it asks for, untouched by the other's cancel.
fn one_cancels<F: PublisherFactory>(cx: &RuleCx, f: &F, n: u64) -> Result<(), Failure> {
    cx.scenario(format!(
        "publisher of {n}, two subscribers take 2 each, the first cancels, the second requests the rest"
    ));
    let publisher = create(cx, f, n)?;
    let first = subscribed(Probe::new(cx, "first").created_for(n), &*publisher)?;
    let second = subscribed(Probe::new(cx, "second").created_for(n), &*publisher)?;
    first.request(2)?;
    second.request(2)?;
    owed(cx, &first, 2, "requested 2")?;
    owed(cx, &second, 2, "requested 2")?;
    first.cancel()?;
    second.request(n - 2)?;
    owed(
        cx,
        &second,
        n - 2,
        "requested the rest after the first subscriber cancelled",
    )?;
    ended(cx, &second)
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
            return Err(as_lost_demand(cx, failure, why));
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
        .map_err(|failure| as_lost_demand(cx, failure, "all its elements delivered"))
}

/// A miss of the test's own check, filed as lost demand.
fn as_lost_demand(cx: &RuleCx, failure: Failure, why: &str) -> Failure {
    if failure.rule != cx.rule() {
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
