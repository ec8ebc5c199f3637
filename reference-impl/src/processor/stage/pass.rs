//! Pass-through: a stage with exactly one downstream subscriber (and no
//! buffer of its own) lets the upstream-facing handle call that subscriber
//! directly.
//!
//! Once the downstream subscriber has been greeted, its box is put in the
//! stage's mailbox; the handle upstream signals (the one whose
//! `on_subscribe` the stage accepted) takes it at its first element and
//! keeps it in a plain field ([`HandOff`]). Downstream `request(n)` is
//! forwarded upstream, serial with the stage's own calls there (§2.7), the
//! stage adding no demand of its own, so upstream delivers only what
//! downstream asked for (§1.1). Per element the handle then does one load
//! of the stage's mode word, counts the element, and calls the subscriber:
//! no lock, no read-modify-write, no queue.
//!
//! The usual `request` — a refill from inside `on_next` while a
//! synchronous upstream delivers the stream from inside the `request` the
//! stage's trampoline made — comes on the thread that owns the trampoline
//! (marked in [`PassCell`]): it is a plain store there, no lock and no
//! read-modify-write. The handle forwards it when it has received all that
//! upstream owed it as of its last look (so upstream, still inside that
//! `on_next`, never runs dry), calling upstream's `request` from inside
//! upstream's own `on_next`, as any subscriber may (§3.2; the call is
//! nested in the trampoline's, so it is serial with every other, and a
//! synchronous upstream bounds the recursion, §3.3), and counts it in
//! plain fields of its own that it adds to the stage's record at its next
//! transition (below). Whatever the handle has not forwarded when the
//! trampoline's call returns, the trampoline forwards (or gives to the
//! queued path's subscription, if the subscriber was handed back
//! meanwhile). A filter's replacements go the same way. A `request` on
//! any other thread, a `cancel` and a `request(0)` take the stage's lock as
//! before, and so do a filter's replacements off the trampoline's thread.
//!
//! Everything else is a transition, under the stage's lock:
//! * the handle puts the box back in the mailbox (*parks* it) whenever it
//!   has received everything upstream was asked for; so while the box is
//!   with the handle, upstream owes it an element (or a terminal signal),
//!   and whatever needs the box — a second subscriber (hand-back to the
//!   queued, multicast path), a `cancel` (§3.13), a `request(0)` that owes
//!   `on_error` (§3.9), an upstream terminal signal — either finds it in
//!   the mailbox and acts at once, or sets a flag and the mode word, which
//!   the handle sees at its next signal (or when upstream drops it, which
//!   §3.13 obliges upstream to do after `cancel`);
//! * a filter's replacement demand for the elements it dropped is asked
//!   for when the handle has received everything asked for, in one
//!   `request`, not one per dropped element.

use std::sync::atomic::{AtomicU64, AtomicUsize};
use std::sync::{Arc, OnceLock, Weak};

use reactive_streams::{StreamError, Subscriber, Subscription, demand};

use super::{Downstream, HandOff, Stage, StageDrain, StageProducer, State};
use crate::drain::{Drain, thread_mark};
use crate::hub::{HubSubscription, Terminal};
use crate::overflow::BoundedBuffer;
use crate::slot::Slot;
use std::collections::VecDeque;
use std::sync::atomic::Ordering;

/// The mode word: no pass-through (the queued path).
pub(super) const OFF: u8 = 0;
/// The mode word: the handle may call the downstream subscriber directly.
pub(super) const ON: u8 = 1;
/// The mode word: a transition is owed (a flag in [`Pass`] is set).
pub(super) const LEAVE: u8 = 2;

/// The stage's record of its pass-through subscriber (under its lock).
pub(super) struct Pass<R: Send + 'static> {
    pub(super) id: u64,
    /// The subscriber while the handle does not hold it.
    pub(super) mailbox: Option<Box<dyn Subscriber<R>>>,
    pub(super) subscription: Arc<PassSubscription<R>>,
    /// Downstream's demand, in total.
    pub(super) requested: u64,
    /// Upstream demand asked for while passing through, in total (mirrored
    /// in `Stage::pass_granted` for the handle's lock-free look).
    pub(super) granted: u64,
    /// Elements received from upstream / delivered downstream, as of the
    /// handle's last transition (exact while the box is in the mailbox).
    pub(super) received: u64,
    pub(super) delivered: u64,
    /// The subscriber cancelled: drop it (§3.13).
    pub(super) cancelled: bool,
    /// It sent `request(0)`: it is owed this `on_error` (§3.9).
    pub(super) error: Option<StreamError>,
    /// Upstream terminated while the box was with another party.
    pub(super) ending: Option<Option<StreamError>>,
    /// A second subscriber arrived: go back to the queued path.
    pub(super) hand_back: bool,
}

