//! The inner streams the TCK hands an adapter: fed by the rule, they record
//! every poll, the waker each `Pending` registered, whether they were
//! polled again after their end, and whether they were dropped.

use std::collections::VecDeque;
use std::pin::Pin;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::task::{Context, Poll, Waker};

use futures_core::Stream;
use parking_lot::Mutex;

use crate::context::RuleCx;

/// The rule id of a poll after `Ready(None)`.
pub(crate) const POLL_AFTER_END: &str = "adapter.3";

/// One of the streams the TCK provides for an adapter to wrap
/// ([`AdapterFactory::create_adapter`](super::AdapterFactory::create_adapter)).
///
/// It yields `u64` items the TCK pushes, each value unique across the
/// inner streams of one adapter (item `i` of inner stream `j` of `n` is
/// `i * n + j`), and ends when the TCK ends it. It is `Send`, `Unpin` and
/// not a `FusedStream`: an adapter that needs a fused input takes
/// `inner.fuse()`. Its `size_hint()` is exact once it is ended.
pub struct Inner {
    shared: Arc<Shared>,
}

struct Shared {
    cx: RuleCx,
    /// `inner 0`, `inner 1`, …
    name: String,
    state: Mutex<State>,
    /// The adapter poll running now or last (see [`Inners::begin_poll`]).
    epoch: Arc<AtomicU64>,
    dropped: AtomicBool,
}

#[derive(Default)]
struct State {
    queue: VecDeque<u64>,
    ended: bool,
    /// It has returned `Ready(None)`.
    returned_end: bool,
    /// The waker of its latest `Pending`, and the adapter poll it came in.
    waker: Option<(Waker, u64)>,
    pushed: u64,
}

impl Stream for Inner {
    type Item = u64;

    fn poll_next(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<u64>> {
        let shared = &self.shared;
        let epoch = shared.epoch.load(Ordering::SeqCst);
        // Registered before looking, outside the lock: an item pushed at
        // the moment the adapter's waker is taken here (adapter.2's race)
        // is found, and the push never waits for this poll.
        let waker = cx.waker().clone();
        let mut state = shared.state.lock();
        let answer = if state.returned_end {
            drop(state);
            let failure = shared.cx.failure_of(
                POLL_AFTER_END,
                format!(
                    "no poll of {} (not a FusedStream) after it returned Ready(None)",
                    shared.name
                ),
                format!("the adapter polled it again (in its poll #{epoch})"),
            );
            shared.cx.record(failure);
            shared
                .cx
                .trace(format!("{}: poll_next → Ready(None) again", shared.name));
            return Poll::Ready(None);
        } else if let Some(item) = state.queue.pop_front() {
            // An answer consumes the registration: a later push owes
            // nothing to an earlier poll.
            state.waker = None;
            Poll::Ready(Some(item))
        } else if state.ended {
            state.returned_end = true;
            state.waker = None;
            Poll::Ready(None)
        } else {
            state.waker = Some((waker, epoch));
            Poll::Pending
        };
        drop(state);
        let shown = match answer {
            Poll::Ready(Some(item)) => format!("Ready(Some({item}))"),
            Poll::Ready(None) => String::from("Ready(None)"),
            Poll::Pending => String::from("Pending"),
        };
        shared
            .cx
            .trace(format!("{}: poll_next → {shown}", shared.name));
        answer
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        let state = self.shared.state.lock();
        let queued = state.queue.len();
        (queued, state.ended.then_some(queued))
    }
}

impl Drop for Inner {
    fn drop(&mut self) {
        // Release the waker it holds: the adapter's wakers must all go.
        let waker = self.shared.state.lock().waker.take();
        drop(waker);
        self.shared.dropped.store(true, Ordering::SeqCst);
        self.shared
            .cx
            .trace(format!("{}: dropped", self.shared.name));
    }
}

impl std::fmt::Debug for Inner {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Inner")
            .field("name", &self.shared.name)
            .finish_non_exhaustive()
    }
}

