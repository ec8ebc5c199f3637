//! The TCK's end of a processor's upstream: a [`Recorder`] subscription
//! that counts the demand the processor signals, and [`feed`], a conforming
//! publisher of the factory's inputs that serves that demand from a thread
//! of its own. The quick verification feeds a processor verified as a
//! publisher through it; the extended one also reads the recorder.
//!
//! The thread ends when the stream ends (complete, error, cancel), or after
//! a whole idle period (the default watchdog) without demand: a processor
//! that never cancels upstream does not leave it running for ever. It does
//! not end merely because the publisher handle was dropped: subscriptions
//! outlive the handle, and demand may still come.

use std::sync::Arc;
use std::time::{Duration, Instant};

use parking_lot::{Condvar, Mutex};
use reactive_streams::{StreamError, Subscriber, Subscription, demand};

/// What the processor did to its upstream subscription.
#[derive(Debug, Default, Clone, Copy)]
pub(crate) struct Upstream {
    /// Every `request(n)` added up, saturating.
    pub(crate) requested: u64,
    /// Elements the TCK sent upstream.
    pub(crate) sent: u64,
    /// `request(0)` was made (§2.1 binds a processor's input side).
    pub(crate) illegal: bool,
    /// `cancel()` was called.
    pub(crate) cancelled: bool,
}

impl Upstream {
    /// Demand signalled and not yet served.
    pub(crate) fn outstanding(&self) -> u64 {
        if self.cancelled || self.illegal {
            0
        } else {
            self.requested.saturating_sub(self.sent)
        }
    }
}

/// The subscription the TCK hands a processor as its upstream: it records,
/// and wakes whoever waits for a change.
#[derive(Default)]
pub(crate) struct Recorder {
    state: Mutex<Upstream>,
    changed: Condvar,
}

impl Recorder {
    /// What the processor did so far.
    pub(crate) fn seen(&self) -> Upstream {
        *self.state.lock()
    }

    /// Counts one element sent upstream, if demand allows; `false` when
    /// there is none.
    pub(crate) fn take_one(&self) -> bool {
        let mut state = self.state.lock();
        if state.outstanding() == 0 {
            return false;
        }
        state.sent += 1;
        true
    }

    /// Waits up to `timeout` until `done` holds for what the processor did.
    pub(crate) fn wait(&self, timeout: Duration, done: impl Fn(&Upstream) -> bool) -> bool {
        let deadline = Instant::now() + timeout;
        let mut state = self.state.lock();
        while !done(&state) {
            if self.changed.wait_until(&mut state, deadline).timed_out() {
                return done(&state);
            }
        }
        true
    }
}

impl Subscription for Recorder {
    fn request(&self, n: u64) {
        let mut state = self.state.lock();
        if n == 0 {
            state.illegal = true;
        } else {
            state.requested = demand::add(state.requested, n);
        }
        self.changed.notify_all();
    }

    fn cancel(&self) {
        self.state.lock().cancelled = true;
        self.changed.notify_all();
    }
}

/// The error the helper publisher fails with.
pub(crate) fn upstream_error() -> StreamError {
    StreamError::msg("TCK: upstream failure")
}

/// How a fed upstream ends.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Ending {
    /// This many inputs, then `on_complete` (`u64::MAX`: never).
    After(u64),
    /// `on_error` right after `on_subscribe`.
    Failure,
}

/// Subscribes `subscriber` (a processor's input side) to a conforming
/// upstream: `on_subscribe` on the caller's thread, everything else from a
/// feeder thread, which ends with the stream or after `idle` without
/// demand (a processor that never cancels does not keep it for ever).
pub(crate) fn feed<T: Send + 'static>(
    mut subscriber: Box<dyn Subscriber<T>>,
    ending: Ending,
    input: Arc<dyn Fn(u64) -> T + Send + Sync>,
    idle: Duration,
) {
    let recorder = Arc::new(Recorder::default());
    subscriber.on_subscribe(recorder.clone());
    let spawned = std::thread::Builder::new()
        .name(String::from("rs-tck:upstream"))
        .spawn(move || {
            let run = std::panic::AssertUnwindSafe(|| {
                serve(&recorder, &mut *subscriber, ending, &*input, idle)
            });
            // A panicking processor is reported by the downstream probes.
            let _ = std::panic::catch_unwind(run);
        });
    // Inside create_publisher: a panic is reported against the rule.
    spawned.expect("the TCK could not start its upstream thread");
}

fn serve<T>(
    recorder: &Recorder,
    subscriber: &mut dyn Subscriber<T>,
    ending: Ending,
    input: &dyn Fn(u64) -> T,
    idle: Duration,
) {
    let elements = match ending {
        Ending::Failure => return subscriber.on_error(upstream_error()),
        Ending::After(elements) => elements,
    };
    let mut sent = 0u64;
    loop {
        if elements != u64::MAX && sent == elements {
            return subscriber.on_complete();
        }
        if !recorder.wait(idle, |s| s.outstanding() > 0 || s.cancelled || s.illegal) {
            return;
        }
        let seen = recorder.seen();
        if seen.cancelled {
            return;
        }
        if seen.illegal {
            return subscriber.on_error(StreamError::illegal_demand(0));
        }
        if recorder.take_one() {
            subscriber.on_next(input(sent));
            sent += 1;
        }
    }
}