impl<R: Send + 'static> Pass<R> {
    fn flagged(&self) -> bool {
        self.cancelled || self.error.is_some() || self.ending.is_some() || self.hand_back
    }
}

/// What to do with the subscriber once the lock is released.
pub(super) enum After<R: Send + 'static> {
    Nothing,
    Drop(Box<dyn Subscriber<R>>),
    Signal(Box<dyn Subscriber<R>>, Option<StreamError>),
    Adopt {
        subscriber: Box<dyn Subscriber<R>>,
        drain: Arc<StageDrain<R>>,
        hub: Arc<dyn Subscription>,
        remaining: u64,
    },
}

impl<R: Clone + Send + 'static> After<R> {
    pub(super) fn run(self) {
        match self {
            After::Nothing => {}
            After::Drop(subscriber) => drop(subscriber),
            After::Signal(mut subscriber, None) => subscriber.on_complete(),
            After::Signal(mut subscriber, Some(error)) => subscriber.on_error(error),
            After::Adopt {
                subscriber,
                drain,
                hub,
                remaining,
            } => {
                if remaining > 0 {
                    // Its demand not yet met; the stage's room has it already.
                    Subscription::request(&*drain, remaining);
                }
                drain.start(Box::new(Adopted(subscriber)), hub);
            }
        }
    }
}

/// A subscriber handed back to the queued path: it was greeted already.
struct Adopted<R: Send + 'static>(Box<dyn Subscriber<R>>);

impl<R: Send + 'static> Subscriber<R> for Adopted<R> {
    fn on_subscribe(&mut self, _: Arc<dyn Subscription>) {
        // Its subscription (a `PassSubscription`) delegates to the drain's.
    }
    fn on_next(&mut self, element: R) {
        self.0.on_next(element);
    }
    fn on_error(&mut self, error: StreamError) {
        self.0.on_error(error);
    }
    fn on_complete(&mut self) {
        self.0.on_complete();
    }
}

/// Where a pass-through subscriber's `request` goes when it is made on the
/// thread that owns the stage's trampoline: that thread is inside one of
/// the trampoline's calls on upstream's subscription (the only foreign code
/// the trampoline runs), usually the `request` a synchronous upstream
/// delivers the whole stream from, so the `request` comes from inside the
/// handle's `on_next`. Shared by the stage and the subscription (which
/// holds it strongly, so it needs no `Weak` upgrade).
#[derive(Default)]
pub(crate) struct PassCell {
    /// `thread_mark` of the thread that owns the trampoline, 0 when none
    /// does (cleared also when a call on upstream panics).
    pub(super) owner: AtomicUsize,
    /// Demand asked for on that thread, not yet forwarded. Only that
    /// thread touches it (plain loads and stores): the handle forwards it
    /// when it has received all upstream owes it (see `HandOff::settle`),
    /// the trampoline when its call returns, whichever comes first.
    pub(super) reentrant: AtomicU64,
}

impl PassCell {
    /// Whether demand is waiting here for the calling thread.
    #[inline]
    pub(super) fn is_mine(&self) -> bool {
        self.reentrant.load(Ordering::Relaxed) != 0
            && self.owner.load(Ordering::Relaxed) == thread_mark()
    }

    /// Takes the demand waiting here (only on the trampoline's thread).
    #[inline]
    pub(super) fn take(&self) -> u64 {
        let n = self.reentrant.load(Ordering::Relaxed);
        if n != 0 {
            self.reentrant.store(0, Ordering::Relaxed);
        }
        n
    }
}

