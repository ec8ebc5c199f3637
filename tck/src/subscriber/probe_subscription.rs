//! The subscription the TCK hands to a subscriber under test: it records
//! every `request` and `cancel`, with the thread and the signal it happened
//! inside, and checks the subscriber's side of the contract as calls arrive.
//!
//! | check | rule |
//! |---|---|
//! | no call from inside `on_complete` / `on_error`, nor, where the rule test watches, from another thread while they have not returned | §2.3 |
//! | no call after either has returned, on any thread, where the rule test watches for it (its own drop's `cancel()` excepted) | §2.4 |
//! | calls never overlap: an entry counter sees a second call entering while one runs | §2.7 |
//! | a second subscription, given while one is active, is only ever cancelled | §2.5 |
//! | no call once the subscriber was dropped | §3.1 |
//!
//! A `request(0)` breaks no Subscriber rule; the TCK, as the publisher,
//! answers it as §3.9 asks of every subscription: with `on_error`. The
//! subscription only records it; the [driver](super::driver) delivers that
//! `on_error` once the signal in progress has returned (or before its next
//! signal, or before it drops the subscriber): serially (§1.3), without
//! re-entering the subscriber (§3.3), and as the subscription's terminal
//! signal, after which nothing is delivered (§1.7).
//!
//! Each subscription belongs to the scenario it was created in (see
//! [`ProbeSubscription::own_scenario`]): a call made on it after the rule
//! test moved on (a thread the subscriber left running) is filed under that
//! scenario, as "late, from an earlier scenario: …", never under the one
//! running at the time.
//!
//! The TCK is the publisher here: `request` and `cancel` only record and
//! wake waiters, they never signal back, so they return at once and never
//! re-enter the subscriber.

use std::cell::Cell;
use std::sync::Arc;
use std::time::{Duration, Instant};

use parking_lot::{Condvar, Mutex};
use reactive_streams::{Subscription, demand};

use crate::context::RuleCx;

thread_local! {
    /// The signal the TCK is delivering on this thread, if any.
    static INSIDE: Cell<Option<&'static str>> = const { Cell::new(None) };
}

/// Marks the current thread as inside `signal` while `f` runs, so that a
/// call on a probe subscription can say which signal it came from.
pub(crate) fn inside<R>(signal: &'static str, f: impl FnOnce() -> R) -> R {
    let outer = INSIDE.with(|cell| cell.replace(Some(signal)));
    struct Restore(Option<&'static str>);
    impl Drop for Restore {
        fn drop(&mut self) {
            INSIDE.with(|cell| cell.set(self.0));
        }
    }
    let _restore = Restore(outer);
    f()
}

pub(crate) fn current_signal() -> Option<&'static str> {
    INSIDE.with(|cell| cell.get())
}

/// What this subscription is for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Role {
    /// The one subscription of the subscriber.
    Active,
    /// A second subscription given while the first was active (§2.5): it
    /// must be cancelled and never requested from.
    Extra,
}

/// The test's handle on a probe subscription; clones share it.
#[derive(Clone)]
pub(crate) struct ProbeSubscription {
    shared: Arc<Shared>,
}

struct Shared {
    cx: RuleCx,
    label: &'static str,
    role: Role,
    /// The scenario this subscription belongs to (see
    /// [`ProbeSubscription::own_scenario`]).
    scenario: Mutex<Option<String>>,
    state: Mutex<State>,
    changed: Condvar,
}

#[derive(Default)]
struct State {
    /// Total demand requested (saturating at unbounded, §3.17).
    demand: u64,
    cancelled: bool,
    /// Every call ever, so waiters can see "something new".
    calls: u64,
    /// Calls in progress right now (§2.7).
    inside: u32,
    /// While `Some`, an entering call waits until this instant for another
    /// call to overlap it, which makes an unserialised subscriber show up.
    hold_until: Option<Instant>,
    /// The terminal signal being or having been delivered, and the rule a
    /// call after it breaks (if such calls are watched).
    terminal: Option<(&'static str, Option<&'static str>)>,
    /// The TCK's `on_complete` / `on_error` call is still running: a
    /// watched call from another thread now is one the terminal signal
    /// made (§2.3), not one after it (§2.4).
    delivering_terminal: bool,
    /// Every thread that has called this subscription (outside the
    /// puppet), and those that had when the terminal signal started: a
    /// call from one of those while the terminal signal runs is the
    /// subscriber's own thread going on with its own business (a late
    /// request, the no-op calls after its own cancel), not a helper the
    /// terminal signal started.
    callers: Vec<std::thread::ThreadId>,
    callers_before_terminal: Vec<std::thread::ThreadId>,
    dropped: bool,
    /// The subscriber's handle was dropped (it can call nothing any more).
    released: bool,
    /// The subscriber called `request(0)`: the subscription owes it
    /// `on_error` (§3.9), and nothing more.
    illegal_demand: bool,
    /// That `on_error` was delivered.
    illegal_demand_answered: bool,
    reported: Vec<&'static str>,
}

