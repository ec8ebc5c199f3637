//! The rule tests of the subscriber verifications, written once against a
//! [`Subject`]: blackbox, whitebox and the processor's subscriber side run
//! the same bodies. Bodies that need the subscriber's own report are
//! whitebox-only.
//!
//! Presence (a request, a cancel, a report) is awaited up to the long
//! timeout; absence (no call after a terminal signal) is shown by waiting
//! the no-signal window once per scenario.

use super::driver::FEED_CAP;
use super::stage::{Stage, Subject};
use super::whitebox_probe::Report;
use crate::context::{Outcome, RuleBody, RuleCx};
use crate::probe::show_demand;

type StageOf<'a, X> = Stage<'a, <X as Subject>::Element, <X as Subject>::Sub>;

/// `on_subscribe`, then the nudge, then waits for the first request.
/// Returns whether one came.
fn started<X: Subject>(stage: &mut StageOf<'_, X>) -> Result<bool, crate::context::Failure> {
    stage.driver.subscribe()?;
    stage.nudge(1)?;
    Ok(stage.wait_first_request())
}

/// Blackbox, where a call from another thread while the terminal signal
/// runs is taken for one that signal made (§2.3): first waits until the
/// subscriber has gone quiet (no call for the no-signal window), since its
/// first demand may come in several calls, late and from other threads,
/// and a cancel of its own may be followed by the no-op calls §3.6 and
/// §3.7 allow. Whitebox, calls are watched only from the processing
/// logic's report of the terminal signal on, which needs no such wait.
fn quiet<X: Subject>(stage: &StageOf<'_, X>) {
    if stage.probe.is_none() {
        let cx = stage.cx();
        stage
            .driver
            .subscription()
            .wait_quiet(window(&cx), cx.env().timeout());
    }
}

/// A test that needs more elements ends here if the subscriber cancelled
/// by itself (a `take(n)`, a helper that is done): its later requests are
/// no-ops (§3.6), and that is no fault. Likewise if it called `request(0)`
/// after asking for elements: the subscription answered with `on_error`
/// (§3.9) and ended, and requesting 0 breaks no Subscriber rule.
fn cancelled_by_itself<X: Subject>(stage: &StageOf<'_, X>) -> Option<Outcome> {
    let subscription = stage.driver.subscription();
    if subscription.got_illegal_demand() && subscription.demand() > 0 {
        return Some(Outcome::Skipped(format!(
            "needs a subscriber that keeps requesting: it called request(0) after {} element(s) (total demand {}); the subscription answered with on_error (§3.9) and ended",
            stage.driver.delivered(),
            show_demand(subscription.demand())
        )));
    }
    subscription.is_cancelled().then(|| {
        Outcome::Skipped(format!(
            "needs a subscriber that keeps requesting: it cancelled by itself after {} element(s) (total demand {}); requests after a cancel are no-ops (§3.6)",
            stage.driver.delivered(),
            show_demand(subscription.demand())
        ))
    })
}

