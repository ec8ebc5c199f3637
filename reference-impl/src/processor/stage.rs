//! The engine behind every processor: upstream demand bookkeeping plus a
//! hub of downstream subscribers.
//!
//! Each downstream subscriber `i` has a *room*: the elements it may still
//! receive without exceeding its demand plus the stage's buffer
//! (`requested_i + buffer - pushed_i`). Upstream is asked for
//! `min_i room_i - outstanding`, so every element that arrives fits every
//! subscriber, and upstream is never asked for more than the slowest
//! downstream demand plus the buffer. Calls on the upstream subscription
//! are serialised by a small trampoline (§2.7) and never made under a lock.
//!
//! Each downstream's queue lives in the stage's state, under the one lock
//! the bookkeeping takes anyway: an element costs one lock, not one for the
//! stage plus one for the subscriber's queue. Its drain takes from the
//! queue as many elements as its demand allows at once ([`StageProducer`]);
//! its [`Slot`] only carries the terminal signal and the wake-up.
//!
//! An element that finds a subscriber's queue empty and its drain idle
//! with demand left skips the queue: the drain is claimed under the lock
//! (its work-in-progress counter, see [`Drain::try_claim`]) and the
//! element handed to the subscriber right after the lock is released, by
//! the thread that delivered it, as the drain's owner (serial signals,
//! trampolined requests and cancellation work as in the drain's own
//! loop). That replaces queue, wake-up, and the drain's look at the queue
//! and the slot. Whoever finds the drain busy (a request from another
//! thread, or elements already queued) queues the element as before.
//!
//! The claim then outlives the element: the handle keeps it as a
//! [`Lease`] (the subscriber taken out of the drain, its demand counted in
//! plain fields) while upstream owes it another signal, which will come to
//! the same handle and either use the lease again or end it (see
//! [`HandOff`]'s `leases`). So the next elements cost no claim, no lock
//! and no demand settlement per subscriber.
//!
//! A subscriber joins under that lock too, seeded with copies of what the
//! fullest queue still holds: every queue is a suffix of the same sequence,
//! so the newcomer gets exactly the elements its slowest peer has not taken
//! yet (e.g. everything a [`BufferProcessor`](super::BufferProcessor)
//! prefetched before anybody asked), then the live ones, never a gap.
//! After completion the queues still holding elements are kept for the
//! same reason.
//!
//! The first subscriber of a stage without a buffer skips all of this
//! while it is the only one: the upstream-facing handle calls it directly
//! (see [`pass`]), paying no lock and no read-modify-write per element.

mod pass;

use std::collections::VecDeque;
use std::sync::atomic::{AtomicU8, AtomicU64, Ordering};
use std::sync::{Arc, Weak};
use std::task::{Context, Poll};

use parking_lot::{Mutex, MutexGuard};
use reactive_streams::{StreamError, Subscriber, Subscription, demand};

use crate::drain::{Claim, Drain, Emission, Lease, OwnerMark, Producer, thread_mark};
use crate::executor::Executor;
use crate::hub::{self, HubOwner, Terminal};
use crate::overflow::BoundedBuffer;
use crate::publisher::simple::{empty, reject};
use crate::slot::Slot;
use reactive_streams::Publisher;

pub(crate) struct Stage<R: Send + 'static> {
    me: Weak<Stage<R>>,
    buffer: u64,
    executor: Executor,
    next_id: AtomicU64,
    state: Mutex<State<R>>,
    /// Pass-through mode word ([`pass::OFF`], [`pass::ON`], [`pass::LEAVE`]):
    /// the one thing the handle looks at per element while passing through.
    pass_mode: AtomicU8,
    /// `State::pass`'s `granted`, for the handle's lock-free look.
    pass_granted: AtomicU64,
    /// The trampoline's thread and the pass-through subscriber's requests
    /// on it (see [`pass::PassCell`]), shared with its subscription.
    pass_cell: Arc<pass::PassCell>,
}

