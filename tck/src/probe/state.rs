//! What a probe knows, behind its mutex.

use std::collections::VecDeque;
use std::sync::Arc;
use std::thread::ThreadId;

use reactive_streams::Subscription;

use super::stack::StackNesting;
use super::{Behaviour, Signal};

/// How many unconsumed signals a probe keeps; past this (a publisher
/// flooding after cancel) the oldest are dropped, so memory stays bounded.
const MAX_QUEUED: usize = 1 << 16;

pub(crate) struct State<T> {
    pub(crate) behaviour: Behaviour,
    pub(crate) handed_out: bool,
    pub(crate) subscription: Option<Arc<dyn Subscription>>,
    pub(crate) subscribes: u32,
    pub(crate) queue: VecDeque<Signal<T>>,
    /// Every signal but `on_subscribe`, ever: waits for "anything new" use it.
    pub(crate) signals: u64,
    pub(crate) requested: u64,
    /// Every `on_next` that arrived, within demand or not (§1.1 counts them
    /// all).
    pub(crate) nexts: u64,
    /// The `on_next` offered to the test: those that arrived while demand
    /// was outstanding (`offered < requested`), and, after `cancel()`
    /// returned, those the checks of signals after cancel judge (see
    /// `ProbeSubscriber::next_signal`).
    pub(crate) offered: u64,
    /// The rule the first `on_next` beyond demand broke (§1.1, or §3.6 after
    /// a request made after `cancel()`), once one arrived: the probe set it
    /// aside, so a check of the test that then misses a signal is filed
    /// under this rule, not the test's own.
    pub(crate) beyond_demand: Option<&'static str>,
    /// The signal being handled was set aside (see `set_aside`).
    pub(crate) just_set_aside: bool,
    pub(crate) terminal: Option<String>,
    /// The first terminal signal arrived once `cancel()` had been entered.
    pub(crate) terminal_after_cancel: bool,
    /// The probe has decided to cancel: it requests no more and decides
    /// nothing else. The cancel itself may wait for the probe's turn
    /// (§2.7); see `cancelled`.
    pub(crate) cancel_decided: bool,
    /// Calls decided inside signals, waiting for the turn held by a call
    /// of the probe's on another thread, in order, each with its
    /// description: whoever frees the turn makes them.
    pub(crate) pending: VecDeque<(String, Pending)>,
    /// Since when calls have waited for the turn.
    pub(crate) pending_since: Option<std::time::Instant>,
    /// When, and on which thread, `cancel()` was first entered.
    pub(crate) cancel_entered: Option<(std::time::Instant, ThreadId)>,
    /// `cancel()` has been entered on the subscription: signals from now
    /// on come after cancel. Not before: until then the publisher has not
    /// been told.
    pub(crate) cancelled: bool,
    /// A `cancel()` call has returned: from then on a request is a no-op
    /// (§3.6) and adds no demand. A request racing with a `cancel()` still
    /// in progress may reach the publisher first, so it counts.
    pub(crate) cancel_returned: bool,
    /// When the stream became quiet after `cancel()`: the cancel had
    /// returned and no signal was running (see `Probe::bound_signals_after_cancel`).
    pub(crate) quiet_since: Option<std::time::Instant>,
    /// Requests made after `cancel()` returned (they add no demand): an
    /// `on_next` beyond demand after one of them breaks §3.6, not §1.1.
    pub(crate) requests_after_cancel: u64,
    pub(crate) dropped: bool,
    /// The thread inside a probe-issued `request`, for §3.10 / §3.11.
    pub(crate) requesting: Option<ThreadId>,
    /// The call on the subscription in progress (`request(1)`, `cancel()`),
    /// for the message of a call that waited too long for its turn.
    pub(crate) calling: Option<String>,
    pub(crate) sync_nexts: u64,
    pub(crate) sync_terminals: u64,
    /// Signals that arrived after cancel (see `is_after_cancel`).
    pub(crate) after_cancel: u64,
    /// Signals whose reaction (a request or cancel into the publisher) is
    /// still to be made or running.
    pub(crate) reacting: u32,
    /// The probe called the publisher a runaway (see `stop_runaway`).
    pub(crate) runaway: bool,
    /// The probe cancelled because the publisher went beyond its `n`: a
    /// flood after that is a §1.8 failure.
    pub(crate) cancelled_beyond_n: bool,
    /// The probe cancelled a flood of `on_next` beyond demand: a flood
    /// after that is a §1.8 failure.
    pub(crate) cancelled_flood: bool,
    /// The `on_next` being handled reached the count of `cancel_after`:
    /// it cancels from inside (see `Probe::cancel_after`).
    pub(crate) cancelling_inside: bool,
    /// The probe's `cancel()` panicked (§3.15): it may not have reached the
    /// publisher.
    pub(crate) cancel_panicked: bool,
    /// The order elements came in, by the declared identity.
    pub(crate) order: super::identity::Order,
    /// `on_next` calls still running, by stack address (§3.3).
    pub(crate) stack: StackNesting,
    entry: Entry,
    /// Invariants already reported, so a flood reports each once.
    reported: Vec<&'static str>,
}

/// A call on the subscription the probe decided inside a signal.
pub(crate) enum Pending {
    /// `request(n)`, from `on_subscribe` or `on_next`.
    Request(u64, Arc<dyn Subscription>),
    /// `cancel()`.
    Cancel(Arc<dyn Subscription>),
}

/// Who is inside the subscriber right now (§1.3, §3.3).
#[derive(Default)]
struct Entry {
    owner: Option<ThreadId>,
    depth: u32,
}

