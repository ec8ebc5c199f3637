//! §3 Subscription rules, as far as the publisher's side shows them.

use std::sync::Barrier;

use reactive_streams::demand::EFFECTIVELY_UNBOUNDED;

use super::{create, def, fresh, owed_by, show, subscribed, up_to};
use crate::context::{Failure, Outcome, RuleCx};
use crate::probe::{Probe, Signal};
use crate::publisher::{Needs, PublisherFactory, RuleDef};

/// §3.2: `request` may be called from inside `on_subscribe` and `on_next`.
/// The probe requests 1 from `on_subscribe` and 1 from every `on_next`;
/// every element and `on_complete` must arrive, without deadlock or panic.
pub fn spec_3_02<F: PublisherFactory>() -> RuleDef<F> {
    def(Needs::elements(1), |cx, f| {
        let n = up_to(f, 10);
        cx.scenario(format!(
            "publisher of {n}, request(1) from on_subscribe and from every on_next"
        ));
        let publisher = create(cx, f, n)?;
        let probe = Probe::new(cx, "probe")
            .created_for(n)
            .request_on_subscribe(1)
            .request_on_next(1);
        let probe = subscribed(probe, &*publisher)?;
        probe.expect_next_n(n)?;
        probe.expect_complete()?;
        Ok(Outcome::Passed)
    })
}

/// §3.3: the synchronous recursion `on_next` → `request` → `on_next` stays
/// bounded, over a long run: hundreds of elements with `request(1)` from
/// every `on_next`, then unbounded demand cancelled after 500 elements.
/// The depth is measured twice: as re-entries of the probe (within the
/// factory's declared depth) and on the stack, which also sees a publisher
/// that emits each element from one frame deeper than the last (beyond
/// `max(declared depth, STACK_DEPTH_FLOOR)`). The probe stops as soon as a
/// bound is passed, so unbounded recursion is reported with the depth it
/// reached before it overflows the stack.
pub fn spec_3_03<F: PublisherFactory>() -> RuleDef<F> {
    def(Needs::elements(2), |cx, f| {
        let n = up_to(f, LONG_RUN);
        let depth = f.max_sync_recursion_depth();
        cx.scenario(format!(
            "publisher of {n}, request(1) from every on_next, depth bound {depth}"
        ));
        let publisher = create(cx, f, n)?;
        let probe = Probe::new(cx, "probe")
            .created_for(n)
            .request_on_next(1)
            .depth_bound(depth)
            .measure_recursion();
        let probe = subscribed(probe, &*publisher)?;
        probe.request(1)?;
        expect_next_until_failed(cx, &probe, n)?;
        probe.expect_complete()?;
        cx.trace(format!(
            "deepest recursion on the stack: {}",
            probe.deepest_recursion()
        ));
        let unbounded = f.max_elements();
        if unbounded > UNBOUNDED_RUN {
            cx.scenario(format!(
                "publisher of {}, request(∞), cancel() after {UNBOUNDED_RUN}",
                show(unbounded)
            ));
            let publisher = create(cx, f, unbounded)?;
            let probe = Probe::new(cx, "probe")
                .created_for(unbounded)
                .cancel_after(UNBOUNDED_RUN)
                .depth_bound(depth)
                .measure_recursion()
                .stop_runaway();
            let probe = subscribed(probe, &*publisher)?;
            probe.request(u64::MAX)?;
            expect_next_until_failed(cx, &probe, UNBOUNDED_RUN)?;
            cx.trace(format!(
                "deepest recursion on the stack: {}",
                probe.deepest_recursion()
            ));
        }
        match cx.first_failure() {
            Some(failure) => Err(failure),
            None => Ok(Outcome::Passed),
        }
    })
}

/// §3.3's long run: elements delivered with `request(1)` from each `on_next`.
const LONG_RUN: u64 = 500;

/// §3.3's unbounded run: elements before the probe cancels.
const UNBOUNDED_RUN: u64 = 500;

