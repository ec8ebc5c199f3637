//! §1 Publisher rules.

use std::sync::Barrier;

use reactive_streams::rules::{self, Check};

use super::{can_make, create, create_failed, def, fresh, owed_by, show, subscribed, up_to};
use crate::context::{Outcome, RuleCx};
use crate::probe::{Probe, Signal};
use crate::publisher::{Needs, PublisherFactory, RuleDef};

/// §1.1: never more `on_next` than requested. The probe counts demand and
/// fails the moment an `on_next` exceeds it; the no-signal windows give an
/// extra element the chance to show. For a publisher of several
/// subscribers, also per subscriber when one joins later (its demand
/// neither steals nor resets an earlier one's: a lost element is §3.8).
pub fn spec_1_01<F: PublisherFactory>() -> RuleDef<F> {
    def(Needs::elements(4), |cx, f| {
        let n = up_to(f, 10);
        cx.scenario(format!(
            "publisher of {}, request(1) then request(2)",
            show(n)
        ));
        let (probe, _publisher) = fresh(cx, f, n)?;
        probe.request(1)?;
        probe.expect_next()?;
        probe.expect_no_signal_as("no on_next beyond the 1 requested")?;
        probe.request(2)?;
        probe.expect_next_n(2)?;
        probe.expect_no_signal_as("no on_next beyond the 3 requested")?;
        drop(probe);
        // A refill from inside one signal but not the next: a publisher
        // that folds such a request into the burst under way must still
        // stop at the total.
        cx.scenario(format!(
            "publisher of {}, request(1), then request(1) from inside the 1st on_next only",
            show(n)
        ));
        let publisher = create(cx, f, n)?;
        let probe = subscribed(
            Probe::new(cx, "probe").created_for(n).request_on_nth(1, 1),
            &*publisher,
        )?;
        probe.request(1)?;
        probe.expect_next_n(2)?;
        probe.expect_no_signal_as("no on_next beyond the 2 requested")?;
        drop(probe);
        let refused = super::several::joining_later(cx, f)?;
        Ok(super::several::outcome(refused))
    })
}

/// §1.2: a publisher with fewer elements than requested emits what it has
/// and terminates, instead of waiting for more.
pub fn spec_1_02<F: PublisherFactory>() -> RuleDef<F> {
    def(Needs::elements(1), |cx, f| {
        let n = up_to(f, 3);
        cx.scenario(format!("publisher of {n}, request({})", n + 10));
        let (probe, _publisher) = fresh(cx, f, n)?;
        probe.request(n + 10)?;
        probe.expect_next_n(n)?;
        let terminal = format!("on_complete or on_error after the publisher's {n} elements");
        let signal = probe.expect_signal_as(&terminal)?;
        if let Signal::Next(_) = signal {
            // An element beyond the publisher's n breaks the factory's
            // promise (the probe recorded it as it came), not this MAY rule.
            let arrived = probe.describe_taken(&signal);
            return Err(cx.failure_of(
                "tck.create_n_gives_exactly_n",
                terminal,
                format!("{arrived} arrived"),
            ));
        }
        probe.expect_no_signal()?;
        Ok(Outcome::Passed)
    })
}

/// §1.3: signals never overlap. Several threads request at once (a
/// barrier lines them up) while the probe watches for concurrent entry. In
/// safe Rust a publisher cannot break this rule (the signal methods take
/// `&mut self`); the check guards `unsafe` implementations.
pub fn spec_1_03<F: PublisherFactory>() -> RuleDef<F> {
    def(
        Needs {
            stochastic: true,
            ..Needs::elements(8)
        },
        |cx, f| {
            const THREADS: u64 = 4;
            let n = up_to(f, 100);
            let rounds = n / THREADS;
            cx.scenario(format!(
                "publisher of {}, {THREADS} threads request(1) {rounds} times at once",
                show(n)
            ));
            let (probe, _publisher) = fresh(cx, f, n)?;
            let barrier = Barrier::new(THREADS as usize);
            std::thread::scope(|scope| {
                for _ in 0..THREADS {
                    scope.spawn(|| {
                        for _ in 0..rounds {
                            barrier.wait();
                            if let Err(failure) = probe.request(1) {
                                cx.record(failure);
                            }
                        }
                    });
                }
            });
            probe.expect_next_n(rounds * THREADS)?;
            Ok(Outcome::Passed)
        },
    )
}