struct Downstream<R: Send + 'static> {
    id: u64,
    /// Elements for it not yet taken by its drain.
    queue: VecDeque<R>,
    /// Its terminal signal and wake-up (its buffer stays empty).
    slot: Arc<Slot<R>>,
    /// Its emission loop, for the synchronous hand-off (see [`HandOff`]).
    drain: Arc<StageDrain<R>>,
    /// Elements it may still receive within its demand plus the buffer.
    room: u64,
    /// Elements it received beyond that (it joined while elements were in
    /// flight, or was seeded): paid back by its next requests.
    debt: u64,
}

impl<R: Send + 'static> Downstream<R> {
    fn received(&mut self, n: u64) {
        if demand::is_unbounded(self.room) {
            return;
        }
        let within = n.min(self.room);
        self.room -= within;
        self.debt = self.debt.saturating_add(n - within);
    }

    fn granted(&mut self, n: u64) {
        let paid = n.min(self.debt);
        self.debt -= paid;
        self.room = demand::add(self.room, n - paid);
    }
}

struct State<R: Send + 'static> {
    upstream: Option<Arc<dyn Subscription>>,
    /// Requested from upstream and not yet received.
    outstanding: u64,
    downstreams: Vec<Downstream<R>>,
    terminal: Option<Terminal>,
    /// Upstream calls waiting for the trampoline.
    pending_request: u64,
    pending_cancel: bool,
    calling_upstream: bool,
    /// The pass-through subscriber (see [`pass`]), if any.
    pass: Option<pass::Pass<R>>,
    /// Pass-through was tried once (only the first subscriber gets it).
    pass_used: bool,
    /// The pass-through subscriber's subscription, also after it was handed
    /// back (demand it asked for on the trampoline's thread meanwhile goes
    /// to its delegate, see `pass::PassCell`).
    pass_subscription: Option<Arc<pass::PassSubscription<R>>>,
    /// The pass-through subscriber is being greeted: upstream calls wait.
    greeting: bool,
}