/// `k` elements, unless a failure (the probe's §3.3 check, which cancels)
/// has been recorded meanwhile: then no more are coming.
fn expect_next_until_failed<T: std::fmt::Debug + Send + 'static>(
    cx: &RuleCx,
    probe: &Probe<T>,
    k: u64,
) -> Result<(), Failure> {
    for _ in 0..k {
        if let Some(failure) = cx.first_failure() {
            return Err(failure);
        }
        probe.expect_next()?;
    }
    Ok(())
}

/// Up to three attempts, each on a fresh subscription: a preempted thread
/// can make one call slow, a blocking implementation makes all slow.
const PROMPT_ATTEMPTS: u32 = 3;

/// A timing verdict: what was measured against the bound the TCK chose
/// (the rule says only "timely"), so it warns unless the run is strict.
fn prompt_failure(cx: &RuleCx, call: &str, fastest: std::time::Duration) -> Failure {
    let bound = cx.env().prompt().as_millis();
    cx.failure(
        format!("{call} to return within the {bound} ms bound (RS_TCK_PROMPT_MS)"),
        format!(
            "took {} ms against the {bound} ms bound (RS_TCK_PROMPT_MS), the fastest of {PROMPT_ATTEMPTS} attempts",
            fastest.as_millis()
        ),
    )
    .as_timing()
}

/// §3.4: `request` returns promptly, within [`TestEnv::prompt`](crate::env::TestEnv::prompt).
pub fn spec_3_04<F: PublisherFactory>() -> RuleDef<F> {
    def(Needs::elements(2), |cx, f| {
        let n = f.max_elements();
        cx.scenario(format!("publisher of {}, request(1)", show(n)));
        let mut fastest = std::time::Duration::MAX;
        for _ in 0..PROMPT_ATTEMPTS {
            let (probe, _publisher) = fresh(cx, f, n)?;
            let took = probe.request_timed(1)?;
            cx.trace(format!("request(1) took {took:?}"));
            fastest = fastest.min(took);
            if took <= cx.env().prompt() {
                probe.expect_next()?;
                return Ok(Outcome::Passed);
            }
        }
        Err(prompt_failure(cx, "request(1)", fastest))
    })
}

/// §3.5: `cancel` returns promptly, is idempotent and thread-safe: called
/// twice, then from two threads at once, it neither panics nor brings
/// signals, beyond what the first cancel may still bring eventually (§1.8:
/// a terminal signal, within the probe's bound).
pub fn spec_3_05<F: PublisherFactory>() -> RuleDef<F> {
    def(Needs::elements(2), |cx, f| {
        let n = f.max_elements();
        cx.scenario(format!("publisher of {}, request(1), cancel()", show(n)));
        let mut fastest = std::time::Duration::MAX;
        for attempt in 1..=PROMPT_ATTEMPTS {
            let (probe, _publisher) = fresh_to_cancel(cx, f, n)?;
            probe.request(1)?;
            probe.expect_next()?;
            let took = probe.cancel_timed()?;
            cx.trace(format!("cancel() took {took:?}"));
            fastest = fastest.min(took);
            let prompt = took <= cx.env().prompt();
            if !prompt && attempt < PROMPT_ATTEMPTS {
                continue;
            }
            if !prompt {
                // Slowness is a timing verdict; idempotence and thread
                // safety are checked all the same.
                cx.record(prompt_failure(cx, "cancel()", fastest));
            }
            cx.scenario("cancel() again, then from two threads at once");
            probe.cancel()?;
            let barrier = Barrier::new(2);
            std::thread::scope(|scope| {
                for _ in 0..2 {
                    scope.spawn(|| {
                        barrier.wait();
                        if let Err(failure) = probe.cancel() {
                            cx.record(failure);
                        }
                    });
                }
            });
            probe.expect_stopping_after_cancel(EVENTUALLY)?;
            break;
        }
        Ok(Outcome::Passed)
    })
}

