//! The serialising, trampolining demand loop every publisher here shares.
//!
//! A [`Drain`] owns one subscriber and one [`Producer`]. It is also the
//! [`Subscription`] handed to that subscriber. Whoever brings the
//! work-in-progress counter from 0 to 1 — a `request`, a `cancel`, a wake-up
//! from the producer, or `subscribe` itself — owns the emission loop;
//! everyone else only records their wish (demand, cancellation) and bumps
//! the counter, and the owner loops until the counter drops back to 0. So:
//!
//! * signals are serial (§1.3) without the subscriber being called under a
//!   lock that `request`/`cancel` take: they never block (§3.4, §3.5);
//! * `request` from inside `on_next` returns at once and the owner emits the
//!   next element: recursion depth stays 1 (§3.3);
//! * many elements are emitted per atomic operation: demand is read once and
//!   subtracted once per batch, and a `request` made from inside a signal on
//!   the loop's own thread (the usual synchronous refill) is a plain store
//!   the owner folds in before it runs out of demand.
//!
//! ```
//! use std::task::{Context, Poll};
//! use reactive_streams::{Publisher, StreamError, Subscriber};
//! use reactive_streams_reference::drain::{self, Emission, Producer};
//! use reactive_streams_reference::{collect, Executor};
//!
//! /// Counts down from `n` to 1.
//! struct Countdown(u32);
//!
//! impl Producer<u32> for Countdown {
//!     fn poll_produce(&mut self, _: &mut Context<'_>) -> Emission<u32> {
//!         if self.0 == 0 {
//!             return Poll::Ready(None);
//!         }
//!         self.0 -= 1;
//!         Poll::Ready(Some(Ok(self.0 + 1)))
//!     }
//! }
//!
//! struct CountdownPublisher;
//! impl Publisher<u32> for CountdownPublisher {
//!     fn subscribe(&self, subscriber: Box<dyn Subscriber<u32>>) {
//!         drain::subscribe(subscriber, Countdown(3), Executor::Inline);
//!     }
//! }
//!
//! let all = futures::executor::block_on(collect(&CountdownPublisher));
//! assert_eq!(all.unwrap(), vec![3, 2, 1]);
//! ```

use std::sync::atomic::{AtomicU8, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Weak};
use std::task::{Context, Poll, Wake, Waker};

use parking_lot::Mutex;
use reactive_streams::{StreamError, Subscriber, Subscription, demand};

use crate::executor::Executor;

/// What a [`Producer`] yields: an element, the end (`None`), a failure, or
/// `Pending` (nothing now; the producer will wake the drain later).
pub type Emission<T> = Poll<Option<Result<T, StreamError>>>;

/// The element source behind a [`Drain`]; polled only by the loop's owner,
/// so it needs no synchronisation of its own.
pub trait Producer<T>: Send + 'static {
    /// Whether `poll_produce` uses the context's waker. When `false` the
    /// drain passes a no-op waker and spares one reference count per run.
    const NEEDS_WAKER: bool = false;

    /// Whether the drain may pull one element ahead of demand to learn that
    /// the stream has ended, so `on_complete` follows the last element
    /// without waiting for another `request`.
    const LOOKAHEAD: bool = false;

    /// The next signal. Called only while there is demand (or, with
    /// [`Producer::LOOKAHEAD`], to fill the one-element look-ahead).
    fn poll_produce(&mut self, cx: &mut Context<'_>) -> Emission<T>;

    /// [`Producer::poll_produce`], told that `demand` elements may be
    /// emitted now ([`UNBOUNDED`](demand::UNBOUNDED): no limit), so a
    /// producer behind a lock may take that many at once and serve the
    /// next calls without it. The drain calls this one.
    #[inline]
    fn poll_produce_within(&mut self, cx: &mut Context<'_>, demand: u64) -> Emission<T> {
        let _ = demand;
        self.poll_produce(cx)
    }

    /// Called when there is no demand: `Some(reason)` if the stream has
    /// ended (`None` reason = completed), without consuming an element.
    fn poll_terminal(&mut self) -> Option<Option<StreamError>> {
        None
    }
}