impl State {
    fn first_report(&mut self, key: &'static str) -> bool {
        if self.reported.contains(&key) {
            false
        } else {
            self.reported.push(key);
            true
        }
    }
}

impl ProbeSubscription {
    pub(crate) fn new(cx: &RuleCx, label: &'static str, role: Role) -> Self {
        ProbeSubscription {
            shared: Arc::new(Shared {
                cx: cx.clone(),
                label,
                role,
                scenario: Mutex::new(cx.current_scenario()),
                state: Mutex::new(State::default()),
                changed: Condvar::new(),
            }),
        }
    }

    /// The subscriber's end.
    pub(crate) fn handle(&self) -> Arc<dyn Subscription> {
        Arc::new(Handle {
            shared: self.shared.clone(),
        })
    }

    /// Makes this subscription belong to the scenario running now: a
    /// rule test that goes on with the same subscriber into a new scenario
    /// says so, so the calls it then makes are that scenario's, not late.
    pub(crate) fn own_scenario(&self) {
        *self.shared.scenario.lock() = self.shared.cx.current_scenario();
    }

    /// Whether the subscriber called `request(0)` (§3.9): the subscription
    /// ends with `on_error` and delivers nothing else.
    pub(crate) fn got_illegal_demand(&self) -> bool {
        self.shared.state.lock().illegal_demand
    }

    /// Whether the `on_error` answering a `request(0)` is owed and not yet
    /// delivered; marks it delivered (the caller delivers it).
    pub(crate) fn take_illegal_demand_answer(&self) -> bool {
        let mut state = self.shared.state.lock();
        let owed = state.illegal_demand && !state.illegal_demand_answered;
        state.illegal_demand_answered |= owed;
        owed
    }

    /// Total demand requested so far.
    pub(crate) fn demand(&self) -> u64 {
        self.shared.state.lock().demand
    }

    pub(crate) fn is_cancelled(&self) -> bool {
        self.shared.state.lock().cancelled
    }

    /// Makes every call entering within `window` from now wait for another
    /// call to overlap it (at most until the window ends), so that calls
    /// from two unsynchronised threads are caught overlapping (§2.7).
    pub(crate) fn hold_calls_for(&self, window: Duration) {
        self.shared.state.lock().hold_until = Some(Instant::now() + window);
    }

    /// Ends the window of [`hold_calls_for`](Self::hold_calls_for) now:
    /// a held call returns.
    pub(crate) fn release_calls(&self) {
        self.shared.state.lock().hold_until = None;
        self.shared.changed.notify_all();
    }

    /// Notes that `signal` (`on_complete`, `on_error`) is about to be
    /// delivered: any call from now on breaks `rule`, if given.
    pub(crate) fn terminal(&self, signal: &'static str, rule: Option<&'static str>) {
        let mut state = self.shared.state.lock();
        match state.terminal {
            None => state.terminal = Some((signal, rule)),
            Some((_, None)) if rule.is_some() => state.terminal = Some((signal, rule)),
            Some(_) => {}
        }
    }

    /// Notes that the TCK's `on_complete` / `on_error` call has started
    /// (`true`) or returned (`false`).
    pub(crate) fn delivering_terminal(&self, running: bool) {
        let mut state = self.shared.state.lock();
        state.delivering_terminal = running;
        if running {
            state.callers_before_terminal = state.callers.clone();
        }
    }

    /// Notes that the subscriber is being dropped: any call from now on,
    /// except from its own drop on the dropping thread, is made outside its
    /// context (§3.1).
    pub(crate) fn dropped(&self) {
        self.shared.state.lock().dropped = true;
    }

    fn wait_until(&self, timeout: Duration, mut ready: impl FnMut(&State) -> bool) -> bool {
        let deadline = Instant::now() + timeout;
        let mut state = self.shared.state.lock();
        loop {
            if ready(&state) {
                return true;
            }
            if self
                .shared
                .changed
                .wait_until(&mut state, deadline)
                .timed_out()
            {
                return ready(&state);
            }
        }
    }