/// §3.6: after `cancel`, `request` does nothing — no element, and no
/// `on_error` even for `request(0)`. The requests follow once what the
/// cancel may still bring eventually has come (§1.8: a terminal signal,
/// within the probe's bound), so that whatever comes after them is
/// theirs.
pub fn spec_3_06<F: PublisherFactory>() -> RuleDef<F> {
    def(Needs::elements(3), |cx, f| {
        let n = up_to(f, 10);
        cx.scenario(format!(
            "publisher of {n}, request(1), cancel(), what it may still bring, then request(1), request(∞), request(0)"
        ));
        let (probe, _publisher) = fresh_to_cancel(cx, f, n)?;
        probe.request(1)?;
        probe.expect_next()?;
        probe.cancel()?;
        probe.settle_after_cancel(EVENTUALLY)?;
        probe.request(1)?;
        probe.request(u64::MAX)?;
        probe.request(0)?;
        probe.expect_no_signal_as("no signal: request after cancel() is a no-op")?;
        Ok(Outcome::Passed)
    })
}

/// §3.7: after `cancel`, `cancel` does nothing. The other two follow
/// once what the first may still bring eventually has come (§1.8, as in
/// §3.6), so that whatever comes after them is theirs.
pub fn spec_3_07<F: PublisherFactory>() -> RuleDef<F> {
    def(Needs::elements(3), |cx, f| {
        let n = up_to(f, 10);
        cx.scenario(format!(
            "publisher of {n}, request(1), cancel(), what it may still bring, then cancel() twice"
        ));
        let (probe, _publisher) = fresh_to_cancel(cx, f, n)?;
        probe.request(1)?;
        probe.expect_next()?;
        probe.cancel()?;
        probe.settle_after_cancel(EVENTUALLY)?;
        for _ in 0..2 {
            probe.cancel()?;
        }
        probe.expect_no_signal_as("no signal: cancel() after cancel() is a no-op")?;
        Ok(Outcome::Passed)
    })
}

/// §3.8: demand adds up — across calls, and (stochastic) across threads
/// requesting at the same instant: two threads lined up by a barrier each
/// request 1, round after round, and exactly two elements must come per
/// round (a lost request stalls, an extra element breaks §1.1). For a
/// publisher of several subscribers, also when another subscriber drops
/// its subscription handle without cancelling.
pub fn spec_3_08<F: PublisherFactory>() -> RuleDef<F> {
    def(Needs::elements(7), |cx, f| {
        let n = up_to(f, 20);
        cx.scenario(format!(
            "publisher of {n}, request(1), then request(2) and request(3)"
        ));
        let (probe, _publisher) = fresh(cx, f, n)?;
        probe.request(1)?;
        probe.expect_next()?;
        probe.request(2)?;
        probe.request(3)?;
        probe.expect_next_n(5)?;
        probe.expect_no_signal_as("no on_next beyond the 6 requested")?;
        drop(probe);

        const ROUNDS: u64 = 20;
        if f.run_stochastic() && f.max_elements() > 2 * ROUNDS {
            let n = up_to(f, 100);
            cx.scenario(format!(
                "publisher of {n}, two threads request(1) at the same instant, {ROUNDS} rounds"
            ));
            let (probe, _publisher) = fresh(cx, f, n)?;
            let barrier = Barrier::new(2);
            for _ in 0..ROUNDS {
                std::thread::scope(|scope| {
                    for _ in 0..2 {
                        scope.spawn(|| {
                            barrier.wait();
                            if let Err(failure) = probe.request(1) {
                                cx.record(failure);
                            }
                        });
                    }
                });
                probe.expect_next_n(2)?;
            }
            probe
                .expect_no_signal_as(&format!("no on_next beyond the {} requested", 2 * ROUNDS))?;
        }
        let refused = super::several::dropping_one(cx, f)?;
        let released = super::several::releasing_on_cancel(cx, f)?;
        Ok(super::several::outcome(refused.or(released)))
    })
}