const CANCELLED: u8 = 1;
const BAD_REQUEST: u8 = 2;
const DONE: u8 = 4;
/// Streamlet `stop`: emit nothing (not even a terminal) until resumed.
const PAUSED: u8 = 8;
/// A pause happened since the current run began (even if it was resumed
/// since): the run's count of emitted elements belongs to the demand the
/// pause forgot, so it must not be charged against demand given after it.
const PAUSED_IN_RUN: u8 = 16;
const FINAL: u8 = CANCELLED | BAD_REQUEST | DONE;

/// Elements one run emits on a non-inline executor before it gives the
/// thread back and reschedules itself.
const BUDGET: u64 = 1024;

struct Live<T, P, S: ?Sized> {
    subscriber: Option<Box<S>>,
    producer: Option<P>,
    lookahead: Option<T>,
}

/// What [`Drain::try_claim`] got.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Claim {
    /// Someone else runs the loop (or it is not inline, or has no demand):
    /// hand the element over the usual way and wake the drain.
    Busy,
    /// The caller owns the loop and demand is there: the crate's processors
    /// and hot publishers take a lease on it and emit as its owner.
    Ready,
    /// The caller owns the loop but cannot emit now (demand was used up
    /// meanwhile, or a flag was set): hand the element over the usual way,
    /// then [`Drain::release`] the loop, which runs it if anything was
    /// signalled while it was held.
    Held,
}

enum Step {
    Idle,
    Finished,
    Yield,
}

/// One subscription: the demand counters, the subscriber, its producer and
/// the emission loop (see the [module docs](self)).
///
/// `S` is the subscriber's type. It is `dyn Subscriber<T>` unless a
/// publisher knows the concrete type (see
/// [`IterPublisher::subscribe_static`](crate::IterPublisher::subscribe_static)):
/// then the emission loop is compiled for that type and its `on_next` can
/// be inlined into it.
pub struct Drain<T, P, S: ?Sized = dyn Subscriber<T>> {
    me: Weak<Self>,
    wip: AtomicUsize,
    requested: AtomicU64,
    flags: AtomicU8,
    /// [`thread_mark`] of the thread running the emission loop, 0 when
    /// none is.
    owner: AtomicUsize,
    /// Demand the subscriber asked for from inside its own signals during
    /// the current run. Only the owner thread touches it (plain loads and
    /// stores, no read-modify-write): the owner folds it in before it
    /// decides there is no demand left.
    reentrant: AtomicU64,
    executor: Executor,
    live: Mutex<Live<T, P, S>>,
}

/// A number that tells the calling thread apart from every other live
/// thread: the address of a thread-local. Never 0.
#[inline]
pub(crate) fn thread_mark() -> usize {
    thread_local! {
        static MARK: u8 = const { 0 };
    }
    MARK.with(|mark| mark as *const u8 as usize)
}

/// Clears [`Drain::owner`] when the run ends, also when a signal panics:
/// a later `request` from the same thread must not be taken for a
/// re-entrant one.
pub(crate) struct OwnerMark<'a>(&'a AtomicUsize);

impl<'a> OwnerMark<'a> {
    #[inline]
    pub(crate) fn set(owner: &'a AtomicUsize) -> Self {
        owner.store(thread_mark(), Ordering::Relaxed);
        OwnerMark(owner)
    }
}

impl Drop for OwnerMark<'_> {
    #[inline]
    fn drop(&mut self) {
        self.0.store(0, Ordering::Relaxed);
    }
}

