//! [`MulticastPublisher`]: a hot publisher with per-subscriber demand and
//! bounded buffers.
//!
//! Each subscriber has a [`Slot`] (its buffer and terminal) read by its
//! drain. A push that finds a subscriber idle with demand and nothing
//! buffered skips the slot: it *leases* the subscriber's drain (a
//! [`Lease`]: the emission loop claimed, the subscriber taken out of it,
//! its demand counted in plain fields) and calls `on_next` itself. The
//! lease then stays *parked* in the publisher's state, under its one lock,
//! and the next push checks it out again. So a push takes the lock twice
//! (check the leases out, call each `on_next` with no lock held, return
//! the leases) and pays no read-modify-write per subscriber. While a
//! subscriber's `on_next` runs from a lease, the drain's owner mark is on:
//! a `request` from inside it is a plain store, a `cancel` stops the very
//! next element, as in the drain's own loop.
//!
//! A lease ends (demand settled once, the subscriber given back to its
//! drain, which runs for whatever was signalled meanwhile) at the first
//! element it cannot take (no demand left: the element goes to the slot,
//! where the drain finds it), when elements were queued in its slot while
//! it was checked out (another thread pushed meanwhile, or a push came
//! from inside an `on_next`: the drain delivers them, in order, serially),
//! at `complete`/`error`, and when its subscriber cancels or sends
//! `request(0)`. A parked lease owes its subscriber nothing (its slot is
//! empty, and everything that needs the drain ends the lease first), so
//! such a `cancel` or `request(0)` from another thread ends a parked lease
//! right away, on that thread: the drain then drops the subscriber (§3.13)
//! or sends its `on_error` (§3.9). A checked-out lease is ended by the
//! push that holds it, as it returns. A `request` from another thread
//! while parked only adds demand, which the next push sees. With an
//! executor no drain is ever claimed (signals go out on the executor), so
//! nothing is leased.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Weak};

use parking_lot::Mutex;
use reactive_streams::{Publisher, StreamError, Subscriber};

use crate::drain::Lease;
use crate::executor::Executor;
use crate::hub::{self, HubOwner, SlotDrain, Terminal};
use crate::overflow::{BoundedBuffer, Overflow};
use crate::publisher::simple::reject;
use crate::slot::{Offered, Slot, SlotProducer};

/// A hot publisher: values are pushed into it with
/// [`push`](MulticastPublisher::push) and go to every current subscriber.
///
/// Each subscriber has its own demand and its own buffer of `capacity`
/// elements for what it has not requested yet — the "subscriber-controlled
/// queue bounds" of the spec made concrete. When a buffer is full the
/// [`Overflow`] policy decides: drop the oldest, drop the newest, or fail
/// that subscriber with [`BufferOverflow`](crate::BufferOverflow). A slow
/// subscriber never slows the others or the pusher.
///
/// Late subscribers see only values pushed after they subscribed; after
/// [`complete`](MulticastPublisher::complete) or
/// [`error`](MulticastPublisher::error) they get that terminal at once.
/// Signals are emitted on the pushing thread by default (or on the
/// executor given to [`with_executor`](MulticastPublisher::with_executor)).
///
/// ```
/// use reactive_streams_reference::{collect, MulticastPublisher, Overflow};
///
/// let hot = MulticastPublisher::new(16, Overflow::Error);
/// let a = collect(&hot);
/// let b = collect(&hot);
/// hot.push(1);
/// hot.push(2);
/// hot.complete();
/// assert_eq!(futures::executor::block_on(a).unwrap(), vec![1, 2]);
/// assert_eq!(futures::executor::block_on(b).unwrap(), vec![1, 2]);
/// ```
pub struct MulticastPublisher<T: Send + 'static> {
    inner: Arc<Inner<T>>,
}

struct Inner<T: Send + 'static> {
    me: Weak<Inner<T>>,
    capacity: usize,
    policy: Overflow,
    executor: Executor,
    next_id: AtomicU64,
    state: Mutex<State<T>>,
}

struct State<T: Send + 'static> {
    members: Vec<Member<T>>,
    terminal: Option<Terminal>,
    /// A push's list of checked-out subscribers, kept between pushes so
    /// that a push allocates nothing.
    spare: Vec<Out<T>>,
}

/// One subscriber.
struct Member<T: Send + 'static> {
    id: u64,
    slot: Arc<Slot<T>>,
    drain: Arc<SlotDrain<T>>,
    hand: Hand<T>,
}

/// Who holds a subscriber's emission loop.
enum Hand<T: Send + 'static> {
    /// Its drain: elements go through the slot, unless a push finds the
    /// drain idle with demand and the slot empty, and leases it.
    Free,
    /// Leased, between pushes (its slot is empty). Boxed, so that checking
    /// it out and in moves one pointer.
    Parked(Box<SlotLease<T>>),
    /// Leased and checked out by a push, which calls `on_next` outside the
    /// lock. `backlog`: elements were queued in the slot meanwhile, so the
    /// lease ends when it is returned and the drain delivers them.
    Out { backlog: bool },
}

type SlotLease<T> = Lease<T, SlotProducer<T>>;

