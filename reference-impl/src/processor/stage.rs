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
//! Elements are put into the subscribers' slots under the stage's lock, and
//! a subscriber joins under that lock too, seeded with copies of what the
//! fullest slot still holds: every slot's buffer is a suffix of the same
//! sequence, so the newcomer gets exactly the elements its slowest peer
//! has not taken yet (e.g. everything a [`BufferProcessor`](super::BufferProcessor)
//! prefetched before anybody asked), then the live ones, never a gap.
//! After completion the slots still holding elements are kept for the same
//! reason.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Weak};

use parking_lot::Mutex;
use reactive_streams::{demand, StreamError, Subscriber, Subscription};

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
}

struct Downstream<R> {
    id: u64,
    slot: Arc<Slot<R>>,
    /// Elements it may still receive within its demand plus the buffer.
    room: u64,
    /// Elements it received beyond that (it joined while elements were in
    /// flight, or was seeded): paid back by its next requests.
    debt: u64,
}

impl<R> Downstream<R> {
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

struct State<R> {
    upstream: Option<Arc<dyn Subscription>>,
    /// Requested from upstream and not yet received.
    outstanding: u64,
    downstreams: Vec<Downstream<R>>,
    terminal: Option<Terminal>,
    /// Upstream calls waiting for the trampoline.
    pending_request: u64,
    pending_cancel: bool,
    calling_upstream: bool,
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
            }),
        })
    }

    // ---- upstream side (the Subscriber role) ----

    pub(crate) fn on_subscribe(&self, subscription: Arc<dyn Subscription>) {
        {
            let mut state = self.state.lock();
            if state.upstream.is_some() || state.terminal.is_some() {
                drop(state);
                // §2.5: a second subscription (or one after the end) is
                // cancelled.
                subscription.cancel();
                return;
            }
            state.upstream = Some(subscription);
            self.replenish(&mut state);
        }
        self.call_upstream();
    }

    pub(crate) fn on_next(&self, element: R) {
        // Buffered under the lock (so a joining subscriber sees each element
        // either in its seed or in its own slot, never in neither), woken
        // outside it: an inline drain may call back into `request`/`cancel`,
        // which take it. Only a slot that was empty needs waking, so a
        // burst clones no `Arc` and allocates nothing.
        let mut first_wake = None;
        let mut other_wakes = Vec::new();
        {
            let mut state = self.state.lock();
            if state.terminal.is_some() {
                return;
            }
            state.outstanding = demand::fulfil(state.outstanding, 1);
            let Some((last, others)) = state.downstreams.split_last_mut() else {
                return;
            };
            for downstream in others {
                downstream.received(1);
                if downstream.slot.push(element.clone()) == Some(true) {
                    other_wakes.push(downstream.slot.clone());
                }
            }
            last.received(1);
            if last.slot.push(element) == Some(true) {
                first_wake = Some(last.slot.clone());
            }
        }
        if !other_wakes.is_empty() {
            for slot in other_wakes {
                slot.poke();
            }
        }
        if let Some(slot) = first_wake {
            slot.poke();
        }
    }

    /// An element the operator discarded: ask upstream for a replacement.
    pub(crate) fn on_discard(&self) {
        {
            let mut state = self.state.lock();
            if state.terminal.is_some() {
                return;
            }
            state.outstanding = demand::fulfil(state.outstanding, 1);
            self.replenish(&mut state);
        }
        self.call_upstream();
    }

    pub(crate) fn on_terminal(&self, reason: Option<StreamError>) {
        let wake: Vec<Arc<Slot<R>>> = {
            let mut state = self.state.lock();
            if state.terminal.is_some() {
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
            if reason.is_none() {
                // Kept for late subscribers: what they still hold is
                // theirs too (see the module docs).
                state.downstreams = ended.into_iter().filter(|d| d.slot.len() > 0).collect();
            }
            wake
        };
        for slot in wake {
            slot.poke();
        }
    }

    // ---- downstream side (the Publisher role) ----

    pub(crate) fn subscribe(&self, subscriber: Box<dyn Subscriber<R>>) {
        let id = self.next_id.fetch_add(1, Ordering::Relaxed);
        let (slot, drain) = hub::open_taking(BoundedBuffer::unbounded(), self.executor.clone());
        {
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
            if completed {
                state.downstreams.retain(|d| d.slot.len() > 0);
            }
            let seed = state
                .downstreams
                .iter()
                .max_by_key(|d| d.slot.len())
                .map(|d| d.slot.buffered())
                .unwrap_or_default();
            if completed && seed.is_empty() {
                drop(state);
                empty().subscribe(subscriber);
                return;
            }
            let mut downstream = Downstream {
                id,
                slot,
                room: self.buffer,
                debt: 0,
            };
            downstream.received(seed.len() as u64);
            for element in seed {
                downstream.slot.push(element);
            }
            if completed {
                downstream.slot.end(None);
            }
            state.downstreams.push(downstream);
            self.replenish(&mut state);
        }
        self.call_upstream();
        let Some(owner) = self.me.upgrade() else {
            return;
        };
        hub::start(id, drain, owner, subscriber);
    }

    // ---- demand ----

    fn replenish(&self, state: &mut State<R>) {
        if state.terminal.is_some() || state.upstream.is_none() {
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
        let mut state = self.state.lock();
        if state.calling_upstream {
            return;
        }
        state.calling_upstream = true;
        loop {
            let Some(upstream) = state.upstream.clone() else {
                state.pending_request = 0;
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
            state = self.state.lock();
        }
        state.calling_upstream = false;
    }
}

impl<R: Clone + Send + 'static> HubOwner for Stage<R> {
    fn requested(&self, id: u64, n: u64) {
        {
            let mut state = self.state.lock();
            let Some(downstream) = state.downstreams.iter_mut().find(|d| d.id == id) else {
                return;
            };
            downstream.granted(n);
            self.replenish(&mut state);
        }
        self.call_upstream();
    }

    fn left(&self, id: u64) {
        {
            let mut state = self.state.lock();
            let before = state.downstreams.len();
            state.downstreams.retain(|d| d.id != id);
            if state.downstreams.len() == before || state.terminal.is_some() {
                return;
            }
            if state.downstreams.is_empty() {
                // The last subscriber left: cancel upstream (and refuse
                // later subscribers, the stream is gone).
                state.terminal = Some(Terminal::Cancelled);
                state.pending_cancel = true;
            } else {
                self.replenish(&mut state);
            }
        }
        self.call_upstream();
    }
}