/// Subscribes `subscriber` to `producer`: calls `on_subscribe` with the
/// drain as subscription, then emits as demand arrives.
///
/// `subscriber` is usually a `Box<dyn Subscriber<T>>`; a box of a concrete
/// type gets an emission loop compiled for that type (same semantics).
pub fn subscribe<T, P, S>(subscriber: Box<S>, producer: P, executor: Executor)
where
    T: Send + 'static,
    P: Producer<T>,
    S: Subscriber<T> + ?Sized + 'static,
{
    let drain = Drain::new(producer, executor);
    let subscription: Arc<dyn Subscription> = drain.clone();
    drain.start(subscriber, subscription);
}

impl<T, P, S> Drain<T, P, S>
where
    T: Send + 'static,
    P: Producer<T>,
    S: Subscriber<T> + ?Sized + 'static,
{
    /// A drain that has not started yet: signals before
    /// [`Drain::start`] are recorded and acted on once it has.
    pub fn new(producer: P, executor: Executor) -> Arc<Self> {
        Arc::new_cyclic(|me| Drain {
            me: me.clone(),
            // The starter owns the loop until the subscriber is in place.
            wip: AtomicUsize::new(1),
            requested: AtomicU64::new(0),
            flags: AtomicU8::new(0),
            owner: AtomicUsize::new(0),
            reentrant: AtomicU64::new(0),
            executor,
            live: Mutex::new(Live {
                subscriber: None,
                producer: Some(producer),
                lookahead: None,
            }),
        })
    }

    /// Calls `on_subscribe(subscription)` on `subscriber`, then starts
    /// emitting. `subscription` is usually the drain itself, or a wrapper
    /// that forwards to it.
    pub fn start(&self, mut subscriber: Box<S>, subscription: Arc<dyn Subscription>) {
        subscriber.on_subscribe(subscription);
        self.live.lock().subscriber = Some(subscriber);
        if self.is_finished() {
            // Cancelled (or request(0)) inside on_subscribe: settle it now.
            self.drain(1);
        } else {
            self.run(1);
        }
    }

    /// A waker that makes the drain poll its producer again.
    pub fn waker(&self) -> Waker {
        match self.me.upgrade() {
            Some(me) => Waker::from(me),
            None => futures::task::noop_waker(),
        }
    }

    /// Asks the owner to run the loop again (e.g. new data arrived).
    pub fn signal(&self) {
        if self.wip.fetch_add(1, Ordering::AcqRel) == 0 {
            self.run(1);
        }
    }

    /// Whether the subscription was cancelled or has terminated.
    pub fn is_finished(&self) -> bool {
        self.flags.load(Ordering::Acquire) & FINAL != 0
    }

    /// Stops emitting (elements and terminal alike) and forgets pending
    /// demand, until [`Drain::resume`]. Used for Streamlet `stop`. From a
    /// thread other than the one running the loop, it returns only once a
    /// run in flight has ended, so nothing is emitted after it returns.
    pub fn pause(&self) {
        self.flags
            .fetch_or(PAUSED | PAUSED_IN_RUN, Ordering::AcqRel);
        self.requested.store(0, Ordering::Release);
        if self.owner.load(Ordering::Relaxed) == thread_mark() {
            // Stopped from inside a signal: forget what was asked for in
            // this run too.
            self.reentrant.store(0, Ordering::Relaxed);
        } else {
            // A run on another thread may have looked at the flags just
            // before they changed and be about to emit. Wait for that run
            // to end (it stops at its next look), so that nothing begins
            // once `stop` has returned (Streamlet rule 2). The run holds
            // `live` only while it emits; no signal of this drain is made
            // on this thread, so the wait cannot be on ourselves.
            drop(self.live.lock());
        }
    }

    /// Undoes [`Drain::pause`].
    pub fn resume(&self) {
        if self.flags.fetch_and(!PAUSED, Ordering::AcqRel) & PAUSED != 0 {
            self.signal();
        }
    }

    /// Whether the drain is paused.
    pub fn is_paused(&self) -> bool {
        self.flags.load(Ordering::Acquire) & PAUSED != 0
    }

    /// The first half of a synchronous hand-off: takes the emission loop
    /// for the caller if nobody runs it. Only on an inline executor
    /// (elsewhere the loop runs on the executor, not on the caller's
    /// thread), and never when no demand is left or a flag is set. Never
    /// blocks and never runs the loop, so the caller may hold a lock.
    ///
    /// Meant for a hot producer that has one element ready while its own
    /// queue for this drain is empty and cannot fill meanwhile (it checks
    /// under its lock): while the caller owns the loop nothing is emitted,
    /// so demand can only grow and the subscriber cannot go away.
    pub fn try_claim(&self) -> Claim {
        if P::LOOKAHEAD
            || !self.executor.is_inline()
            || self.flags.load(Ordering::Relaxed) != 0
            || self.requested.load(Ordering::Relaxed) == 0
            || self
                .wip
                .compare_exchange(0, 1, Ordering::Acquire, Ordering::Relaxed)
                .is_err()
        {
            return Claim::Busy;
        }
        // Looked at again as the owner: the last owner may have settled
        // its demand after the look above.
        if self.flags.load(Ordering::Acquire) != 0 || self.requested.load(Ordering::Acquire) == 0 {
            return Claim::Held;
        }
        Claim::Ready
    }

    /// Gives back the loop [`Drain::try_claim`] took, running it first if
    /// anything was signalled meanwhile (demand, a cancel, a wake-up).
    pub fn release(&self) {
        let left = self.wip.fetch_sub(1, Ordering::AcqRel) - 1;
        if left != 0 {
            self.run(left);
        }
    }

    fn run(&self, missed: usize) {
        if self.executor.is_inline() {
            self.drain(missed);
        } else if let Some(me) = self.me.upgrade() {
            self.executor.execute(move || me.drain(missed));
        }
    }

    fn drain(&self, mut missed: usize) {
        let waker = if P::NEEDS_WAKER {
            self.waker()
        } else {
            futures::task::noop_waker()
        };
        let mut cx = Context::from_waker(&waker);
        let budget = if self.executor.is_inline() {
            u64::MAX
        } else {
            BUDGET
        };
        let mut graveyard = None;
        let mut live = self.live.lock();
        loop {
            if live.subscriber.is_some() {
                match self.emit(&mut live, &mut cx, budget) {
                    Step::Idle => {}
                    Step::Finished => {
                        self.flags.fetch_or(DONE, Ordering::AcqRel);
                        graveyard = Some((
                            live.subscriber.take(),
                            live.producer.take(),
                            live.lookahead.take(),
                        ));
                    }
                    Step::Yield => {
                        drop(live);
                        // Keep ownership (wip stays > 0) and continue later.
                        if let Some(me) = self.me.upgrade() {
                            self.executor.execute(move || me.drain(missed));
                        }
                        return;
                    }
                }
            }
            let left = self.wip.fetch_sub(missed, Ordering::AcqRel) - missed;
            if left == 0 {
                break;
            }
            missed = left;
        }
        drop(live);
        // The subscriber is dropped outside the lock: its `Drop` may cancel.
        drop(graveyard);
    }

    fn emit(&self, live: &mut Live<T, P, S>, cx: &mut Context<'_>, budget: u64) -> Step {
        let Live {
            subscriber,
            producer,
            lookahead,
        } = live;
        let (Some(subscriber), true) = (subscriber.as_mut(), producer.is_some()) else {
            return Step::Finished;
        };
        self.emit_run(&mut **subscriber, producer, lookahead, cx, budget)
    }

    /// One run of the emission loop: reads demand, hands bursts of
    /// elements to [`emit_burst`], signals the end, and settles demand
    /// once at the end of the run. While it runs, the drain is marked as
    /// owned by this thread, so that `request` from inside the
    /// subscriber's signals is recorded without an atomic
    /// read-modify-write.
    #[inline(never)]
    fn emit_run(
        &self,
        subscriber: &mut S,
        slot: &mut Option<P>,
        lookahead: &mut Option<T>,
        cx: &mut Context<'_>,
        budget: u64,
    ) -> Step {
        if self.flags.load(Ordering::Relaxed) & PAUSED_IN_RUN != 0 {
            self.flags.fetch_and(!PAUSED_IN_RUN, Ordering::AcqRel);
        }
        let mark = OwnerMark::set(&self.owner);
        self.reentrant.store(0, Ordering::Relaxed);
        let mut shared = self.requested.load(Ordering::Acquire);
        let mut requested = shared;
        let mut emitted: u64 = 0;
        let step = loop {
            let flags = self.flags.load(Ordering::Acquire);
            if flags != 0 {
                if flags & (CANCELLED | DONE) != 0 {
                    break Step::Finished;
                }
                if flags & BAD_REQUEST != 0 {
                    subscriber.on_error(StreamError::illegal_demand(0));
                    break Step::Finished;
                }
                break Step::Idle; // paused
            }
            // `>`: a burst may have emitted demand it folded in itself.
            if emitted >= requested {
                shared = self.requested.load(Ordering::Acquire);
                let reentrant = self.reentrant.load(Ordering::Relaxed);
                requested = demand::add(shared, reentrant);
                if emitted == requested {
                    let producer = slot.as_mut().expect("the producer is back after a burst");
                    if let Some(reason) = producer.poll_terminal() {
                        finish(subscriber, reason);
                        break Step::Finished;
                    }
                    if P::LOOKAHEAD && lookahead.is_none() {
                        match producer.poll_produce(cx) {
                            Poll::Ready(Some(Ok(element))) => *lookahead = Some(element),
                            Poll::Ready(Some(Err(error))) => {
                                subscriber.on_error(error);
                                break Step::Finished;
                            }
                            Poll::Ready(None) => {
                                subscriber.on_complete();
                                break Step::Finished;
                            }
                            Poll::Pending => {}
                        }
                    }
                    break Step::Idle;
                }
            }
            if emitted >= budget {
                break Step::Yield;
            }
            // The look-ahead is only ever filled when a run goes idle, so
            // it goes first and the burst below never looks at it.
            if let Some(element) = lookahead.take() {
                subscriber.on_next(element);
                emitted += 1;
                continue;
            }
            let unbounded = demand::is_unbounded(requested);
            let burst = if unbounded {
                budget - emitted
            } else {
                (requested - emitted).min(budget - emitted)
            };
            let producer = slot.take().expect("the producer is back after a burst");
            let topup = Topup {
                reentrant: &self.reentrant,
                shared,
                emitted,
                budget,
            };
            let (producer, sent, end) = emit_bursts(
                subscriber,
                producer,
                cx,
                &self.flags,
                burst,
                unbounded,
                topup,
            );
            *slot = Some(producer);
            emitted += sent;
            match end {
                None => {}
                Some(Poll::Ready(Some(Ok(_)))) => unreachable!("a burst ends on a non-element"),
                Some(Poll::Ready(Some(Err(error)))) => {
                    subscriber.on_error(error);
                    break Step::Finished;
                }
                Some(Poll::Ready(None)) => {
                    subscriber.on_complete();
                    break Step::Finished;
                }
                Some(Poll::Pending) => break Step::Idle,
            }
        };
        drop(mark);
        // Settle: what others asked for, plus what the subscriber asked for
        // from inside its signals, minus what was emitted.
        let late = self.reentrant.load(Ordering::Relaxed);
        let charged = if self.flags.load(Ordering::Acquire) & PAUSED_IN_RUN != 0 {
            0
        } else {
            emitted
        };
        if (charged > 0 && !demand::is_unbounded(shared)) || late > 0 {
            let _ = self
                .requested
                .fetch_update(Ordering::AcqRel, Ordering::Acquire, |pending| {
                    Some(demand::fulfil(demand::add(pending, late), charged))
                });
        }
        step
    }
}

