//! Conforming publishers the TCK verifies itself against (its self-tests
//! and benchmark use them). Not part of the supported API.
//!
//! * [`SyncRange`]: emits on the thread that calls `request`, with a
//!   trampolining drain loop (a `request` from inside `on_next` only adds
//!   demand; the loop already running picks it up), so recursion depth is 1.
//! * [`AsyncRange`]: one worker thread per subscription, fed by a channel.
//!
//! * [`Failing`]: a failed publisher (`on_subscribe`, then `on_error`).
//! * [`SyncRanges`], [`AsyncRanges`]: factories of the ranges from 0, with
//!   a [`Failing`] publisher.
//! * [`Trampoline`]: the serial drain loop the synchronous test publishers
//!   and sources share, here and in the self-test corpora.
//!
//! The ranges publish `count` consecutive `u64` from `start`; `count == u64::MAX`
//! means infinite.

use std::sync::Arc;

use parking_lot::Mutex;
use reactive_streams::{Publisher, StreamError, Subscriber, Subscription, demand};

use crate::publisher::PublisherFactory;

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
        let subscription = Arc::new(SyncSubscription(Trampoline::new(SyncState {
            range: RangeState::new(self.start, self.count),
            demand: 0,
        })));
        subscriber.on_subscribe(subscription.clone());
        subscription.0.attach(subscriber);
        subscription.drain();
    }
}

struct SyncSubscription(Trampoline<SyncState, Box<dyn Subscriber<u64>>>);

struct SyncState {
    range: RangeState,
    demand: u64,
}

impl SyncSubscription {
    fn drain(&self) {
        self.0.drain(
            |state| {
                if let Some(end) = state.range.ending() {
                    return end;
                }
                if state.demand == 0 {
                    return Turn::Wait;
                }
                state.demand = demand::fulfil(state.demand, 1);
                Turn::Signal(Signal::Next(state.range.take_next()))
            },
            Signal::deliver,
        );
    }
}

impl Subscription for SyncSubscription {
    fn request(&self, n: u64) {
        {
            let mut state = self.0.state();
            if !state.range.takes(n) {
                return;
            }
            if n > 0 {
                state.demand = demand::add(state.demand, n);
            }
        }
        self.drain();
    }

    fn cancel(&self) {
        self.0.release(|state| {
            state.range.cancelled = true;
            true
        });
    }
}

/// Where a synchronous range subscription stands, and how it ends: what
/// [`SyncRange`] shares with the self-tests' (deliberately flawed) ranges.
/// The demand is the range's own business.
#[derive(Debug, Clone)]
pub struct RangeState {
    /// The next element.
    pub next: u64,
    /// One past the last element (`None`: infinite).
    pub end: Option<u64>,
    /// Cancelled by the subscriber.
    pub cancelled: bool,
    /// Terminated (`on_error` or `on_complete` decided).
    pub done: bool,
    /// The `n` of the first illegal `request(n)` (§3.9).
    pub illegal: Option<u64>,
}

impl RangeState {
    /// `count` elements from `start` (`u64::MAX`: infinite).
    pub fn new(start: u64, count: u64) -> Self {
        RangeState {
            next: start,
            end: (count != u64::MAX).then(|| start.saturating_add(count)),
            cancelled: false,
            done: false,
            illegal: None,
        }
    }

    /// Whether `request(n)` still counts (neither cancelled nor
    /// terminated); records `n == 0` as illegal. The caller adds an `n ≥ 1`
    /// to its demand.
    pub fn takes(&mut self, n: u64) -> bool {
        if self.cancelled || self.done {
            return false;
        }
        if n == 0 {
            self.illegal.get_or_insert(n);
        }
        true
    }

    /// The turn that ends the subscription, if it is over: let go of the
    /// subscriber once cancelled or terminated, else `on_error` after an
    /// illegal request (§3.9) or `on_complete` after the last element.
    pub fn ending<T>(&mut self) -> Option<Turn<Signal<T>>> {
        if self.cancelled || self.done {
            return Some(Turn::Release);
        }
        if let Some(n) = self.illegal {
            self.done = true;
            return Some(Turn::Last(Signal::Error(StreamError::illegal_demand(n))));
        }
        if self.end == Some(self.next) {
            self.done = true;
            return Some(Turn::Last(Signal::Complete));
        }
        None
    }

    /// The next element, counted as emitted.
    pub fn take_next(&mut self) -> u64 {
        self.next += 1;
        self.next - 1
    }
}

/// One signal to a subscriber, decided under a lock and delivered outside
/// it (see [`Trampoline`]).
#[derive(Debug)]
pub enum Signal<T> {
    /// `on_next(element)`.
    Next(T),
    /// `on_error(error)`.
    Error(StreamError),
    /// `on_complete()`.
    Complete,
}

impl<T> Signal<T> {
    /// Sends this signal to `subscriber`.
    pub fn deliver(subscriber: &mut Box<dyn Subscriber<T>>, signal: Self) {
        match signal {
            Signal::Next(element) => subscriber.on_next(element),
            Signal::Error(error) => subscriber.on_error(error),
            Signal::Complete => subscriber.on_complete(),
        }
    }
}

/// What one turn of a [`Trampoline`]'s drain loop does, decided under its
/// lock.
#[derive(Debug)]
pub enum Turn<W> {
    /// Deliver `W` outside the lock, keep the target, take another turn.
    Signal(W),
    /// Deliver `W` outside the lock, then let go of the target (a terminal
    /// signal).
    Last(W),
    /// Nothing to deliver now: keep the target and leave the loop (unless
    /// work arrived meanwhile).
    Wait,
    /// Let go of the target (dropped outside the lock) and leave the loop.
    Release,
}