impl<R: Clone + Send + 'static> Stage<R> {
    pub(crate) fn new(buffer: u64, executor: Executor) -> Arc<Self> {
        Arc::new_cyclic(|me| Stage {
            me: me.clone(),
            buffer,
            executor,
            next_id: AtomicU64::new(0),
            state: Mutex::new(State {
                upstream: None,
                outstanding: 0,
                downstreams: Vec::new(),
                terminal: None,
                pending_request: 0,
                pending_cancel: false,
                calling_upstream: false,
                pass: None,
                pass_used: false,
                pass_subscription: None,
                greeting: false,
            }),
            pass_mode: AtomicU8::new(pass::OFF),
            pass_granted: AtomicU64::new(0),
            pass_cell: Arc::default(),
        })
    }

    // ---- upstream side (the Subscriber role) ----

    /// Upstream's subscription; `true` if accepted (the handle it came to
    /// is then the one that may pass elements through).
    pub(crate) fn on_subscribe(&self, subscription: Arc<dyn Subscription>) -> bool {
        let mut state = self.state.lock();
        if state.upstream.is_some() || state.terminal.is_some() {
            drop(state);
            // §2.5: a second subscription (or one after the end) is
            // cancelled.
            subscription.cancel();
            return false;
        }
        state.upstream = Some(subscription);
        self.replenish(&mut state);
        self.call_upstream_locked(state);
        true
    }

    /// An element from upstream, for every downstream subscriber.
    ///
    /// Queued under the lock (so a joining subscriber sees each element
    /// either in its seed or in its own queue, never in neither), except
    /// for a subscriber whose queue is empty and whose drain is idle with
    /// demand left: that drain is claimed under the lock and the element
    /// handed to its subscriber directly once the lock is released (the
    /// synchronous hand-off: no queue, no wake-up, no second look at the
    /// stage). Drains are woken or handed to outside the lock: an inline
    /// drain may call back into `request`/`cancel`, which take it. Only a
    /// drain whose queue was empty needs waking (otherwise it is taking
    /// from it, or waits for demand, whose arrival wakes it anyway), so a
    /// burst costs one wake-up.
    pub(crate) fn on_next(&self, element: R, hand_off: &mut HandOff<R>) {
        let HandOff {
            drains,
            plan,
            ready,
            leases,
            epoch,
            ..
        } = hand_off;
        let leases = leases.get_mut();
        let ready = ready.get_mut();
        plan.clear();
        ready.clear();
        *epoch = epoch.wrapping_add(1);
        let epoch = *epoch;
        // Leases are kept in subscriber order: the next one is looked at
        // first.
        let mut next = 0;
        let keep = {
            let mut state = self.state.lock();
            if state.terminal.is_some() {
                drop(state);
                leases.clear();
                return;
            }
            state.outstanding = demand::fulfil(state.outstanding, 1);
            let count = state.downstreams.len();
            drains.truncate(count);
            let mut element = Some(element);
            for (index, downstream) in state.downstreams.iter_mut().enumerate() {
                remember(drains, index, &downstream.drain);
                downstream.received(1);
                let copy = if index + 1 == count {
                    element
                        .take()
                        .expect("the last subscriber gets the original")
                } else {
                    element
                        .as_ref()
                        .expect("copies precede the original")
                        .clone()
                };
                let at = match leases.get(next) {
                    Some(leased) if leased.id == downstream.id => Some(next),
                    _ => leases.iter().position(|l| l.id == downstream.id),
                };
                if let Some(at) = at {
                    next = at + 1;
                    let leased = &mut leases[at];
                    if downstream.queue.is_empty() && leased.lease.ready() {
                        leased.seen = epoch;
                        leased.order = index;
                        ready.push((Target::Leased(at), copy));
                    } else {
                        // No demand left (or elements queued by someone
                        // else): the drain takes over, the lease ends below.
                        downstream.queue.push_back(copy);
                    }
                    continue;
                }
                if !downstream.queue.is_empty() {
                    downstream.queue.push_back(copy);
                    continue;
                }
                match downstream.drain.try_claim() {
                    Claim::Ready => ready.push((Target::Claimed(index, downstream.id), copy)),
                    claim => {
                        downstream.queue.push_back(copy);
                        plan.push((index, claim));
                    }
                }
            }
            // Leases outlive this call only while upstream owes another
            // signal, which will come to this handle and end them if need
            // be (see `HandOff::leases`).
            state.outstanding > 0 && count > 0
        };
        for &(index, claim) in plan.iter() {
            match claim {
                Claim::Held => drains[index].release(),
                _ => drains[index].signal(),
            }
        }
        // Hand-offs last, in subscriber order: each runs a subscriber's
        // code, which may subscribe, cancel or request.
        let before = leases.len();
        for (target, element) in ready.drain(..) {
            match target {
                Target::Leased(at) => leases[at].lease.emit(element),
                Target::Claimed(index, id) => {
                    // `Claim::Ready` moved the drain's work-in-progress
                    // count from 0 to 1 under the lock: no loop run and no
                    // lease holds its subscriber, `Drain::new` keeps it at
                    // 1 until `start` has put the subscriber in place, and
                    // a finished drain keeps the flag both looks of
                    // `Drain::try_claim` see. So the subscriber is there.
                    let mut lease = Lease::take(&drains[index])
                        .expect("a drain claimed Ready holds its subscriber");
                    lease.emit(element);
                    leases.push(Leased {
                        id,
                        seen: epoch,
                        order: index,
                        lease,
                    });
                }
            }
        }
        if leases.len() != before {
            leases.sort_by_key(|l| l.order);
        }
        if keep {
            // Ending a lease gives the subscriber back to its drain and
            // runs it (the subscriber left, or its demand ran out).
            leases.retain(|l| l.seen == epoch);
        } else {
            leases.clear();
        }
    }

    /// An element the operator discarded: ask upstream for a replacement.
    pub(crate) fn on_discard(&self, hand_off: &mut HandOff<R>) {
        let mut state = self.state.lock();
        if state.terminal.is_some() {
            return;
        }
        state.outstanding = demand::fulfil(state.outstanding, 1);
        self.replenish(&mut state);
        let owed = state.outstanding > 0;
        self.call_upstream_locked(state);
        if !owed {
            // Upstream owes this handle nothing: no signal would come to
            // end the leases (see `HandOff::leases`).
            hand_off.leases.get_mut().clear();
        }
    }

    pub(crate) fn on_terminal(&self, reason: Option<StreamError>, hand_off: &mut HandOff<R>) {
        // No more hand-offs: let go of the drains and end the leases (their
        // drains then see the terminal below like any other).
        hand_off.drains.clear();
        hand_off.leases.get_mut().clear();
        // Dropped elements leave after the lock is released: dropping one
        // may run user code (e.g. a datum-done callback) that calls back.
        let (wake, dropped, passed): (Vec<Arc<Slot<R>>>, Vec<Downstream<R>>, _) = {
            let mut state = self.state.lock();
            let passed = self.pass_terminal(&mut state, &reason, hand_off);
            if state.terminal.is_some() {
                drop(state);
                passed.run();
                return;
            }
            state.terminal = Some(match &reason {
                None => Terminal::Completed,
                Some(error) => Terminal::Failed(error.clone()),
            });
            state.upstream = None;
            let ended = std::mem::take(&mut state.downstreams);
            let wake = ended
                .iter()
                .filter(|d| d.slot.end(reason.clone()))
                .map(|d| d.slot.clone())
                .collect();
            let mut dropped = ended;
            if reason.is_none() {
                // Kept for late subscribers: what they still hold is
                // theirs too (see the module docs).
                let (kept, gone) = dropped.into_iter().partition(|d| !d.queue.is_empty());
                state.downstreams = kept;
                dropped = gone;
            }
            (wake, dropped, passed)
        };
        passed.run();
        drop(dropped);
        for slot in wake {
            slot.poke();
        }
    }

    // ---- downstream side (the Publisher role) ----

    pub(crate) fn subscribe(&self, subscriber: Box<dyn Subscriber<R>>) {
        let id = self.next_id.fetch_add(1, Ordering::Relaxed);
        let Some(me) = self.me.upgrade() else {
            return;
        };
        let slot = Slot::new(BoundedBuffer::unbounded());
        let drain: Arc<StageDrain<R>> = Drain::new(
            StageProducer {
                stage: me.clone(),
                slot: slot.clone(),
                id,
                taken: VecDeque::new(),
            },
            self.executor.clone(),
        );
        slot.set_waker(drain.waker());
        let after = {
            let mut state = self.state.lock();
            let completed = match &state.terminal {
                None => false,
                Some(Terminal::Completed) => true,
                Some(terminal) => {
                    let reason = terminal.reason();
                    drop(state);
                    match reason {
                        Some(error) => reject(subscriber, error),
                        None => empty().subscribe(subscriber),
                    }
                    return;
                }
            };
            if !completed && self.may_pass(&state) {
                let subscription = self.begin_passing(&mut state, id);
                drop(state);
                self.greet_passing(subscriber, subscription);
                return;
            }
            if completed {
                state.downstreams.retain(|d| !d.queue.is_empty());
            }
            let seed: VecDeque<R> = state
                .downstreams
                .iter()
                .max_by_key(|d| d.queue.len())
                .map(|d| d.queue.clone())
                .unwrap_or_default();
            if completed && seed.is_empty() {
                drop(state);
                empty().subscribe(subscriber);
                return;
            }
            let mut downstream = Downstream {
                id,
                slot,
                drain: drain.clone(),
                room: self.buffer,
                debt: 0,
                queue: VecDeque::new(),
            };
            downstream.received(seed.len() as u64);
            downstream.queue = seed;
            if completed {
                downstream.slot.end(None);
            }
            state.downstreams.push(downstream);
            // The pass-through subscriber, if any, goes back to the queued
            // path (multicast at the slowest pace).
            let after = self.leave_for_second(&mut state);
            self.replenish(&mut state);
            after
        };
        after.run();
        self.call_upstream();
        hub::start(id, drain, me, subscriber);
    }

    /// Moves the first element of downstream `id`'s queue, and up to
    /// `demand - 1` more into `taken`; `None` if its queue is empty (or it
    /// is gone).
    fn take(&self, id: u64, demand: u64, taken: &mut VecDeque<R>) -> Option<R> {
        let mut state = self.state.lock();
        let downstream = state.downstreams.iter_mut().find(|d| d.id == id)?;
        let first = downstream.queue.pop_front()?;
        let more = usize::try_from(demand - 1)
            .unwrap_or(usize::MAX)
            .min(downstream.queue.len());
        taken.extend(downstream.queue.drain(..more));
        Some(first)
    }

    fn is_drained(&self, id: u64) -> bool {
        let state = self.state.lock();
        !state
            .downstreams
            .iter()
            .any(|d| d.id == id && !d.queue.is_empty())
    }

    // ---- demand ----

    fn replenish(&self, state: &mut State<R>) {
        // While passing through, upstream demand is downstream's own
        // (forwarded by `pass_request`); the queued subscribers that
        // arrived meanwhile wait for the hand-back to settle it.
        if state.terminal.is_some() || state.upstream.is_none() || state.pass.is_some() {
            return;
        }
        let Some(min_room) = state.downstreams.iter().map(|d| d.room).min() else {
            return;
        };
        if demand::is_unbounded(state.outstanding) {
            return;
        }
        let n = if demand::is_unbounded(min_room) {
            demand::UNBOUNDED
        } else if min_room > state.outstanding {
            min_room - state.outstanding
        } else {
            return;
        };
        state.outstanding = demand::add(state.outstanding, n);
        state.pending_request = demand::add(state.pending_request, n);
    }

    /// The trampoline: whoever finds it idle calls upstream until nothing is
    /// pending; re-entrant or concurrent callers only leave work for it.
    fn call_upstream(&self) {
        self.call_upstream_locked(self.state.lock());
    }

    /// [`Stage::call_upstream`] with the lock already taken (the usual
    /// case: after bookkeeping that may have left work), so nothing pending
    /// costs no second lock.
    ///
    /// While it calls, its thread is marked as the trampoline's (in
    /// [`pass::PassCell`]): a pass-through subscriber's `request` on that
    /// thread, made from inside upstream's delivery, is a plain store that
    /// the handle forwards itself from inside `on_next`, or else this loop
    /// when its call returns.
    fn call_upstream_locked<'a>(&'a self, mut state: MutexGuard<'a, State<R>>) {
        if state.calling_upstream
            && state.pending_cancel
            && self.pass_cell.owner.load(Ordering::Relaxed) == thread_mark()
        {
            // A `cancel` on the trampoline's own thread: it is inside the
            // trampoline's call on upstream (a synchronous upstream
            // delivering from inside it), which may not return until
            // upstream hears of the cancel (unbounded demand). Cancelled
            // from here, nested in that call: serial with every other
            // (§2.7), as a subscriber's `cancel` from inside `on_next` is.
            state.pending_cancel = false;
            let upstream = state.upstream.take();
            drop(state);
            if let Some(upstream) = upstream {
                upstream.cancel();
            }
            return;
        }
        if state.calling_upstream
            || state.greeting
            || (state.pending_request == 0 && !state.pending_cancel)
        {
            return;
        }
        state.calling_upstream = true;
        let mark = OwnerMark::set(&self.pass_cell.owner);
        loop {
            let Some(upstream) = state.upstream.clone() else {
                // Demand a pass-through subscriber asked for before
                // upstream arrived waits for it (`on_subscribe` calls
                // again); after the end it is void.
                if state.terminal.is_some() {
                    state.pending_request = 0;
                }
                state.pending_cancel = false;
                break;
            };
            let cancel = std::mem::take(&mut state.pending_cancel);
            let n = std::mem::take(&mut state.pending_request);
            if !cancel && n == 0 {
                break;
            }
            if cancel {
                state.upstream = None;
            }
            drop(state);
            if cancel {
                upstream.cancel();
            } else {
                upstream.request(n);
            }
            drop(upstream);
            state = self.state.lock();
            // What the pass-through subscriber asked for meanwhile on this
            // thread and the handle did not forward.
            let reentrant = self.pass_cell.take();
            if reentrant > 0 {
                if let Some(delegate) = self.pass_requested(&mut state, reentrant) {
                    drop(state);
                    delegate.request(reentrant);
                    state = self.state.lock();
                }
            }
            if state.greeting {
                break;
            }
        }
        drop(mark);
        state.calling_upstream = false;
    }
}