/// Demand a run may add to a burst: what the subscriber asked for from
/// inside its signals (the usual refill, a plain store: see
/// [`Drain::request`]) since the run last looked, within the run's budget.
#[derive(Clone, Copy)]
struct Topup<'a> {
    reentrant: &'a AtomicU64,
    /// `requested` as of the run's last look.
    shared: u64,
    /// Elements the run emitted before the burst.
    emitted: u64,
    budget: u64,
}

impl Topup<'_> {
    /// Elements the burst may emit in all, as of now.
    #[inline]
    fn allowed(&self) -> u64 {
        let requested = demand::add(self.shared, self.reentrant.load(Ordering::Relaxed));
        let cap = if demand::is_unbounded(requested) {
            self.budget
        } else {
            requested.min(self.budget)
        };
        cap.saturating_sub(self.emitted)
    }
}

/// Emits `burst` elements (all covered by demand and budget) with
/// [`emit_burst`], and then, while the subscriber's `request`s from inside
/// `on_next` allow, more, without going back to the run: a refilling
/// subscriber costs one look at `reentrant` per burst, not a trip through
/// the run's bookkeeping. Returns what [`emit_burst`] returns, summed.
fn emit_bursts<T, P, S>(
    subscriber: &mut S,
    mut producer: P,
    cx: &mut Context<'_>,
    flags: &AtomicU8,
    burst: u64,
    unbounded: bool,
    topup: Topup<'_>,
) -> (P, u64, Option<Emission<T>>)
where
    P: Producer<T>,
    S: Subscriber<T> + ?Sized,
{
    let mut sent = 0;
    let mut allowed = burst;
    loop {
        let (back, count, end) =
            emit_burst(subscriber, producer, cx, flags, allowed - sent, unbounded);
        producer = back;
        sent += count;
        if end.is_some() || unbounded || flags.load(Ordering::Relaxed) != 0 {
            return (producer, sent, end);
        }
        allowed = topup.allowed();
        if allowed <= sent {
            return (producer, sent, None);
        }
    }
}