/// What one push does once the lock is released, besides calling
/// `on_next` on the subscribers it checked out (made only when needed: the
/// usual push needs none of it).
struct Round<T: Send + 'static> {
    /// Leases that ended (no demand left, or a flag was set): the element
    /// went to the slot.
    ended: Vec<SlotLease<T>>,
    /// Slots whose reader must be woken.
    wake: Vec<Arc<Slot<T>>>,
    /// Drains claimed that could not emit ([`Offered::Queued`]'s `held`).
    release: Vec<Arc<SlotDrain<T>>>,
    /// Subscribers whose slot no longer accepts elements: their ids, then
    /// themselves, taken off the list (dropped with no lock held).
    stale: Vec<u64>,
    gone: Vec<Member<T>>,
}

/// A checked-out subscriber: its id, its place in the list when it was
/// checked out (the list may change meanwhile), its lease.
struct Out<T: Send + 'static> {
    id: u64,
    index: usize,
    lease: Box<SlotLease<T>>,
}

impl<T: Send + 'static> Default for Round<T> {
    fn default() -> Self {
        Round {
            ended: Vec::new(),
            wake: Vec::new(),
            release: Vec::new(),
            stale: Vec::new(),
            gone: Vec::new(),
        }
    }
}

impl<T: Send + 'static> Round<T> {
    fn of(round: &mut Option<Self>) -> &mut Self {
        round.get_or_insert_with(Round::default)
    }

    /// Everything but the hand-offs, once no lock is held: ending a lease,
    /// releasing a claim or waking a drain may run that drain, and with it
    /// its subscriber's code, which may push, request or cancel.
    fn settle(&mut self) {
        self.ended.clear();
        for drain in self.release.drain(..) {
            drain.release();
        }
        for slot in self.wake.drain(..) {
            slot.poke();
        }
        self.gone.clear();
    }
}

impl<T: Clone + Send + 'static> MulticastPublisher<T> {
    /// A publisher buffering up to `capacity` undemanded elements per
    /// subscriber, with `policy` when full.
    pub fn new(capacity: usize, policy: Overflow) -> Self {
        Self::with_executor(capacity, policy, Executor::Inline)
    }

    /// The same, emitting on `executor`.
    pub fn with_executor(capacity: usize, policy: Overflow, executor: Executor) -> Self {
        MulticastPublisher {
            inner: Arc::new_cyclic(|me| Inner {
                me: me.clone(),
                capacity,
                policy,
                executor,
                next_id: AtomicU64::new(0),
                state: Mutex::new(State {
                    members: Vec::new(),
                    terminal: None,
                    spare: Vec::new(),
                }),
            }),
        }
    }

    /// Sends `value` to every current subscriber. Returns how many
    /// subscribers it was offered to.
    pub fn push(&self, value: T) -> usize {
        let mut state = self.inner.state.lock();
        if state.terminal.is_some() {
            drop(state);
            return 0;
        }
        let mut out = std::mem::take(&mut state.spare);
        let mut round = None;
        let offered = check_out(&mut state, &value, &mut out, &mut round);
        let delivering = !out.is_empty();
        if !delivering {
            state.spare = out;
            out = Vec::new();
        }
        drop(state);
        if let Some(mut round) = round {
            round.settle();
        }
        if !delivering {
            return offered;
        }
        deliver(&mut out, value);
        self.inner.check_in(out);
        offered
    }

    /// Completes every subscriber (after its buffered elements) and all
    /// future ones.
    pub fn complete(&self) {
        self.terminate(Terminal::Completed);
    }

    /// Fails every subscriber at once, and all future ones.
    pub fn error(&self, error: StreamError) {
        self.terminate(Terminal::Failed(error));
    }

    /// Number of subscribers currently attached.
    pub fn subscriber_count(&self) -> usize {
        self.inner.state.lock().members.len()
    }

    fn terminate(&self, terminal: Terminal) {
        let members = {
            let mut state = self.inner.state.lock();
            if state.terminal.is_some() {
                return;
            }
            state.terminal = Some(terminal.clone());
            std::mem::take(&mut state.members)
        };
        let reason = terminal.reason();
        for member in &members {
            member.slot.finish(reason.clone());
        }
        // Parked leases end here: their drains, woken above, signal the
        // terminal. A checked-out one follows its element, when the push
        // that holds it finds its subscriber gone.
        drop(members);
    }
}