/// The serial drain loop of the synchronous test publishers and sources:
/// the work a signal target (a subscriber or a sink) is owed is decided
/// under a lock, delivered outside it, and only one thread delivers at a
/// time. A call from another thread, or from inside a signal
/// (trampolining: recursion depth 1), only records its work in the state
/// and leaves it to the thread already draining.
///
/// The state starts out draining, without a target: calls made while the
/// target is being greeted (`on_subscribe`, `greet`) are left for the
/// drain that follows [`attach`](Self::attach).
///
/// Each deliberately broken implementation keeps its fault in its own
/// `step` (what the next turn is) and `deliver` (how it is signalled);
/// the loop itself is one and conforming.
pub struct Trampoline<S, T> {
    held: Mutex<Held<S, T>>,
}

struct Held<S, T> {
    state: S,
    target: Option<T>,
    draining: bool,
    /// A drain was asked for while another ran: take another turn.
    again: bool,
}

impl<S, T> Trampoline<S, T> {
    /// A loop over `state`, draining until [`attach`](Self::attach).
    pub fn new(state: S) -> Self {
        Trampoline {
            held: Mutex::new(Held {
                state,
                target: None,
                draining: true,
                again: false,
            }),
        }
    }

    /// The state, locked.
    pub fn state(&self) -> parking_lot::MappedMutexGuard<'_, S> {
        parking_lot::MutexGuard::map(self.held.lock(), |held| &mut held.state)
    }

    /// Hands over the greeted target and ends the greeting's drain; call
    /// [`drain`](Self::drain) next to deliver what it left.
    pub fn attach(&self, target: T) {
        let mut held = self.held.lock();
        held.target = Some(target);
        held.draining = false;
    }

    /// Takes turns until `step` says [`Turn::Wait`] or the target is gone,
    /// unless another thread is draining (it takes the turns then).
    pub fn drain<W>(
        &self,
        mut step: impl FnMut(&mut S) -> Turn<W>,
        mut deliver: impl FnMut(&mut T, W),
    ) {
        let mut held = self.held.lock();
        if held.draining {
            held.again = true;
            return;
        }
        held.draining = true;
        loop {
            held.again = false;
            let Some(mut target) = held.target.take() else {
                held.draining = false;
                return;
            };
            match step(&mut held.state) {
                Turn::Signal(work) => {
                    drop(held);
                    deliver(&mut target, work);
                    held = self.held.lock();
                    held.target = Some(target);
                }
                Turn::Last(work) => {
                    held.draining = false;
                    drop(held);
                    deliver(&mut target, work);
                    return;
                }
                Turn::Wait => {
                    held.target = Some(target);
                    if !held.again {
                        held.draining = false;
                        return;
                    }
                }
                Turn::Release => {
                    held.draining = false;
                    drop(held);
                    drop(target);
                    return;
                }
            }
        }
    }

    /// Updates the state (a cancel or stop) and, if `let_go` returns true
    /// and no drain is running (a running one owns the target and lets go
    /// of it itself), drops the target outside the lock.
    pub fn release(&self, let_go: impl FnOnce(&mut S) -> bool) {
        let target = {
            let mut held = self.held.lock();
            if let_go(&mut held.state) && !held.draining {
                held.target.take()
            } else {
                None
            }
        };
        drop(target);
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
                    // Every command waiting is taken before the next
                    // signal, so a cancel made inside the last on_next is
                    // seen before anything follows it (§1.8). Block only
                    // when there is nothing to emit.
                    let blocking = if pending == 0 && end != Some(next) {
                        match inbox.recv() {
                            Ok(command) => Some(command),
                            Err(_) => return,
                        }
                    } else {
                        None
                    };
                    for command in blocking.into_iter().chain(inbox.try_iter()) {
                        match command {
                            Command::Cancel => return,
                            Command::Request(0) => {
                                subscriber.on_error(StreamError::illegal_demand(0));
                                return;
                            }
                            Command::Request(n) => pending = demand::add(pending, n),
                        }
                    }
                    if end == Some(next) {
                        subscriber.on_complete();
                        return;
                    }
                    if pending > 0 {
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

/// Makes [`SyncRange`]s of `0..elements`, and [`Failing`] publishers: the
/// conforming publisher factory the self-tests and benchmarks verify.
#[derive(Debug, Clone, Copy, Default)]
pub struct SyncRanges;

impl PublisherFactory for SyncRanges {
    type Element = u64;
    fn create_publisher(&self, elements: u64) -> Box<dyn Publisher<u64>> {
        Box::new(SyncRange::new(0, elements))
    }
    fn element_index(&self, element: &u64) -> Option<u64> {
        Some(*element)
    }
    fn create_failed_publisher(&self) -> Option<Box<dyn Publisher<u64>>> {
        Some(Box::new(Failing::new("failed on purpose")))
    }
}

/// [`SyncRanges`], asynchronous: [`AsyncRange`]s of `0..elements`.
#[derive(Debug, Clone, Copy, Default)]
pub struct AsyncRanges;

impl PublisherFactory for AsyncRanges {
    type Element = u64;
    /// The same failed publisher as [`SyncRanges`]'.
    fn create_failed_publisher(&self) -> Option<Box<dyn Publisher<u64>>> {
        SyncRanges.create_failed_publisher()
    }
    fn create_publisher(&self, elements: u64) -> Box<dyn Publisher<u64>> {
        Box::new(AsyncRange::new(0, elements))
    }
    fn element_index(&self, element: &u64) -> Option<u64> {
        Some(*element)
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