impl<R: Clone + Send + 'static> HubOwner for Stage<R> {
    fn requested(&self, id: u64, n: u64) {
        let mut state = self.state.lock();
        let Some(downstream) = state.downstreams.iter_mut().find(|d| d.id == id) else {
            return;
        };
        downstream.granted(n);
        self.replenish(&mut state);
        self.call_upstream_locked(state);
    }

    fn left(&self, id: u64) {
        let _gone = {
            let mut state = self.state.lock();
            let Some(index) = state.downstreams.iter().position(|d| d.id == id) else {
                return;
            };
            // Its queued elements are dropped after the lock is released
            // (see `on_terminal`).
            let gone = state.downstreams.remove(index);
            // Its drain may be mid-emission on another thread (cancel only
            // flags it): closing the slot keeps that drain from reading the
            // missing queue as "drained" and the stream's end into it.
            gone.slot.close();
            if state.terminal.is_some() {
                drop(state);
                drop(gone);
                return;
            }
            if state.downstreams.is_empty() && state.pass.is_none() {
                // The last subscriber left: cancel upstream (and refuse
                // later subscribers, the stream is gone).
                state.terminal = Some(Terminal::Cancelled);
                state.pending_cancel = true;
            } else {
                self.replenish(&mut state);
            }
            gone
        };
        self.call_upstream();
    }
}