/// What a subscriber that never asked for elements did instead.
fn no_demand<X: Subject>(stage: &StageOf<'_, X>) -> &'static str {
    if stage.driver.subscription().got_illegal_demand() {
        "no request(n) with n ≥ 1 arrived: only request(0), which the subscription answered with on_error (§3.9)"
    } else {
        "no request(n) with n ≥ 1 arrived"
    }
}

fn window(cx: &RuleCx) -> std::time::Duration {
    cx.env().no_signal_timeout()
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Terminal {
    Complete,
    Error,
}

impl Terminal {
    const BOTH: [Terminal; 2] = [Terminal::Complete, Terminal::Error];

    fn name(self) -> &'static str {
        match self {
            Terminal::Complete => "on_complete",
            Terminal::Error => "on_error",
        }
    }

    fn deliver<X: Subject>(
        self,
        stage: &mut StageOf<'_, X>,
    ) -> Result<(), crate::context::Failure> {
        match self {
            Terminal::Complete => stage.driver.complete(),
            Terminal::Error => stage.driver.error(),
        }
    }

    /// Whether a subscriber that recovers from errors may leave this
    /// terminal signal unprocessed (it switched to a fallback).
    fn may_be_recovered<X: Subject>(self, subject: &X) -> bool {
        self == Terminal::Error && subject.recovers_from_errors()
    }

    /// Waits until the subscriber processed this terminal signal: up to
    /// the timeout, or, where it may recover from it and stay open, the
    /// no-signal window.
    fn wait_processed<X: Subject>(self, stage: &StageOf<'_, X>, subject: &X) {
        if self.may_be_recovered(subject) {
            if let Some(probe) = &stage.probe {
                probe.wait_terminal_report_within(window(&stage.cx()));
            }
        } else {
            stage.wait_processed();
        }
    }

    fn matches(self, report: &Report) -> bool {
        matches!(
            (self, report),
            (Terminal::Complete, Report::Complete) | (Terminal::Error, Report::Error(_))
        )
    }
}

/// §2.1: demand is signalled with `request` before elements flow.
pub(crate) fn spec_2_01<X: Subject>(cx: &RuleCx, subject: &X) -> RuleBody {
    let mut stage = subject.stage(cx)?;
    if !started::<X>(&mut stage)? {
        if let Some(skipped) = cancelled_by_itself::<X>(&stage) {
            return Ok(skipped);
        }
        return Err(cx.failure(
            "request(n) after on_subscribe (and the nudge to request)",
            no_demand::<X>(&stage),
        ));
    }
    let delivered = stage.driver.feed(FEED_CAP, window(cx))?;
    // A filtering processor may drop every input delivered.
    if stage.probe.is_some() && subject.outputs_for(delivered) > 0 {
        let reports = stage.probe().wait_reports(1);
        if reports.is_empty() {
            return Err(cx.failure_of(
                unprocessed_rule::<X>(cx, subject),
                "the requested element to reach the subscriber's processing logic",
                format!("{delivered} delivered, none reported to the probe"),
            ));
        }
    }
    stage.driver.complete()?;
    stage.driver.drop_subscriber()?;
    Ok(Outcome::Passed)
}

/// §2.6: a subscriber that declares it stops after `k` elements
/// ([`stops_after`](crate::subscriber::SubscriberBlackboxFactory::stops_after))
/// cancels its subscription once it has them; dropping or abandoning the
/// subscription without `cancel()` leaves the publisher producing for
/// nobody. Elements go out as requested, never a terminal signal; after
/// the `k`-th, `cancel()` must come within the timeout.
pub(crate) fn spec_2_06<X: Subject>(cx: &RuleCx, subject: &X) -> RuleBody {
    let Some(k) = subject.stops_after() else {
        return Ok(Outcome::Skipped(String::from(
            "needs a subscriber that stops by itself; the factory's stops_after() is None",
        )));
    };
    cx.scenario(format!(
        "subscriber declared to stop after {k} elements, elements as requested, no terminal signal"
    ));
    let mut stage = subject.stage(cx)?;
    if !started::<X>(&mut stage)? {
        // A subscriber that never asks breaks §2.1, whatever it declares about stopping.
        return Err(cx.failure_of(
            "2.1",
            "request(n) after on_subscribe (and the nudge to request)",
            no_demand::<X>(&stage),
        ));
    }
    let delivered = stage.driver.feed(k, cx.env().timeout())?;
    let subscription = stage.driver.subscription().clone();
    if delivered < k && !subscription.is_cancelled() {
        // It still needs the subscription by its own declaration.
        cx.trace(format!(
            "{delivered} of {k} elements requested; the subscriber still needs its subscription"
        ));
    } else if !subscription.wait_cancelled_or_released(cx.env().timeout()) {
        let actual = if subscription.is_abandoned() {
            format!(
                "{delivered} elements delivered; the subscriber dropped its subscription without cancel()"
            )
        } else {
            format!(
                "{delivered} elements delivered and no cancel() within {} ms",
                cx.env().timeout().as_millis()
            )
        };
        return Err(cx.failure(
            format!("cancel() once the subscriber no longer needs its subscription (it declares stops_after() = {k})"),
            actual,
        ));
    }
    stage.driver.drop_subscriber()?;
    Ok(Outcome::Passed)
}

/// §2.3: no call on the subscription from inside `on_complete` / `on_error`.
/// A call afterwards, on any thread, is watched too: it breaks §2.4 (the
/// subscription is to be considered cancelled), not §2.3.
pub(crate) fn spec_2_03<X: Subject>(cx: &RuleCx, subject: &X) -> RuleBody {
    for terminal in Terminal::BOTH {
        cx.scenario(format!("{} after the first request", terminal.name()));
        let mut stage = subject.stage(cx)?;
        started::<X>(&mut stage)?;
        // No element was sent: once the subscriber has gone quiet and the
        // terminal signal is delivered (or, whitebox, processed), nothing
        // is in flight, so any call comes from the terminal signal.
        quiet::<X>(&stage);
        stage.watch_after_terminal("2.4");
        terminal.deliver::<X>(&mut stage)?;
        terminal.wait_processed::<X>(&stage, subject);
        stage.settle();
        stage.driver.drop_subscriber()?;
        if cx.has_failed() {
            break;
        }
    }
    Ok(Outcome::Passed)
}

/// §2.4: once a terminal signal was processed (whitebox: reported by the
/// probe; blackbox: delivered), the subscription is treated as cancelled:
/// no call on it afterwards from any thread, not even from drop. The probe
/// subscription stays live until the subscriber is dropped inside the
/// scenario, so a helper thread's late call is judged, not only traced.
pub(crate) fn spec_2_04<X: Subject>(cx: &RuleCx, subject: &X) -> RuleBody {
    for terminal in Terminal::BOTH {
        let mut stage = subject.stage(cx)?;
        if stage.probe.is_some() {
            cx.scenario(format!("{} with demand outstanding", terminal.name()));
            started::<X>(&mut stage)?;
            stage.trigger_request(2)?;
        } else {
            // Blackbox: no element is sent, so nothing is in flight once
            // the subscriber has gone quiet and the terminal signal is
            // delivered.
            cx.scenario(format!("{} after the first request", terminal.name()));
            started::<X>(&mut stage)?;
            quiet::<X>(&stage);
        }
        stage.watch_after_terminal("2.4");
        terminal.deliver::<X>(&mut stage)?;
        terminal.wait_processed::<X>(&stage, subject);
        stage.settle();
        stage.driver.drop_subscriber()?;
        stage.settle();
        if cx.has_failed() {
            break;
        }
    }
    Ok(Outcome::Passed)
}

/// §2.5: a second subscription, given while one is active, is cancelled;
/// whitebox, the puppet then requests on the first one, never the second.
pub(crate) fn spec_2_05<X: Subject>(cx: &RuleCx, subject: &X) -> RuleBody {
    let mut stage = subject.stage(cx)?;
    started::<X>(&mut stage)?;
    // Whether its first subscription is still active is the subscriber's
    // to say: one that cancels by itself, late, has done so once quiet.
    stage
        .driver
        .subscription()
        .wait_quiet(window(cx), cx.env().timeout());
    let Some(second) = stage.driver.subscribe_again()? else {
        let why = if stage.driver.subscription().got_illegal_demand() {
            "the subscriber called request(0), and the subscription answered with on_error (§3.9) and ended"
        } else {
            "the subscriber cancelled its subscription by itself (with none active, it may take a new one)"
        };
        return Ok(Outcome::Skipped(format!(
            "needs an active subscription to give a second one beside: {why}"
        )));
    };
    if !second.wait_cancelled(cx.env().timeout()) {
        return Err(cx.failure(
            "cancel() on the second subscription, given while the first was active",
            "it was not cancelled",
        ));
    }
    if stage.probe.is_some() {
        // Whitebox: the puppet's request must land on the first, active
        // subscription; one on the rejected second fails §2.5 as it arrives.
        stage.scenario("then the puppet's trigger_request(1)");
        stage.trigger_request(1)?;
        stage
            .driver
            .subscription()
            .wait_demand(2, cx.env().no_signal_timeout());
    }
    stage.driver.complete()?;
    stage.driver.drop_subscriber()?;
    Ok(Outcome::Passed)
}

/// §2.7: request and cancel never overlap. The probe subscription holds
/// each call entering early on until another call overlaps it or the
/// no-signal window ends, so calls from unsynchronised threads collide.
pub(crate) fn spec_2_07<X: Subject>(cx: &RuleCx, subject: &X) -> RuleBody {
    let mut stage = subject.stage(cx)?;
    stage.driver.hold_calls(window(cx));
    started::<X>(&mut stage)?;
    stage.driver.feed(FEED_CAP, window(cx))?;
    stage.driver.complete()?;
    stage.settle();
    stage.driver.drop_subscriber()?;
    Ok(Outcome::Passed)
}

/// §2.8 (whitebox): after cancelling, elements still in flight are accepted.
pub(crate) fn spec_2_08<X: Subject>(cx: &RuleCx, subject: &X) -> RuleBody {
    let mut stage = subject.stage(cx)?;
    stage.driver.subscribe()?;
    stage.trigger_request(2)?;
    // A processor may pass downstream demand on one at a time: one element
    // requested upstream is enough to have one in flight.
    let wanted = if subject.request_reaches_subscription() {
        2
    } else {
        1
    };
    if stage
        .driver
        .subscription()
        .wait_demand(wanted, cx.env().timeout())
        < wanted
    {
        if let Some(skipped) = cancelled_by_itself::<X>(&stage) {
            return Ok(skipped);
        }
        return Err(cx.failure_of(
            puppet_demand_rule::<X>(subject),
            if wanted == 2 {
                "the puppet's trigger_request(2) to request 2"
            } else {
                "the puppet's trigger_request(2) to become demand on the subscription"
            },
            format!(
                "total demand {}",
                show_demand(stage.driver.subscription().demand())
            ),
        ));
    }
    stage.trigger_cancel()?;
    if subject.cancel_reaches_subscription()
        && !stage
            .driver
            .subscription()
            .wait_cancelled(cx.env().timeout())
    {
        return Err(cx.failure_of(
            "tck.whitebox_probe",
            "the puppet's trigger_cancel() to cancel the subscription",
            "no cancel() arrived",
        ));
    }
    stage.driver.signal_rule("2.8");
    // Within the demand, but never more than a few: an unbounded request
    // leaves unbounded demand in flight.
    for _ in 0..FEED_CAP {
        if !stage.driver.next_in_flight()? {
            break;
        }
    }
    stage.settle();
    stage.driver.drop_subscriber()?;
    Ok(Outcome::Passed)
}

fn prepared_for_terminal<X: Subject>(
    cx: &RuleCx,
    subject: &X,
    terminal: Terminal,
    rule: &'static str,
) -> RuleBody {
    // A scenario in which the subscriber cancelled by itself first (a
    // processor's take(k)) judges only that the signal is accepted.
    let mut self_cancelled = Vec::new();
    for requested in [false, true] {
        let mut stage = subject.stage(cx)?;
        if requested {
            cx.scenario(format!("{} after a request", terminal.name()));
            started::<X>(&mut stage)?;
            stage.driver.feed(1, window(cx))?;
            if stage.driver.ended_by_illegal_demand() {
                // Its on_error (§3.9) was the terminal signal: no other
                // can follow to be checked.
                return Ok(Outcome::Skipped(format!(
                    "needs a subscriber that keeps its subscription until {}: it called request(0), and the subscription answered with on_error (§3.9) and ended",
                    terminal.name()
                )));
            }
        } else {
            cx.scenario(format!("{} without a preceding request", terminal.name()));
            stage.driver.subscribe()?;
        }
        stage.driver.signal_rule(rule);
        let cancelled_first = cancelled_by_itself::<X>(&stage);
        terminal.deliver::<X>(&mut stage)?;
        if let Some(Outcome::Skipped(reason)) = cancelled_first {
            // After its own cancel, a signal is to be accepted (§2.8), not
            // processed: returning normally is what is checked.
            self_cancelled.push(reason);
        } else if terminal.may_be_recovered(subject) {
            // It may switch to a fallback: completing, or staying open,
            // is as right as passing the error on. Accepting the signal
            // (returning normally) is what is checked.
        } else if stage.probe.is_some() {
            let reports = stage.probe().wait_terminal_report();
            if !reports.iter().any(|r| terminal.matches(r)) {
                return Err(cx.failure(
                    format!("the subscriber to process {}", terminal.name()),
                    format!("it reported {} to the probe", describe(&reports)),
                ));
            }
        }
        stage.driver.drop_subscriber()?;
    }
    if self_cancelled.len() == 2 {
        self_cancelled.dedup();
        return Ok(Outcome::Skipped(format!(
            "needs a subscriber still subscribed when {} arrives; {}",
            terminal.name(),
            self_cancelled.join("; ")
        )));
    }
    Ok(Outcome::Passed)
}

/// §2.9: `on_complete` is accepted with or without a preceding request.
pub(crate) fn spec_2_09<X: Subject>(cx: &RuleCx, subject: &X) -> RuleBody {
    prepared_for_terminal(cx, subject, Terminal::Complete, "2.9")
}

/// §2.10: `on_error` is accepted with or without a preceding request.
pub(crate) fn spec_2_10<X: Subject>(cx: &RuleCx, subject: &X) -> RuleBody {
    prepared_for_terminal(cx, subject, Terminal::Error, "2.10")
}

fn describe(reports: &[Report]) -> String {
    if reports.is_empty() {
        return String::from("nothing");
    }
    reports
        .iter()
        .map(Report::to_string)
        .collect::<Vec<_>>()
        .join(", ")
}

/// §2.11 (whitebox): the processing logic sees every signal, in order.
pub(crate) fn spec_2_11<X: Subject + ElementText>(cx: &RuleCx, subject: &X) -> RuleBody {
    const N: u64 = 3;
    let mut stage = subject.stage(cx)?;
    stage.driver.subscribe()?;
    stage.trigger_request(N)?;
    // As the demand allows: a processor may pass the request upstream
    // later, in batches or one at a time.
    deliver_outputs::<X>(&mut stage, subject, N)?;
    if stage.driver.ended_by_illegal_demand() {
        if let Some(skipped) = cancelled_by_itself::<X>(&stage) {
            return Ok(skipped);
        }
    }
    let delivered = stage.driver.delivered();
    stage.driver.complete()?;
    let reports = stage.probe().wait_terminal_report();
    let compares = stage.probe().compares_elements();
    let mut expected: Vec<Report> = if compares {
        (0..delivered)
            .map(|i| Report::Next(subject.element_text(i)))
            .collect()
    } else {
        // A processor's outputs are counted, not compared: one per input
        // that passes.
        (0..subject.outputs_for(delivered))
            .map(|_| Report::Next(String::from("_")))
            .collect()
    };
    expected.push(Report::Complete);
    if reports != expected {
        return Err(cx.failure(
            format!(
                "the processing logic to see {}, in that order",
                describe(&expected)
            ),
            format!("it saw {}", describe(&reports)),
        ));
    }
    stage.driver.drop_subscriber()?;
    Ok(Outcome::Passed)
}

/// The text the probe compares elements by.
pub(crate) trait ElementText {
    fn element_text(&self, index: u64) -> String;
}

/// §2.13: every signal method returns normally.
pub(crate) fn spec_2_13<X: Subject>(cx: &RuleCx, subject: &X) -> RuleBody {
    cx.scenario("on_subscribe, on_next, a second on_subscribe, on_complete");
    let mut stage = subject.stage(cx)?;
    started::<X>(&mut stage)?;
    stage.driver.feed(FEED_CAP, window(cx))?;
    stage.driver.subscribe_again()?;
    stage.driver.complete()?;
    stage.driver.drop_subscriber()?;

    cx.scenario("on_subscribe, on_error");
    let mut stage = subject.stage(cx)?;
    stage.driver.subscribe()?;
    stage.driver.error()?;
    stage.driver.drop_subscriber()?;
    Ok(Outcome::Passed)
}

/// §3.1: the subscription is only used within its subscriber's context:
/// nothing calls it once the subscriber is gone.
pub(crate) fn spec_3_01<X: Subject>(cx: &RuleCx, subject: &X) -> RuleBody {
    let mut stage = subject.stage(cx)?;
    started::<X>(&mut stage)?;
    // No element was sent: once the terminal signal is processed nothing
    // is in flight, so a call after the drop comes from outside the
    // subscriber's context.
    stage.driver.complete()?;
    stage.wait_processed();
    stage.driver.watch_after_drop();
    stage.driver.drop_subscriber()?;
    stage.settle();
    Ok(Outcome::Passed)
}

/// §3.8 (blackbox): the subscriber accepts every element it requested.
pub(crate) fn spec_3_08_blackbox<X: Subject>(cx: &RuleCx, subject: &X) -> RuleBody {
    let mut stage = subject.stage(cx)?;
    started::<X>(&mut stage)?;
    stage.driver.signal_rule("3.8");
    stage.driver.feed(4 * FEED_CAP, window(cx))?;
    stage.driver.signal_rule("2.13");
    stage.driver.complete()?;
    stage.driver.drop_subscriber()?;
    Ok(Outcome::Passed)
}

/// §3.8 (whitebox): `request(n)` registers n more: the puppet's requests
/// reach the subscription in full and the elements reach the processing
/// logic.
pub(crate) fn spec_3_08_whitebox<X: Subject>(cx: &RuleCx, subject: &X) -> RuleBody {
    let mut stage = subject.stage(cx)?;
    cx.scenario("the puppet requests 2, then 3");
    stage.driver.subscribe()?;
    let mut expected = 0;
    for n in [2, 3] {
        let before = stage.driver.subscription().demand();
        expected += n;
        stage.trigger_request(n)?;
        // A processor's upstream demand follows its own policy (later, in
        // batches, one at a time, a prefetch): what reaches downstream is
        // judged below.
        if subject.request_reaches_subscription() {
            let wanted = reactive_streams::demand::add(before, n);
            let after = stage
                .driver
                .subscription()
                .wait_demand(wanted, cx.env().timeout());
            if after < wanted {
                if let Some(skipped) = cancelled_by_itself::<X>(&stage) {
                    return Ok(skipped);
                }
                return Err(cx.failure(
                    format!(
                        "trigger_request({}) to add {} to the demand",
                        show_demand(n),
                        show_demand(n)
                    ),
                    format!(
                        "the total demand went from {} to {}",
                        show_demand(before),
                        show_demand(after)
                    ),
                ));
            }
        }
        stage.driver.signal_rule("3.8");
        deliver_outputs::<X>(&mut stage, subject, expected)?;
        if subject.outputs_for(stage.driver.delivered()) < expected {
            if let Some(skipped) = cancelled_by_itself::<X>(&stage) {
                return Ok(skipped);
            }
        }
        let reports = stage.probe().wait_reports(expected as usize);
        let seen = reports
            .iter()
            .filter(|r| matches!(r, Report::Next(_)))
            .count() as u64;
        if seen < expected {
            if let Some(skipped) = cancelled_by_itself::<X>(&stage) {
                return Ok(skipped);
            }
            return Err(cx.failure_of(
                unprocessed_rule::<X>(cx, subject),
                format!("the {expected} elements requested so far to reach the processing logic"),
                format!("it saw {seen}"),
            ));
        }
    }
    stage.driver.signal_rule("2.13");
    stage.driver.complete()?;
    stage.driver.drop_subscriber()?;
    Ok(Outcome::Passed)
}

/// The rule a delivered element that never reaches the processing logic
/// (within the timeout) breaks. For a processor, the processing logic is
/// its downstream: its outputs are what its subscriptions owe (§3.8) and
/// what it owes as a subscriber (§2.1), so the test's own rule. A plain
/// subscriber requested what its puppet asked (checked before), which is
/// all §2.1 and §3.8 ask of it; one that processes elements late (at its
/// end, in a batch) breaks neither, and the whitebox probe simply cannot
/// see what these tests need: `tck.whitebox_probe`.
fn unprocessed_rule<X: Subject>(cx: &RuleCx, subject: &X) -> String {
    if subject.request_reaches_subscription() {
        String::from("tck.whitebox_probe")
    } else {
        cx.rule().to_string()
    }
}

/// The rule broken when the puppet's `trigger_request` never becomes
/// demand on the subscription. For a subscriber, the puppet is its own
/// instrumentation, which does not do what it declares:
/// `tck.whitebox_probe`. For a processor, the puppet is the TCK's
/// downstream subscriber, and downstream demand that never becomes
/// upstream demand is what the processor's §4.1 test checks (`processor::
/// spec_4_01`, "upstream demand was 0"): §4.1, not a fault of the probe.
fn puppet_demand_rule<X: Subject>(subject: &X) -> &'static str {
    if subject.request_reaches_subscription() {
        "tck.whitebox_probe"
    } else {
        "4.1"
    }
}

