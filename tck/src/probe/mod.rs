//! Probes: recording subscribers that check the publisher's side of the
//! contract online and let a rule test wait for signals with deadlines.
//!
//! A [`Probe`] is the test's end; the `Box<dyn Subscriber<T>>` it hands to
//! the publisher ([`Probe::subscriber`], or [`Probe::subscribe_to`]) is the
//! publisher's end. Every signal is recorded in the rule's trace (kind,
//! element, thread, time) and checked as it arrives:
//!
//! | invariant | rule |
//! |---|---|
//! | `on_subscribe` comes first, and at most once | §1.9 |
//! | never more `on_next` than requested in total | §1.1 |
//! | nothing after `on_complete` / `on_error` | §1.7 |
//! | no signal enters while another is still running on another thread | §1.3 |
//! | `on_next` nested inside `request` from `on_next` no deeper than the declared bound | §3.3 |
//! | `request` and `cancel` called by the probe return normally | §3.16, §3.15 |
//! | after a cancel (from the test's thread with [`Probe::bound_signals_after_cancel`], or made inside a signal on the delivering thread: `cancel_after`), no signal beginning later than the bound after `cancel()` returned and the signal in flight finished; a batch within demand or a terminal signal before that is "eventually" | §1.8 |
//! | where the rule declared the factory's `element_index`: each element at most once and in order | `tck.create_n_gives_exactly_n` |
//!
//! The probe obeys the contract it checks: its calls on the subscription
//! are serial (§2.7). Threads of a test that request at once (§1.3, §3.8,
//! the stress tests), a request from inside `on_next` and the cancel of a
//! dropped probe take turns on one lock: each call starts after the one
//! before has returned, a happens-before edge, never overlapping. A call
//! from inside a signal that itself runs inside the probe's `request` on
//! the same thread is a nested call (§3.3), not an overlap, and goes
//! through. A call the probe decides inside a signal (a request from
//! `on_subscribe` or `on_next`; a cancel: `cancel_after`, an element beyond
//! `created_for`, §3.3, a flood) never waits there for its turn: if a call
//! of the probe's is still running on another thread, the thread that
//! frees the turn makes it. Signals count as "after cancel"
//! from when `cancel()` is entered, never while the probe itself held it
//! back; a wait for the turn behind a slow call is waited out, and waits
//! that follow it start when it returned.
//!
//! A violation is recorded in the [rule context](crate::context::RuleCx)
//! and fails the rule, whichever thread saw it.
//!
//! An `on_next` beyond demand is recorded (§1.1) and then set aside: the
//! test's expectations never see it and [`Probe::received`] does not count
//! it, so a test's own check (silence after `cancel`, the terminal signal
//! it waits for) judges only what the publisher sent within demand, and the
//! excess is filed under §1.1 alone whenever it happens to land. A check
//! that then misses a signal is filed under §1.1 too ("not concluded").
//! The exception: an excess delivered inside a request the probe made after
//! `cancel()` returned is that request's effect, shown to the checks of
//! requests after cancel (§3.6, §3.12). A panic in the subscription's
//! `Drop` when the probe lets go of it is §3.15 (see [`Probe`]'s drop).
//!
//! In safe Rust a publisher cannot enter one subscriber twice at once or
//! recursively (the signal methods take `&mut self`), so the §1.3 and §3.3
//! checks only fire on `unsafe` code; they are cheap, and the §3.3 bound
//! stops re-requesting *before* the stack overflows, so such a publisher is
//! reported instead of aborting the test run.
//!
//! Whether the publisher has dropped the subscriber (§3.13) is known
//! exactly: the handle's `Drop` flips a flag and wakes waiters, so
//! [`Probe::wait_dropped`] waits on a condition with a deadline.
//!
//! ```
//! use std::sync::Arc;
//! use reactive_streams_tck::context::RuleCx;
//! use reactive_streams_tck::env::TestEnv;
//! use reactive_streams_tck::probe::Probe;
//! use reactive_streams_tck::testkit::SyncRange;
//!
//! let cx = RuleCx::new("1.5", "doc", TestEnv::default());
//! let probe = Probe::<u64>::new(&cx, "probe");
//! probe.subscribe_to(&SyncRange::new(0, 2))?;
//! probe.request(5)?;
//! assert_eq!(probe.expect_next()?, 0);
//! assert_eq!(probe.expect_next()?, 1);
//! probe.expect_complete()?;
//! probe.wait_dropped()?;
//! assert!(!cx.has_failed());
//! # Ok::<(), reactive_streams_tck::context::Failure>(())
//! ```