/// How a signal entered the subscriber.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Entered {
    /// Nobody else was inside; `depth` is the nesting on this thread.
    Serial { depth: u32 },
    /// Another thread was inside: §1.3 is broken.
    Concurrent,
}

impl<T> State<T> {
    pub(crate) fn new(behaviour: Behaviour) -> Self {
        State {
            behaviour,
            handed_out: false,
            subscription: None,
            subscribes: 0,
            queue: VecDeque::new(),
            signals: 0,
            requested: 0,
            nexts: 0,
            offered: 0,
            beyond_demand: None,
            just_set_aside: false,
            terminal: None,
            terminal_after_cancel: false,
            cancel_decided: false,
            pending: VecDeque::new(),
            pending_since: None,
            cancel_entered: None,
            cancelled: false,
            cancel_returned: false,
            quiet_since: None,
            requests_after_cancel: 0,
            dropped: false,
            requesting: None,
            calling: None,
            sync_nexts: 0,
            sync_terminals: 0,
            after_cancel: 0,
            reacting: 0,
            runaway: false,
            cancelled_beyond_n: false,
            cancelled_flood: false,
            cancelling_inside: false,
            cancel_panicked: false,
            order: super::identity::Order::default(),
            stack: StackNesting::default(),
            entry: Entry::default(),
            reported: Vec::new(),
        }
    }

    pub(crate) fn enter(&mut self) -> Entered {
        let me = std::thread::current().id();
        match self.entry.owner {
            None => {
                self.entry.owner = Some(me);
                self.entry.depth = 1;
                Entered::Serial { depth: 1 }
            }
            Some(owner) if owner == me => {
                self.entry.depth += 1;
                Entered::Serial {
                    depth: self.entry.depth,
                }
            }
            Some(_) => Entered::Concurrent,
        }
    }

    /// How deep the current thread is nested inside the subscriber.
    pub(crate) fn depth(&self) -> u32 {
        self.entry.depth
    }

    pub(crate) fn exit(&mut self, entered: Entered) {
        if let Entered::Serial { .. } = entered {
            self.entry.depth -= 1;
            if self.entry.depth == 0 {
                self.entry.owner = None;
                if self.cancel_returned && self.quiet_since.is_none() {
                    self.quiet_since = Some(std::time::Instant::now());
                }
            }
        }
    }

    /// Whether `key` is reported for the first time.
    pub(crate) fn first_report(&mut self, key: &'static str) -> bool {
        if self.reported.contains(&key) {
            false
        } else {
            self.reported.push(key);
            true
        }
    }

    pub(crate) fn push(&mut self, signal: Signal<T>) {
        if self.queue.len() == MAX_QUEUED {
            self.queue.pop_front();
        }
        self.queue.push_back(signal);
        self.signals += 1;
    }

    /// Counts a signal the test is not offered (an `on_next` beyond
    /// demand): waits for "anything new" (signals stopping after cancel)
    /// still see it.
    pub(crate) fn set_aside(&mut self) {
        self.signals += 1;
        self.just_set_aside = true;
    }

    /// The probe decides to cancel (from inside a signal); the call
    /// follows when the turn is free.
    pub(crate) fn decide_cancel(&mut self) {
        self.cancel_decided = true;
    }

    /// `cancel()` is being entered on the subscription.
    pub(crate) fn note_cancel(&mut self) {
        self.cancel_decided = true;
        self.cancelled = true;
        self.cancel_entered
            .get_or_insert((std::time::Instant::now(), std::thread::current().id()));
    }

    /// Whether a signal arriving now comes after cancel: once `cancel()`
    /// has returned, or inside it on its own thread. One from another
    /// thread while `cancel()` runs races with it (the publisher may not
    /// have seen it yet), as one before it was entered does.
    pub(crate) fn is_after_cancel(&self) -> bool {
        self.cancel_returned
            || self
                .cancel_entered
                .is_some_and(|(_, thread)| thread == std::thread::current().id())
    }

    /// Since when a cancel has been held back: decided but waiting for the
    /// probe's turn, or entered and not returned.
    pub(crate) fn cancel_held_since(&self) -> Option<std::time::Instant> {
        if self.cancel_returned {
            None
        } else if let Some((entered, _)) = self.cancel_entered {
            Some(entered)
        } else {
            self.pending_since.filter(|_| self.cancel_decided)
        }
    }

    /// `cancel()` has returned: the clock of §1.8's bound starts now, or
    /// when the signal running at this moment finishes.
    pub(crate) fn note_cancel_returned(&mut self) {
        self.cancel_returned = true;
        if self.entry.owner.is_none() && self.quiet_since.is_none() {
            self.quiet_since = Some(std::time::Instant::now());
        }
    }

    pub(crate) fn is_synchronous(&self) -> bool {
        self.requesting == Some(std::thread::current().id())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_second_thread_entering_is_concurrent_and_nesting_counts_depth() {
        let mut state = State::<u8>::new(Behaviour::default());
        let first = state.enter();
        assert_eq!(first, Entered::Serial { depth: 1 });
        assert_eq!(state.enter(), Entered::Serial { depth: 2 });
        let other = std::thread::scope(|s| s.spawn(|| state.enter()).join().unwrap());
        assert_eq!(other, Entered::Concurrent);
        state.exit(other);
        state.exit(Entered::Serial { depth: 2 });
        state.exit(first);
        assert_eq!(state.enter(), Entered::Serial { depth: 1 });
    }
}
