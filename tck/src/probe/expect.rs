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
            None => Err(self.cx().failure_of(
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

    fn next_signal(&self, wanted: &str) -> Result<Signal<T>, Failure> {
        let timeout = self.cx().env().timeout();
        self.wait_for(timeout, |s| s.queue.pop_front())
            .ok_or_else(|| {
                self.cx().failure(
                    wanted,
                    format!("nothing arrived within {} ms", self.timeout_ms()),
                )
            })
    }

    /// The next signal, which must be `on_next`.
    pub fn expect_next(&self) -> Result<T, Failure> {
        let wanted = format!("on_next (element {})", self.consumed_nexts() + 1);
        match self.next_signal(&wanted)? {
            Signal::Next(element) => Ok(element),
            other => Err(self
                .cx()
                .failure(wanted, format!("{} arrived", other.describe()))),
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
            other => Err(self
                .cx()
                .failure("on_complete", format!("{} arrived", other.describe()))),
        }
    }

    /// The next signal, which must be `on_error`.
    pub fn expect_error(&self) -> Result<StreamError, Failure> {
        match self.next_signal("on_error")? {
            Signal::Error(error) => Ok(error),
            other => Err(self
                .cx()
                .failure("on_error", format!("{} arrived", other.describe()))),
        }
    }

    /// Skips `on_next` signals until a terminal one, which is returned.
    pub fn expect_terminal(&self) -> Result<Signal<T>, Failure> {
        loop {
            match self.next_signal("on_complete or on_error")? {
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
            Some(signal) => Err(self
                .cx()
                .failure(expected, format!("{} arrived", signal.describe()))),
        }
    }

    /// Waits until signals stop: no new signal for one no-signal window,
    /// within the timeout (§1.8, §3.12). Unconsumed signals are discarded.
    pub fn expect_quiet(&self, after: &str) -> Result<(), Failure> {
        let timeout = self.cx().env().timeout();
        let window = self.cx().env().no_signal_timeout();
        let deadline = Instant::now() + timeout;
        loop {
            let seen = {
                let mut state = self.shared.state.lock();
                state.queue.clear();
                state.signals
            };
            let moved = self.wait_for(window, |s| (s.signals != seen).then_some(()));
            if moved.is_none() {
                return Ok(());
            }
            if Instant::now() >= deadline {
                return Err(self.cx().failure(
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
            None => Err(self.cx().failure(
                "the publisher to drop the subscriber",
                format!(
                    "it still held the subscriber {} ms later",
                    self.timeout_ms()
                ),
            )),
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