/// Emits up to `burst` elements (all covered by demand and budget) and
/// returns how many it sent, plus the producer's answer that stopped it
/// early (an end, a failure or `Pending`), if any. `flags` is looked at after
/// every element: one plain `Relaxed` load (the caller re-reads it with
/// `Acquire` before it acts on it).
///
/// Kept out of line so that the hot loop is compiled on its own: with only
/// its few values live, the producer's and subscriber's state stay in
/// registers instead of competing with the rest of the run's bookkeeping.
#[inline(never)]
fn emit_burst<T, P, S>(
    subscriber: &mut S,
    mut producer: P,
    cx: &mut Context<'_>,
    flags: &AtomicU8,
    burst: u64,
    unbounded: bool,
) -> (P, u64, Option<Emission<T>>)
where
    P: Producer<T>,
    S: Subscriber<T> + ?Sized,
{
    let within = |left: u64| if unbounded { demand::UNBOUNDED } else { left };
    let mut left = burst;
    // Two elements per turn, each looked at exactly as alone: half the
    // loop's own bookkeeping (count, jump back) per element. Written out:
    // a per-element helper in a `for` over the turn compiled to a slower
    // loop, and four or eight per turn made the larger loops of other
    // producers (a fused filter, a processor's stage) spill (issue 18,
    // docs/performance-history.md).
    while left >= 2 {
        // The producer's answer is taken apart before `on_next`, so no part
        // of it (nor its drop) lives across the subscriber's call.
        let element = match producer.poll_produce_within(cx, within(left)) {
            Poll::Ready(Some(Ok(element))) => element,
            other => return (producer, burst - left, Some(other)),
        };
        subscriber.on_next(element);
        if flags.load(Ordering::Relaxed) != 0 {
            return (producer, burst - left + 1, None);
        }
        let element = match producer.poll_produce_within(cx, within(left - 1)) {
            Poll::Ready(Some(Ok(element))) => element,
            other => return (producer, burst - left + 1, Some(other)),
        };
        subscriber.on_next(element);
        left -= 2;
        if flags.load(Ordering::Relaxed) != 0 {
            return (producer, burst - left, None);
        }
    }
    if left == 1 {
        let element = match producer.poll_produce_within(cx, within(1)) {
            Poll::Ready(Some(Ok(element))) => element,
            other => return (producer, burst - 1, Some(other)),
        };
        subscriber.on_next(element);
    }
    (producer, burst, None)
}

