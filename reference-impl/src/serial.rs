//! Serial calls on an upstream subscription that several parties drive.

use std::sync::Arc;

use parking_lot::Mutex;
use reactive_streams::{Subscription, demand};

/// Calls `request`/`cancel` one at a time (§2.7) and never under a lock,
/// even when asked from several threads or re-entrantly from inside the
/// signals the calls provoke: whoever finds no call in progress makes the
/// calls, the others leave their wish for it. Wishes made before the
/// subscription arrives are replayed when it does.
pub(crate) struct SerialUpstream {
    state: Mutex<State>,
}

struct State {
    subscription: Option<Arc<dyn Subscription>>,
    pending: u64,
    cancel: bool,
    cancelled: bool,
    busy: bool,
}

impl SerialUpstream {
    pub(crate) fn new() -> Self {
        SerialUpstream {
            state: Mutex::new(State {
                subscription: None,
                pending: 0,
                cancel: false,
                cancelled: false,
                busy: false,
            }),
        }
    }

    /// Sets the subscription; `false` (and it is cancelled) if one was set.
    pub(crate) fn set(&self, subscription: Arc<dyn Subscription>) -> bool {
        {
            let mut state = self.state.lock();
            if state.subscription.is_some() || state.cancelled {
                drop(state);
                subscription.cancel();
                return false;
            }
            state.subscription = Some(subscription);
        }
        self.flush();
        true
    }

    pub(crate) fn request(&self, n: u64) {
        {
            let mut state = self.state.lock();
            state.pending = demand::add(state.pending, n);
        }
        self.flush();
    }

    pub(crate) fn cancel(&self) {
        self.state.lock().cancel = true;
        self.flush();
    }

    /// Forgets the subscription after a terminal signal.
    pub(crate) fn clear(&self) {
        let mut state = self.state.lock();
        state.cancelled = true;
        state.subscription = None;
    }

    fn flush(&self) {
        let mut state = self.state.lock();
        if state.busy {
            return;
        }
        state.busy = true;
        loop {
            let Some(subscription) = state.subscription.clone() else {
                if state.cancel {
                    state.cancelled = true;
                }
                break;
            };
            if std::mem::take(&mut state.cancel) {
                state.subscription = None;
                state.cancelled = true;
                drop(state);
                subscription.cancel();
                state = self.state.lock();
                break;
            }
            let n = std::mem::take(&mut state.pending);
            if n == 0 {
                break;
            }
            drop(state);
            subscription.request(n);
            state = self.state.lock();
        }
        state.busy = false;
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Mutex;

    use super::*;

    #[derive(Default)]
    struct Log(Mutex<Vec<String>>);

    impl Subscription for Log {
        fn request(&self, n: u64) {
            self.0.lock().unwrap().push(format!("request({n})"));
        }
        fn cancel(&self) {
            self.0.lock().unwrap().push("cancel".into());
        }
    }

    #[test]
    fn replays_demand_once_the_subscription_arrives_then_cancels_once() {
        let upstream = SerialUpstream::new();
        upstream.request(2);
        upstream.request(3);
        let log = Arc::new(Log::default());
        assert!(upstream.set(log.clone()));
        upstream.cancel();
        upstream.request(1);
        upstream.cancel();
        assert_eq!(*log.0.lock().unwrap(), vec!["request(5)", "cancel"]);

        let late = Arc::new(Log::default());
        assert!(
            !upstream.set(late.clone()),
            "a second subscription is refused"
        );
        assert_eq!(*late.0.lock().unwrap(), vec!["cancel"]);
    }
}
