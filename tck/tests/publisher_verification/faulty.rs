//! A synchronous range publisher with one deliberate defect at a time.
//!
//! Every fault is written in safe Rust: the TCK must catch defects a real
//! implementation can have, not undefined behaviour.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::thread::ThreadId;
use std::time::Duration;

use parking_lot::{Mutex, ReentrantMutex};
use reactive_streams::{Publisher, StreamError, Subscriber, Subscription, demand};
use reactive_streams_tck::publisher::PublisherFactory;
use reactive_streams_tck::testkit::{Failing, Signal, Trampoline, Turn};

/// One defect.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Fault {
    /// The first request delivers one element more than asked for.
    ExtraElement,
    /// Never signals `on_complete`.
    NeverCompletes,
    /// Finds its end only inside a `request` made after its last element
    /// went out: with demand left over once its elements are delivered it
    /// does not complete until asked again (§1.5). Lazy end discovery is
    /// fine only where the demand was exactly met.
    CompletesOnlyWhenAskedAgain,
    /// `request(0)` is silently ignored.
    IgnoresZeroRequest,
    /// `request(0)` fails with an error that is not `illegal_demand`.
    WrongZeroError,
    /// Signals one more `on_next` after `on_complete`.
    NextAfterComplete,
    /// `cancel` does nothing: under unbounded demand it never stops.
    IgnoresCancel,
    /// Stops signalling on `cancel` but keeps the subscriber forever.
    KeepsSubscriber,
    /// `request(n)` with `n ≥ 2^63−1` panics.
    PanicsOnHugeRequest,
    /// `cancel` panics.
    PanicsInCancel,
    /// The subscription's `Drop` panics: the TCK must report it, not abort.
    PanicsInDrop,
    /// Adds demand with `+`, which overflows (and panics in debug builds).
    OverflowingDemand,
    /// Ignores a `request` made on any thread but the one that subscribed
    /// (§2.7 lets calls come from several threads, one after the other;
    /// overlapping calls, which the TCK never makes, are no defect to look
    /// for).
    IgnoresRequestsFromOtherThreads,
    /// Holds its lock while calling `on_next`; a `request` from inside
    /// `on_next` waits for that lock forever.
    DeadlocksOnReentrantRequest,
    /// Tries to recurse: a `request` from inside `on_next` calls `on_next`
    /// again through a reentrant lock, and the inner borrow panics.
    RecursesIntoBusySubscriber,
    /// Calls `on_subscribe` twice.
    SubscribesTwice,
    /// After `on_complete`, calls `on_subscribe` again on the same
    /// subscriber with a fresh subscription (a restart bug): §2.12, which
    /// the types cannot stop, and §1.7.
    ResubscribesAfterComplete,
    /// Signals `on_complete` before `on_subscribe` for empty ranges.
    CompletesBeforeSubscribe,
    /// The first `request` of each subscription blocks for a while.
    SlowRequest,
    /// The first `cancel` of each subscription blocks for a while.
    SlowCancel,
    /// The third `request` of each subscription never returns: a hang
    /// that shows only once a test is under way, after calls that returned.
    HangsInThirdRequest,
    /// `subscribe` panics.
    PanicsInSubscribe,
    /// Only the first subscriber of a publisher ever hears anything.
    IgnoresSecondSubscriber,
    /// The failed publisher completes instead of failing.
    FailedPublisherCompletes,
    /// Emits from a worker thread and ignores `cancel`: under unbounded
    /// demand its thread floods until the probe unwinds it, possibly after
    /// the rule that owned it has ended.
    AsyncIgnoresCancel,
}

/// How long the slow faults block: longer than the self-tests' promptness
/// bound, which is all it takes to fail §3.4 / §3.5 deterministically.
pub const SLOW: Duration = Duration::from_millis(200);

/// A factory of faulty publishers.
pub struct Faulty(pub Fault);

impl PublisherFactory for Faulty {
    type Element = u64;

    fn create_publisher(&self, elements: u64) -> Box<dyn Publisher<u64>> {
        Box::new(FaultyRange {
            fault: self.0,
            count: elements,
            subscribers: AtomicUsize::new(0),
        })
    }

