//! The publisher's end of a probe: records and checks every signal.

use std::fmt::Debug;
use std::sync::Arc;

use reactive_streams::{StreamError, Subscriber, Subscription};

use super::state::{Entered, Pending, State};
use super::{Shared, Signal};

/// What the probe does inside a signal, after releasing its lock (calls
/// into the publisher must never hold it: the publisher may call back).
enum Reaction {
    None,
    Request(Vec<u64>),
    /// Cancel the subscription, captured under the lock that decided it, so
    /// the probe being dropped meanwhile cannot lose the call.
    Cancel(Arc<dyn Subscription>),
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
        describe: impl FnOnce(&State<T>) -> String,
        on_signal: impl FnOnce(&mut State<T>, &Shared<T>, &str) -> Reaction,
    ) {
        let shared = &*self.shared;
        let cx = &shared.cx;
        let mut state = shared.state.lock();
        // Described under the lock: an `on_next` gets its ordinal here.
        let description = describe(&state);
        let entered = state.enter();
        let synchronous = state.is_synchronous();
        cx.trace(shared.event(&format!(
            "{description}{}",
            if synchronous { " [inside request]" } else { "" }
        )));
        if entered == Entered::Concurrent && state.first_report("1.3") {
            cx.record(shared.failure_of(
                "1.3",
                "signals to reach the subscriber one at a time",
                format!(
                    "{description} entered while another signal was still running on another thread"
                ),
            ));
        }
        let is_subscribe = description == "on_subscribe";
        if !is_subscribe && state.subscribes == 0 && state.first_report("1.9-first") {
            cx.record(shared.failure_of(
                "1.9",
                "on_subscribe before any other signal",
                format!("{description} came first"),
            ));
        }
        if let Some(terminal) = state.terminal.clone() {
            if state.first_report("1.7") {
                cx.record(shared.failure_of(
                    "1.7",
                    format!("no signal after {terminal}"),
                    format!("{description} followed it"),
                ));
            }
        }
        let after_cancel = state.is_after_cancel();
        let mut reaction = on_signal(&mut state, shared, &description);
        // A set-aside on_next (beyond demand, already a §1.1 violation) is
        // not judged by the running test's own checks, this one included.
        if !std::mem::take(&mut state.just_set_aside) {
            if let Some(quiet) = state.quiet_since {
                let window = super::after_cancel_bound(cx.env());
                // A cancel that panicked (§3.15) may not have reached the
                // publisher: what follows is not §1.8's.
                if state.behaviour.bound_after_cancel
                    && !state.cancel_panicked
                    && quiet.elapsed() > window
                    && state.first_report("1.8-late")
                {
                    cx.record(shared.failure_of(
                        "1.8",
                        format!(
                            "no signal beginning more than {} ms (the larger of RS_TCK_NO_SIGNAL_MS and RS_TCK_PROMPT_MS) after cancel() returned and the signal in flight finished",
                            window.as_millis()
                        ),
                        format!("{} began later", kind_of(&description)),
                    ));
                }
            }
        }
        if after_cancel && !is_subscribe {
            state.after_cancel += 1;
            if (state.behaviour.stop_runaway || state.cancelled_beyond_n || state.cancelled_flood)
                && state.after_cancel > super::RUNAWAY_LIMIT
            {
                state.runaway = true;
                // A runaway after cancel breaks §1.8 (signals stop
                // eventually) or, in its own test, §3.12 (cancel asks the
                // publisher to stop) — never the rule whose scenario
                // happened to cancel (§3.3's long run), nor the call the
                // unwind passes through.
                let rule =
                    if cx.rule() == "3.12" && !state.cancelled_beyond_n && !state.cancelled_flood {
                        "3.12"
                    } else {
                        "1.8"
                    };
                if state.first_report("runaway") {
                    cx.record(shared.failure_of(
                        rule,
                        "signals to stop after cancel()",
                        format!(
                            "more than {} signals arrived after cancel(); the probe unwound the publisher",
                            super::RUNAWAY_LIMIT
                        ),
                    ));
                }
                cx.unwinding_for(rule);
                reaction = Reaction::Stop;
            }
        } else if let Some(since) = state.cancel_held_since() {
            // A cancel still waiting for the probe's turn, or still
            // running, is not "after cancel" (the publisher may not have
            // been told), but a call that holds the turn, or a cancel that
            // runs, past the watchdog's cap has long been named stuck: the
            // harness then stops a thread still signalling into the ended
            // rule, as it stops a runaway.
            let cap = cx.env().watchdog() * crate::runner::WATCHDOG_PROGRESS_CAP;
            if (state.behaviour.stop_runaway || state.cancelled_beyond_n || state.cancelled_flood)
                && since.elapsed() > cap
            {
                cx.unwinding_for("1.8");
                reaction = Reaction::Stop;
            }
        }
        let reacting = !matches!(reaction, Reaction::None);
        if reacting {
            // Until the call into the publisher is made, quiet means nothing.
            state.reacting += 1;
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
                    let what = shared.event(&format!(
                        "request({}) from {from}",
                        crate::probe::show_demand(n)
                    ));
                    shared.call_when_free(what, Pending::Request(n, subscription));
                }
            }
            Reaction::Cancel(subscription) => {
                let what = shared.event(&format!("cancel() from {description}"));
                shared.call_when_free(what, Pending::Cancel(subscription));
                // A cancel made here, inside the signal on the delivering
                // thread, is held to the bound of any other cancel (§1.8
                // "eventually", §3.12 "NOT REQUIRED to affect the
                // Subscription immediately": no exception for a cancel
                // made inside a signal). What follows this on_next (a
                // batch within demand, a terminal signal) is accepted
                // until then. One that waited for another thread's call
                // was made by that thread, later, racing what the
                // publisher sent meanwhile; one that panicked (§3.15) may
                // not have reached the publisher.
                let mut state = shared.state.lock();
                let made_here = state
                    .cancel_entered
                    .is_some_and(|(_, thread)| thread == std::thread::current().id());
                if std::mem::take(&mut state.cancelling_inside)
                    && made_here
                    && state.cancel_returned
                    && !state.cancel_panicked
                {
                    state.behaviour.bound_after_cancel = true;
                }
            }
            Reaction::CancelExtra(extra) => {
                let what = shared.event("cancel() of the extra subscription");
                let _ = cx.try_step("3.15", what, || extra.cancel());
            }
            Reaction::Stop => {
                self.leave(entered, reacting);
                crate::context::quietly(|| std::panic::panic_any(super::RUNAWAY_STOP));
            }
        }
        self.leave(entered, reacting);
    }

    fn leave(&self, entered: Entered, reacting: bool) {
        let mut state = self.shared.state.lock();
        state.exit(entered);
        if reacting {
            state.reacting -= 1;
            self.shared.changed.notify_all();
        }
    }

    /// Notes demand `n` and returns the subscription, unless the probe has
    /// cancelled or terminated meanwhile.
    fn live_subscription(&self, n: u64) -> Option<Arc<dyn Subscription>> {
        let mut state = self.shared.state.lock();
        if state.cancel_decided || state.terminal.is_some() {
            return None;
        }
        state.note_request(n);
        state.subscription.clone()
    }
}