fn finish<T, S: Subscriber<T> + ?Sized>(subscriber: &mut S, reason: Option<StreamError>) {
    match reason {
        Some(error) => subscriber.on_error(error),
        None => subscriber.on_complete(),
    }
}

impl<T, P, S> Subscription for Drain<T, P, S>
where
    T: Send + 'static,
    P: Producer<T>,
    S: Subscriber<T> + ?Sized + 'static,
{
    fn request(&self, n: u64) {
        if n != 0 && self.owner.load(Ordering::Relaxed) == thread_mark() {
            // From inside one of this drain's own signals, on the thread
            // running its loop, which looks at demand again before it
            // stops: no read-modify-write, no wake-up (§3.3 trampoline).
            let pending = self.reentrant.load(Ordering::Relaxed);
            self.reentrant
                .store(demand::add(pending, n), Ordering::Relaxed);
            return;
        }
        if self.flags.load(Ordering::Acquire) & FINAL != 0 {
            return;
        }
        if n == 0 {
            self.flags.fetch_or(BAD_REQUEST, Ordering::AcqRel);
        } else {
            let _ = self
                .requested
                .fetch_update(Ordering::AcqRel, Ordering::Acquire, |pending| {
                    Some(demand::add(pending, n))
                });
        }
        self.signal();
    }

    fn cancel(&self) {
        if self.flags.fetch_or(CANCELLED, Ordering::AcqRel) & (CANCELLED | DONE) != 0 {
            return;
        }
        // Cleanup runs here, never on the executor: the subscriber is dropped
        // before `cancel` returns unless another thread owns the loop (then
        // that owner drops it as soon as its current signal returns).
        if self.wip.fetch_add(1, Ordering::AcqRel) == 0 {
            self.drain(1);
        }
    }
}