    fn create_failed_publisher(&self) -> Option<Box<dyn Publisher<u64>>> {
        if self.0 == Fault::FailedPublisherCompletes {
            Some(Box::new(FaultyRange {
                fault: self.0,
                count: 0,
                subscribers: AtomicUsize::new(0),
            }))
        } else {
            Some(Box::new(Failing::new("broken on purpose")))
        }
    }
}

struct FaultyRange {
    fault: Fault,
    count: u64,
    subscribers: AtomicUsize,
}

impl Publisher<u64> for FaultyRange {
    fn subscribe(&self, mut subscriber: Box<dyn Subscriber<u64>>) {
        let fault = self.fault;
        if fault == Fault::PanicsInSubscribe {
            panic!("subscribe is broken");
        }
        if fault == Fault::IgnoresSecondSubscriber
            && self.subscribers.fetch_add(1, Ordering::SeqCst) > 0
        {
            return;
        }
        if fault == Fault::AsyncIgnoresCancel {
            return async_ignoring_cancel(self.count, subscriber);
        }
        if fault == Fault::CompletesBeforeSubscribe && self.count == 0 {
            subscriber.on_complete();
        }
        if fault == Fault::DeadlocksOnReentrantRequest || fault == Fault::RecursesIntoBusySubscriber
        {
            return Locked::subscribe(fault, self.count, subscriber);
        }
        let subscription = Arc::new(Faulty1::new(fault, self.count));
        subscriber.on_subscribe(subscription.clone());
        if fault == Fault::SubscribesTwice {
            subscriber.on_subscribe(subscription.clone());
        }
        subscription.state.attach(subscriber);
        subscription.drain();
    }
}

struct Faulty1 {
    fault: Fault,
    subscriber_thread: ThreadId,
    state: Trampoline<State, Box<dyn Subscriber<u64>>>,
}

impl Drop for Faulty1 {
    fn drop(&mut self) {
        if self.fault == Fault::PanicsInDrop {
            panic!("dropping the subscription is broken");
        }
    }
}

struct State {
    next: u64,
    end: Option<u64>,
    demand: u64,
    cancelled: bool,
    done: bool,
    illegal: bool,
    slowed_request: bool,
    slowed_cancel: bool,
    requests: u64,
    /// A `request` came after the last element went out.
    asked_at_end: bool,
}

/// Blocks the calling thread for `SLOW`, on purpose (the defect under test).
fn block_for(duration: Duration) {
    let (_keep, never) = crossbeam_channel::bounded::<()>(0);
    let _ = never.recv_timeout(duration);
}

impl Faulty1 {
    fn new(fault: Fault, count: u64) -> Self {
        Faulty1 {
            fault,
            subscriber_thread: std::thread::current().id(),
            state: Trampoline::new(State {
                next: 0,
                end: (count != u64::MAX).then_some(count),
                demand: 0,
                cancelled: false,
                done: false,
                illegal: false,
                slowed_request: false,
                slowed_cancel: false,
                requests: 0,
                asked_at_end: false,
            }),
        }
    }

    /// A subscriber the fault keeps after its terminal signal gets it as a
    /// [`Turn::Signal`]: the trampoline holds on to it.
    fn drain(&self) {
        let fault = self.fault;
        let keeps = fault == Fault::KeepsSubscriber;
        let terminal = |signal| {
            if keeps {
                Turn::Signal(signal)
            } else {
                Turn::Last(signal)
            }
        };
        self.state.drain(
            |state| {
                if (state.cancelled && fault != Fault::IgnoresCancel) || state.done {
                    return if keeps { Turn::Wait } else { Turn::Release };
                }
                if state.illegal {
                    state.done = true;
                    return terminal(Signal::Error(if fault == Fault::WrongZeroError {
                        StreamError::msg("zero is a strange number")
                    } else {
                        StreamError::illegal_demand(0)
                    }));
                }
                let asked = fault != Fault::CompletesOnlyWhenAskedAgain || state.asked_at_end;
                if state.end == Some(state.next) && fault != Fault::NeverCompletes && asked {
                    state.done = true;
                    return terminal(Signal::Complete);
                }
                if state.demand == 0 || state.end == Some(state.next) {
                    return Turn::Wait;
                }
                state.demand = demand::fulfil(state.demand, 1);
                state.next += 1;
                Turn::Signal(Signal::Next(state.next - 1))
            },
            |subscriber, signal| {
                let completes = matches!(signal, Signal::Complete);
                Signal::deliver(subscriber, signal);
                if completes && fault == Fault::NextAfterComplete {
                    subscriber.on_next(u64::MAX);
                }
                if completes && fault == Fault::ResubscribesAfterComplete {
                    subscriber.on_subscribe(Arc::new(Faulty1::new(fault, 0)));
                }
            },
        );
    }
}