mod expect;
mod handle;
pub(crate) mod identity;
mod stack;
mod state;
mod words;

pub(crate) use identity::EXACTLY_ONCE;
pub(crate) use identity::Identity;
pub use stack::STACK_DEPTH_FLOOR;
pub(crate) use words::{Rendered, numbered};
pub use words::{show_element, show_next};

use std::fmt::Debug;
use std::sync::Arc;
use std::time::{Duration, Instant};

use parking_lot::{Condvar, Mutex, ReentrantMutex};
use reactive_streams::{Publisher, StreamError, Subscriber, Subscription, demand};

use crate::context::{Failure, RuleCx};
use state::State;

/// A signal as the probe received it.
#[derive(Debug, Clone)]
pub enum Signal<T> {
    /// `on_next(element)`.
    Next(T),
    /// `on_error(error)`.
    Error(StreamError),
    /// `on_complete()`.
    Complete,
}

impl<T: Debug> Signal<T> {
    /// `on_next(3)`, `on_error(<message>)` or `on_complete`.
    pub fn describe(&self) -> String {
        match self {
            Signal::Next(element) => format!("on_next({element:?})"),
            Signal::Error(error) => format!("on_error({error})"),
            Signal::Complete => String::from("on_complete"),
        }
    }
}

/// How a probe behaves on its own, inside the publisher's calls.
#[derive(Debug, Clone, Default)]
pub(crate) struct Behaviour {
    /// Requests issued from inside `on_subscribe`, in order.
    request_on_subscribe: Vec<u64>,
    /// A request issued from inside every `on_next` (0: none).
    request_on_next: u64,
    /// Requests issued once each, from inside the `on_next` numbered
    /// (from 1) as the first of the pair.
    request_on_nth: Vec<(u64, u64)>,
    /// Cancel from inside the `on_next` that brings the count to this.
    cancel_after: Option<u64>,
    /// The deepest synchronous `on_next` nesting accepted (§3.3).
    depth_bound: u32,
    /// Stop a publisher flooding after cancel (see [`Probe::stop_runaway`]).
    stop_runaway: bool,
    /// Measure recursion on the stack (see [`Probe::measure_recursion`]).
    measure_recursion: bool,
    /// The `n` the publisher was created for (see [`Probe::created_for`]).
    created_for: Option<u64>,
    /// See [`Probe::bound_signals_after_cancel`].
    bound_after_cancel: bool,
}

/// How long after `cancel()` returned (and the signal then in flight
/// finished) a signal may still begin: "eventually" in §1.8, held to the
/// larger of the no-signal window and the prompt bound (a worker preempted
/// between its look at `cancel` and its `on_next` may begin one signal
/// late; on a loaded machine that is easily longer than the short window).
pub(crate) fn after_cancel_bound(env: &crate::env::TestEnv) -> Duration {
    env.no_signal_timeout().max(env.prompt())
}

/// How many signals after `cancel` a probe with
/// [`Probe::stop_runaway`] accepts before it calls the publisher a runaway.
pub const RUNAWAY_LIMIT: u64 = 1024;

/// The panic payload a probe unwinds a runaway publisher with.
pub const RUNAWAY_STOP: &str = "rs-tck: unwinding a publisher that kept signalling after cancel()";