impl<T: Debug + Send + 'static> Subscriber<T> for ProbeSubscriber<T> {
    fn on_subscribe(&mut self, subscription: Arc<dyn Subscription>) {
        self.subscribe_signal(subscription);
    }

    fn on_next(&mut self, element: T) {
        self.next_signal(element);
    }

    fn on_error(&mut self, error: StreamError) {
        self.error_signal(error);
    }

    fn on_complete(&mut self) {
        self.complete_signal();
    }
}

/// The signals proper take `&self` (the probe's state is shared), which is
/// what lets the crate's own tests re-enter a probe soundly, the way only
/// `unsafe` code could re-enter a `&mut self` subscriber (§1.3, §3.3).
impl<T: Debug + Send + 'static> ProbeSubscriber<T> {
    pub(crate) fn subscribe_signal(&self, subscription: Arc<dyn Subscription>) {
        self.signal(
            |_| String::from("on_subscribe"),
            |state, shared, _| {
                state.subscribes += 1;
                let same = state
                    .subscription
                    .as_ref()
                    .is_some_and(|first| Arc::ptr_eq(first, &subscription));
                if state.subscribes > 1 {
                    // §2.12 binds whoever calls `on_subscribe`: the types stop
                    // a caller handing one subscriber to `subscribe` twice
                    // (§1.10), not a publisher calling it twice on a
                    // subscriber it owns.
                    if state.first_report("2.12") {
                        shared.cx.record(shared.failure_of(
                            "2.12",
                            "on_subscribe at most once on a given subscriber",
                            format!(
                                "on_subscribe number {} ({} subscription)",
                                state.subscribes,
                                if same { "the same" } else { "a new" }
                            ),
                        ));
                    }
                    return if same {
                        Reaction::None
                    } else {
                        Reaction::CancelExtra(subscription)
                    };
                }
                state.subscription = Some(subscription);
                if state.behaviour.request_on_subscribe.is_empty() {
                    Reaction::None
                } else {
                    Reaction::Request(state.behaviour.request_on_subscribe.clone())
                }
            },
        );
    }

    pub(crate) fn next_signal(&self, element: T) {
        let here = super::stack::stack_address();
        let value = super::words::Rendered(format!("{element:?}"));
        let describe = move |state: &State<T>| super::show_next(state.nexts + 1, &value);
        // The user's element_index runs outside the probe's lock.
        let index = self.shared.identity.as_ref().and_then(|id| id.of(&element));
        self.signal(describe, move |state, shared, description| {
            let cx = &shared.cx;
            state.nexts += 1;
            if let Some(index) = index.filter(|_| state.terminal.is_none()) {
                let owed = state.order.owed();
                if let Err(wrong) = state.order.next(index) {
                    if state.first_report(super::EXACTLY_ONCE) {
                        let owed = owed.map_or_else(String::new, |owed| {
                            format!(": element {owed} next")
                        });
                        cx.record(shared.failure_of(
                            super::EXACTLY_ONCE,
                            format!(
                                "each element once and in order, by the factory's element_index{owed}"
                            ),
                            format!("{description} {wrong}"),
                        ));
                    }
                }
            }
            let measured = if state.behaviour.measure_recursion {
                state.stack.enter(here)
            } else {
                0
            };
            if state.offered >= state.requested {
                // Beyond demand: a §1.1 violation (or §3.6, when a request
                // made after cancel() seems to have taken effect), recorded
                // and then set aside. The test's own checks judge only the
                // signals sent within demand, so the excess never fails a
                // rule that is not about it; nor does it count as received
                // or make the probe react.
                let rule = if state.requests_after_cancel > 0 {
                    "3.6"
                } else {
                    "1.1"
                };
                if state.first_report("1.1") {
                    cx.record(if rule == "3.6" {
                        shared.failure_of(
                            "3.6",
                            format!(
                                "requests after cancel() to have no effect: at most {} on_next (requested before it)",
                                super::show_demand(state.requested)
                            ),
                            format!("{description} arrived"),
                        )
                    } else {
                        shared.failure_of(
                            "1.1",
                            format!(
                                "at most {} on_next (the total requested so far)",
                                super::show_demand(state.requested)
                            ),
                            format!("{description} arrived"),
                        )
                    });
                }
                // An excess delivered inside a request made after cancel()
                // returned is that request's effect, which the checks of
                // requests after cancel (§3.6, §3.12) judge: it is shown to
                // them. Any other (one racing the cancel from the
                // publisher's thread included) is set aside.
                if !(state.cancel_returned && state.is_synchronous()) {
                    state.beyond_demand.get_or_insert(rule);
                    state.set_aside();
                    // The test never sees these, so it cannot stop a flood
                    // of them (one inside `subscribe`, before any request,
                    // never hands it control): past the runaway limit the
                    // probe cancels, and unwinds a flood that goes on.
                    if state.nexts - state.offered > super::RUNAWAY_LIMIT && !state.cancel_decided {
                        if let Some(subscription) = state.subscription.clone() {
                            cx.trace(format!(
                                "more than {} on_next beyond demand: the probe cancels",
                                super::RUNAWAY_LIMIT
                            ));
                            state.decide_cancel();
                            state.cancelled_flood = true;
                            return Reaction::Cancel(subscription);
                        }
                    }
                    return Reaction::None;
                }
            }
            state.offered += 1;
            if state.is_synchronous() {
                state.sync_nexts += 1;
            }
            state.push(Signal::Next(element));
            if state.cancel_decided || state.terminal.is_some() {
                return Reaction::None;
            }
            if let Some(n) = state.behaviour.created_for {
                // Beyond the requested total §1.1 speaks; within it, an
                // element past n breaks the factory's contract.
                if state.offered > n {
                    if state.first_report("tck.create_n_gives_exactly_n") {
                        cx.record(shared.failure_of(
                            "tck.create_n_gives_exactly_n",
                            format!("at most {n} on_next from create_publisher({n})"),
                            format!(
                                "{description} arrived while demand was still ahead; the probe cancelled"
                            ),
                        ));
                    }
                    if let Some(subscription) = state.subscription.clone() {
                        state.decide_cancel();
                        state.cancelled_beyond_n = true;
                        return Reaction::Cancel(subscription);
                    }
                }
            }
            let limit = state.behaviour.depth_bound.max(super::STACK_DEPTH_FLOOR);
            if measured > limit {
                if state.first_report("3.3") {
                    cx.record(shared.failure_of(
                        "3.3",
                        format!(
                            "an upper bound on synchronous recursion between publisher and subscriber (at most {limit} nested on_next on one thread's stack)"
                        ),
                        format!(
                            "{description} ran {measured} deep on the stack of one thread; the probe cancelled"
                        ),
                    ));
                }
                if let Some(subscription) = state.subscription.clone() {
                    state.decide_cancel();
                    return Reaction::Cancel(subscription);
                }
                return Reaction::None;
            }
            if state.behaviour.cancel_after == Some(state.offered) {
                if let Some(subscription) = state.subscription.clone() {
                    state.decide_cancel();
                    state.cancelling_inside = true;
                    return Reaction::Cancel(subscription);
                }
            }
            let offered = state.offered;
            let mut amounts: Vec<u64> = (state.behaviour.request_on_nth.iter())
                .filter(|&&(k, _)| k == offered)
                .map(|&(_, n)| n)
                .collect();
            let n = state.behaviour.request_on_next;
            if n != 0 {
                amounts.push(n);
            }
            if amounts.is_empty() {
                return Reaction::None;
            }
            // The depth this on_next runs at; a request from here that
            // delivers synchronously nests one deeper.
            let depth = state.depth();
            if depth > state.behaviour.depth_bound {
                if state.first_report("3.3") {
                    cx.record(shared.failure_of(
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
            Reaction::Request(amounts)
        });
    }

    pub(crate) fn error_signal(&self, error: StreamError) {
        let description = format!("on_error({error})");
        self.signal(
            move |_| description.clone(),
            move |state, _, description| {
                if state.is_synchronous() {
                    state.sync_terminals += 1;
                }
                if state.terminal.is_none() {
                    state.terminal = Some(description.to_string());
                    state.terminal_after_cancel = state.cancelled;
                }
                state.push(Signal::Error(error));
                Reaction::None
            },
        );
    }

    pub(crate) fn complete_signal(&self) {
        self.signal(
            |_| String::from("on_complete"),
            |state, _, _| {
                if state.is_synchronous() {
                    state.sync_terminals += 1;
                }
                if state.terminal.is_none() {
                    state.terminal = Some(String::from("on_complete"));
                    state.terminal_after_cancel = state.cancelled;
                }
                state.push(Signal::Complete);
                Reaction::None
            },
        );
    }
}

/// `on_next`, `on_error` or `on_complete` without the element: which
/// element comes late depends on timing, the message must not.
fn kind_of(description: &str) -> &str {
    description.split([' ', '(']).next().unwrap_or(description)
}

impl<T> Drop for ProbeSubscriber<T> {
    fn drop(&mut self) {
        let shared = &*self.shared;
        shared.cx.trace(shared.event("subscriber dropped"));
        shared.state.lock().dropped = true;
        shared.changed.notify_all();
    }
}

#[cfg(test)]
mod tests {
    //! What only `unsafe` publishers can do to a `&mut self` subscriber —
    //! re-enter it recursively or from two threads at once — done soundly
    //! through the probe's `&self` signal methods.

    use std::sync::OnceLock;
    use std::sync::atomic::{AtomicU64, Ordering};

    use super::*;
    use crate::context::RuleCx;
    use crate::env::TestEnv;
    use crate::probe::Probe;

    type Handle = Arc<ProbeSubscriber<u64>>;

    fn attach(probe: &Probe<u64>) -> Handle {
        probe.shared.state.lock().handed_out = true;
        Arc::new(ProbeSubscriber::new(probe.shared.clone()))
    }

    /// Calls `on_next` synchronously inside every `request`: unbounded
    /// recursion if the subscriber keeps requesting from `on_next`.
    struct Recursing {
        subscriber: OnceLock<Handle>,
        next: AtomicU64,
    }

    impl Subscription for Recursing {
        fn request(&self, _: u64) {
            let element = self.next.fetch_add(1, Ordering::SeqCst);
            // A backstop for this test only; the probe must stop far earlier.
            if element < 100_000 {
                self.subscriber.get().unwrap().next_signal(element);
            }
        }
        fn cancel(&self) {}
    }

    #[test]
    fn unbounded_recursion_stops_at_the_declared_depth() {
        let cx = RuleCx::new("3.3", "spec_3_03", TestEnv::default());
        let probe = Probe::<u64>::new(&cx, "probe")
            .request_on_next(1)
            .depth_bound(3);
        let handle = attach(&probe);
        let subscription = Arc::new(Recursing {
            subscriber: OnceLock::new(),
            next: AtomicU64::new(0),
        });
        let _ = subscription.subscriber.set(handle.clone());
        handle.subscribe_signal(subscription);
        probe.request(1).unwrap();
        assert_eq!(
            cx.first_failure().unwrap().to_string(),
            "§3.3: expected synchronous recursion on_next → request → on_next at most 3 deep \
             (the declared bound); actual: on_next #4 (value 3) ran 4 deep; the probe stopped \
             requesting"
        );
        assert_eq!(probe.received(), 4);
    }

    /// Blocks inside its first `request` until another thread has
    /// signalled.
    struct Blocking {
        other_thread_done: crossbeam_channel::Receiver<()>,
        first: std::sync::atomic::AtomicBool,
    }

    impl Subscription for Blocking {
        fn request(&self, _: u64) {
            if self.first.swap(false, Ordering::SeqCst) {
                let _ = self.other_thread_done.recv();
            }
        }
        fn cancel(&self) {}
    }

    #[test]
    fn a_signal_from_another_thread_while_one_runs_breaks_1_3() {
        // The second on_next's request waits its turn (§2.7) behind the
        // blocked one; a short watchdog ends that wait.
        let env = TestEnv::builder()
            .timeout(std::time::Duration::from_millis(50))
            .watchdog(std::time::Duration::from_millis(50))
            .build();
        let cx = RuleCx::new("1.3", "spec_1_03", env);
        let probe = Probe::<u64>::new(&cx, "probe").request_on_next(1);
        let handle = attach(&probe);
        let (done, other_thread_done) = crossbeam_channel::bounded(1);
        handle.subscribe_signal(Arc::new(Blocking {
            other_thread_done,
            first: std::sync::atomic::AtomicBool::new(true),
        }));
        probe.shared.state.lock().requested = 10;
        std::thread::scope(|scope| {
            let inside = handle.clone();
            // This on_next stays inside the subscriber (in its request)
            // until the other thread has entered.
            let first = scope.spawn(move || inside.next_signal(0));
            let entered = probe.cx().clone();
            let wait = || {
                while entered.current_step().is_none() {
                    std::thread::yield_now();
                }
            };
            wait();
            handle.next_signal(1);
            done.send(()).unwrap();
            first.join().unwrap();
        });
        assert_eq!(
            cx.first_failure().unwrap().to_string(),
            "§1.3: expected signals to reach the subscriber one at a time; actual: on_next #2 \
             (value 1) entered while another signal was still running on another thread"
        );
    }

    /// A publisher whose `request` hands the demand to its worker thread
    /// and waits until the worker has delivered it: legal (§3.4 is a
    /// SHOULD), and a probe that waited inside `on_next` for its turn to
    /// cancel would deadlock it.
    struct HandsOff {
        subscriber: OnceLock<Handle>,
        cancels: AtomicU64,
        /// How many `on_next` arrived before `cancel()` was entered.
        before_cancel: AtomicU64,
        delivered: AtomicU64,
    }

    impl Subscription for HandsOff {
        fn request(&self, n: u64) {
            let subscriber = self.subscriber.get().unwrap().clone();
            let worker = std::thread::spawn(move || {
                for element in 0..n {
                    subscriber.next_signal(element);
                }
            });
            worker.join().unwrap();
            self.delivered.fetch_add(n, Ordering::SeqCst);
        }
        fn cancel(&self) {
            self.cancels.fetch_add(1, Ordering::SeqCst);
            self.before_cancel
                .store(self.delivered.load(Ordering::SeqCst), Ordering::SeqCst);
        }
    }

    #[test]
    fn a_cancel_decided_during_the_probes_own_request_waits_for_it_without_blocking_the_signal() {
        let cx = RuleCx::new("1.8", "spec_1_08", TestEnv::default());
        let probe = Probe::<u64>::new(&cx, "probe").cancel_after(1);
        let handle = attach(&probe);
        let subscription = Arc::new(HandsOff {
            subscriber: OnceLock::new(),
            cancels: AtomicU64::new(0),
            before_cancel: AtomicU64::new(0),
            delivered: AtomicU64::new(0),
        });
        let _ = subscription.subscriber.set(handle.clone());
        handle.subscribe_signal(subscription.clone());
        // The cancel decided inside on_next #1 waits for this request; the
        // worker goes on meanwhile, and the request returns.
        probe.request(3).unwrap();
        assert_eq!(subscription.cancels.load(Ordering::SeqCst), 1);
        assert_eq!(subscription.before_cancel.load(Ordering::SeqCst), 3);
        let state = probe.shared.state.lock();
        assert!(state.cancel_returned);
        assert_eq!(state.after_cancel, 0, "signals before cancel() was entered");
        drop(state);
        assert!(!cx.has_failed(), "{:?}", cx.first_failure());
    }

    /// Its `Drop` panics.
    struct PanicsOnDrop;

    impl Subscription for PanicsOnDrop {
        fn request(&self, _: u64) {}
        fn cancel(&self) {}
    }

    impl Drop for PanicsOnDrop {
        fn drop(&mut self) {
            panic!("dropping the subscription is broken");
        }
    }

    #[test]
    fn a_panicking_subscription_drop_is_never_run_while_unwinding() {
        let cx = RuleCx::new("1.5", "spec_1_05", TestEnv::default());
        let probe = Probe::<u64>::new(&cx, "probe");
        let handle = attach(&probe);
        handle.subscribe_signal(Arc::new(PanicsOnDrop));
        handle.complete_signal();
        drop(handle);
        // Dropping the probe while unwinding would abort the process if it
        // ran the subscription's Drop there.
        let unwound = std::panic::catch_unwind(std::panic::AssertUnwindSafe(move || {
            let _probe = probe;
            crate::context::quietly(|| panic!("the rule body panicked"));
        }));
        assert!(unwound.is_err());
        assert!(!cx.has_failed());
        let deferred = cx.take_deferred();
        assert_eq!(deferred.len(), 1, "the drop is left to the cleanup");
        // The runner's cleanup runs it under catch_unwind, as here.
        for cleanup in deferred {
            let dropped = crate::context::quietly(|| {
                std::panic::catch_unwind(std::panic::AssertUnwindSafe(cleanup))
            });
            assert!(dropped.is_err());
        }
    }

    #[test]
    fn a_panicking_subscription_drop_breaks_3_15_in_any_test() {
        let cx = RuleCx::new("1.5", "spec_1_05", TestEnv::default());
        let probe = Probe::<u64>::new(&cx, "probe");
        let handle = attach(&probe);
        handle.subscribe_signal(Arc::new(PanicsOnDrop));
        handle.complete_signal();
        drop(handle);
        drop(probe);
        assert_eq!(
            cx.first_failure().unwrap().to_string(),
            "§3.15: expected dropping the subscription (the probe's reference, after the \
             subscription closed) to return normally; actual: it panicked: dropping the \
             subscription is broken"
        );
    }
}