impl Subscription for Faulty1 {
    fn request(&self, n: u64) {
        let fault = self.fault;
        if fault == Fault::PanicsOnHugeRequest && n >= demand::EFFECTIVELY_UNBOUNDED {
            panic!("request({n}) is too big for me");
        }
        if fault == Fault::IgnoresRequestsFromOtherThreads
            && std::thread::current().id() != self.subscriber_thread
        {
            return;
        }
        {
            let mut state = self.state.state();
            let slow = fault == Fault::SlowRequest && !state.slowed_request;
            state.slowed_request = true;
            if slow {
                drop(state);
                block_for(SLOW);
                state = self.state.state();
            }
            state.requests += 1;
            state.asked_at_end |= state.end == Some(state.next);
            if fault == Fault::HangsInThirdRequest && state.requests == 3 {
                drop(state);
                let (_keep, never) = crossbeam_channel::bounded::<()>(0);
                let _ = never.recv();
                unreachable!("nothing is ever sent");
            }
            let ignore = state.done || (state.cancelled && fault != Fault::IgnoresCancel);
            if !ignore {
                if n == 0 {
                    if fault != Fault::IgnoresZeroRequest {
                        state.illegal = true;
                    }
                } else if fault == Fault::OverflowingDemand {
                    state.demand += n;
                } else {
                    let extra = u64::from(fault == Fault::ExtraElement && state.requests == 1);
                    state.demand = demand::add(demand::add(state.demand, n), extra);
                }
            }
        }
        self.drain();
    }

    fn cancel(&self) {
        if self.fault == Fault::PanicsInCancel {
            panic!("cancel is broken");
        }
        let slow = {
            let mut state = self.state.state();
            let slow = self.fault == Fault::SlowCancel && !state.slowed_cancel;
            state.slowed_cancel = true;
            slow
        };
        if slow {
            block_for(SLOW);
        }
        if self.fault == Fault::IgnoresCancel {
            return;
        }
        self.state.release(|state| {
            state.cancelled = true;
            self.fault != Fault::KeepsSubscriber
        });
    }
}

/// The two faults that call `on_next` with a lock held. Otherwise a
/// correct range: it completes and answers `request(0)`.
struct Locked {
    fault: Fault,
    state: Mutex<LockedState>,
    /// Plain lock (deadlock fault) or reentrant lock (recursion fault).
    plain: Mutex<Option<Box<dyn Subscriber<u64>>>>,
    reentrant: ReentrantMutex<std::cell::RefCell<Option<Box<dyn Subscriber<u64>>>>>,
}

struct LockedState {
    ready: bool,
    next: u64,
    end: Option<u64>,
    demand: u64,
    illegal: bool,
    done: bool,
}

enum Step {
    Next(u64),
    Error,
    Complete,
}

impl Locked {
    fn subscribe(fault: Fault, count: u64, mut subscriber: Box<dyn Subscriber<u64>>) {
        let locked = Arc::new(Locked {
            fault,
            state: Mutex::new(LockedState {
                ready: false,
                next: 0,
                end: (count != u64::MAX).then_some(count),
                demand: 0,
                illegal: false,
                done: false,
            }),
            plain: Mutex::new(None),
            reentrant: ReentrantMutex::new(std::cell::RefCell::new(None)),
        });
        subscriber.on_subscribe(locked.clone());
        if fault == Fault::DeadlocksOnReentrantRequest {
            *locked.plain.lock() = Some(subscriber);
        } else {
            *locked.reentrant.lock().borrow_mut() = Some(subscriber);
        }
        locked.state.lock().ready = true;
        locked.emit();
    }