    /// Waits until the subscriber has gone quiet: no call on this
    /// subscription running and none entering for `quiet`, at most
    /// `timeout` in all. A subscriber may make its first demand in several
    /// calls, late, or cancel by itself and call again (§3.6, §3.7 make
    /// those no-ops): until it is quiet, a call from another thread may be
    /// one of those, not one a terminal signal delivered now made.
    pub(crate) fn wait_quiet(&self, quiet: Duration, timeout: Duration) {
        let deadline = Instant::now() + timeout;
        let mut state = self.shared.state.lock();
        loop {
            let calls = state.calls;
            let until = (Instant::now() + quiet).min(deadline);
            while state.calls == calls && Instant::now() < until {
                if self
                    .shared
                    .changed
                    .wait_until(&mut state, until)
                    .timed_out()
                {
                    break;
                }
            }
            let idle = state.calls == calls && state.inside == 0;
            if idle || Instant::now() >= deadline {
                return;
            }
        }
    }

    /// Waits up to `timeout` until the total demand reaches `at_least`, or
    /// the subscription is cancelled or ends through a `request(0)`;
    /// returns the demand.
    pub(crate) fn wait_demand(&self, at_least: u64, timeout: Duration) -> u64 {
        self.wait_until(timeout, |s| {
            s.demand >= at_least || s.cancelled || s.illegal_demand
        });
        self.demand()
    }

    /// Waits up to `timeout` for `cancel()`.
    pub(crate) fn wait_cancelled(&self, timeout: Duration) -> bool {
        self.wait_until(timeout, |s| s.cancelled)
    }

    /// Waits up to `timeout` for `cancel()`, or less if the subscriber lets
    /// go of its handle first (then no `cancel()` can come); whether it
    /// cancelled.
    pub(crate) fn wait_cancelled_or_released(&self, timeout: Duration) -> bool {
        self.wait_until(timeout, |s| s.cancelled || s.released);
        self.is_cancelled()
    }

    /// Whether the subscriber dropped its handle without cancelling (§2.6).
    pub(crate) fn is_abandoned(&self) -> bool {
        let state = self.shared.state.lock();
        state.released && !state.cancelled
    }
}

impl Shared {
    /// A failure of `rule` seen on this subscription: filed under the
    /// scenario it belongs to, marked late when the rule test has moved on.
    fn failure_of(
        &self,
        rule: &str,
        expected: impl Into<String>,
        actual: impl Into<String>,
    ) -> crate::context::Failure {
        let scenario = self.scenario.lock().clone();
        self.cx.failure_in(scenario, rule, expected, actual)
    }
}

impl Drop for Handle {
    fn drop(&mut self) {
        self.shared.state.lock().released = true;
        self.shared.changed.notify_all();
    }
}

/// What the subscriber holds.
struct Handle {
    shared: Arc<Shared>,
}

impl Handle {
    fn call(&self, what: String, apply: impl FnOnce(&mut State)) {
        let shared = &*self.shared;
        let cx = &shared.cx;
        let signal = current_signal();
        cx.trace(match signal {
            Some(signal) => format!("{}: {what} [inside {signal}]", shared.label),
            None => format!("{}: {what}", shared.label),
        });
        let mut state = shared.state.lock();
        // A call the TCK triggers through the whitebox puppet is asked for
        // by the TCK, so it is not held to §2.7 or to the timing checks;
        // but which subscription it lands on is the subscriber's own code:
        // the second, rejected one breaks §2.5, as any other call would.
        let by_puppet = signal == Some("puppet");
        if by_puppet {
            self.check_role(&mut state, &what);
        } else {
            if state.inside > 0 && state.first_report("2.7") {
                cx.record(shared.failure_of(
                    "2.7",
                    "request and cancel to be called one at a time",
                    format!(
                        "{what} on the {} entered while another call on it was still running",
                        shared.label
                    ),
                ));
            }
            state.inside += 1;
            let caller = std::thread::current().id();
            if !state.callers.contains(&caller) {
                state.callers.push(caller);
            }
            self.check(&mut state, &what, signal);
        }
        state.calls += 1;
        apply(&mut state);
        shared.changed.notify_all();
        if by_puppet {
            return;
        }
        if let Some(until) = state.hold_until {
            // Give a call from another thread the chance to overlap this one.
            let calls = state.calls;
            while state.calls == calls && state.hold_until.is_some() && Instant::now() < until {
                if shared.changed.wait_until(&mut state, until).timed_out() {
                    break;
                }
            }
        }
        state.inside -= 1;
    }

