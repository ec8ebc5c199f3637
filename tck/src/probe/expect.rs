//! Blocking expectations with deadlines.
//!
//! Presence is awaited up to [`TestEnv::timeout`](crate::env::TestEnv::timeout);
//! absence is shown by waiting [`TestEnv::no_signal_timeout`](crate::env::TestEnv::no_signal_timeout).
//! Failures are attributed to the rule the context checks, unless the
//! probe has set aside an `on_next` beyond demand: the test's checks then
//! judge a stream with elements missing, and a check that misses a signal
//! is filed under the rule the excess broke (§1.1, or §3.6), which the
//! test reports as "not concluded", never as its own rule broken.
//! Likewise silence where demand is outstanding is filed under the MUST
//! rule it breaks, §1.5 or §3.8 (see `missing_failure`), so a test of a
//! SHOULD or MAY rule that sees it fails instead of warning.

use std::fmt::Debug;
use std::time::{Duration, Instant};

use reactive_streams::StreamError;

use super::state::State;
use super::{Probe, Signal};
use crate::context::Failure;

impl<T: Debug + Send + 'static> Probe<T> {
    /// Waits under the state lock until `ready` yields, or `timeout` passes
    /// (then `ready` gets one last look).
    fn wait_for<R>(
        &self,
        timeout: Duration,
        mut ready: impl FnMut(&mut State<T>) -> Option<R>,
    ) -> Option<R> {
        let deadline = Instant::now() + timeout;
        let mut state = self.shared.state.lock();
        loop {
            if let Some(result) = ready(&mut state) {
                return Some(result);
            }
            if self
                .shared
                .changed
                .wait_until(&mut state, deadline)
                .timed_out()
            {
                return ready(&mut state);
            }
        }
    }

    /// A failure of the test's own check, or, once the probe has set aside
    /// an `on_next` beyond demand, of the rule that excess broke (see the
    /// [module](self) docs).
    fn check_failure(&self, expected: impl Into<String>, actual: impl Into<String>) -> Failure {
        let beyond = self.shared.state.lock().beyond_demand;
        match beyond {
            None => self.failure(expected, actual),
            Some(rule) => self.failure_of(
                rule,
                expected,
                format!(
                    "{}, after an on_next beyond demand, which the probe set aside (the test's own check could not be judged)",
                    actual.into()
                ),
            ),
        }
    }

    /// `signal`, just taken, is not the `expected` one. An `on_next` that
    /// came after a terminal signal the test has already taken breaks
    /// §1.7, which the probe recorded as it arrived: the test's check
    /// files it there too, so a SHOULD or MAY test does not add a warning
    /// of its own for a MUST breach. Otherwise [`Probe::check_failure`].
    fn wrong_signal(&self, expected: &str, signal: &Signal<T>) -> Failure {
        let actual = format!("{} arrived", self.describe_taken(signal));
        let after_terminal = {
            let state = self.shared.state.lock();
            matches!(signal, Signal::Next(_))
                && state.terminal.is_some()
                && !state.queue.iter().any(|s| !matches!(s, Signal::Next(_)))
        };
        if after_terminal {
            self.failure_of(
                "1.7",
                format!("{expected}, nothing after the terminal signal"),
                actual,
            )
        } else {
            self.check_failure(expected, actual)
        }
    }

    fn timeout_ms(&self) -> u128 {
        self.cx().env().timeout().as_millis()
    }

    /// Waits for `on_subscribe` (§1.9).
    pub fn expect_subscribed(&self) -> Result<(), Failure> {
        let timeout = self.cx().env().timeout();
        match self.wait_for(timeout, |s| (s.subscribes > 0).then_some(())) {
            Some(()) => Ok(()),
            None => Err(self.failure_of(
                "1.9",
                "on_subscribe after subscribe",
                format!("no on_subscribe within {} ms", self.timeout_ms()),
            )),
        }
    }

    /// The next signal, whatever it is.
    pub fn expect_signal(&self) -> Result<Signal<T>, Failure> {
        self.next_signal("a signal")
    }

    /// [`Probe::expect_signal`], naming what was expected.
    pub fn expect_signal_as(&self, expected: &str) -> Result<Signal<T>, Failure> {
        self.next_signal(expected)
    }

    fn next_signal(&self, wanted: &str) -> Result<Signal<T>, Failure> {
        let timeout = self.cx().env().timeout();
        self.wait_for(timeout, |s| s.queue.pop_front())
            .ok_or_else(|| self.missing_failure(wanted))
    }

    /// Nothing arrived while the test waited for `wanted`. Whatever the
    /// test is about, silence with demand outstanding on a subscription
    /// that is neither cancelled nor terminated breaks a MUST rule of its
    /// own, and is filed there (a SHOULD or MAY test that sees it fails,
    /// it does not merely warn): a publisher made for `n`
    /// ([`Probe::created_for`]) that has delivered all `n` owes
    /// `on_complete` (§1.5; lazy end discovery is accepted only where the
    /// demand was exactly met, which
    /// [`expect_complete_at_end`](Self::expect_complete_at_end) allows
    /// for); one that has delivered fewer owes an element, so the demand
    /// was not registered (§3.8; the own tests of §3.2 and §3.17 keep it,
    /// demand requested from inside a signal or accumulated past 2^63−1
    /// being their subject). Otherwise the test's own check.
    fn missing_failure(&self, wanted: &str) -> Failure {
        let actual = format!("nothing arrived within {} ms", self.timeout_ms());
        let owed = {
            let state = self.shared.state.lock();
            let open = state.beyond_demand.is_none()
                && !state.cancelled
                && state.terminal.is_none()
                && state.requested > state.offered;
            match state.behaviour.created_for {
                Some(n) if open => Some((n, state.offered, state.requested)),
                _ => None,
            }
        };
        let own = self.cx().rule();
        match owed {
            Some((n, delivered, requested)) if delivered >= n => {
                let waited = if wanted == "on_complete" {
                    String::new()
                } else {
                    format!(" (the test waited for: {wanted})")
                };
                self.failure_of(
                    "1.5",
                    format!(
                        "on_complete from the publisher of {n}, which has delivered all {n} elements with demand left over ({} requested){waited}",
                        super::show_demand(requested)
                    ),
                    actual,
                )
            }
            Some((n, delivered, requested))
                if delivered < n && !matches!(own, "3.2" | "3.17") =>
            {
                self.failure_of(
                    "3.8",
                    format!(
                        "{wanted}: {} requested and not cancelled, {delivered} of the publisher's {n} elements delivered, so the demand must bring the next one",
                        super::show_demand(requested)
                    ),
                    actual,
                )
            }
            _ => self.check_failure(wanted, actual),
        }
    }

    /// The next signal, which must be `on_next`.
    pub fn expect_next(&self) -> Result<T, Failure> {
        let wanted = format!("on_next #{}", self.consumed_nexts() + 1);
        match self.next_signal(&wanted)? {
            Signal::Next(element) => Ok(element),
            other => Err(self.wrong_signal(&wanted, &other)),
        }
    }

    /// The next `k` signals, which must all be `on_next`.
    pub fn expect_next_n(&self, k: u64) -> Result<Vec<T>, Failure> {
        (0..k).map(|_| self.expect_next()).collect()
    }

    /// The next signal, which must be `on_complete`.
    pub fn expect_complete(&self) -> Result<(), Failure> {
        match self.next_signal("on_complete")? {
            Signal::Complete => Ok(()),
            other => Err(self.wrong_signal("on_complete", &other)),
        }
    }

    /// `on_complete` once every element of a finite publisher was requested
    /// and consumed: at once, or — from a publisher that learns it is
    /// exhausted only when asked for one element more — in answer to one
    /// more `request(1)`, which must bring no element. With the demand
    /// exactly met §1.5 sets no deadline for `on_complete`, and §3.11 lets
    /// `request` signal it; a publisher that does not complete even with
    /// that request outstanding fails §1.5.
    pub fn expect_complete_at_end(&self) -> Result<(), Failure> {
        let window = self.cx().env().no_signal_timeout();
        match self.poll_signal(window) {
            Some(Signal::Complete) => Ok(()),
            Some(other) => Err(self.wrong_signal("on_complete", &other)),
            None => {
                self.cx().trace(
                    "no on_complete yet: request(1), for a publisher that finds its end when asked for more",
                );
                self.request(1)?;
                self.expect_complete()
            }
        }
    }

    /// The next signal, which must be `on_error`.
    pub fn expect_error(&self) -> Result<StreamError, Failure> {
        match self.next_signal("on_error")? {
            Signal::Error(error) => Ok(error),
            other => Err(self.wrong_signal("on_error", &other)),
        }
    }

    /// Skips `on_next` signals until a terminal one, which is returned.
    pub fn expect_terminal(&self) -> Result<Signal<T>, Failure> {
        self.expect_terminal_as("on_complete or on_error")
    }

    /// [`Probe::expect_terminal`], naming what the rule expects (say,
    /// `on_error` from a failed publisher, §1.4) if nothing arrives.
    pub fn expect_terminal_as(&self, expected: &str) -> Result<Signal<T>, Failure> {
        loop {
            match self.next_signal(expected)? {
                Signal::Next(_) => continue,
                terminal => return Ok(terminal),
            }
        }
    }

    /// Shows that no signal arrives within the no-signal window (and that
    /// none is waiting unconsumed).
    pub fn expect_no_signal(&self) -> Result<(), Failure> {
        self.expect_no_signal_as("no further signal")
    }

    /// [`Probe::expect_no_signal`], naming what was expected.
    pub fn expect_no_signal_as(&self, expected: &str) -> Result<(), Failure> {
        let window = self.cx().env().no_signal_timeout();
        match self.wait_for(window, |s| s.queue.pop_front()) {
            None => Ok(()),
            Some(signal) => Err(self.wrong_signal(expected, &signal)),
        }
    }

    /// The next signal if one arrives within `window` (or is waiting
    /// unconsumed), else `None`: for callers that decide themselves which
    /// signals may still come.
    pub fn poll_signal(&self, window: Duration) -> Option<Signal<T>> {
        self.wait_for(window, |s| s.queue.pop_front())
    }

    /// Waits until signals stop (§1.8, §3.12), all within the timeout, and
    /// discards unconsumed signals.
    ///
    /// The positive evidence comes first: a publisher that has dropped the
    /// subscriber can never signal it again, and a probe with
    /// [`Probe::stop_runaway`] that counted a flood knows the opposite. Only
    /// when neither shows within the timeout (a publisher that stopped but
    /// keeps the subscriber, which is §3.13's business) does absence decide:
    /// no probe reaction in flight, then no new signal for one no-signal
    /// window. A publisher thread starved by a loaded machine therefore
    /// cannot pass for a stopped one.
    pub fn expect_quiet(&self, after: &str) -> Result<(), Failure> {
        let evidence = self.wait_for(self.cx().env().timeout(), |s| {
            if s.runaway {
                Some(false)
            } else {
                (s.dropped && s.reacting == 0).then_some(true)
            }
        });
        match evidence {
            Some(true) => {
                self.shared.state.lock().queue.clear();
                return Ok(());
            }
            Some(false) => {
                return Err(self.failure(
                    format!("signals to stop after {after}"),
                    format!(
                        "more than {} signals arrived after {after}",
                        super::RUNAWAY_LIMIT
                    ),
                ));
            }
            None => {}
        }
        let timeout = self.cx().env().timeout();
        let window = self.cx().env().no_signal_timeout();
        let deadline = Instant::now() + timeout;
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            let settled = self.wait_for(left, |s| (s.reacting == 0).then_some(()));
            let seen = {
                let mut state = self.shared.state.lock();
                state.queue.clear();
                state.signals
            };
            if settled.is_some() {
                let moved = self.wait_for(window, |s| {
                    (s.signals != seen || s.reacting > 0).then_some(())
                });
                if moved.is_none() {
                    return Ok(());
                }
            }
            if Instant::now() >= deadline {
                return Err(self.failure(
                    format!("signals to stop after {after}"),
                    format!(
                        "signals still arriving {} ms after {after}",
                        self.timeout_ms()
                    ),
                ));
            }
        }
    }

    /// Waits until the publisher has dropped the subscriber (§3.13).
    pub fn wait_dropped(&self) -> Result<(), Failure> {
        let timeout = self.cx().env().timeout();
        match self.wait_for(timeout, |s| s.dropped.then_some(())) {
            Some(()) => Ok(()),
            None => Err(self.failure(
                "the publisher to drop the subscriber",
                format!(
                    "it still held the subscriber {} ms later",
                    self.timeout_ms()
                ),
            )),
        }
    }

    /// `signal`, the one last taken from this probe, as messages name it:
    /// an `on_next` with its ordinal and value ([`show_next`](super::show_next)),
    /// `on_error(..)`, `on_complete`.
    pub fn describe_taken(&self, signal: &Signal<T>) -> String {
        match signal {
            Signal::Next(element) => super::show_next(self.consumed_nexts(), element),
            other => other.describe(),
        }
    }

    fn consumed_nexts(&self) -> u64 {
        let state = self.shared.state.lock();
        let queued = state
            .queue
            .iter()
            .filter(|s| matches!(s, Signal::Next(_)))
            .count() as u64;
        state.offered - queued
    }
}
