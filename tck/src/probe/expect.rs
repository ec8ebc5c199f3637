//! Blocking expectations with deadlines.
//!
//! Presence is awaited up to [`TestEnv::timeout`](crate::env::TestEnv::timeout);
//! absence is shown by waiting [`TestEnv::no_signal_timeout`](crate::env::TestEnv::no_signal_timeout).
//! Failures are attributed to the rule the context checks.

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
            .ok_or_else(|| {
                self.failure(
                    wanted,
                    format!("nothing arrived within {} ms", self.timeout_ms()),
                )
            })
    }

    /// The next signal, which must be `on_next`.
    pub fn expect_next(&self) -> Result<T, Failure> {
        let wanted = format!("on_next #{}", self.consumed_nexts() + 1);
        match self.next_signal(&wanted)? {
            Signal::Next(element) => Ok(element),
            other => Err(self.failure(wanted, format!("{} arrived", self.describe_taken(&other)))),
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
            other => Err(self.failure(
                "on_complete",
                format!("{} arrived", self.describe_taken(&other)),
            )),
        }
    }

    /// `on_complete` once every element of a finite publisher was requested
    /// and consumed: at once, or — from a publisher that learns it is
    /// exhausted only when asked for one element more — in answer to one
    /// more `request(1)`, which must bring no element. §1.5 sets no
    /// deadline for `on_complete`, and §3.11 lets `request` signal it; a
    /// publisher that never completes still fails here.
    pub fn expect_complete_at_end(&self) -> Result<(), Failure> {
        let window = self.cx().env().no_signal_timeout();
        match self.poll_signal(window) {
            Some(Signal::Complete) => Ok(()),
            Some(other) => Err(self.failure(
                "on_complete",
                format!("{} arrived", self.describe_taken(&other)),
            )),
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
            other => Err(self.failure(
                "on_error",
                format!("{} arrived", self.describe_taken(&other)),
            )),
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
            Some(signal) => Err(self.failure(
                expected,
                format!("{} arrived", self.describe_taken(&signal)),
            )),
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
                ))
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
        state.nexts - queued
    }
}
