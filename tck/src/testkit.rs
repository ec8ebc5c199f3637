//! Conforming publishers the TCK verifies itself against (its self-tests
//! and benchmark use them). Not part of the supported API.
//!
//! * [`SyncRange`]: emits on the thread that calls `request`, with a
//!   trampolining drain loop (a `request` from inside `on_next` only adds
//!   demand; the loop already running picks it up), so recursion depth is 1.
//! * [`AsyncRange`]: one worker thread per subscription, fed by a channel.
//!
//! * [`Failing`]: a failed publisher (`on_subscribe`, then `on_error`).
//!
//! The ranges publish `count` consecutive `u64` from `start`; `count == u64::MAX`
//! means infinite.

use std::sync::Arc;

use parking_lot::Mutex;
use reactive_streams::{demand, Publisher, StreamError, Subscriber, Subscription};

/// A synchronous range publisher. See the [module](self) docs.
#[derive(Debug, Clone, Copy)]
pub struct SyncRange {
    start: u64,
    count: u64,
}

impl SyncRange {
    /// `count` elements from `start` (`u64::MAX`: infinite).
    pub fn new(start: u64, count: u64) -> Self {
        SyncRange { start, count }
    }
}

impl Publisher<u64> for SyncRange {
    fn subscribe(&self, mut subscriber: Box<dyn Subscriber<u64>>) {
        let subscription = Arc::new(SyncSubscription {
            state: Mutex::new(SyncState {
                subscriber: None,
                next: self.start,
                end: (self.count != u64::MAX).then(|| self.start.saturating_add(self.count)),
                demand: 0,
                draining: true,
                cancelled: false,
                done: false,
                illegal: None,
            }),
        });
        // `draining` is held during on_subscribe: a request from inside it
        // only adds demand, which the drain below delivers.
        subscriber.on_subscribe(subscription.clone());
        let mut state = subscription.state.lock();
        state.subscriber = Some(subscriber);
        state.draining = false;
        drop(state);
        subscription.drain();
    }
}

struct SyncSubscription {
    state: Mutex<SyncState>,
}

struct SyncState {
    subscriber: Option<Box<dyn Subscriber<u64>>>,
    next: u64,
    end: Option<u64>,
    demand: u64,
    draining: bool,
    cancelled: bool,
    done: bool,
    illegal: Option<u64>,
}

impl SyncSubscription {
    /// Delivers what the demand allows; only one thread drains at a time,
    /// the others leave their demand for it.
    fn drain(&self) {
        let mut state = self.state.lock();
        if state.draining {
            return;
        }
        state.draining = true;
        loop {
            if state.cancelled || state.done {
                let subscriber = state.subscriber.take();
                state.draining = false;
                drop(state);
                drop(subscriber);
                return;
            }
            let Some(mut subscriber) = state.subscriber.take() else {
                state.draining = false;
                return;
            };
            if let Some(n) = state.illegal {
                state.done = true;
                state.draining = false;
                drop(state);
                subscriber.on_error(StreamError::illegal_demand(n));
                return;
            }
            if state.end == Some(state.next) {
                state.done = true;
                state.draining = false;
                drop(state);
                subscriber.on_complete();
                return;
            }
            if state.demand == 0 {
                state.subscriber = Some(subscriber);
                state.draining = false;
                return;
            }
            state.demand = demand::fulfil(state.demand, 1);
            let element = state.next;
            state.next += 1;
            drop(state);
            subscriber.on_next(element);
            state = self.state.lock();
            state.subscriber = Some(subscriber);
        }
    }
}

impl Subscription for SyncSubscription {
    fn request(&self, n: u64) {
        {
            let mut state = self.state.lock();
            if state.cancelled || state.done {
                return;
            }
            if n == 0 {
                state.illegal.get_or_insert(n);
            } else {
                state.demand = demand::add(state.demand, n);
            }
        }
        self.drain();
    }

    fn cancel(&self) {
        let subscriber = {
            let mut state = self.state.lock();
            state.cancelled = true;
            // While a drain runs it owns the subscriber and drops it.
            if state.draining {
                None
            } else {
                state.subscriber.take()
            }
        };
        drop(subscriber);
    }
}

/// An asynchronous range publisher. See the [module](self) docs.
#[derive(Debug, Clone, Copy)]
pub struct AsyncRange {
    start: u64,
    count: u64,
}

impl AsyncRange {
    /// `count` elements from `start` (`u64::MAX`: infinite).
    pub fn new(start: u64, count: u64) -> Self {
        AsyncRange { start, count }
    }
}

enum Command {
    Request(u64),
    Cancel,
}

struct AsyncSubscription {
    commands: crossbeam_channel::Sender<Command>,
}

impl Subscription for AsyncSubscription {
    fn request(&self, n: u64) {
        let _ = self.commands.send(Command::Request(n));
    }