pub(crate) struct Shared<T> {
    cx: RuleCx,
    label: String,
    state: Mutex<State<T>>,
    changed: Condvar,
    /// Held during every call on the subscription (§2.7); reentrant for
    /// the nested calls of §3.3.
    calls: ReentrantMutex<()>,
    /// The scenario the test last used this probe in: a signal that
    /// arrives after the test moved on is reported as late, from it.
    scenario: Mutex<Option<String>>,
    /// Which element is which, if the rule declared it (`tck.create_n_gives_exactly_n`).
    identity: Option<identity::Identity<T>>,
}

impl<T> Shared<T> {
    /// A failure of `rule` seen by this probe, tagged with the probe's
    /// scenario (marked late when the test has moved on from it); the
    /// actual part names the probe unless it is the only one
    /// ([`DEFAULT_LABEL`]), so a test with several subscribers says which.
    pub(crate) fn failure_of(
        &self,
        rule: &str,
        expected: impl Into<String>,
        actual: impl Into<String>,
    ) -> Failure {
        let scenario = self.scenario.lock().clone();
        let actual = self.event(&actual.into());
        self.cx.failure_in(scenario, rule, expected, actual)
    }
}

/// The test's end of a recording subscriber. See the [module](self) docs.
///
/// Dropping a probe cancels a subscription it left open, after the rule has
/// concluded and on a detached thread, so a rule never leaves an infinite
/// publisher running and cleanup never fails a rule.
pub struct Probe<T: Debug + Send + 'static> {
    shared: Arc<Shared<T>>,
}