/// What a downstream drain reads: its queue in the stage, its terminal in
/// its slot. It takes as many elements as the drain may emit at once
/// (never more: what it took will be delivered, so a newcomer's seed still
/// holds every element not yet taken) and serves them without the lock;
/// an error still overtakes the elements taken.
pub(crate) struct StageProducer<R: Send + 'static> {
    stage: Arc<Stage<R>>,
    slot: Arc<Slot<R>>,
    id: u64,
    taken: VecDeque<R>,
}

impl<R: Clone + Send + 'static> Producer<R> for StageProducer<R> {
    fn poll_produce(&mut self, cx: &mut Context<'_>) -> Emission<R> {
        self.poll_produce_within(cx, 1)
    }

    #[inline]
    fn poll_produce_within(&mut self, _: &mut Context<'_>, demand: u64) -> Emission<R> {
        if self.slot.is_closed() {
            // The subscriber left (see `left`): its drain is cancelled and
            // finishes at its next look at its flags; nothing more for it.
            return Poll::Pending;
        }
        if !self.taken.is_empty() {
            if !self.slot.is_failing() {
                return Poll::Ready(self.taken.pop_front().map(Ok));
            }
            self.taken.clear();
        }
        // The terminal first: completion is marked after the last element
        // was queued, so an empty queue seen afterwards is really the end.
        let completed = match self.slot.ending() {
            Err(error) => return Poll::Ready(Some(Err(error))),
            Ok(completed) => completed,
        };
        match self.stage.take(self.id, demand, &mut self.taken) {
            Some(element) => Poll::Ready(Some(Ok(element))),
            // Looked at after `take`: a subscriber that left between the
            // check at the top and `take` has no queue any more, which
            // is not the end of its stream (`left` closes the slot under
            // the lock `take` takes, so this sees it).
            None if completed && !self.slot.is_closed() => Poll::Ready(None),
            None => Poll::Pending,
        }
    }

    fn poll_terminal(&mut self) -> Option<Option<StreamError>> {
        match self.slot.ending() {
            Err(error) => {
                self.taken.clear();
                Some(Some(error))
            }
            // Closed is looked at after `is_drained`, for the reason given
            // in `poll_produce_within`.
            Ok(true)
                if self.taken.is_empty()
                    && self.stage.is_drained(self.id)
                    && !self.slot.is_closed() =>
            {
                Some(None)
            }
            Ok(_) => None,
        }
    }
}

