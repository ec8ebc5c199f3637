//! Concurrency stress: several threads request (and sometimes one cancels)
//! at the same instants against one subscription, iteration after
//! iteration.
//!
//! Each iteration draws a [`StressPlan`] from its own seed: per thread, one
//! action per round — `request(1…4)`, or, in about half the iterations,
//! one `cancel()` at a random round. A barrier lines the threads up before
//! every round, so they contend for the subscription at once; the probe
//! lets their calls through one after the other (§2.7: serial, with a
//! happens-before edge between them, never overlapping). The
//! publisher has three elements more than the threads request in total, so
//! that it never completes on its own and an extra element shows. Checked:
//!
//! | what | rule |
//! |---|---|
//! | every requested element arrives (no demand lost when threads request in turn) | §3.8 |
//! | no element beyond the demand (no demand counted twice) | §1.1 |
//! | no overlapping signals | §1.3 (the probe) |
//! | after the three remaining elements are requested: exactly one `on_complete` | §1.5, §1.7 |
//! | after a racing `cancel()`: nothing beyond demand, the subscriber dropped | §1.1, §3.13 |
//! | after a racing `cancel()`: signals stop within the probe's bound; a terminal signal, or `on_next` within demand, before that is "eventually" | §1.8 |
//! | no terminal signal before the `cancel()` (the demand never covered the elements) | `tck.create_n_gives_exactly_n` |
//!
//! A failure names the iteration, its seed, and what each thread did.

use std::fmt;
use std::sync::Barrier;

use reactive_streams::demand;

use crate::context::{Failure, Outcome, RuleBody, RuleCx};
use crate::explore::splitmix64;
use crate::probe::{Probe, Signal};
use crate::publisher::PublisherFactory;
use crate::publisher::rules::{create, subscribed};

/// Rounds of simultaneous calls per iteration.
pub const ROUNDS: usize = 6;
/// The largest amount one thread requests in one round.
pub const MAX_AMOUNT: u64 = 4;
/// Elements the publisher has beyond the demand of the rounds.
pub const EXTRA: u64 = 3;

/// What one thread does in one round.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Action {
    /// `request(n)`.
    Request(u64),
    /// `cancel()`.
    Cancel,
}

/// What every thread does in one iteration.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StressPlan {
    /// `actions[thread][round]`.
    pub actions: Vec<Vec<Action>>,
}

impl StressPlan {
    /// The plan drawn from `seed` for `threads` threads.
    pub fn draw(seed: u64, threads: usize) -> StressPlan {
        let mut state = seed;
        let mut actions: Vec<Vec<Action>> = (0..threads)
            .map(|_| {
                (0..ROUNDS)
                    .map(|_| Action::Request(1 + splitmix64(&mut state) % MAX_AMOUNT))
                    .collect()
            })
            .collect();
        if splitmix64(&mut state) % 2 == 1 {
            let thread = (splitmix64(&mut state) % threads as u64) as usize;
            let round = (splitmix64(&mut state) % ROUNDS as u64) as usize;
            actions[thread][round] = Action::Cancel;
        }
        StressPlan { actions }
    }

    /// The most elements any iteration needs from a factory.
    pub fn max_elements_needed(threads: usize) -> u64 {
        threads as u64 * ROUNDS as u64 * MAX_AMOUNT + EXTRA
    }

    /// The fewest elements a plan's publisher of `threads` threads may
    /// have: every call but one cancel a `request(1)`, and the extra ones.
    pub fn min_elements_needed(threads: usize) -> u64 {
        (threads as u64 * ROUNDS as u64).saturating_sub(1) + EXTRA
    }

    /// Whether some thread cancels.
    pub fn cancels(&self) -> bool {
        self.actions.iter().flatten().any(|a| *a == Action::Cancel)
    }

    /// The demand all requests add up to (those after a cancel included:
    /// they are no-ops, but the publisher must not exceed even this).
    pub fn total(&self) -> u64 {
        self.actions
            .iter()
            .flatten()
            .fold(0, |sum, action| match action {
                Action::Request(n) => demand::add(sum, *n),
                Action::Cancel => sum,
            })
    }

    /// The thread names, as the trace shows them.
    pub fn thread_name(thread: usize) -> String {
        format!("stress-{}", thread + 1)
    }
}

impl fmt::Display for StressPlan {
    /// One line per thread: `stress-1: request(2), cancel(), request(4)`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (thread, actions) in self.actions.iter().enumerate() {
            let calls: Vec<String> = actions
                .iter()
                .map(|action| match action {
                    Action::Request(n) => format!("request({})", crate::probe::show_demand(*n)),
                    Action::Cancel => String::from("cancel()"),
                })
                .collect();
            if thread > 0 {
                writeln!(f)?;
            }
            write!(
                f,
                "  {}: {}",
                StressPlan::thread_name(thread),
                calls.join(", ")
            )?;
        }
        Ok(())
    }
}