impl<T: Debug + Send + 'static> Probe<T> {
    /// A probe recording into `cx`, named `label` in the trace.
    pub fn new(cx: &RuleCx, label: &str) -> Self {
        Probe {
            shared: Arc::new(Shared {
                cx: cx.clone(),
                label: label.to_string(),
                state: Mutex::new(State::new(Behaviour {
                    depth_bound: 1,
                    ..Behaviour::default()
                })),
                changed: Condvar::new(),
                calls: ReentrantMutex::new(()),
                scenario: Mutex::new(cx.current_scenario()),
                identity: cx.identity::<T>(),
            }),
        }
    }

    /// Requests `n` from inside `on_subscribe` (call before subscribing;
    /// repeatable: the requests are issued in order).
    pub fn request_on_subscribe(self, n: u64) -> Self {
        self.shared
            .state
            .lock()
            .behaviour
            .request_on_subscribe
            .push(n);
        self
    }

    /// Requests `n` from inside every `on_next` (§3.2).
    pub fn request_on_next(self, n: u64) -> Self {
        self.shared.state.lock().behaviour.request_on_next = n;
        self
    }

    /// Requests `n` once, from inside the `k`-th `on_next` (counted from
    /// 1; repeatable, and alongside [`request_on_next`](Self::request_on_next)):
    /// a subscriber that refills only now and then, or that sends
    /// `request(0)` from inside a signal (§3.9).
    pub fn request_on_nth(self, k: u64, n: u64) -> Self {
        self.shared
            .state
            .lock()
            .behaviour
            .request_on_nth
            .push((k, n));
        self
    }

    /// Cancels from inside the `k`-th `on_next`. A cancel made there, on
    /// the delivering thread, holds what follows to the bound of
    /// [`bound_signals_after_cancel`](Self::bound_signals_after_cancel), as
    /// any other cancel: a batch within demand or a terminal signal right
    /// after that `on_next` is "eventually" (§1.8, §3.12). One that had to
    /// wait for a call of the probe's on another thread is made by that
    /// thread, later, and races what the publisher sends meanwhile.
    pub fn cancel_after(self, k: u64) -> Self {
        self.shared.state.lock().behaviour.cancel_after = Some(k);
        self
    }

    /// After `cancel`, accept at most [`RUNAWAY_LIMIT`] signals; past that,
    /// fail the rule ("signals to stop after cancel()") and panic inside
    /// `on_next` with [`RUNAWAY_STOP`], unwinding the publisher's loop: a
    /// synchronous publisher ignoring `cancel` under unbounded demand would
    /// otherwise never return.
    pub fn stop_runaway(self) -> Self {
        self.shared.state.lock().behaviour.stop_runaway = true;
        self
    }

    /// The deepest nesting of `on_next` inside `request` inside `on_next`
    /// accepted before §3.3 fails (default 1: no nesting).
    pub fn depth_bound(self, depth: u32) -> Self {
        self.shared.state.lock().behaviour.depth_bound = depth.max(1);
        self
    }

    /// The publisher under observation was made by `create_publisher(n)`:
    /// an `on_next` beyond the `n`-th while demand is still ahead fails
    /// `tck.create_n_gives_exactly_n`, naming the element, and the probe
    /// cancels at once instead of recording until the watchdog. Signals
    /// still flooding after that cancel are a §1.8 failure, and past
    /// [`RUNAWAY_LIMIT`] the probe unwinds the publisher (as
    /// [`Probe::stop_runaway`]), so no thread is left spinning. `u64::MAX`
    /// is an unbounded publisher: no element is beyond its `n`. Knowing `n`
    /// also tells what silence with demand outstanding breaks: an element
    /// owed (§3.8) or, once all `n` came, `on_complete` (§1.5).
    ///
    /// The probe also sees the stream from its start: where the factory
    /// declares `element_index`, element 0 is owed first
    /// (`tck.create_n_gives_exactly_n`).
    pub fn created_for(self, n: u64) -> Self {
        let mut state = self.shared.state.lock();
        state.order.from_start = true;
        state.behaviour.created_for = Some(n);
        drop(state);
        self
    }

    /// The probe is the first subscriber of a fresh publisher whose length
    /// it does not judge (the extended schedules' model does): where the
    /// factory declares `element_index`, element 0 is owed first
    /// (`tck.create_n_gives_exactly_n`), as after
    /// [`created_for`](Self::created_for).
    pub(crate) fn sees_start(self) -> Self {
        self.shared.state.lock().order.from_start = true;
        self
    }

    /// The probe subscribes to a publisher that may have signalled to
    /// others before (a subscription after another one was cancelled): a
    /// hot publisher's late subscriber misses earlier elements, so its
    /// first element may be any, and identity is checked from there on.
    pub fn joins_later(self) -> Self {
        self.shared.state.lock().order.from_start = false;
        self
    }

    /// Holds "eventually" in §1.8 to a bound: a signal that begins more
    /// than the larger of the no-signal window and the prompt bound after `cancel()` returned and the signal
    /// running at that moment (if any) finished fails §1.8 as it arrives,
    /// even if the publisher drops the subscriber right after (a lingering
    /// thread, a worker that checks for cancellation only now and then).
    /// Signals racing with the cancel, or a tick after it, are accepted.
    pub fn bound_signals_after_cancel(self) -> Self {
        self.shared.state.lock().behaviour.bound_after_cancel = true;
        self
    }

    /// Also measures the recursion depth on the stack (§3.3): every
    /// `on_next` running one frame deeper than one still running below it
    /// on the same thread counts one level, whether or not the probe was
    /// re-entered. Past `max(depth bound, STACK_DEPTH_FLOOR)` levels §3.3
    /// fails with the depth reached and the probe cancels, so a publisher
    /// recursing through its own drain is reported before the stack
    /// overflows.
    pub fn measure_recursion(self) -> Self {
        self.shared.state.lock().behaviour.measure_recursion = true;
        self
    }

    /// The deepest synchronous recursion measured on the stack so far (see
    /// [`Probe::measure_recursion`]; 0 if not measured).
    pub fn deepest_recursion(&self) -> u32 {
        self.shared.state.lock().stack.deepest()
    }

    /// The rule context this probe records into.
    pub fn cx(&self) -> &RuleCx {
        // Every use by the test goes through here: the probe belongs to
        // the scenario it was last used in.
        *self.shared.scenario.lock() = self.shared.cx.current_scenario();
        &self.shared.cx
    }

    /// The publisher's end. Only one per probe.
    ///
    /// # Panics
    ///
    /// If called twice: one probe observes one subscription.
    pub fn subscriber(&self) -> Box<dyn Subscriber<T>> {
        let mut state = self.shared.state.lock();
        assert!(!state.handed_out, "a probe observes one subscription");
        state.handed_out = true;
        Box::new(handle::ProbeSubscriber::new(self.shared.clone()))
    }

    /// `publisher.subscribe(self.subscriber())`, as the step `subscribe`: a
    /// panic is a §1.9 failure (subscribe must return normally).
    pub fn subscribe_to(&self, publisher: &dyn Publisher<T>) -> Result<(), Failure> {
        let subscriber = self.subscriber();
        self.cx().try_step("1.9", self.event("subscribe"), || {
            publisher.subscribe(subscriber)
        })
    }

    /// The subscription, waiting for `on_subscribe` up to the timeout
    /// (§1.9 failure if it does not come).
    pub fn subscription(&self) -> Result<Arc<dyn Subscription>, Failure> {
        self.expect_subscribed()?;
        let state = self.shared.state.lock();
        state
            .subscription
            .clone()
            .ok_or_else(|| self.failure_of("1.9", "on_subscribe", "no subscription"))
    }

    /// `request(n)` on the subscription, recorded as demand first (the
    /// publisher may deliver synchronously). A panic is a §3.16 failure.
    pub fn request(&self, n: u64) -> Result<(), Failure> {
        self.request_timed(n).map(|_| ())
    }

    /// [`Probe::request`], returning how long the call took (§3.4).
    pub fn request_timed(&self, n: u64) -> Result<Duration, Failure> {
        let subscription = self.subscription()?;
        let what = self.event(&format!("request({})", show_demand(n)));
        self.shared.serially(&what, || {
            {
                let mut state = self.shared.state.lock();
                state.note_request(n);
                state.requesting = Some(std::thread::current().id());
            }
            let started = Instant::now();
            let result = self
                .cx()
                .try_step("3.16", what.clone(), || subscription.request(n))
                .map(|_| started.elapsed());
            self.shared.state.lock().requesting = None;
            result
        })
    }

    /// `cancel()` on the subscription. A panic is a §3.15 failure.
    pub fn cancel(&self) -> Result<(), Failure> {
        self.cancel_timed().map(|_| ())
    }

    /// [`Probe::cancel`], returning how long the call took (§3.5).
    pub fn cancel_timed(&self) -> Result<Duration, Failure> {
        let subscription = self.subscription()?;
        let what = self.event("cancel()");
        self.shared.serially(&what, || {
            self.shared.state.lock().note_cancel();
            let started = Instant::now();
            let result = self
                .cx()
                .try_step("3.15", what.clone(), || subscription.cancel())
                .map(|_| started.elapsed());
            self.shared.state.lock().note_cancel_returned();
            result
        })
    }

    /// Lets go of the subscription without `cancel()`, as a Rust subscriber
    /// does that drops its handle: the probe drops its reference and makes
    /// no call on the subscription again. The spec does not make a drop a
    /// cancel, so the publisher may go on serving the demand outstanding
    /// (the probe still checks what arrives) or stop. A panic in the
    /// subscription's `Drop` is §3.15, as for [`Probe::cancel`].
    pub fn drop_subscription(&self) -> Result<(), Failure> {
        self.expect_subscribed()?;
        let what = self.event("dropping the subscription handle, without cancel()");
        self.shared.serially(&what, || {
            let subscription = self.shared.state.lock().subscription.take();
            match subscription {
                Some(subscription) => self
                    .cx()
                    .try_step("3.15", what.clone(), || drop(subscription)),
                None => Ok(()),
            }
        })
    }

    /// How many `on_next` arrived so far within demand (an `on_next`
    /// beyond demand is a §1.1 violation, set aside and not counted).
    pub fn received(&self) -> u64 {
        self.shared.state.lock().offered
    }

    /// The total demand the probe has requested (saturating, §3.17).
    pub fn requested(&self) -> u64 {
        self.shared.state.lock().requested
    }

    /// How many signals arrived on the thread that was inside `request`, as
    /// (`on_next`, terminal) counts (§3.10, §3.11).
    pub fn synchronous_signals(&self) -> (u64, u64) {
        let state = self.shared.state.lock();
        (state.sync_nexts, state.sync_terminals)
    }

    /// Whether the probe cancelled because the publisher went beyond the
    /// `n` it was created for (see [`Probe::created_for`]).
    pub fn cancelled_beyond_n(&self) -> bool {
        self.shared.state.lock().cancelled_beyond_n
    }

    /// Whether the probe set aside an `on_next` beyond demand (a §1.1
    /// violation, or §3.6's): the test's own checks since then judged a
    /// stream with an element missing, and their failures are filed
    /// under that rule.
    pub(crate) fn saw_beyond_demand(&self) -> bool {
        self.shared.state.lock().beyond_demand.is_some()
    }

    /// The index of the element owed next, where the factory declares
    /// `element_index` and the probe knows where its stream started.
    pub(crate) fn index_owed(&self) -> Option<u64> {
        self.shared.state.lock().order.owed()
    }

    /// Whether the publisher has dropped the subscriber.
    pub fn is_dropped(&self) -> bool {
        self.shared.state.lock().dropped
    }

    /// Whether the publisher refused this subscriber: `on_error` came
    /// before any `on_next` (§1.9: "the only legal way to signal failure
    /// (or reject the Subscriber) is by calling onError").
    pub(crate) fn refused(&self) -> bool {
        let state = self.shared.state.lock();
        state.nexts == 0
            && state
                .terminal
                .as_deref()
                .is_some_and(|terminal| terminal.starts_with("on_error"))
    }

    /// Whether a terminal signal arrived.
    pub fn is_terminated(&self) -> bool {
        self.shared.state.lock().terminal.is_some()
    }

    /// Whether the first terminal signal arrived after `cancel()` was
    /// entered: a publisher may still send one then, "eventually" (§1.8),
    /// which a cancel with demand left over does not make a wrong count.
    pub(crate) fn terminated_after_cancel(&self) -> bool {
        self.shared.state.lock().terminal_after_cancel
    }

    fn event(&self, what: &str) -> String {
        self.shared.event(what)
    }

    /// A failure of the rule under test seen through this probe, in the
    /// current scenario; the actual part names the probe (see
    /// [`Shared::failure_of`]).
    fn failure(&self, expected: impl Into<String>, actual: impl Into<String>) -> Failure {
        self.failure_of(self.cx().rule().to_string(), expected, actual)
    }

    /// [`Probe::failure`] of another rule.
    fn failure_of(
        &self,
        rule: impl Into<String>,
        expected: impl Into<String>,
        actual: impl Into<String>,
    ) -> Failure {
        let actual = self.event(&actual.into());
        self.cx().failure_of(rule, expected, actual)
    }
}