impl<R: Send + 'static> Drop for StageProducer<R> {
    fn drop(&mut self) {
        self.slot.close();
    }
}

/// The drain of one downstream subscriber.
pub(crate) type StageDrain<R> = Drain<R, StageProducer<R>>;

/// What the upstream side of a processor keeps between elements for the
/// synchronous hand-off of [`Stage::on_next`]: the downstream drains as of
/// the last element (so handing one an element costs no reference count)
/// and scratch lists reused from element to element (so it costs no
/// allocation). Each processor handle has its own; upstream signals reach
/// one handle serially (§1.3), which is what makes it plain `&mut` state.
pub(crate) struct HandOff<R: Send + 'static> {
    drains: Vec<Arc<StageDrain<R>>>,
    /// Drains to wake ([`Claim::Busy`]) or give back ([`Claim::Held`]).
    plan: Vec<(usize, Claim)>,
    /// Elements to hand over: the drain's index, its subscriber's id. In a
    /// mutex only so that the handle is `Sync` without `R: Sync`; it is
    /// only ever reached through `&mut` (`get_mut`, no locking).
    ready: Mutex<Vec<(Target, R)>>,
    /// The drains this handle holds the emission loop of between elements,
    /// in subscriber order (see [`Lease`]): a subscriber that was idle with
    /// demand when an element came stays leased while upstream owes this
    /// handle another signal, so the next elements go to it with no lock,
    /// no read-modify-write and no demand settlement of its own. A lease
    /// ends at the first element it cannot take (no demand left, the
    /// subscriber cancelled, sent `request(0)` or left), when upstream owes
    /// nothing more, at upstream's terminal signal, or when upstream drops
    /// the handle. A `cancel` or `request(0)` from another thread while
    /// the subscriber is leased is acted on there (§3.13, §3.9), as for a
    /// pass-through subscriber. In a mutex only for `Sync` (like `ready`).
    leases: Mutex<Vec<Leased<R>>>,
    /// Counts the elements of [`Stage::on_next`], to tell the leases that
    /// took the current one.
    epoch: u64,
    /// Upstream's subscription came to this handle (so it may pass through).
    accepted: bool,
    /// That subscription, for the requests this handle forwards itself
    /// (see [`pass`]).
    upstream: Option<Arc<dyn Subscription>>,
    /// The pass-through subscriber, while this handle holds it (in a mutex
    /// only for `Sync`, reached through `&mut` alone, like `ready`).
    downstream: Mutex<Option<Box<dyn Subscriber<R>>>>,
    /// Elements received from upstream while passing through, in total;
    /// of those, dropped by the operator (a filter) in total, and dropped
    /// not yet replaced. Delivered = received − discarded, so an element
    /// that passes costs one count, not two.
    received: u64,
    discarded: u64,
    dropped: u64,
    /// `Stage::pass_granted` plus `direct_granted` as of the handle's last
    /// look: while `received` is below it, upstream owes more and the
    /// element needs no look at the stage after delivery (granted only
    /// grows).
    granted: u64,
    /// Demand this handle asked upstream for itself, without the lock,
    /// not yet added to the stage's record (`Pass::granted`; of it, what
    /// the subscriber asked for: `Pass::requested`). Added at the next
    /// transition, which the handle always takes part in (see [`pass`]).
    direct_granted: u64,
    direct_requested: u64,
    /// The pass-through subscriber's id, while this handle holds it.
    pass_id: u64,
    /// Where `downstream` goes if this handle is dropped holding it.
    home: Option<Arc<dyn pass::PassHome<R>>>,
}