/// §3.9: `request(0)` is answered with `on_error` carrying
/// `StreamError::illegal_demand` — on a fresh subscription and after
/// elements have flowed.
pub fn spec_3_09<F: PublisherFactory>() -> RuleDef<F> {
    def(Needs::elements(3), |cx, f| {
        let n = up_to(f, 10);
        cx.scenario(format!("publisher of {n}, request(0)"));
        let (probe, _publisher) = fresh(cx, f, n)?;
        probe.request(0)?;
        expect_illegal_demand(cx, &probe)?;
        probe.expect_no_signal_as("no signal after on_error")?;

        cx.scenario(format!("publisher of {n}, request(1), then request(0)"));
        let (probe, _publisher) = fresh(cx, f, n)?;
        probe.request(1)?;
        probe.expect_next()?;
        probe.request(0)?;
        expect_illegal_demand(cx, &probe)?;

        // From inside a signal, where a publisher may take requests the
        // short way (§3.3's trampoline): `request(0)` must not be lost there.
        cx.scenario(format!(
            "publisher of {n}, request(1), request(0) from inside the 1st on_next"
        ));
        let publisher = create(cx, f, n)?;
        let probe = subscribed(
            Probe::new(cx, "probe").created_for(n).request_on_nth(1, 0),
            &*publisher,
        )?;
        probe.request(1)?;
        probe.expect_next()?;
        expect_illegal_demand(cx, &probe)?;
        Ok(Outcome::Passed)
    })
}

fn expect_illegal_demand<T: std::fmt::Debug + Send + 'static>(
    cx: &RuleCx,
    probe: &Probe<T>,
) -> Result<(), Failure> {
    let error = probe.expect_error()?;
    if !error.is_illegal_demand() {
        return Err(cx.failure(
            "on_error(StreamError::illegal_demand(0))",
            format!("on_error({error}), which is not an illegal-demand error"),
        ));
    }
    Ok(())
}

/// §3.10: `request` may call `on_next` synchronously. Whether it does is
/// recorded; either way the elements must respect demand and order: one
/// `request(1)` at a time, each answered by exactly one element.
pub fn spec_3_10<F: PublisherFactory>() -> RuleDef<F> {
    def(Needs::elements(4), |cx, f| {
        let n = up_to(f, 10);
        cx.scenario(format!("publisher of {n}, request(1) three times"));
        let (probe, _publisher) = fresh(cx, f, n)?;
        for _ in 0..3 {
            probe.request(1)?;
            probe.expect_next()?;
        }
        probe.expect_no_signal_as("no on_next beyond the 3 requested")?;
        let (nexts, _) = probe.synchronous_signals();
        cx.trace(format!(
            "{nexts} of 3 on_next arrived synchronously inside request"
        ));
        Ok(Outcome::Passed)
    })
}

/// §3.11: `request` may call `on_complete` or `on_error` synchronously.
/// Whether it does is recorded; either way the terminal signal must come
/// last and once.
pub fn spec_3_11<F: PublisherFactory>() -> RuleDef<F> {
    def(Needs::elements(1), |cx, f| {
        cx.scenario("publisher of 1, request(1)");
        let (probe, _publisher) = fresh(cx, f, 1)?;
        probe.request(1)?;
        probe.expect_next()?;
        probe.expect_complete_at_end()?;
        probe.expect_no_signal()?;
        let (_, terminals) = probe.synchronous_signals();
        cx.trace(format!(
            "on_complete synchronous inside request: {}",
            terminals > 0
        ));

        // Whether on_error comes synchronously is this MAY rule's matter;
        // that it comes at all is §3.9's, a MUST: neither silence nor
        // another signal here is only a warning.
        cx.scenario("publisher of 1, request(0)");
        let (probe, _publisher) = fresh(cx, f, 1)?;
        probe.request(0)?;
        let expected = "on_error in answer to request(0)";
        let answer = probe.expect_signal_as(expected).map_err(|failure| {
            if failure.rule == cx.rule() {
                cx.failure_of("3.9", failure.expected, failure.actual)
            } else {
                failure
            }
        })?;
        match answer {
            Signal::Error(_) => {}
            other => {
                return Err(cx.failure_of(
                    "3.9",
                    expected,
                    format!("{} arrived", probe.describe_taken(&other)),
                ));
            }
        }
        probe.expect_no_signal()?;
        Ok(Outcome::Passed)
    })
}