/// The subscription of a pass-through subscriber: forwards demand upstream
/// while passing through, the queued path's subscription after.
pub(crate) struct PassSubscription<R: Send + 'static> {
    stage: Weak<Stage<R>>,
    cell: Arc<PassCell>,
    id: u64,
    delegate: OnceLock<Arc<dyn Subscription>>,
}

impl<R: Clone + Send + 'static> Subscription for PassSubscription<R> {
    fn request(&self, n: u64) {
        if let Some(delegate) = self.delegate.get() {
            return delegate.request(n);
        }
        if n != 0 && self.cell.owner.load(Ordering::Relaxed) == thread_mark() {
            // On the trampoline's thread, inside its call on upstream
            // (usually from inside the handle's `on_next`): a plain store,
            // forwarded by the handle or the trampoline (see `PassCell`).
            let pending = self.cell.reentrant.load(Ordering::Relaxed);
            self.cell
                .reentrant
                .store(demand::add(pending, n), Ordering::Relaxed);
            return;
        }
        if let Some(stage) = self.stage.upgrade() {
            if !stage.pass_request(self.id, Some(n)) {
                // Handed back meanwhile (the delegate is set under the lock
                // that removed the record).
                if let Some(delegate) = self.delegate.get() {
                    delegate.request(n);
                }
            }
        }
    }

    fn cancel(&self) {
        if let Some(delegate) = self.delegate.get() {
            return delegate.cancel();
        }
        if let Some(stage) = self.stage.upgrade() {
            if !stage.pass_request(self.id, None) {
                if let Some(delegate) = self.delegate.get() {
                    delegate.cancel();
                }
            }
        }
    }
}

/// Where a handle returns the subscriber when it is dropped.
pub(crate) trait PassHome<R: Send + 'static>: Send + Sync {
    fn returned(&self, subscriber: Box<dyn Subscriber<R>>, counts: Counts);
}

/// A handle's counts while it held the subscriber, for the stage's record.
pub(crate) struct Counts {
    received: u64,
    delivered: u64,
    /// Demand the handle asked upstream for itself (`HandOff`'s
    /// `direct_granted`), and of it what the subscriber asked for.
    granted: u64,
    requested: u64,
}

impl<R: Send + 'static> HandOff<R> {
    /// This handle's counts; the direct demand is handed over (now the
    /// stage's to record).
    pub(super) fn counts(&mut self) -> Counts {
        Counts {
            received: self.received,
            delivered: self.delivered(),
            granted: std::mem::take(&mut self.direct_granted),
            requested: std::mem::take(&mut self.direct_requested),
        }
    }
}

impl<R: Send + 'static> Pass<R> {
    /// Takes in the counts of the handle that held the subscriber.
    fn record(&mut self, counts: Counts) {
        self.received = counts.received;
        self.delivered = counts.delivered;
        self.granted = demand::add(self.granted, counts.granted);
        self.requested = demand::add(self.requested, counts.requested);
    }
}

impl<R: Clone + Send + 'static> HandOff<R> {
    /// Forwards upstream what the subscriber asked for on this thread,
    /// which owns the trampoline (see [`PassCell`]); out of line: once per
    /// `request`.
    #[inline(never)]
    pub(super) fn forward_reentrant(&mut self, stage: &Stage<R>) {
        let n = stage.pass_cell.take();
        if !self.forward(stage, n, true) {
            // A transition is owed: the way a `request` from another
            // thread goes. (`false`, the subscriber handed back, cannot
            // be: that needs its box, which this handle holds.)
            stage.pass_request(self.pass_id, Some(n));
        }
    }

    /// Asks upstream for `n` more (of it downstream's demand if
    /// `requested`, else a filter's replacements) from this handle, which
    /// holds the subscriber and is inside upstream's `on_next`, without the
    /// lock: `false` (nothing done) unless the stage is plainly passing
    /// through and this thread owns the trampoline.
    ///
    /// The call must be serial with every other on upstream's subscription
    /// (§2.7). On the trampoline's thread (the usual case with a
    /// synchronous upstream: the stream runs inside the trampoline's
    /// `request`), it is nested in one of the trampoline's calls, so it is;
    /// it is a `request` from inside `on_next` (§3.2), and upstream bounds
    /// the recursion (§3.3).
    pub(super) fn forward(&mut self, stage: &Stage<R>, n: u64, requested: bool) -> bool {
        if stage.pass_mode.load(Ordering::Acquire) != ON
            || stage.pass_cell.owner.load(Ordering::Relaxed) != thread_mark()
        {
            return false;
        }
        let Some(upstream) = self.upstream.as_deref() else {
            return false;
        };
        self.direct_granted = demand::add(self.direct_granted, n);
        if requested {
            self.direct_requested = demand::add(self.direct_requested, n);
        }
        self.granted = demand::add(self.granted, n);
        upstream.request(n);
        true
    }
}