/// §1.4: a failed publisher signals `on_error` (after `on_subscribe`), to
/// every subscriber of one that declares several.
pub fn spec_1_04<F: PublisherFactory>() -> RuleDef<F> {
    def(
        Needs {
            failed_publisher: true,
            ..Needs::NOTHING
        },
        |cx, f| {
            cx.scenario("failed publisher, request(1)");
            let Some(publisher) = create_failed(cx, f)? else {
                return Ok(Outcome::Skipped(String::from("no failed publisher")));
            };
            let probe = subscribed(Probe::new(cx, "probe"), &*publisher)?;
            probe.request(1)?;
            let expected = "on_error from the failed publisher";
            match probe.expect_terminal_as(expected)? {
                Signal::Error(_) => {}
                other => return Err(cx.failure(expected, format!("{} arrived", other.describe()))),
            }
            if f.supports_multiple_subscribers() {
                // The failure reaches every subscriber, with or without
                // demand, not only the one that saw it first.
                cx.scenario("failed publisher of several subscribers: two more subscribe, one requests 1, the other nothing");
                let with_demand = subscribed(Probe::new(cx, "second"), &*publisher)?;
                let without = subscribed(Probe::new(cx, "third"), &*publisher)?;
                with_demand.request(1)?;
                for (probe, label) in [
                    (&with_demand, "second (request(1))"),
                    (&without, "third (no request)"),
                ] {
                    let expected = "on_error from the failed publisher at every subscriber";
                    match probe.expect_terminal_as(expected)? {
                        Signal::Error(_) => {}
                        other => {
                            return Err(cx.failure(
                                expected,
                                format!("{label}: {} arrived", other.describe()),
                            ));
                        }
                    }
                }
            }
            Ok(Outcome::Passed)
        },
    )
}

/// §1.5: a finite publisher completes: an empty one; one asked for more
/// than it has, which must complete once its elements are delivered,
/// since the demand still outstanding leaves it no reason to wait; and one
/// whose elements were all requested exactly — at once, or on one more
/// `request` if it finds its end only when asked for more (lazy end
/// discovery: with the demand exactly met, the rule sets no deadline).
pub fn spec_1_05<F: PublisherFactory>() -> RuleDef<F> {
    def(Needs::NOTHING, |cx, f| {
        if can_make(cx, f, 0) {
            cx.scenario("publisher of 0, request(1)");
            let (probe, _publisher) = fresh(cx, f, 0)?;
            probe.request(1)?;
            probe.expect_complete()?;
        }
        let n = up_to(f, 3);
        if n > 0 {
            cx.scenario(format!(
                "publisher of {n}, request({}): demand left over",
                n + 2
            ));
            let (probe, _publisher) = fresh(cx, f, n)?;
            probe.request(n + 2)?;
            probe.expect_next_n(n)?;
            probe.expect_complete()?;

            cx.scenario(format!(
                "publisher of {n}, request({n}): demand exactly met"
            ));
            let (probe, _publisher) = fresh(cx, f, n)?;
            probe.request(n)?;
            probe.expect_next_n(n)?;
            probe.expect_complete_at_end()?;
        }
        Ok(Outcome::Passed)
    })
}

/// §1.6: after a terminal signal the subscription counts as cancelled:
/// `request` (even `request(0)`) and `cancel` do nothing, and the
/// publisher drops the subscriber.
pub fn spec_1_06<F: PublisherFactory>() -> RuleDef<F> {
    def(Needs::elements(1), |cx, f| {
        cx.scenario("publisher of 1, after on_complete: request(1), request(0), cancel()");
        // The terminal signals these scenarios start from are other
        // rules' (§3.8, §1.5, §3.9, §1.4): a miss is theirs.
        let (probe, _publisher) = fresh(cx, f, 1)?;
        probe.request(1)?;
        owed_by(cx, "3.8", probe.expect_next())?;
        owed_by(cx, "1.5", probe.expect_complete_at_end())?;
        after_terminal(&probe)?;

        cx.scenario(
            "publisher of 3, after on_error for request(0): request(1), request(0), cancel()",
        );
        let (probe, _publisher) = fresh(cx, f, up_to(f, 3))?;
        probe.request(0)?;
        owed_by(cx, "3.9", probe.expect_error())?;
        after_terminal(&probe)?;

        if let Some(publisher) = create_failed(cx, f)? {
            cx.scenario("failed publisher, after on_error: request(1), request(0), cancel()");
            let probe = subscribed(Probe::new(cx, "probe"), &*publisher)?;
            probe.request(1)?;
            owed_by(cx, "1.4", probe.expect_terminal())?;
            after_terminal(&probe)?;
        }
        Ok(Outcome::Passed)
    })
}

fn after_terminal<T: std::fmt::Debug + Send + 'static>(
    probe: &Probe<T>,
) -> Result<(), crate::context::Failure> {
    probe.request(1)?;
    probe.request(0)?;
    probe.cancel()?;
    probe.expect_no_signal_as("no signal: the subscription is cancelled once terminated")?;
    probe.wait_dropped()
}

