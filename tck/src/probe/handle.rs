//! The publisher's end of a probe: records and checks every signal.

use std::fmt::Debug;
use std::sync::Arc;

use reactive_streams::{StreamError, Subscriber, Subscription};

use super::state::{Entered, State};
use super::{Shared, Signal};

/// What the probe does inside a signal, after releasing its lock (calls
/// into the publisher must never hold it: the publisher may call back).
enum Reaction {
    None,
    Request(Vec<u64>),
    Cancel,
    CancelExtra(Arc<dyn Subscription>),
    /// Unwind the publisher: it kept signalling after cancel.
    Stop,
}

pub(crate) struct ProbeSubscriber<T> {
    shared: Arc<Shared<T>>,
}

impl<T: Debug + Send + 'static> ProbeSubscriber<T> {
    pub(crate) fn new(shared: Arc<Shared<T>>) -> Self {
        ProbeSubscriber { shared }
    }

    /// Records one signal under the lock, checks the invariants every signal
    /// shares, lets `on_signal` decide the reaction, then reacts unlocked.
    fn signal(
        &self,
        description: String,
        on_signal: impl FnOnce(&mut State<T>, &Shared<T>) -> Reaction,
    ) {
        let shared = &*self.shared;
        let cx = &shared.cx;
        let mut state = shared.state.lock();
        let entered = state.enter();
        let synchronous = state.is_synchronous();
        cx.trace(format!(
            "{}: {description}{}",
            shared.label,
            if synchronous { " [inside request]" } else { "" }
        ));
        if entered == Entered::Concurrent && state.first_report("1.3") {
            cx.record(cx.failure_of(
                "1.3",
                "signals to reach the subscriber one at a time",
                format!("{description} entered while another signal was still running on another thread"),
            ));
        }
        let is_subscribe = description == "on_subscribe";
        if !is_subscribe && state.subscribes == 0 && state.first_report("1.9-first") {
            cx.record(cx.failure_of(
                "1.9",
                "on_subscribe before any other signal",
                format!("{description} came first"),
            ));
        }
        if let Some(terminal) = state.terminal.clone() {
            if state.first_report("1.7") {
                cx.record(cx.failure_of(
                    "1.7",
                    format!("no signal after {terminal}"),
                    format!("{description} followed it"),
                ));
            }
        }
        let mut reaction = on_signal(&mut state, shared);
        if state.cancelled && !is_subscribe {
            state.after_cancel += 1;
            if state.behaviour.stop_runaway && state.after_cancel > super::RUNAWAY_LIMIT {
                if state.first_report("runaway") {
                    cx.record(cx.failure(
                        "signals to stop after cancel()",
                        format!(
                            "more than {} signals arrived after cancel(); the probe unwound the publisher",
                            super::RUNAWAY_LIMIT
                        ),
                    ));
                }
                reaction = Reaction::Stop;
            }
        }
        shared.changed.notify_all();
        drop(state);

        match reaction {
            Reaction::None => {}
            Reaction::Request(amounts) => {
                for n in amounts {
                    let Some(subscription) = self.live_subscription(n) else {
                        break;
                    };
                    let from = if is_subscribe {
                        "on_subscribe"
                    } else {
                        "on_next"
                    };
                    let what = format!("{}: request({n}) from {from}", shared.label);
                    if let Err(failure) = cx.try_step("3.16", what, || subscription.request(n)) {
                        cx.record(failure);
                    }
                }
            }
            Reaction::Cancel => {
                let subscription = shared.state.lock().subscription.clone();
                if let Some(subscription) = subscription {
                    let what = format!("{}: cancel() from {description}", shared.label);
                    if let Err(failure) = cx.try_step("3.15", what, || subscription.cancel()) {
                        cx.record(failure);
                    }
                }
            }
            Reaction::CancelExtra(extra) => {
                let what = format!("{}: cancel() of the extra subscription", shared.label);
                let _ = cx.try_step("3.15", what, || extra.cancel());
            }
            Reaction::Stop => {
                shared.state.lock().exit(entered);
                std::panic::panic_any(super::RUNAWAY_STOP);
            }
        }
        shared.state.lock().exit(entered);
    }

    /// Notes demand `n` and returns the subscription, unless the probe has
    /// cancelled or terminated meanwhile.
    fn live_subscription(&self, n: u64) -> Option<Arc<dyn Subscription>> {
        let mut state = self.shared.state.lock();
        if state.cancelled || state.terminal.is_some() {
            return None;
        }
        state.note_request(n);
        state.subscription.clone()
    }
}

