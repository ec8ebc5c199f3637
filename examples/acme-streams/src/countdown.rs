use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};

use reactive_streams::{demand, Publisher, StreamError, Subscriber, Subscription};

/// Publishes `n, n-1, …, 1` to every subscriber, then completes.
///
/// Elements are emitted on the thread that calls `request`. A request made
/// from inside `on_next` only adds demand: the loop already running on the
/// stack emits it, so the recursion depth stays one (§3.3).
#[derive(Debug, Clone, Copy)]
pub struct Countdown {
    from: u64,
}

impl Countdown {
    /// A countdown from `from` to 1 (`Countdown::new(0)` completes at once).
    pub fn new(from: u64) -> Self {
        Countdown { from }
    }
}

impl Publisher<u64> for Countdown {
    fn subscribe(&self, mut subscriber: Box<dyn Subscriber<u64>>) {
        let subscription = Arc::new(CountdownSubscription {
            state: Mutex::new(State {
                subscriber: None,
                remaining: self.from,
                demand: 0,
                illegal_request: false,
                cancelled: false,
            }),
            // The subscribing thread owns the emission loop until the
            // subscriber is stored, so requests made inside `on_subscribe`
            // are only counted.
            work: AtomicUsize::new(1),
        });
        subscriber.on_subscribe(subscription.clone());
        subscription.lock().subscriber = Some(subscriber);
        subscription.emit_loop();
    }
}

struct State {
    subscriber: Option<Box<dyn Subscriber<u64>>>,
    remaining: u64,
    demand: u64,
    illegal_request: bool,
    cancelled: bool,
}

struct CountdownSubscription {
    state: Mutex<State>,
    /// How many times the loop was asked to run; the caller that raises it
    /// from zero runs the loop (one emitter at a time: §1.3).
    work: AtomicUsize,
}

enum Step {
    Next(u64),
    Complete,
    Fail(StreamError),
    Pause,
}

impl CountdownSubscription {
    fn lock(&self) -> MutexGuard<'_, State> {
        self.state
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    fn schedule(&self) {
        if self.work.fetch_add(1, Ordering::AcqRel) == 0 {
            self.emit_loop();
        }
    }

    /// Runs while there is work; only the owner of `work` calls it.
    fn emit_loop(&self) {
        let mut claimed = 1;
        loop {
            self.emit_available();
            claimed = self.work.fetch_sub(claimed, Ordering::AcqRel) - claimed;
            if claimed == 0 {
                return;
            }
        }
    }

    fn emit_available(&self) {
        let Some(mut subscriber) = self.lock().subscriber.take() else {
            return;
        };
        loop {
            let step = {
                let mut state = self.lock();
                if state.cancelled {
                    return; // drops the subscriber (§3.13)
                }
                if state.illegal_request {
                    state.cancelled = true;
                    Step::Fail(StreamError::illegal_demand(0))
                } else if state.remaining == 0 {
                    state.cancelled = true;
                    Step::Complete
                } else if state.demand == 0 {
                    Step::Pause
                } else {
                    state.demand = demand::fulfil(state.demand, 1);
                    state.remaining -= 1;
                    Step::Next(state.remaining + 1)
                }
            };
            match step {
                Step::Next(value) => subscriber.on_next(value),
                Step::Complete => return subscriber.on_complete(),
                Step::Fail(error) => return subscriber.on_error(error),
                Step::Pause => break,
            }
        }
        let mut state = self.lock();
        if !state.cancelled {
            state.subscriber = Some(subscriber);
        }
    }
}

impl Subscription for CountdownSubscription {
    fn request(&self, n: u64) {
        {
            let mut state = self.lock();
            if state.cancelled {
                return;
            }
            if n == 0 {
                state.illegal_request = true;
            } else {
                state.demand = demand::add(state.demand, n);
            }
        }
        self.schedule();
    }

    fn cancel(&self) {
        let subscriber = {
            let mut state = self.lock();
            state.cancelled = true;
            state.subscriber.take()
        };
        drop(subscriber);
    }
}