/// §1.7: nothing follows `on_complete` or `on_error`, even with demand
/// outstanding or requested afterwards.
pub fn spec_1_07<F: PublisherFactory>() -> RuleDef<F> {
    def(Needs::elements(1), |cx, f| {
        let n = up_to(f, 3);
        cx.scenario(format!(
            "publisher of {n}, request({}), then request(1) after on_complete",
            n + 5
        ));
        // The terminal signals these scenarios start from are other
        // rules' (§3.8, §1.5, §3.9, §1.4): a miss is theirs.
        let (probe, _publisher) = fresh(cx, f, n)?;
        probe.request(n + 5)?;
        owed_by(cx, "3.8", probe.expect_next_n(n))?;
        owed_by(cx, "1.5", probe.expect_complete())?;
        probe.request(1)?;
        probe.expect_no_signal_as("no signal after on_complete")?;

        cx.scenario("publisher of 3, request(0), then request(5) after on_error");
        let (probe, _publisher) = fresh(cx, f, n)?;
        probe.request(0)?;
        owed_by(cx, "3.9", probe.expect_error())?;
        probe.request(5)?;
        probe.expect_no_signal_as("no signal after on_error")?;

        if let Some(publisher) = create_failed(cx, f)? {
            cx.scenario("failed publisher, request(5) after on_error");
            let probe = subscribed(Probe::new(cx, "probe"), &*publisher)?;
            probe.request(1)?;
            owed_by(cx, "1.4", probe.expect_terminal())?;
            probe.request(5)?;
            probe.expect_no_signal_as("no signal after on_error")?;
        }
        Ok(Outcome::Passed)
    })
}

/// §1.8: once cancelled, signals *eventually* stop. The probe asks for
/// everything and cancels from inside its third `on_next`; then asks for
/// exactly 3 and cancels inside the last, where `on_complete` may still
/// follow (§1.8 says "eventually", §3.12 "NOT REQUIRED to affect the Subscription
/// immediately", neither excepts a cancel made inside a signal); then asks
/// for up to 1,000 and cancels from the test's thread after the third,
/// while a worker may be emitting. Wherever the cancel was made,
/// "eventually" is bounded alike: no signal may begin more than the larger
/// of the no-signal window and the prompt bound after `cancel()` returned
/// and the signal in flight finished
/// ([`Probe::bound_signals_after_cancel`]); a batch of `on_next` within the
/// demand, or a terminal signal, before that is accepted. A publisher that
/// never stops is itself stopped by the probe after a bounded flood (so a
/// synchronous one cannot loop forever).
pub fn spec_1_08<F: PublisherFactory>() -> RuleDef<F> {
    def(Needs::elements(3), |cx, f| {
        let n = f.max_elements();
        cx.scenario(format!(
            "publisher of {}, request(∞), cancel() inside the 3rd on_next",
            show(n)
        ));
        let publisher = create(cx, f, n)?;
        let probe = subscribed(
            Probe::new(cx, "probe")
                .created_for(n)
                .cancel_after(3)
                .stop_runaway(),
            &*publisher,
        )?;
        probe.request(u64::MAX)?;
        probe.expect_next_n(3)?;
        probe.expect_quiet("cancel()")?;

        // A cancel from inside the last on_next: the terminal signal that
        // would have followed may still come, within the bound. The probe
        // judges what arrives and when; reading until one no-signal window
        // stays empty only gives it the time to arrive.
        cx.scenario("publisher of 3, request(3), cancel() inside the 3rd (last) on_next");
        let publisher = create(cx, f, 3)?;
        let probe = subscribed(
            Probe::new(cx, "probe").created_for(3).cancel_after(3),
            &*publisher,
        )?;
        probe.request(3)?;
        probe.expect_next_n(3)?;
        let deadline = std::time::Instant::now() + cx.env().timeout();
        while std::time::Instant::now() < deadline
            && probe.poll_signal(cx.env().no_signal_timeout()).is_some()
        {}

        // A cancel from another thread than the publisher's, while its
        // worker may be between its check and its on_next.
        let m = up_to(f, 1000);
        cx.scenario(format!(
            "publisher of {m}, request({m}), cancel() from the test's thread after the 3rd on_next"
        ));
        let publisher = create(cx, f, m)?;
        let probe = subscribed(
            Probe::new(cx, "probe")
                .created_for(m)
                .stop_runaway()
                .bound_signals_after_cancel(),
            &*publisher,
        )?;
        probe.request(m)?;
        probe.expect_next_n(3)?;
        probe.cancel()?;
        probe.expect_quiet("cancel()")?;
        Ok(Outcome::Passed)
    })
}