/// Delivers elements as the demand allows until they make `outputs`
/// signals to the processing logic (see [`Subject::outputs_for`]); whenever
/// the demand runs out first, waits up to the timeout for more (a filtering
/// processor asks upstream for a replacement of each input it drops).
fn deliver_outputs<X: Subject>(
    stage: &mut StageOf<'_, X>,
    subject: &X,
    outputs: u64,
) -> Result<(), crate::context::Failure> {
    let timeout = stage.cx().env().timeout();
    while subject.outputs_for(stage.driver.delivered()) < outputs {
        if stage.driver.next()? {
            continue;
        }
        if stage.driver.ended_by_illegal_demand() {
            break;
        }
        let subscription = stage.driver.subscription().clone();
        let wanted = stage.driver.delivered() + 1;
        if subscription.is_cancelled() || subscription.wait_demand(wanted, timeout) < wanted {
            break;
        }
    }
    Ok(())
}

/// The whitebox happy path: request through the puppet, receive, cancel.
pub(crate) fn tck_happy_path<X: Subject>(cx: &RuleCx, subject: &X) -> RuleBody {
    let mut stage = subject.stage(cx)?;
    stage.driver.subscribe()?;
    for k in 1..=2u64 {
        stage.trigger_request(1)?;
        if stage
            .driver
            .subscription()
            .wait_demand(k, cx.env().timeout())
            < k
        {
            if let Some(skipped) = cancelled_by_itself::<X>(&stage) {
                return Ok(skipped);
            }
            let rule = if subject.request_reaches_subscription() {
                cx.rule()
            } else {
                puppet_demand_rule::<X>(subject)
            };
            return Err(cx.failure_of(
                rule,
                "the puppet's trigger_request(1) to reach the subscription",
                format!(
                    "total demand {}",
                    show_demand(stage.driver.subscription().demand())
                ),
            ));
        }
        deliver_outputs::<X>(&mut stage, subject, k)?;
        if subject.outputs_for(stage.driver.delivered()) < k {
            if let Some(skipped) = cancelled_by_itself::<X>(&stage) {
                return Ok(skipped);
            }
        }
        let reports = stage.probe().wait_reports(k as usize);
        if (reports.len() as u64) < k {
            if let Some(skipped) = cancelled_by_itself::<X>(&stage) {
                return Ok(skipped);
            }
            return Err(cx.failure(
                format!("element #{k} to reach the processing logic"),
                format!("it saw {}", describe(&reports)),
            ));
        }
    }
    stage.trigger_cancel()?;
    if subject.cancel_reaches_subscription()
        && !stage
            .driver
            .subscription()
            .wait_cancelled(cx.env().timeout())
    {
        return Err(cx.failure(
            "the puppet's trigger_cancel() to cancel the subscription",
            "no cancel() arrived",
        ));
    }
    stage.driver.drop_subscriber()?;
    Ok(Outcome::Passed)
}