impl<T> Shared<T> {
    /// Runs `call`, the call `what` on the subscription, once no other
    /// thread is inside one (§2.7).
    ///
    /// A call before it that is slow (a `request` blocking for seconds) is
    /// waited for: the turn is the probe's own serialisation, so the wait
    /// is not the target's doing, and whatever `what` then waits for is
    /// measured from when it is made. Only a call still running after
    /// [`WATCHDOG_PROGRESS_CAP`](crate::runner::WATCHDOG_PROGRESS_CAP)
    /// watchdogs (the runner has named it stuck by then) fails §3.4,
    /// saying which call held the turn and for how long.
    pub(crate) fn serially<R>(
        &self,
        what: &str,
        call: impl FnOnce() -> Result<R, Failure>,
    ) -> Result<R, Failure> {
        let started = Instant::now();
        let env = self.cx.env();
        let cap = env.watchdog() * crate::runner::WATCHDOG_PROGRESS_CAP;
        let _turn = loop {
            if let Some(turn) = self.calls.try_lock_for(env.timeout()) {
                break turn;
            }
            let before = self.state.lock().calling.clone();
            let before = before.as_deref().unwrap_or("the call before it");
            if started.elapsed() < cap {
                self.cx.trace(format!(
                    "{what} waits for {before} to return ({} ms so far; the probe's calls on one subscription are serial, §2.7)",
                    started.elapsed().as_millis()
                ));
                continue;
            }
            return Err(self.cx.failure_of(
                "3.4",
                format!(
                    "{before} to return, so that {what} could follow it (the probe's calls on one subscription are serial, §2.7)"
                ),
                format!(
                    "{before} was still running after {} ms",
                    started.elapsed().as_millis()
                ),
            ));
        };
        let outer = self.state.lock().calling.replace(what.to_string());
        let result = call();
        self.state.lock().calling = outer;
        drop(_turn);
        self.run_pending();
        result
    }