impl<T: Debug + Send + 'static> Subscriber<T> for ProbeSubscriber<T> {
    fn on_subscribe(&mut self, subscription: Arc<dyn Subscription>) {
        self.signal(String::from("on_subscribe"), |state, shared| {
            state.subscribes += 1;
            if state.subscribes > 1 {
                if state.first_report("1.9-once") {
                    shared.cx.record(shared.cx.failure_of(
                        "1.9",
                        "on_subscribe at most once (§2.12)",
                        "a second on_subscribe",
                    ));
                }
                return Reaction::CancelExtra(subscription);
            }
            state.subscription = Some(subscription);
            if state.behaviour.request_on_subscribe.is_empty() {
                Reaction::None
            } else {
                Reaction::Request(state.behaviour.request_on_subscribe.clone())
            }
        });
    }

    fn on_next(&mut self, element: T) {
        let description = format!("on_next({element:?})");
        self.signal(description.clone(), move |state, shared| {
            let cx = &shared.cx;
            state.nexts += 1;
            if state.is_synchronous() {
                state.sync_nexts += 1;
            }
            if state.nexts > state.requested && state.first_report("1.1") {
                cx.record(cx.failure_of(
                    "1.1",
                    format!(
                        "at most {} on_next (the total requested so far)",
                        state.requested
                    ),
                    format!("{description} was on_next number {}", state.nexts),
                ));
            }
            state.push(Signal::Next(element));
            if state.cancelled || state.terminal.is_some() {
                return Reaction::None;
            }
            if state.behaviour.cancel_after == Some(state.nexts) {
                state.note_cancel();
                return Reaction::Cancel;
            }
            let n = state.behaviour.request_on_next;
            if n == 0 {
                return Reaction::None;
            }
            // The depth this on_next runs at; a request from here that
            // delivers synchronously nests one deeper.
            let depth = state.depth();
            if depth > state.behaviour.depth_bound {
                if state.first_report("3.3") {
                    cx.record(cx.failure_of(
                        "3.3",
                        format!(
                            "synchronous recursion on_next → request → on_next at most {} deep (the declared bound)",
                            state.behaviour.depth_bound
                        ),
                        format!("{description} ran {depth} deep; the probe stopped requesting"),
                    ));
                }
                return Reaction::None;
            }
            Reaction::Request(vec![n])
        });
    }

    fn on_error(&mut self, error: StreamError) {
        let description = format!("on_error({error})");
        self.signal(description.clone(), move |state, _| {
            if state.is_synchronous() {
                state.sync_terminals += 1;
            }
            if state.terminal.is_none() {
                state.terminal = Some(description);
            }
            state.push(Signal::Error(error));
            Reaction::None
        });
    }

    fn on_complete(&mut self) {
        self.signal(String::from("on_complete"), |state, _| {
            if state.is_synchronous() {
                state.sync_terminals += 1;
            }
            if state.terminal.is_none() {
                state.terminal = Some(String::from("on_complete"));
            }
            state.push(Signal::Complete);
            Reaction::None
        });
    }
}

impl<T> Drop for ProbeSubscriber<T> {
    fn drop(&mut self) {
        let shared = &*self.shared;
        shared
            .cx
            .trace(format!("{}: subscriber dropped", shared.label));
        shared.state.lock().dropped = true;
        shared.changed.notify_all();
    }
}