impl<R: Clone + Send + 'static> HandOff<R> {
    /// Upstream's `on_subscribe` on this handle: the stage accepts the
    /// first subscription, and the handle it came to may pass through.
    pub(crate) fn on_subscribe(&mut self, stage: &Stage<R>, subscription: Arc<dyn Subscription>) {
        if stage.on_subscribe(subscription.clone()) {
            self.accepted = true;
            self.upstream = Some(subscription);
        }
    }

    /// Whether this element passes straight through to the one downstream
    /// subscriber (then [`HandOff::deliver`] it, or [`HandOff::drop_one`]
    /// and [`HandOff::settle`]). Per element: one load of the mode word.
    ///
    /// Only the look the usual element needs; when it says no, the caller
    /// calls [`HandOff::claim`] from a function of its own, kept out of
    /// line, so that the usual path needs no stack frame (it ends in a
    /// tail call, see [`HandOff::deliver`]).
    #[inline]
    pub(crate) fn passing(&mut self, stage: &Stage<R>) -> bool {
        if self.downstream.get_mut().is_some()
            && stage.pass_mode.load(Ordering::Acquire) == pass::ON
        {
            self.received += 1;
            return true;
        }
        false
    }

    /// The rest of the look [`HandOff::passing`] began: takes the
    /// subscriber from the stage's mailbox or resolves a transition;
    /// `true` if this element passes through after all.
    #[inline]
    pub(crate) fn claim(&mut self, stage: &Stage<R>) -> bool {
        if !self.accepted
            || (self.downstream.get_mut().is_none()
                && stage.pass_mode.load(Ordering::Acquire) == pass::OFF)
        {
            return false;
        }
        stage.pass_claim(self)
    }

    /// Delivers an element that passes through, then settles (see
    /// [`HandOff::settle`]). While upstream owes more after this element
    /// (the usual case), the subscriber's `on_next` is the last thing done,
    /// so it compiles to a tail call.
    #[inline]
    pub(crate) fn deliver(&mut self, element: R, stage: &Stage<R>) {
        if self.received < self.granted {
            if let Some(downstream) = self.downstream.get_mut().as_mut() {
                downstream.on_next(element);
            }
        } else {
            self.deliver_last(element, stage);
        }
    }

    /// [`HandOff::deliver`] for the last element upstream owes as of the
    /// handle's last look (out of line: once per `request`).
    #[inline(never)]
    fn deliver_last(&mut self, element: R, stage: &Stage<R>) {
        if let Some(downstream) = self.downstream.get_mut().as_mut() {
            downstream.on_next(element);
        }
        self.settle(stage);
    }

    /// An element that passed through was dropped by the operator.
    #[inline]
    pub(crate) fn drop_one(&mut self) {
        self.discarded += 1;
        self.dropped += 1;
    }

    /// After an element passed through: once everything asked for has
    /// arrived, replace dropped elements or park the subscriber.
    #[inline]
    pub(crate) fn settle(&mut self, stage: &Stage<R>) {
        if self.received >= self.granted {
            // What the subscriber asked for from inside its `on_next` while
            // this thread owns the trampoline (see `pass::PassCell`).
            if stage.pass_cell.is_mine() {
                self.forward_reentrant(stage);
            }
            self.granted = demand::add(
                stage.pass_granted.load(Ordering::Acquire),
                self.direct_granted,
            );
            if self.received == self.granted {
                stage.pass_settle(self);
            }
        }
    }
}