/// What a push or an end woke: nothing, or the waker of a `Pending` the
/// inner stream returned in the adapter's poll `#epoch`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Woke {
    Nothing,
    AtPoll(u64),
}

/// The TCK's side of the inner streams of one adapter (clones share them).
#[derive(Clone)]
pub(crate) struct Inners {
    shared: Vec<Arc<Shared>>,
    epoch: Arc<AtomicU64>,
}

impl Inners {
    /// `count` fresh inner streams and the side that feeds them.
    pub(crate) fn new(cx: &RuleCx, count: usize) -> (Inners, Vec<Inner>) {
        let epoch = Arc::new(AtomicU64::new(0));
        let shared: Vec<Arc<Shared>> = (0..count)
            .map(|j| {
                Arc::new(Shared {
                    cx: cx.clone(),
                    name: format!("inner {j}"),
                    state: Mutex::new(State::default()),
                    epoch: epoch.clone(),
                    dropped: AtomicBool::new(false),
                })
            })
            .collect();
        let streams = shared
            .iter()
            .map(|shared| Inner {
                shared: shared.clone(),
            })
            .collect();
        (Inners { shared, epoch }, streams)
    }

    pub(crate) fn count(&self) -> usize {
        self.shared.len()
    }

    /// Marks the start of the adapter's poll `#n` (inner streams tag the
    /// wakers they register with it).
    pub(crate) fn begin_poll(&self, n: u64) {
        self.epoch.store(n, Ordering::SeqCst);
    }

    /// The value of item `i` of inner stream `j`.
    pub(crate) fn value(&self, j: usize, i: u64) -> u64 {
        i * self.count() as u64 + j as u64
    }

    /// Pushes the next item of inner stream `j` and wakes the waker it
    /// holds, if any; the value pushed and what it woke.
    pub(crate) fn push(&self, j: usize) -> (u64, Woke) {
        let shared = &self.shared[j];
        let mut state = shared.state.lock();
        let value = state.pushed * self.count() as u64 + j as u64;
        state.pushed += 1;
        state.queue.push_back(value);
        let waker = state.waker.take();
        drop(state);
        shared.cx.trace(format!("{}: push({value})", shared.name));
        (value, wake(waker))
    }

    /// Ends inner stream `j` (after what is queued) and wakes the waker
    /// it holds, if any.
    pub(crate) fn end(&self, j: usize) -> Woke {
        let shared = &self.shared[j];
        let mut state = shared.state.lock();
        state.ended = true;
        let waker = state.waker.take();
        drop(state);
        shared.cx.trace(format!("{}: end", shared.name));
        wake(waker)
    }

    /// Whether the `k`-th push of the race of `adapter.2` (into inner
    /// stream `k % count`, in turn) has put its item in, whatever the
    /// pusher has recorded yet.
    pub(crate) fn has_item(&self, k: u64) -> bool {
        let n = self.count() as u64;
        self.pushed((k % n) as usize) > k / n
    }

    /// Items pushed into inner stream `j` so far.
    pub(crate) fn pushed(&self, j: usize) -> u64 {
        self.shared[j].state.lock().pushed
    }

    /// Whether inner stream `j` has returned `Ready(None)` to the adapter.
    pub(crate) fn returned_end(&self, j: usize) -> bool {
        self.shared[j].state.lock().returned_end
    }

    /// The inner streams not dropped yet, by name.
    pub(crate) fn alive(&self) -> Vec<String> {
        self.shared
            .iter()
            .filter(|s| !s.dropped.load(Ordering::SeqCst))
            .map(|s| s.name.clone())
            .collect()
    }
}

fn wake(waker: Option<(Waker, u64)>) -> Woke {
    match waker {
        Some((waker, epoch)) => {
            waker.wake();
            Woke::AtPoll(epoch)
        }
        None => Woke::Nothing,
    }
}