/// Runs one iteration of `plan` as the body of one rule test.
pub(crate) fn run<F: PublisherFactory>(cx: &RuleCx, f: &F, plan: &StressPlan) -> RuleBody {
    let total = plan.total();
    let elements = total + EXTRA;
    cx.trace(format!("plan (one call per thread per round):\n{plan}"));
    let publisher = create(cx, f, elements)?;
    // After a cancel a publisher may go on signalling for a while (§1.8
    // "eventually"), within the probe's bound.
    let probe = subscribed(
        Probe::new(cx, "probe")
            .sees_start()
            .stop_runaway()
            .bound_signals_after_cancel(),
        &*publisher,
    )?;
    let barrier = Barrier::new(plan.actions.len());
    std::thread::scope(|scope| {
        for (thread, actions) in plan.actions.iter().enumerate() {
            let (probe, barrier) = (&probe, &barrier);
            let spawned = std::thread::Builder::new()
                .name(StressPlan::thread_name(thread))
                .spawn_scoped(scope, move || {
                    for action in actions {
                        barrier.wait();
                        let called = match action {
                            Action::Request(n) => probe.request(*n),
                            Action::Cancel => probe.cancel(),
                        };
                        if let Err(failure) = called {
                            probe.cx().record(failure);
                        }
                    }
                });
            if let Err(error) = spawned {
                // The others would wait at the barrier forever.
                panic!("rs-tck: cannot start a stress thread: {error}");
            }
        }
    });

    if plan.cancels() {
        after_cancel(cx, &probe, total)?;
    } else {
        all_delivered(cx, &probe, total)?;
    }
    drop(publisher);
    Ok(Outcome::Passed)
}

/// No cancel: exactly `total` elements, nothing more, then the rest and
/// exactly one `on_complete`.
fn all_delivered<T: std::fmt::Debug + Send + 'static>(
    cx: &RuleCx,
    probe: &Probe<T>,
    total: u64,
) -> Result<(), Failure> {
    for delivered in 0..total {
        match probe.expect_signal() {
            Ok(Signal::Next(_)) => {}
            Ok(other) => {
                return Err(cx.failure_of(
                    "tck.create_n_gives_exactly_n",
                    format!(
                    "{total} on_next (the demand the threads requested), no terminal signal yet"
                ),
                    format!("{} after {delivered} on_next", other.describe()),
                ))
            }
            Err(_) => {
                return Err(cx.failure_of(
                    "3.8",
                    format!("{total} on_next: the demand the threads requested adds up"),
                    format!(
                    "only {delivered} arrived within {} ms: demand was lost when several threads requested",
                    cx.env().timeout().as_millis()
                ),
                ))
            }
        }
    }
    if let Err(failure) = probe.expect_no_signal_as(&format!(
        "no on_next beyond the {total} the threads requested"
    )) {
        return Err(cx.failure_of(
            "1.1",
            failure.expected,
            format!("{}: demand was counted twice", failure.actual),
        ));
    }
    probe.request(EXTRA)?;
    for _ in 0..EXTRA {
        probe.expect_next()?;
    }
    if let Err(failure) = probe.expect_complete_at_end() {
        return Err(cx.failure_of("1.5", "on_complete after the last element", failure.actual));
    }
    if let Err(failure) = probe.wait_dropped() {
        return Err(cx.failure_of("1.6", failure.expected, failure.actual));
    }
    if let Err(failure) = probe.expect_no_signal_as("exactly one terminal signal") {
        return Err(cx.failure_of("1.7", failure.expected, failure.actual));
    }
    Ok(())
}

/// A racing cancel: the subscriber is dropped, and until then nothing
/// beyond demand and nothing later than the bound after the cancel (the
/// probe checks both). A terminal signal after the cancel is what §1.8's
/// "eventually" allows (a publisher tidying up with `on_complete`); one
/// before it ended a stream the demand never covered.
fn after_cancel<T: std::fmt::Debug + Send + 'static>(
    cx: &RuleCx,
    probe: &Probe<T>,
    total: u64,
) -> Result<(), Failure> {
    if let Err(failure) = probe.wait_dropped() {
        return Err(cx.failure_of(
            "3.13",
            "the publisher to drop the subscriber after cancel()",
            failure.actual,
        ));
    }
    if probe.is_terminated() && !probe.terminated_after_cancel() {
        let terminal = probe.expect_terminal()?;
        return Err(cx.failure_of(
            "tck.create_n_gives_exactly_n",
            format!(
                "no terminal signal before cancel(): the {total} requested never covered the elements"
            ),
            format!("{} arrived before cancel() was called", terminal.describe()),
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plans_are_drawn_from_their_seed_alone() {
        assert_eq!(StressPlan::draw(5, 4), StressPlan::draw(5, 4));
        let plans: Vec<StressPlan> = (0..32).map(|s| StressPlan::draw(s, 3)).collect();
        assert!(plans.iter().any(StressPlan::cancels));
        assert!(plans.iter().any(|p| !p.cancels()));
        for plan in &plans {
            assert!(plan.total() + EXTRA <= StressPlan::max_elements_needed(3));
        }
    }

    #[test]
    fn plans_print_one_line_per_thread() {
        let plan = StressPlan {
            actions: vec![
                vec![Action::Request(2), Action::Cancel],
                vec![Action::Request(1), Action::Request(4)],
            ],
        };
        assert_eq!(
            plan.to_string(),
            "  stress-1: request(2), cancel()\n  stress-2: request(1), request(4)"
        );
    }
}
