//! The helper publisher fed into a processor when it is verified as a
//! publisher: a conforming publisher of the factory's inputs that serves
//! demand from its own thread.
//!
//! The thread ends when the stream ends (complete, error, cancel), or after
//! a whole idle period (the default watchdog) without demand: a processor
//! that never cancels upstream does not leave it running for ever. It does
//! not end merely because the publisher handle was dropped: subscriptions
//! outlive the handle, and demand may still come.

use std::sync::Arc;
use std::time::{Duration, Instant};

use parking_lot::{Condvar, Mutex};
use reactive_streams::{demand, StreamError, Subscriber, Subscription};

/// How the helper publisher ends.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Ending {
    /// `elements` inputs, then `on_complete` (`u64::MAX`: never ends).
    After(u64),
    /// `on_error` right after `on_subscribe`.
    Failure,
}

#[derive(Default)]
struct State {
    demand: u64,
    cancelled: bool,
    illegal: bool,
}

struct Shared {
    state: Mutex<State>,
    changed: Condvar,
}

struct HelperSubscription {
    shared: Arc<Shared>,
}

impl Subscription for HelperSubscription {
    fn request(&self, n: u64) {
        let mut state = self.shared.state.lock();
        if n == 0 {
            state.illegal = true;
        } else {
            state.demand = demand::add(state.demand, n);
        }
        self.shared.changed.notify_all();
    }

    fn cancel(&self) {
        self.shared.state.lock().cancelled = true;
        self.shared.changed.notify_all();
    }
}

/// The error the helper publisher fails with.
pub(crate) fn upstream_error() -> StreamError {
    StreamError::msg("TCK: upstream failure")
}

/// Subscribes `subscriber` to a helper publisher: `on_subscribe` here, on
/// the caller's thread, then the rest from a feeder thread.
pub(crate) fn feed<T: Send + 'static>(
    mut subscriber: Box<dyn Subscriber<T>>,
    ending: Ending,
    input: Arc<dyn Fn(u64) -> T + Send + Sync>,
    idle: Duration,
) {
    let shared = Arc::new(Shared {
        state: Mutex::new(State::default()),
        changed: Condvar::new(),
    });
    subscriber.on_subscribe(Arc::new(HelperSubscription {
        shared: shared.clone(),
    }));
    let feeder = shared.clone();
    std::thread::Builder::new()
        .name(String::from("rs-tck:upstream"))
        .spawn(move || {
            let run = std::panic::AssertUnwindSafe(|| {
                run(&feeder, &mut *subscriber, ending, &*input, idle)
            });
            // A panicking processor is reported by the downstream probes.
            let _ = std::panic::catch_unwind(run);
        })
        // Inside create_publisher: a failure is reported against the rule.
        .expect("the TCK could not start its helper upstream thread");
}

fn run<T>(
    shared: &Shared,
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
        let mut state = shared.state.lock();
        let deadline = Instant::now() + idle;
        while state.demand == 0 && !state.cancelled && !state.illegal {
            if shared.changed.wait_until(&mut state, deadline).timed_out() {
                return;
            }
        }
        if state.cancelled {
            return;
        }
        if state.illegal {
            drop(state);
            return subscriber.on_error(StreamError::illegal_demand(0));
        }
        state.demand = demand::fulfil(state.demand, 1);
        drop(state);
        subscriber.on_next(input(sent));
        sent += 1;
    }
}
