//! [`MulticastPublisher`]: a hot publisher with per-subscriber demand and
//! bounded buffers.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Weak};

use parking_lot::Mutex;
use reactive_streams::{Publisher, StreamError, Subscriber};

use crate::executor::Executor;
use crate::hub::{self, HubOwner, SlotDrain, Terminal};
use crate::overflow::{BoundedBuffer, Overflow};
use crate::publisher::simple::reject;
use crate::slot::{Offered, Slot};

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

type Member<T> = (u64, Arc<Slot<T>>, Arc<SlotDrain<T>>);

struct State<T> {
    /// Copy-on-write, so `push` offers outside the lock; each with its
    /// drain, for the synchronous hand-off.
    slots: Arc<Vec<Member<T>>>,
    terminal: Option<Terminal>,
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
                    slots: Arc::new(Vec::new()),
                    terminal: None,
                }),
            }),
        }
    }

    /// Sends `value` to every current subscriber. Returns how many
    /// subscribers it was offered to.
    pub fn push(&self, value: T) -> usize {
        let slots = self.inner.state.lock().slots.clone();
        let mut offered = 0;
        let mut stale = false;
        for (_, slot, drain) in slots.iter() {
            // To an idle subscriber with demand and nothing buffered, the
            // element goes straight from this thread (no buffering, no
            // wake-up, no second look at the slot).
            match slot.offer_to(value.clone(), drain) {
                Offered::Claimed(element) => {
                    offered += 1;
                    if let Err(element) = drain.emit_claimed(element) {
                        // Not reached (see `Drain::try_claim`).
                        slot.offer(element);
                        drain.release();
                    }
                }
                Offered::Queued => offered += 1,
                Offered::Refused => stale = true,
            }
        }
        if stale {
            let mut state = self.inner.state.lock();
            let live: Vec<_> = state
                .slots
                .iter()
                .filter(|(_, slot, _)| slot.is_open())
                .cloned()
                .collect();
            state.slots = Arc::new(live);
        }
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
        self.inner.state.lock().slots.len()
    }

    fn terminate(&self, terminal: Terminal) {
        let slots = {
            let mut state = self.inner.state.lock();
            if state.terminal.is_some() {
                return;
            }
            state.terminal = Some(terminal.clone());
            std::mem::take(&mut state.slots)
        };
        for (_, slot, _) in slots.iter() {
            slot.finish(terminal.reason());
        }
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
        let mut state = self.state.lock();
        if state.slots.iter().any(|(slot_id, _, _)| *slot_id == id) {
            let rest: Vec<_> = state
                .slots
                .iter()
                .filter(|(slot_id, _, _)| *slot_id != id)
                .cloned()
                .collect();
            state.slots = Arc::new(rest);
        }
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
            let mut slots = state.slots.as_ref().clone();
            slots.push((id, slot, drain.clone()));
            state.slots = Arc::new(slots);
        }
        let Some(owner) = inner.me.upgrade() else {
            return;
        };
        hub::start(id, drain, owner, subscriber);
    }
}