impl<T, P, S> Wake for Drain<T, P, S>
where
    T: Send + 'static,
    P: Producer<T>,
    S: Subscriber<T> + ?Sized + 'static,
{
    fn wake(self: Arc<Self>) {
        self.signal();
    }

    fn wake_by_ref(self: &Arc<Self>) {
        self.signal();
    }
}

/// A claim on a drain's emission loop kept across several elements, with
/// the subscriber taken out of the drain: the multicast hand-off of a
/// processor keeps one per idle downstream subscriber while upstream owes
/// it elements, and a `MulticastPublisher` parks one per idle subscriber
/// between pushes, so an element costs no lock, no read-modify-write and
/// no demand settlement per subscriber (see `processor::stage` and
/// `publisher::multicast`).
///
/// While it exists the lease owns the loop exactly as
/// [`Drain::try_claim`]'s [`Claim::Ready`] does: a `request` or `cancel`
/// from another thread only records its wish and bumps the
/// work-in-progress counter; a `request` from inside the subscriber's
/// `on_next` is the plain store the emission loop folds in. Demand is
/// counted in plain fields and settled once, when the lease ends (dropped),
/// which also gives the subscriber back and runs the loop for whatever
/// was signalled meanwhile (a `cancel` drops the subscriber there, a
/// `request(0)` sends its `on_error`).
pub(crate) struct Lease<T, P, S: ?Sized = dyn Subscriber<T>> {
    drain: Arc<Drain<T, P, S>>,
    subscriber: Option<Box<S>>,
    /// `requested` at the last look.
    shared: u64,
    /// Elements the lease may emit in total: `shared` plus what the
    /// subscriber asked for from inside its signals, as of the last look.
    allowed: u64,
    emitted: u64,
    /// [`Lease::end`], set where its bounds hold, so the struct and its
    /// `Drop` need none (a processor's handle keeps leases in a type
    /// without them).
    end: fn(&mut Self),
}