/// Under the lock: checks out the leases of the subscribers that can take
/// `value` now, claims the idle drains that can, and queues it for the
/// others. Returns how many subscribers it was offered to.
fn check_out<T: Clone + Send + 'static>(
    state: &mut State<T>,
    value: &T,
    out: &mut Vec<Out<T>>,
    round: &mut Option<Round<T>>,
) -> usize {
    let mut offered = 0;
    for (index, member) in state.members.iter_mut().enumerate() {
        match std::mem::replace(&mut member.hand, Hand::Free) {
            Hand::Parked(mut lease) => {
                if lease.ready() {
                    member.hand = Hand::Out { backlog: false };
                    out.push(Out {
                        id: member.id,
                        index,
                        lease,
                    });
                    offered += 1;
                    continue;
                }
                // No demand left (or the subscriber cancelled): the lease
                // ends once the lock is released, and the element goes to
                // the slot, where the drain finds it.
                Round::of(round).ended.push(*lease);
            }
            Hand::Out { .. } => member.hand = Hand::Out { backlog: true },
            Hand::Free => {}
        }
        // The drain is claimed only if it is free (a leased one is held):
        // otherwise the element is queued behind whatever the slot holds.
        match member.slot.offer_to(&member.drain, || value.clone()) {
            Offered::Claimed => {
                // The claim makes a lease. (Taking the subscriber out of
                // the drain locks the drain briefly: nobody else runs it.)
                offered += 1;
                // `Claimed` is `Drain::try_claim`'s `Ready`: the loop was
                // free, with demand and no flag, so the subscriber is in
                // its drain. It goes in before the starter gives the loop
                // up, and comes out only once `DONE` is set (which `Ready`
                // rules out) or under a lease, which holds the loop.
                let lease = Lease::take(&member.drain)
                    .expect("a drain claimed Ready has its subscriber in place");
                member.hand = Hand::Out { backlog: false };
                out.push(Out {
                    id: member.id,
                    index,
                    lease: Box::new(lease),
                });
            }
            Offered::Queued { poke, held } => {
                if poke {
                    Round::of(round).wake.push(member.slot.clone());
                }
                if held {
                    Round::of(round).release.push(member.drain.clone());
                }
                offered += 1;
            }
            Offered::Refused => Round::of(round).stale.push(member.id),
        }
    }
    if let Some(Round { stale, gone, .. }) = round {
        if !stale.is_empty() {
            let (kept, left) = std::mem::take(&mut state.members)
                .into_iter()
                .partition(|member| !stale.contains(&member.id));
            state.members = kept;
            *gone = left;
        }
    }
    offered
}

/// With no lock held: `on_next` on each checked-out subscriber, in
/// subscriber order (the last one gets `value` itself, the others clones).
fn deliver<T: Clone + Send + 'static>(out: &mut [Out<T>], value: T) {
    let mut value = Some(value);
    let last = out.len() - 1;
    for (at, out) in out.iter_mut().enumerate() {
        let element = if at == last {
            value.take().expect("the last subscriber gets the original")
        } else {
            value.as_ref().expect("copies precede the original").clone()
        };
        out.lease.emit(element);
    }
}

impl<T: Clone + Send + 'static> Inner<T> {
    /// Returns the leases a push checked out: parked again, or ended (once
    /// the lock is released) if the subscriber left, or elements were
    /// queued for it meanwhile. The push's list goes back too, for the
    /// next push.
    fn check_in(&self, mut checked: Vec<Out<T>>) {
        let mut ending = Vec::new();
        {
            let mut state = self.state.lock();
            while let Some(out) = checked.pop() {
                let member = match state.members.get(out.index) {
                    Some(member) if member.id == out.id => Some(out.index),
                    _ => state.members.iter().position(|m| m.id == out.id),
                };
                match member.map(|index| &mut state.members[index]) {
                    Some(member) if matches!(member.hand, Hand::Out { backlog: false }) => {
                        member.hand = Hand::Parked(out.lease);
                    }
                    Some(member) => {
                        member.hand = Hand::Free;
                        ending.push(out.lease);
                    }
                    None => ending.push(out.lease),
                }
            }
            state.spare = checked;
        }
        drop(ending);
    }
}

impl<T: Clone + Send + 'static> Clone for MulticastPublisher<T> {
    fn clone(&self) -> Self {
        MulticastPublisher {
            inner: self.inner.clone(),
        }
    }
}

impl<T: Send + 'static> HubOwner for Inner<T> {
    fn requested(&self, _: u64, _: u64) {}

    fn left(&self, id: u64) {
        let _gone = {
            let mut state = self.state.lock();
            let Some(index) = state.members.iter().position(|m| m.id == id) else {
                return;
            };
            state.members.remove(index)
        };
        // A parked lease ends here, with no lock held: the drain, flagged
        // before this call, drops the subscriber or sends its `on_error`.
        // A checked-out one is ended by its push.
    }
}

impl<T: Clone + Send + 'static> Publisher<T> for MulticastPublisher<T> {
    fn subscribe(&self, subscriber: Box<dyn Subscriber<T>>) {
        let inner = &self.inner;
        let id = inner.next_id.fetch_add(1, Ordering::Relaxed);
        let (slot, drain) = hub::open(
            BoundedBuffer::new(inner.capacity, inner.policy),
            inner.executor.clone(),
        );
        {
            let mut state = inner.state.lock();
            if let Some(terminal) = &state.terminal {
                let reason = terminal.reason();
                drop(state);
                match reason {
                    Some(error) => reject(subscriber, error),
                    None => crate::publisher::simple::empty().subscribe(subscriber),
                }
                return;
            }
            state.members.push(Member {
                id,
                slot,
                drain: drain.clone(),
                hand: Hand::Free,
            });
        }
        let Some(owner) = inner.me.upgrade() else {
            return;
        };
        hub::start(id, drain, owner, subscriber);
    }
}