impl<R: Send + 'static> Drop for HandOff<R> {
    fn drop(&mut self) {
        if let (Some(downstream), Some(home)) = (self.downstream.get_mut().take(), self.home.take())
        {
            let counts = self.counts();
            home.returned(downstream, counts);
        }
    }
}

impl<R: Send + 'static> HandOff<R> {
    /// Elements delivered to the subscriber while passing through.
    pub(super) fn delivered(&self) -> u64 {
        self.received - self.discarded
    }
}

/// Makes `drains[index]` be `drain`, cloning it only if it changed.
fn remember<R: Send + 'static>(
    drains: &mut Vec<Arc<StageDrain<R>>>,
    index: usize,
    drain: &Arc<StageDrain<R>>,
) {
    match drains.get_mut(index) {
        Some(known) if Arc::ptr_eq(known, drain) => {}
        Some(known) => *known = drain.clone(),
        None => drains.push(drain.clone()),
    }
}

/// Who gets an element of [`Stage::on_next`] once the lock is released.
pub(crate) enum Target {
    /// `leases[at]`.
    Leased(usize),
    /// The drain at this index, just claimed, of the subscriber with this
    /// id: it becomes a lease.
    Claimed(usize, u64),
}

/// A [`Lease`] on the drain of downstream subscriber `id`.
pub(crate) struct Leased<R: Send + 'static> {
    id: u64,
    /// The last element it took ([`HandOff`]'s `epoch`): a lease that did
    /// not take the current one ends.
    seen: u64,
    /// Its subscriber's place in the list, as of `seen`.
    order: usize,
    lease: Lease<R, StageProducer<R>>,
}

impl<R: Send + 'static> Default for HandOff<R> {
    fn default() -> Self {
        HandOff {
            drains: Vec::new(),
            plan: Vec::new(),
            ready: Mutex::new(Vec::new()),
            leases: Mutex::new(Vec::new()),
            epoch: 0,
            accepted: false,
            upstream: None,
            downstream: Mutex::new(None),
            received: 0,
            discarded: 0,
            dropped: 0,
            granted: 0,
            direct_granted: 0,
            direct_requested: 0,
            pass_id: 0,
            home: None,
        }
    }
}