    /// Makes `call` (described as `what`, decided inside a signal) as soon
    /// as the probe's turn is free, without waiting for it on this thread:
    /// a call of the probe's still running on another thread (a `request`
    /// that has not returned) makes it when it returns; on the thread
    /// that holds the turn (a nested call, §3.3) it is made at once. The
    /// signal that decided it returns meanwhile, so a publisher whose
    /// `request` waits for its worker's `on_next` is not deadlocked by the
    /// probe, and what arrives before `cancel()` is entered is not after
    /// cancel.
    pub(crate) fn call_when_free(&self, what: String, call: state::Pending) {
        {
            let mut state = self.state.lock();
            state.pending.push_back((what, call));
            state.pending_since.get_or_insert_with(Instant::now);
            // Until the call is made, quiet means nothing.
            state.reacting += 1;
        }
        self.run_pending();
        let waiting = {
            let state = self.state.lock();
            (!state.pending.is_empty()).then(|| state.calling.clone())
        };
        if let Some(before) = waiting {
            self.cx.trace(self.event(&format!(
                "a call decided inside a signal waits until {} returns (the probe's calls on one subscription are serial, §2.7)",
                before.as_deref().unwrap_or("the call before it")
            )));
        }
    }

    /// Makes the pending calls, in order, while the turn is free. Both the
    /// thread that leaves one pending and every thread that frees the turn
    /// look, each after its own change, so no call is lost: a thread that
    /// finds nothing pending looks once more after it let go of the turn,
    /// since a call queued meanwhile found the turn taken and left it here.
    fn run_pending(&self) {
        while let Some(turn) = self.calls.try_lock() {
            let (what, call, outer) = {
                let mut state = self.state.lock();
                let Some((what, call)) = state.pending.pop_front() else {
                    drop(state);
                    drop(turn);
                    if self.state.lock().pending.is_empty() {
                        return;
                    }
                    continue;
                };
                if state.pending.is_empty() {
                    state.pending_since = None;
                }
                let outer = state.calling.replace(what.clone());
                (what, call, outer)
            };
            let result = match call {
                state::Pending::Request(n, subscription) => {
                    // A request decided before the probe cancelled or the
                    // stream ended is no longer made.
                    let stale = {
                        let state = self.state.lock();
                        state.cancelled || state.terminal.is_some()
                    };
                    if stale {
                        Ok(())
                    } else {
                        self.cx.try_step("3.16", what, || subscription.request(n))
                    }
                }
                state::Pending::Cancel(subscription) => {
                    self.state.lock().note_cancel();
                    let result = self.cx.try_step("3.15", what, || subscription.cancel());
                    let mut state = self.state.lock();
                    state.note_cancel_returned();
                    state.cancel_panicked |= result.is_err();
                    result
                }
            };
            {
                let mut state = self.state.lock();
                state.calling = outer;
                state.reacting -= 1;
            }
            self.changed.notify_all();
            if let Err(failure) = result {
                self.cx.record(failure);
            }
        }
    }