/// §3.12: `cancel` makes the publisher stop: after everything requested
/// was delivered, a cancel means no further element, even when more is
/// requested afterwards; and cancelling before any request means none at
/// all. "Eventually": a terminal signal may still come, within the probe's
/// bound (§1.8). For a publisher of several subscribers, a cancel stops the signals
/// to its own subscriber only: one that cancels inside its `on_next`,
/// while that element is on its way to two others, takes nobody else's
/// demand with it (§3.8).
pub fn spec_3_12<F: PublisherFactory>() -> RuleDef<F> {
    def(Needs::elements(3), |cx, f| {
        let n = f.max_elements();
        cx.scenario(format!(
            "publisher of {}, request(2), cancel(), request(5)",
            show(n)
        ));
        let (probe, _publisher) = fresh_to_cancel(cx, f, n)?;
        probe.request(2)?;
        probe.expect_next_n(2)?;
        probe.cancel()?;
        probe.request(5)?;
        probe.expect_stopping_after_cancel(NO_NEXT)?;

        cx.scenario(format!(
            "publisher of {}, cancel() before any request, request(5)",
            show(n)
        ));
        let (probe, _publisher) = fresh_to_cancel(cx, f, n)?;
        probe.cancel()?;
        probe.request(5)?;
        probe.expect_stopping_after_cancel(NO_NEXT)?;
        let refused = super::several::cancelling_inside(cx, f)?;
        Ok(super::several::outcome(refused))
    })
}

/// What a cancel with every element requested delivered may still bring:
/// a terminal signal, eventually (§1.8), and nothing else.
const EVENTUALLY: &str =
    "no signal after cancel(), but for a terminal signal it may still bring eventually (§1.8)";

/// §3.12's expectation after a cancel and a request made after it.
const NO_NEXT: &str =
    "no on_next after cancel(), and at most a terminal signal it may still bring eventually (§1.8)";

/// [`fresh`], with a probe holding what follows a cancel to §1.8's bound
/// ([`Probe::bound_signals_after_cancel`]): the tests accept what the
/// cancel may still bring eventually, within that bound.
fn fresh_to_cancel<F: PublisherFactory>(
    cx: &RuleCx,
    f: &F,
    n: u64,
) -> Result<(Probe<F::Element>, super::Pub<F>), Failure> {
    let publisher = create(cx, f, n)?;
    let probe = Probe::new(cx, "probe")
        .created_for(n)
        .bound_signals_after_cancel();
    Ok((subscribed(probe, &*publisher)?, publisher))
}

/// §3.13: `cancel` makes the publisher drop the subscriber. Known exactly:
/// the subscriber handed to the publisher flags its own drop.
pub fn spec_3_13<F: PublisherFactory>() -> RuleDef<F> {
    def(Needs::elements(3), |cx, f| {
        let n = f.max_elements();
        cx.scenario(format!(
            "publisher of {}, cancel() before any request",
            show(n)
        ));
        let (probe, _publisher) = fresh(cx, f, n)?;
        probe.cancel()?;
        probe.wait_dropped()?;

        cx.scenario(format!("publisher of {}, request(1), cancel()", show(n)));
        let (probe, _publisher) = fresh(cx, f, n)?;
        probe.request(1)?;
        probe.expect_next()?;
        probe.cancel()?;
        probe.wait_dropped()?;

        cx.scenario(format!(
            "publisher of {}, request(5), cancel() inside the 2nd on_next",
            show(n)
        ));
        let publisher = create(cx, f, n)?;
        let probe = subscribed(
            Probe::new(cx, "probe").created_for(n).cancel_after(2),
            &*publisher,
        )?;
        probe.request(5)?;
        probe.expect_next_n(2)?;
        probe.wait_dropped()?;
        Ok(Outcome::Passed)
    })
}