    fn check(&self, state: &mut State, what: &str, signal: Option<&'static str>) {
        let shared = &*self.shared;
        let cx = &shared.cx;
        let label = shared.label;
        // Cancelling while being dropped is cleanup, not a use of the
        // subscription.
        let cleanup = signal == Some("drop") && what == "cancel()";
        if let Some(signal @ ("on_complete" | "on_error")) = signal {
            if state.first_report("2.3-inside") {
                cx.record(shared.failure_of(
                    "2.3",
                    format!("no call on the subscription from inside {signal}"),
                    format!("{what} on the {label} from inside {signal}"),
                ));
            }
        } else if let (Some((terminal, Some(_))), false, true) =
            (state.terminal, cleanup, state.delivering_terminal)
        {
            // The TCK is the caller of the terminal signal, so it knows it
            // has not returned: a watched call from a thread that had not
            // called before is made while on_complete / on_error runs
            // (§2.3), as if from inside it (a helper it started and is
            // waiting for). A thread of the subscriber's that had called
            // before may be finishing its own business: that is no call
            // of the terminal method's.
            let own_thread = state
                .callers_before_terminal
                .contains(&std::thread::current().id());
            if own_thread {
                cx.trace(format!(
                    "{what} on the {label} from a thread of the subscriber's that had called before, while {terminal} runs (not a call of {terminal}'s)"
                ));
            } else if state.first_report("2.3-during") {
                cx.record(shared.failure_of(
                    "2.3",
                    format!("no call on the subscription while {terminal} is running"),
                    format!(
                        "{what} on the {label} from another thread while {terminal} had not returned"
                    ),
                ));
            }
        } else if let (Some((terminal, Some(rule))), false) = (state.terminal, cleanup) {
            // After a watched terminal signal has returned, any other call
            // (a helper thread's, even one still running while the
            // subscriber is dropped) uses a subscription the subscriber
            // must consider cancelled: the rule test's rule, §2.4.
            if state.first_report("2.3-after") {
                cx.record(shared.failure_of(
                    rule,
                    format!("no call on the subscription once {terminal} was delivered"),
                    format!("{what} on the {label} after {terminal}"),
                ));
            }
        } else if state.dropped && signal != Some("drop") && state.first_report("3.1") {
            cx.record(shared.failure_of(
                "3.1",
                "no call on the subscription once its subscriber was dropped",
                format!("{what} on the {label} after the subscriber was dropped"),
            ));
        }
        self.check_role(state, what);
    }
}

impl Handle {
    /// §2.5: the second subscription, given while one was active, is only
    /// ever cancelled.
    fn check_role(&self, state: &mut State, what: &str) {
        let shared = &*self.shared;
        if shared.role == Role::Extra && what != "cancel()" && state.first_report("2.5") {
            let cx = &shared.cx;
            cx.record(shared.failure_of(
                "2.5",
                "the second subscription, given while one was active, to be cancelled and never used",
                format!("{what} on the {}", shared.label),
            ));
        }
    }
}

impl Subscription for Handle {
    fn request(&self, n: u64) {
        let what = format!("request({})", crate::probe::show_demand(n));
        self.call(what, |state| {
            if n == 0 {
                // request(0) breaks no Subscriber rule: §3.9 tells the
                // subscription to answer it with on_error, which the driver
                // delivers (not from here: that would re-enter the
                // subscriber, and overlap a signal still in progress). A
                // subscriber that never asks for n ≥ 1 fails §2.1 through
                // the demand checks instead.
                state.illegal_demand |= !state.cancelled && state.terminal.is_none();
            } else if !state.cancelled && !state.illegal_demand {
                // Once ended by a request(0), later requests are no-ops.
                state.demand = demand::add(state.demand, n);
            }
        });
    }

    fn cancel(&self) {
        self.call(String::from("cancel()"), |state| state.cancelled = true);
    }
}

impl std::fmt::Debug for ProbeSubscription {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ProbeSubscription")
            .field("label", &self.shared.label)
            .finish_non_exhaustive()
    }
}

impl ProbeSubscription {
    /// Waits until `deadline`, or until one of this rule's checks fails.
    pub(crate) fn wait_failure_until(&self, deadline: Instant) {
        let mut state = self.shared.state.lock();
        while state.reported.is_empty() {
            if self
                .shared
                .changed
                .wait_until(&mut state, deadline)
                .timed_out()
            {
                break;
            }
        }
    }
}