impl<T, P, S> Lease<T, P, S>
where
    T: Send + 'static,
    P: Producer<T>,
    S: Subscriber<T> + ?Sized + 'static,
{
    /// Turns the loop the caller owns ([`Claim::Ready`]) into a lease;
    /// `None` (the caller still owns the loop) if the drain has no
    /// subscriber in place, which the claim's contract rules out.
    pub(crate) fn take(drain: &Arc<Drain<T, P, S>>) -> Option<Self> {
        let subscriber = drain.live.lock().subscriber.take()?;
        drain.reentrant.store(0, Ordering::Relaxed);
        let shared = drain.requested.load(Ordering::Acquire);
        Some(Lease {
            drain: drain.clone(),
            subscriber: Some(subscriber),
            shared,
            allowed: shared,
            emitted: 0,
            end: Self::end,
        })
    }

    /// Whether one more element may be emitted now: no flag (cancel,
    /// `request(0)`) and demand left. Atomic loads only, so the caller may
    /// hold a lock.
    #[inline]
    pub(crate) fn ready(&mut self) -> bool {
        if self.drain.flags.load(Ordering::Acquire) != 0 {
            return false;
        }
        if self.emitted < self.allowed {
            return true;
        }
        self.shared = self.drain.requested.load(Ordering::Acquire);
        self.allowed = demand::add(self.shared, self.drain.reentrant.load(Ordering::Relaxed));
        self.emitted < self.allowed
    }

    /// Emits `element` (the caller saw [`Lease::ready`]), as the loop
    /// would: a `request` from inside `on_next` is recorded without a
    /// read-modify-write. Dropped instead if a flag was set since (e.g.
    /// an earlier subscriber's `on_next` cancelled this one).
    #[inline]
    pub(crate) fn emit(&mut self, element: T) {
        if self.drain.flags.load(Ordering::Acquire) != 0 {
            return;
        }
        let Some(subscriber) = self.subscriber.as_mut() else {
            return;
        };
        self.emitted += 1;
        let mark = OwnerMark::set(&self.drain.owner);
        subscriber.on_next(element);
        drop(mark);
    }
}

impl<T, P, S: ?Sized> Drop for Lease<T, P, S> {
    fn drop(&mut self) {
        (self.end)(self);
    }
}

impl<T, P, S> Lease<T, P, S>
where
    T: Send + 'static,
    P: Producer<T>,
    S: Subscriber<T> + ?Sized + 'static,
{
    /// Settles demand as the end of a run does, gives the subscriber back
    /// and releases the loop (running it if anything was signalled).
    fn end(&mut self) {
        let Some(subscriber) = self.subscriber.take() else {
            return;
        };
        let drain = &self.drain;
        let late = drain.reentrant.load(Ordering::Relaxed);
        drain.reentrant.store(0, Ordering::Relaxed);
        let charged = if drain.flags.load(Ordering::Acquire) & PAUSED_IN_RUN != 0 {
            0
        } else {
            self.emitted
        };
        if (charged > 0 && !demand::is_unbounded(self.shared)) || late > 0 {
            let _ = drain
                .requested
                .fetch_update(Ordering::AcqRel, Ordering::Acquire, |pending| {
                    Some(demand::fulfil(demand::add(pending, late), charged))
                });
        }
        drain.live.lock().subscriber = Some(subscriber);
        drain.release();
    }
}