    /// `what`, prefixed with the probe's label unless it is the default
    /// one: messages read "cancel()" or "second: cancel()".
    fn event(&self, what: &str) -> String {
        if self.label == DEFAULT_LABEL {
            what.to_string()
        } else {
            format!("{}: {what}", self.label)
        }
    }
}

impl<T: Debug + Send + 'static> Probe<T> {
    /// Drops the probe's reference to a closed subscription — perhaps the
    /// last one, so the user's `Drop` runs here. Never while unwinding (a
    /// panic in that `Drop` would abort the test process): then the
    /// cleanup after the rule drops it. Otherwise a panic in it is a §3.15
    /// violation, whichever test is running: dropping a subscription is how
    /// a Rust subscriber lets go of it, the implicit form of `cancel`, which
    /// must return normally (the catalogue's §3.15 entry says so).
    fn release(&self, subscription: Arc<dyn Subscription>) {
        let cx = &self.shared.cx;
        if std::thread::panicking() {
            cx.defer(move || drop(subscription));
            return;
        }
        let what = self.shared.event(
            "dropping the subscription (the probe's reference, after the subscription closed)",
        );
        if let Err(failure) = cx.try_step("3.15", what, || drop(subscription)) {
            cx.record(failure);
        }
    }
}

/// The label of a rule's only probe, left out of messages.
pub const DEFAULT_LABEL: &str = "probe";