/// §3.14: after its only subscription is cancelled a publisher may shut
/// down — but a new subscriber must still get `on_subscribe` and then its
/// elements (still serving) or a terminal signal (shut down). Which one
/// happened is recorded in the trace.
pub fn spec_3_14<F: PublisherFactory>() -> RuleDef<F> {
    def(Needs::elements(2), |cx, f| {
        let n = up_to(f, 10);
        cx.scenario(format!(
            "publisher of {n}, cancel the only subscription, subscribe again, request(1)"
        ));
        let publisher = create(cx, f, n)?;
        let first = subscribed(Probe::new(cx, "first"), &*publisher)?;
        first.request(1)?;
        first.expect_next()?;
        first.cancel()?;
        // Silence here is no breach of this MAY rule: a request left
        // unanswered breaks §3.8 whether the publisher still serves or has
        // shut down, and the probe files it there.
        let second = subscribed(
            Probe::new(cx, "second").created_for(n).joins_later(),
            &*publisher,
        )?;
        second.request(1)?;
        let answer = second.expect_signal_as(
            "the new subscriber's request(1) answered by on_next (still serving) or on_error / on_complete (shut down)",
        )?;
        cx.trace(match answer {
            Signal::Next(_) => "the publisher kept serving",
            _ => "the publisher shut down",
        });
        Ok(Outcome::Passed)
    })
}

/// §3.15: `cancel` returns normally: before any request, twice, from
/// another thread, after `on_complete` and after `on_error`.
pub fn spec_3_15<F: PublisherFactory>() -> RuleDef<F> {
    def(Needs::elements(1), |cx, f| {
        let n = up_to(f, 3);
        cx.scenario(format!(
            "publisher of {n}, cancel() before any request, twice"
        ));
        let (probe, _publisher) = fresh(cx, f, n)?;
        probe.cancel()?;
        probe.cancel()?;

        cx.scenario(format!("publisher of {n}, cancel() from another thread"));
        let (probe, _publisher) = fresh(cx, f, n)?;
        std::thread::scope(|scope| scope.spawn(|| probe.cancel()).join())
            .unwrap_or_else(|_| Err(cx.failure("cancel() to return normally", "it panicked")))?;

        // The terminal signals these scenarios wait for are §1.5's and
        // §3.9's: a miss is theirs.
        cx.scenario(format!("publisher of {n}, cancel() after on_complete"));
        let (probe, _publisher) = fresh(cx, f, n)?;
        probe.request(n + 1)?;
        owed_by(cx, "1.5", probe.expect_terminal())?;
        probe.cancel()?;

        cx.scenario(format!(
            "publisher of {n}, cancel() after on_error for request(0)"
        ));
        let (probe, _publisher) = fresh(cx, f, n)?;
        probe.request(0)?;
        owed_by(cx, "3.9", probe.expect_terminal())?;
        probe.cancel()?;
        Ok(Outcome::Passed)
    })
}

/// §3.16: `request` returns normally — for 1, 2^63−1 and `u64::MAX`,
/// twice `u64::MAX` in a row (an overflowing counter panics in debug
/// builds), 0, after `on_complete` and after `cancel`.
pub fn spec_3_16<F: PublisherFactory>() -> RuleDef<F> {
    def(Needs::elements(1), |cx, f| {
        let n = up_to(f, 3);
        // What these scenarios wait for is other rules' (the element
        // §3.8 and §3.17 owe, the end §1.5 owes, the on_error §3.9 owes
        // after request(0)): a miss is theirs, and this test is "not
        // concluded", as §3.11's.
        for amount in [1, EFFECTIVELY_UNBOUNDED, u64::MAX] {
            cx.scenario(format!("publisher of {n}, request({})", show(amount)));
            let (probe, _publisher) = fresh(cx, f, n)?;
            probe.request(amount)?;
            let owner = if amount == 1 { "3.8" } else { "3.17" };
            owed_by(cx, owner, probe.expect_next())?;
        }

        cx.scenario(format!(
            "publisher of {n}, request(∞) twice from on_subscribe"
        ));
        let publisher = create(cx, f, n)?;
        let probe = Probe::new(cx, "probe")
            .created_for(n)
            .request_on_subscribe(u64::MAX)
            .request_on_subscribe(u64::MAX);
        let probe = subscribed(probe, &*publisher)?;
        owed_by(cx, "3.17", probe.expect_next_n(n))?;
        owed_by(cx, "1.5", probe.expect_complete())?;
        probe.request(u64::MAX)?;
        probe.request(1)?;

        cx.scenario(format!(
            "publisher of {n}, request(0), then request(1) after on_error"
        ));
        let (probe, _publisher) = fresh(cx, f, n)?;
        probe.request(0)?;
        owed_by(cx, "3.9", probe.expect_terminal())?;
        probe.request(1)?;

        cx.scenario(format!(
            "publisher of {n}, cancel(), then request(1) and request(∞)"
        ));
        let (probe, _publisher) = fresh(cx, f, n)?;
        probe.cancel()?;
        probe.request(1)?;
        probe.request(u64::MAX)?;
        Ok(Outcome::Passed)
    })
}