impl<R: Clone + Send + 'static> PassHome<R> for Stage<R> {
    fn returned(&self, subscriber: Box<dyn Subscriber<R>>, counts: Counts) {
        let after = {
            let mut state = self.state.lock();
            let Some(pass) = state.pass.as_mut() else {
                return;
            };
            pass.record(counts);
            self.pass_granted.store(pass.granted, Ordering::Release);
            if pass.flagged() {
                self.resolve(&mut state, subscriber)
            } else {
                pass.mailbox = Some(subscriber);
                After::Nothing
            }
        };
        after.run();
        self.call_upstream();
    }
}

impl<R: Clone + Send + 'static> Stage<R> {
    /// Whether `subscribe` may pass through to this subscriber: no buffer,
    /// the first subscriber ever (so upstream was asked for nothing yet).
    pub(super) fn may_pass(&self, state: &State<R>) -> bool {
        self.buffer == 0
            && !state.pass_used
            && state.pass.is_none()
            && state.downstreams.is_empty()
            && state.terminal.is_none()
            && state.outstanding == 0
    }

    /// Makes subscriber `id` the pass-through subscriber (under the lock
    /// in which `may_pass` held, so no upstream signal falls in between);
    /// then [`Stage::greet_passing`] with the lock released.
    pub(super) fn begin_passing(&self, state: &mut State<R>, id: u64) -> Arc<PassSubscription<R>> {
        let subscription = Arc::new(PassSubscription {
            stage: self.me.clone(),
            cell: self.pass_cell.clone(),
            id,
            delegate: OnceLock::new(),
        });
        state.pass_used = true;
        state.pass_subscription = Some(subscription.clone());
        state.greeting = true;
        // Not `OFF`: an upstream terminal signal meanwhile must look.
        self.pass_mode.store(LEAVE, Ordering::Release);
        state.pass = Some(Pass {
            id,
            mailbox: None,
            subscription: subscription.clone(),
            requested: 0,
            granted: 0,
            received: 0,
            delivered: 0,
            cancelled: false,
            error: None,
            ending: None,
            hand_back: false,
        });
        subscription
    }

    /// Greets the pass-through subscriber, then puts it where the handle
    /// looks for it (or resolves what happened meanwhile).
    pub(super) fn greet_passing(
        &self,
        mut subscriber: Box<dyn Subscriber<R>>,
        subscription: Arc<PassSubscription<R>>,
    ) {
        // Demand asked for inside `on_subscribe` is forwarded once the box
        // is where the handle looks for it (`greeting` holds the calls).
        subscriber.on_subscribe(subscription);
        let after = {
            let mut state = self.state.lock();
            state.greeting = false;
            let pass = state.pass.as_mut().expect("only the greeter resolves it");
            if pass.flagged() {
                self.resolve(&mut state, subscriber)
            } else {
                pass.mailbox = Some(subscriber);
                self.pass_mode.store(ON, Ordering::Release);
                After::Nothing
            }
        };
        after.run();
        self.call_upstream();
    }

    /// A second subscriber arrives while passing through: back to the
    /// queued path, at once if the box is in the mailbox.
    pub(super) fn leave_for_second(&self, state: &mut State<R>) -> After<R> {
        let Some(pass) = state.pass.as_mut() else {
            return After::Nothing;
        };
        pass.hand_back = true;
        self.pass_mode.store(LEAVE, Ordering::Release);
        match pass.mailbox.take() {
            Some(subscriber) => self.resolve(state, subscriber),
            None => After::Nothing,
        }
    }

    /// Downstream `request(n)` (`Some(n)`) or `cancel` (`None`) while
    /// passing through; `false` if subscriber `id` passes through no more.
    fn pass_request(&self, id: u64, request: Option<u64>) -> bool {
        let after = {
            let mut state = self.state.lock();
            let Some(pass) = state.pass.as_mut().filter(|p| p.id == id) else {
                return false;
            };
            if pass.cancelled || pass.error.is_some() {
                // §3.6: no-ops after cancel (or the §3.9 error).
                return true;
            }
            match request {
                Some(n) if n > 0 => {
                    self.pass_requested(&mut state, n);
                    self.call_upstream_locked(state);
                    return true;
                }
                Some(n) => pass.error = Some(StreamError::illegal_demand(n)),
                None => pass.cancelled = true,
            }
            self.pass_mode.store(LEAVE, Ordering::Release);
            let after = match pass.mailbox.take() {
                Some(subscriber) => self.resolve(&mut state, subscriber),
                None => After::Nothing,
            };
            if state.downstreams.is_empty() && state.terminal.is_none() {
                // It was the only subscriber: cancel upstream, refuse later
                // subscribers (as when the last queued subscriber leaves).
                state.terminal = Some(Terminal::Cancelled);
                state.pending_cancel = true;
            }
            self.call_upstream_locked(state);
            after
        };
        after.run();
        true
    }

    /// Downstream demand `n` > 0 of the pass-through subscriber (under the
    /// lock), forwarded upstream by the trampoline; if it was handed back
    /// meanwhile, the subscription its demand now goes to.
    pub(super) fn pass_requested(
        &self,
        state: &mut State<R>,
        n: u64,
    ) -> Option<Arc<dyn Subscription>> {
        let Some(pass) = state.pass.as_mut() else {
            let subscription = state.pass_subscription.as_ref()?;
            return subscription.delegate.get().cloned();
        };
        if pass.cancelled || pass.error.is_some() {
            // §3.6: no-ops after cancel (or the §3.9 error).
            return None;
        }
        pass.requested = demand::add(pass.requested, n);
        pass.granted = demand::add(pass.granted, n);
        self.pass_granted.store(pass.granted, Ordering::Release);
        state.pending_request = demand::add(state.pending_request, n);
        None
    }

    /// The handle's look when it may not call the subscriber directly:
    /// takes the box from the mailbox, or resolves a transition. `true`
    /// (and the element counted) if it passes this element through.
    #[cold]
    pub(super) fn pass_claim(&self, hand_off: &mut HandOff<R>) -> bool {
        let after = {
            let mut state = self.state.lock();
            let Some(pass) = state.pass.as_mut() else {
                return false;
            };
            if hand_off.downstream.get_mut().is_none() {
                let Some(subscriber) = pass.mailbox.take() else {
                    return false;
                };
                *hand_off.downstream.get_mut() = Some(subscriber);
                hand_off.received = pass.received;
                hand_off.discarded = pass.received - pass.delivered;
                hand_off.pass_id = pass.id;
                if hand_off.home.is_none() {
                    hand_off.home = self.me.upgrade().map(|me| me as Arc<dyn PassHome<R>>);
                }
            }
            pass.record(hand_off.counts());
            self.pass_granted.store(pass.granted, Ordering::Release);
            hand_off.granted = pass.granted;
            if !pass.flagged() {
                hand_off.received += 1;
                return true;
            }
            let subscriber = hand_off.downstream.get_mut().take().expect("taken above");
            self.resolve(&mut state, subscriber)
        };
        after.run();
        self.call_upstream();
        false
    }

    /// The handle has received everything upstream was asked for: ask for
    /// replacements of dropped elements, park the box, or resolve a
    /// transition.
    #[cold]
    pub(super) fn pass_settle(&self, hand_off: &mut HandOff<R>) {
        let dropped = hand_off.dropped;
        if dropped > 0 && hand_off.forward(self, dropped, false) {
            // Replacements for the dropped elements, in one request,
            // without the lock.
            hand_off.dropped = 0;
            return;
        }
        let after = {
            let mut state = self.state.lock();
            let Some(pass) = state.pass.as_mut() else {
                return;
            };
            let Some(subscriber) = hand_off.downstream.get_mut().take() else {
                return;
            };
            pass.record(hand_off.counts());
            self.pass_granted.store(pass.granted, Ordering::Release);
            hand_off.granted = pass.granted;
            if pass.flagged() {
                hand_off.dropped = 0;
                self.resolve(&mut state, subscriber)
            } else if hand_off.dropped > 0 {
                // Replacements for the dropped elements, in one request.
                let n = std::mem::take(&mut hand_off.dropped);
                pass.granted = demand::add(pass.granted, n);
                let granted = pass.granted;
                self.pass_granted.store(granted, Ordering::Release);
                hand_off.granted = granted;
                state.pending_request = demand::add(state.pending_request, n);
                *hand_off.downstream.get_mut() = Some(subscriber);
                self.call_upstream_locked(state);
                return;
            } else if pass.received == pass.granted {
                pass.mailbox = Some(subscriber);
                After::Nothing
            } else {
                // More was asked for meanwhile.
                *hand_off.downstream.get_mut() = Some(subscriber);
                return;
            }
        };
        after.run();
        self.call_upstream();
    }

    /// Upstream's terminal signal (under the lock, before the queued
    /// subscribers hear of it): delivered straight to the pass-through
    /// subscriber if its box is at hand, else owed to it.
    pub(super) fn pass_terminal(
        &self,
        state: &mut State<R>,
        reason: &Option<StreamError>,
        hand_off: &mut HandOff<R>,
    ) -> After<R> {
        let Some(pass) = state.pass.as_mut() else {
            return After::Nothing;
        };
        if pass.ending.is_none() {
            pass.ending = Some(reason.clone());
        }
        self.pass_mode.store(LEAVE, Ordering::Release);
        let subscriber = match hand_off.downstream.get_mut().take() {
            Some(subscriber) => {
                pass.record(hand_off.counts());
                Some(subscriber)
            }
            None => pass.mailbox.take(),
        };
        match subscriber {
            Some(subscriber) => self.resolve(state, subscriber),
            None => After::Nothing,
        }
    }

    /// Ends pass-through with the subscriber's box at hand (under the
    /// lock): settles upstream demand for the queued path and says what
    /// to do with the subscriber.
    fn resolve(&self, state: &mut State<R>, subscriber: Box<dyn Subscriber<R>>) -> After<R> {
        let pass = state.pass.take().expect("resolved once");
        self.pass_mode.store(OFF, Ordering::Release);
        state.outstanding = if demand::is_unbounded(pass.granted) {
            demand::UNBOUNDED
        } else {
            pass.granted.saturating_sub(pass.received)
        };
        let after = if let Some(error) = pass.error {
            After::Signal(subscriber, Some(error))
        } else if pass.cancelled {
            After::Drop(subscriber)
        } else if let Some(reason) = pass.ending {
            After::Signal(subscriber, reason)
        } else {
            self.adopt(state, &pass, subscriber)
        };
        self.replenish(state);
        after
    }

    /// Moves the subscriber to the queued path: its own drain, a room of
    /// its unmet demand, its subscription delegating to the drain's.
    fn adopt(
        &self,
        state: &mut State<R>,
        pass: &Pass<R>,
        subscriber: Box<dyn Subscriber<R>>,
    ) -> After<R> {
        let Some(me) = self.me.upgrade() else {
            return After::Drop(subscriber);
        };
        let slot = Slot::new(BoundedBuffer::unbounded());
        let drain: Arc<StageDrain<R>> = Drain::new(
            StageProducer {
                stage: me.clone(),
                slot: slot.clone(),
                id: pass.id,
                taken: VecDeque::new(),
            },
            self.executor.clone(),
        );
        slot.set_waker(drain.waker());
        let remaining = if demand::is_unbounded(pass.requested) {
            demand::UNBOUNDED
        } else {
            pass.requested.saturating_sub(pass.delivered)
        };
        state.downstreams.push(Downstream {
            id: pass.id,
            queue: VecDeque::new(),
            slot,
            drain: drain.clone(),
            room: remaining,
            debt: 0,
        });
        let hub: Arc<dyn Subscription> = Arc::new(HubSubscription {
            id: pass.id,
            drain: drain.clone(),
            owner: me,
        });
        let _ = pass.subscription.delegate.set(hub.clone());
        After::Adopt {
            subscriber,
            drain,
            hub,
            remaining,
        }
    }
}