impl<T: Debug + Send + 'static> Drop for Probe<T> {
    fn drop(&mut self) {
        let mut state = self.shared.state.lock();
        // Breaks the cycle probe → subscription → subscriber → probe.
        let subscription = state.subscription.take();
        let open = state.terminal.is_none() && !state.cancel_decided;
        state.queue.clear();
        drop(state);
        let Some(subscription) = subscription else {
            return;
        };
        if !open {
            return self.release(subscription);
        }
        let shared = self.shared.clone();
        self.shared.cx.defer(move || {
            // Serial with any call still running (§2.7).
            let _ = shared.serially("cancel() of a dropped probe", || {
                subscription.cancel();
                Ok(())
            });
        });
    }
}

impl<T> State<T> {
    pub(crate) fn note_request(&mut self, n: u64) {
        if n > 0 && !self.cancel_returned && self.terminal.is_none() {
            self.requested = demand::add(self.requested, n);
        } else if self.cancel_returned {
            self.requests_after_cancel += 1;
        }
    }
}

/// A demand as every message prints it: `∞` for `u64::MAX`, `2^63−1` and
/// `2^63` for the §3.17 boundary, the number otherwise.
///
/// ```
/// use reactive_streams_tck::probe::show_demand;
/// assert_eq!(show_demand(u64::MAX), "∞");
/// assert_eq!(show_demand(i64::MAX as u64), "2^63−1");
/// assert_eq!(show_demand(3), "3");
/// ```
pub fn show_demand(n: u64) -> String {
    match n {
        u64::MAX => String::from("∞"),
        n if n == u64::MAX - 1 => String::from("2^64−2"),
        n if n == i64::MAX as u64 => String::from("2^63−1"),
        n if n == 1 << 63 => String::from("2^63"),
        n if n == (1 << 63) + 1 => String::from("2^63+1"),
        n if n == 1 << 62 => String::from("2^62"),
        n => n.to_string(),
    }
}