    fn step(&self) -> Option<Step> {
        let mut state = self.state.lock();
        if !state.ready || state.done {
            return None;
        }
        if state.illegal {
            state.done = true;
            return Some(Step::Error);
        }
        if state.end == Some(state.next) {
            state.done = true;
            return Some(Step::Complete);
        }
        if state.demand == 0 {
            return None;
        }
        state.demand = demand::fulfil(state.demand, 1);
        state.next += 1;
        Some(Step::Next(state.next - 1))
    }

    fn signal(subscriber: &mut dyn Subscriber<u64>, step: Step) {
        match step {
            Step::Next(element) => subscriber.on_next(element),
            Step::Error => subscriber.on_error(StreamError::illegal_demand(0)),
            Step::Complete => subscriber.on_complete(),
        }
    }

    /// Takes the subscriber's lock before deciding the next signal, so
    /// signals from concurrent `request`s stay serial and in order; only
    /// re-entry from inside `on_next` (the defect) misbehaves.
    fn emit(&self) {
        loop {
            if self.fault == Fault::DeadlocksOnReentrantRequest {
                let mut subscriber = self.plain.lock();
                let Some(step) = self.step() else { break };
                if let Some(subscriber) = subscriber.as_mut() {
                    Self::signal(&mut **subscriber, step);
                }
            } else {
                let guard = self.reentrant.lock();
                let Some(step) = self.step() else { break };
                let mut cell = guard.borrow_mut();
                if let Some(subscriber) = cell.as_mut() {
                    Self::signal(&mut **subscriber, step);
                }
            }
        }
        let done = self.state.lock().done;
        if done {
            self.cancel();
        }
    }
}

impl Subscription for Locked {
    fn request(&self, n: u64) {
        {
            let mut state = self.state.lock();
            if n == 0 {
                state.illegal = true;
            } else {
                state.demand = demand::add(state.demand, n);
            }
        }
        self.emit();
    }

    fn cancel(&self) {
        self.state.lock().done = true;
        let subscriber = if self.fault == Fault::DeadlocksOnReentrantRequest {
            self.plain.lock().take()
        } else {
            // Edition 2024 drops the tail's guard and borrow at the end of
            // this block, before `subscriber` is dropped outside the lock.
            self.reentrant.lock().borrow_mut().take()
        };
        drop(subscriber);
    }
}

/// `request(n)` goes to the worker; `cancel` is forgotten.
struct DemandOnly(crossbeam_channel::Sender<u64>);

impl Subscription for DemandOnly {
    fn request(&self, n: u64) {
        let _ = self.0.send(n);
    }
    fn cancel(&self) {}
}

fn async_ignoring_cancel(count: u64, mut subscriber: Box<dyn Subscriber<u64>>) {
    let (requests, inbox) = crossbeam_channel::unbounded();
    let end = (count != u64::MAX).then_some(count);
    std::thread::spawn(move || {
        subscriber.on_subscribe(Arc::new(DemandOnly(requests)));
        let (mut next, mut pending) = (0u64, 0u64);
        loop {
            if end == Some(next) {
                return subscriber.on_complete();
            }
            let mut arrived: Vec<u64> = inbox.try_iter().collect();
            if pending == 0 && arrived.is_empty() {
                match inbox.recv() {
                    Ok(n) => arrived.push(n),
                    // The subscriber let go of the subscription.
                    Err(_) => return,
                }
            }
            for n in arrived {
                if n == 0 {
                    return subscriber.on_error(StreamError::illegal_demand(0));
                }
                pending = demand::add(pending, n);
            }
            if pending > 0 {
                pending = demand::fulfil(pending, 1);
                subscriber.on_next(next);
                next += 1;
            }
        }
    });
}