    fn cancel(&self) {
        let _ = self.commands.send(Command::Cancel);
    }
}

impl Publisher<u64> for AsyncRange {
    fn subscribe(&self, mut subscriber: Box<dyn Subscriber<u64>>) {
        let (commands, inbox) = crossbeam_channel::unbounded();
        let subscription: Arc<dyn Subscription> = Arc::new(AsyncSubscription { commands });
        let mut next = self.start;
        let end = (self.count != u64::MAX).then(|| self.start.saturating_add(self.count));
        let spawned = std::thread::Builder::new()
            .name(String::from("async-range"))
            .spawn(move || {
                subscriber.on_subscribe(subscription);
                let mut pending = 0u64;
                loop {
                    if end == Some(next) {
                        subscriber.on_complete();
                        return;
                    }
                    // Block only when there is nothing to emit.
                    let command = if pending == 0 {
                        match inbox.recv() {
                            Ok(command) => Some(command),
                            Err(_) => return,
                        }
                    } else {
                        inbox.try_recv().ok()
                    };
                    match command {
                        Some(Command::Cancel) => return,
                        Some(Command::Request(0)) => {
                            subscriber.on_error(StreamError::illegal_demand(0));
                            return;
                        }
                        Some(Command::Request(n)) => pending = demand::add(pending, n),
                        None => {}
                    }
                    if pending > 0 && end != Some(next) {
                        pending = demand::fulfil(pending, 1);
                        subscriber.on_next(next);
                        next += 1;
                    }
                }
            });
        // Out of threads: there is no subscriber left to tell (it moved
        // into the closure that failed to start), which is the one case a
        // real publisher would have to handle differently.
        drop(spawned);
    }
}

/// A failed publisher: `on_subscribe` with a subscription that does
/// nothing, then `on_error` at once, then it lets go of the subscriber.
#[derive(Debug, Clone)]
pub struct Failing {
    message: String,
}

impl Failing {
    /// Fails with `message`.
    pub fn new(message: impl Into<String>) -> Self {
        Failing {
            message: message.into(),
        }
    }
}

struct Inert;

impl Subscription for Inert {
    fn request(&self, _: u64) {}
    fn cancel(&self) {}
}

impl<T> Publisher<T> for Failing {
    fn subscribe(&self, mut subscriber: Box<dyn Subscriber<T>>) {
        subscriber.on_subscribe(Arc::new(Inert));
        subscriber.on_error(StreamError::msg(self.message.clone()));
    }
}

/// Every rule a run shows broken, one line each in spec order: the rule
/// and `failed` or `warned`. What the self-tests snapshot for each broken
/// implementation, so that a fault reported under the wrong rule shows up
/// as a changed line. (Which tests saw it is left out: on a loaded machine
/// a racy fault may show in one test more or less.)
pub fn broken_rules(results: &[crate::outcome::RuleResult]) -> String {
    use std::collections::BTreeMap;
    let mut seen: BTreeMap<String, bool> = BTreeMap::new();
    for result in results {
        if matches!(
            result.verdict,
            crate::outcome::Verdict::Failed | crate::outcome::Verdict::Warned
        ) {
            *seen.entry(result.rule.clone()).or_default() |=
                result.verdict == crate::outcome::Verdict::Failed;
        }
        for violation in &result.violations {
            *seen.entry(violation.rule.clone()).or_default() |= !violation.warning;
        }
        // Captured by the test harness and shown only when the snapshot
        // does not match: which test saw which rule broken, and how.
        if let Some(message) = &result.message {
            println!("{} {:?}: {message}", result.test, result.verdict);
        }
        for violation in &result.violations {
            println!("{} saw {}", result.test, violation.message);
        }
    }
    let mut lines: Vec<(String, String)> = seen
        .into_iter()
        .map(|(rule, fails)| {
            let level = if fails { "failed" } else { "warned" };
            let line = format!("{}: {level}", crate::context::rule_label(&rule));
            (rule, line)
        })
        .collect();
    lines.sort_by_key(|line| rule_order(&line.0));
    lines.into_iter().map(|(_, line)| line + "\n").collect()
}

/// Spec order for rule ids: numbers compared as numbers.
fn rule_order(id: &str) -> Vec<(String, u64)> {
    id.split('.')
        .map(|part| match part.parse::<u64>() {
            Ok(n) => (String::new(), n),
            Err(_) => (part.to_owned(), 0),
        })
        .collect()
}

/// Whether any result breaks a rule at all (failed, warned, or saw
/// another rule broken): what a conforming implementation must never do.
pub fn anything_broken(results: &[crate::outcome::RuleResult]) -> Vec<String> {
    results
        .iter()
        .filter(|r| !r.broken_rules().is_empty())
        .map(crate::runner::failure_text)
        .collect()
}