/// §3.17: demand up to and beyond 2^63−1, in one call or accumulated over
/// several, is honoured without error or overflow; a thousand calls of
/// `request(1)` bring every element owed. Beside these scenarios, a
/// subscription whose demand was met is left untouched for
/// `RS_TCK_IDLE_MS` and must get nothing (§1.1, see `idle`).
pub fn spec_3_17<F: PublisherFactory>() -> RuleDef<F> {
    spec_3_17_def()
}

/// How many `request(1)` calls the many-calls scenario of §3.17 makes.
const MANY_CALLS: u64 = 1000;

/// §3.17's unbounded number of calls: a publisher of `n` (up to
/// [`MANY_CALLS`]) gets `n` calls of `request(1)`, a tenth from inside
/// `on_subscribe` (before anything flows), the rest from the test's thread
/// one after the other while elements flow; every element owed must
/// arrive. A publisher that loses some of the calls fails here (§3.17),
/// not as an overlap or a stall elsewhere.
fn many_single_requests<F: PublisherFactory>(cx: &RuleCx, f: &F) -> Result<(), Failure> {
    let n = up_to(f, MANY_CALLS);
    if n < 3 {
        return Ok(());
    }
    let early = n / 10;
    cx.scenario(format!(
        "publisher of {n}, {n} calls of request(1): {early} from on_subscribe, {} from the test's thread while elements flow",
        n - early
    ));
    let publisher = create(cx, f, n)?;
    let mut probe = Probe::new(cx, "probe").created_for(n);
    for _ in 0..early {
        probe = probe.request_on_subscribe(1);
    }
    let probe = subscribed(probe, &*publisher)?;
    for _ in early..n {
        probe.request(1)?;
    }
    probe.expect_next_n(n)?;
    probe.expect_complete_at_end()?;
    Ok(())
}

fn spec_3_17_def<F: PublisherFactory>() -> RuleDef<F> {
    def(Needs::elements(3), |cx, f| {
        let idle = super::idle::watch(cx, f)?;
        let cases: [(&str, &[u64]); 3] = [
            ("request(2^63−1)", &[EFFECTIVELY_UNBOUNDED]),
            ("request(2^62) three times", &[1 << 62, 1 << 62, 1 << 62]),
            ("request(∞), then request(1)", &[u64::MAX, 1]),
        ];
        for (label, amounts) in cases {
            cx.scenario(format!("publisher of 3, {label} from on_subscribe"));
            let publisher = create(cx, f, 3)?;
            let mut probe = Probe::new(cx, "probe").created_for(3);
            for &amount in amounts {
                probe = probe.request_on_subscribe(amount);
            }
            let probe = subscribed(probe, &*publisher)?;
            probe.expect_next_n(3)?;
            probe.expect_complete()?;
        }
        many_single_requests(cx, f)?;
        if f.max_elements() == u64::MAX {
            cx.scenario("publisher of ∞, request(2^63−1) twice from on_subscribe, cancel() inside the 10th on_next");
            let publisher = create(cx, f, u64::MAX)?;
            let probe = Probe::new(cx, "probe")
                .request_on_subscribe(EFFECTIVELY_UNBOUNDED)
                .request_on_subscribe(EFFECTIVELY_UNBOUNDED)
                .cancel_after(10)
                .stop_runaway();
            let probe = subscribed(probe, &*publisher)?;
            probe.expect_next_n(10)?;
            probe.expect_quiet("cancel()")?;
        }
        if let Some(idle) = idle {
            idle.finish()?;
        }
        Ok(Outcome::Passed)
    })
}