/// §1.9: `subscribe` returns normally and `on_subscribe` comes first (and
/// once), with or without demand, for ordinary and failed publishers, and
/// for a second subscriber of a single-subscriber publisher.
pub fn spec_1_09<F: PublisherFactory>() -> RuleDef<F> {
    def(Needs::NOTHING, |cx, f| {
        let n = up_to(f, 1);
        cx.scenario(format!("publisher of {n}, no request"));
        let (_probe, publisher) = fresh(cx, f, n)?;
        if can_make(cx, f, 0) {
            cx.scenario("publisher of 0, no request");
            fresh(cx, f, 0)?;
        }
        if !f.supports_multiple_subscribers() {
            cx.scenario("single-subscriber publisher, a second subscriber");
            subscribed(Probe::new(cx, "second"), &*publisher)?;
        }
        if let Some(publisher) = create_failed(cx, f)? {
            cx.scenario("failed publisher, no request");
            subscribed(Probe::new(cx, "probe"), &*publisher)?;
        }
        Ok(Outcome::Passed)
    })
}

/// §1.10: enforced by the types — `subscribe` takes the subscriber by
/// value, so the same one cannot be given twice.
pub fn spec_1_10<F: PublisherFactory>() -> RuleDef<F> {
    def(Needs::NOTHING, |_, _| {
        let proof = match rules::find("1.10").map(|r| r.check) {
            Some(Check::EnforcedByTypes { proof }) => proof,
            _ => "subscribe takes the subscriber by value",
        };
        Ok(Outcome::EnforcedByTypes(proof.to_string()))
    })
}

/// §1.11: a publisher that declares several subscribers serves two at once:
/// each gets its own `on_subscribe`, all its elements and `on_complete`.
/// Then three with unequal demand, and two of which one cancels: each gets
/// exactly its own demand (an owed element lost is §3.8).
pub fn spec_1_11<F: PublisherFactory>() -> RuleDef<F> {
    def(
        Needs {
            multiple_subscribers: true,
            ..Needs::elements(3)
        },
        |cx, f| {
            cx.scenario(
                "publisher of 3, two subscribers requesting 1 each three times (the last time 2), interleaved",
            );
            let publisher = create(cx, f, 3)?;
            // Each subscriber is owed the publisher's 3 elements: a request
            // left unanswered is §3.8, a missing end §1.5, not this MAY
            // rule's warning.
            // The second may start later in the stream: a hot publisher may
            // have handed the first elements to the first subscriber's
            // buffer already. It is owed the rest from there, in order.
            let first = subscribed(Probe::new(cx, "first").created_for(3), &*publisher)?;
            let second = subscribed(
                Probe::new(cx, "second").created_for(3).joins_later(),
                &*publisher,
            )?;
            let mut second_ended = false;
            for round in 0..3 {
                // The last round asks for one more than the stream holds:
                // a publisher may find its end only when asked for more,
                // and a multicast asks its source at its slowest
                // subscriber's pace, so both need that demand for it.
                let k = if round == 2 { 2 } else { 1 };
                first.request(k)?;
                if !second_ended {
                    second.request(k)?;
                }
                first.expect_next()?;
                if !second_ended {
                    let signal = second.expect_signal_as(
                        "its next element, or on_complete if it joined later in the stream",
                    );
                    if signal.is_err() && second.refused() {
                        return Ok(refused_second(cx));
                    }
                    match signal? {
                        Signal::Next(_) => {}
                        Signal::Complete => {
                            // Wherever it joined, it is owed the stream to
                            // its end.
                            if let Some(owed) = second.index_owed().filter(|owed| *owed < 3) {
                                return Err(cx.failure(
                                    format!("second: elements {owed} … 2, then on_complete"),
                                    format!(
                                        "second: on_complete after element {}",
                                        owed.saturating_sub(1)
                                    ),
                                ));
                            }
                            second_ended = true;
                        }
                        Signal::Error(_) if second.refused() => {
                            return Ok(refused_second(cx));
                        }
                        Signal::Error(error) => {
                            return Err(cx.failure(
                                "its next element, or on_complete",
                                format!("second: on_error({error}) arrived"),
                            ));
                        }
                    }
                }
            }
            first.expect_complete_at_end()?;
            if !second_ended {
                let end = second.expect_complete_at_end();
                if end.is_err() && second.refused() {
                    return Ok(refused_second(cx));
                }
                end?;
            }
            let refused = super::several::several_subscribers(cx, f)?;
            Ok(super::several::outcome(refused))
        },
    )
}

/// The second subscriber got `on_error` before any element: the publisher
/// refused it, as §1.9 allows ("the only legal way to signal failure (or
/// reject the Subscriber) is by calling onError"), so the scenario proves
/// nothing either way.
fn refused_second(cx: &RuleCx) -> Outcome {
    let reason = super::several::refused_reason(2);
    cx.trace(reason.clone());
    Outcome::Skipped(reason)
}
