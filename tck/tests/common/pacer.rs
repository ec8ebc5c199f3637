//! A correct-but-unusual processor, written from the specification's text
//! (§1–§4) and not from the TCK's own processors: an identity stage whose
//! upstream demand follows a [`Pull`] policy instead of mirroring each
//! downstream `request(n)`, and which may [recover](Pacer::recovering)
//! from an upstream `on_error` by switching to a fallback.
//!
//! Every call it makes — upstream `request`/`cancel`, downstream signals —
//! is made by one draining thread at a time (§1.3, §2.7); a call made on
//! another thread only records what it wants and leaves the work to the
//! drain.

use std::collections::VecDeque;
use std::sync::Arc;

use parking_lot::Mutex;
use reactive_streams::{Publisher, StreamError, Subscriber, Subscription, demand};

/// When and how much the processor asks upstream for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Pull {
    /// Exactly the missing demand, but never from inside the downstream
    /// `request`: a helper thread asks later.
    Later,
    /// `k` at a time, once the previous batch has arrived.
    Batch(u64),
    /// One element at a time: the next request only after it arrived and
    /// downstream wants more.
    LockStep,
    /// Keeps `high` elements requested or buffered, whatever downstream
    /// asked, refilling once that falls to `low`.
    Prefetch {
        /// The prefetch.
        high: u64,
        /// The low-water mark.
        low: u64,
    },
}

impl Pull {
    /// How far upstream demand may run ahead of downstream demand.
    pub fn ahead(self) -> u64 {
        match self {
            Pull::Later | Pull::LockStep => 0,
            Pull::Batch(k) => k,
            Pull::Prefetch { high, .. } => high,
        }
    }
}

/// See the [module](self) docs. Clones are handles on one stage.
#[derive(Clone)]
pub struct Pacer {
    inner: Arc<Mutex<State>>,
    /// [`Pull::Later`]: the pacer's helper thread, started at its first
    /// use (one per pacer, not one per request: a thread started for every
    /// element made the pacer so slow on a loaded machine that a stall of
    /// over a second between two elements was common).
    helper: Arc<std::sync::OnceLock<std::sync::mpsc::Sender<Pacer>>>,
}

struct State {
    pull: Pull,
    /// After an upstream error: these elements, then `on_complete`.
    fallback: Option<Vec<u64>>,
    upstream: Option<Arc<dyn Subscription>>,
    /// Upstream terminated or cancelled: never call it again.
    upstream_over: bool,
    /// A cancel of upstream the drain is to make.
    cancel_upstream: bool,
    /// Requested upstream, not yet received.
    outstanding: u64,
    /// [`Pull::Later`]: the helper thread has come by.
    later_due: bool,
    downstream: Option<Box<dyn Subscriber<u64>>>,
    subscribed: bool,
    downstream_gone: bool,
    buffer: VecDeque<u64>,
    demand: u64,
    /// Upstream's terminal signal: `Some(None)` complete, `Some(Some(e))` error.
    done: Option<Option<StreamError>>,
    illegal: bool,
    draining: bool,
    /// See [`Pacer::lax`].
    lax_cancel: bool,
    /// Downstream cancelled a lax pacer: it finishes the batch under way.
    cancelled: bool,
    /// `on_next` delivered since then.
    after_cancel: u64,
    /// See [`Pacer::completing_on_cancel`].
    completes_on_cancel: bool,
}

/// How many buffered elements a [`Pacer::lax`] still delivers after a
/// downstream cancel (within demand).
pub const LAX_BATCH: u64 = 8;

impl std::fmt::Debug for Pacer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Pacer").finish_non_exhaustive()
    }
}

enum Step {
    Cancel(Arc<dyn Subscription>),
    Request(Arc<dyn Subscription>, u64),
    Next(Box<dyn Subscriber<u64>>, u64),
    Error(Box<dyn Subscriber<u64>>, StreamError),
    Complete(Box<dyn Subscriber<u64>>),
    Release(Box<dyn Subscriber<u64>>),
}

impl Pacer {
    /// A processor that pulls upstream by `pull` and passes errors on.
    pub fn new(pull: Pull) -> Self {
        Self::build(pull, None)
    }

    /// A processor that pulls by `pull` and, on an upstream error, emits
    /// `fallback` and then completes.
    pub fn recovering(pull: Pull, fallback: Vec<u64>) -> Self {
        Self::build(pull, Some(fallback))
    }

    /// A processor that pulls by `pull` and takes the freedoms of "eventually"
    /// after a downstream cancel: it cancels upstream at once, but still
    /// delivers up to [`LAX_BATCH`] elements it holds within downstream
    /// demand, and the `on_complete` of an upstream that already
    /// completed. §1.8: "If a Subscription is cancelled its Subscriber MUST
    /// eventually stop being signaled"; §3.12: "The operation is NOT
    /// REQUIRED to affect the Subscription immediately"; §2.8: "A
    /// Subscriber MUST be prepared to receive one or more onNext signals
    /// after having called Subscription.cancel() if there are still
    /// requested elements pending".
    pub fn lax(pull: Pull) -> Self {
        let pacer = Self::build(pull, None);
        pacer.inner.lock().lax_cancel = true;
        pacer
    }

    /// A [`lax`](Self::lax) pacer that, once it has delivered what it
    /// still delivers after a downstream cancel, tidies up with
    /// `on_complete`, whatever the cancel's moment: inside `on_next`, from
    /// another thread, with all demand delivered, before any request. §1.8
    /// asks only that signals stop "eventually", and a terminal signal is
    /// the last one; §1.5: "If a Publisher terminates successfully (finite
    /// stream) it MUST signal an onComplete".
    pub fn completing_on_cancel(self) -> Self {
        {
            let mut state = self.inner.lock();
            state.lax_cancel = true;
            state.completes_on_cancel = true;
        }
        self
    }

    fn build(pull: Pull, fallback: Option<Vec<u64>>) -> Self {
        Pacer {
            helper: Arc::default(),
            inner: Arc::new(Mutex::new(State {
                pull,
                fallback,
                upstream: None,
                upstream_over: false,
                cancel_upstream: false,
                outstanding: 0,
                later_due: false,
                downstream: None,
                subscribed: false,
                downstream_gone: false,
                buffer: VecDeque::new(),
                demand: 0,
                done: None,
                illegal: false,
                draining: false,
                lax_cancel: false,
                cancelled: false,
                after_cancel: 0,
                completes_on_cancel: false,
            })),
        }
    }

    /// The next call to make, decided under the lock.
    fn step(state: &mut State) -> Option<Step> {
        if state.cancel_upstream {
            state.cancel_upstream = false;
            state.upstream_over = true;
            if let Some(upstream) = state.upstream.take() {
                return Some(Step::Cancel(upstream));
            }
        }
        if state.cancelled && !state.downstream_gone {
            let batch_left =
                state.after_cancel < LAX_BATCH && state.demand > 0 && !state.buffer.is_empty();
            let ended = state.buffer.is_empty() && matches!(state.done, Some(None));
            if !batch_left && !ended {
                state.downstream_gone = true;
                if state.completes_on_cancel {
                    state.buffer.clear();
                    if let Some(subscriber) = state.downstream.take() {
                        return Some(Step::Complete(subscriber));
                    }
                }
            }
        }
        if state.downstream_gone {
            state.buffer.clear();
            return state.downstream.take().map(Step::Release);
        }
        if let Some(subscriber) = state.downstream.take() {
            let error = if state.illegal {
                Some(StreamError::illegal_demand(0))
            } else if let Some(Some(error)) = &state.done {
                Some(error.clone())
            } else {
                None
            };
            if let Some(error) = error {
                state.downstream_gone = true;
                return Some(Step::Error(subscriber, error));
            }
            if state.demand > 0 {
                if let Some(element) = state.buffer.pop_front() {
                    state.demand = demand::fulfil(state.demand, 1);
                    state.after_cancel += u64::from(state.cancelled);
                    return Some(Step::Next(subscriber, element));
                }
            }
            if state.buffer.is_empty() && matches!(state.done, Some(None)) {
                state.downstream_gone = true;
                return Some(Step::Complete(subscriber));
            }
            state.downstream = Some(subscriber);
        }
        if state.upstream_over || state.done.is_some() || !state.subscribed {
            return None;
        }
        let upstream = state.upstream.clone()?;
        let held = state.outstanding.saturating_add(state.buffer.len() as u64);
        let n = match state.pull {
            Pull::Later => {
                if !state.later_due {
                    return None;
                }
                state.later_due = false;
                state.demand.saturating_sub(held)
            }
            Pull::Batch(k) => {
                if state.outstanding == 0 && state.demand > state.buffer.len() as u64 {
                    k
                } else {
                    0
                }
            }
            Pull::LockStep => u64::from(held == 0 && state.demand > 0),
            Pull::Prefetch { high, low } => {
                if held <= low {
                    high - held
                } else {
                    0
                }
            }
        };
        if n == 0 {
            return None;
        }
        state.outstanding = demand::add(state.outstanding, n);
        Some(Step::Request(upstream, n))
    }

    /// Makes the calls the state asks for; one thread at a time, the
    /// others leave their work to it.
    fn drain(&self) {
        let mut state = self.inner.lock();
        if state.draining {
            return;
        }
        state.draining = true;
        while let Some(step) = Self::step(&mut state) {
            drop(state);
            let back = match step {
                Step::Cancel(upstream) => {
                    upstream.cancel();
                    None
                }
                Step::Request(upstream, n) => {
                    upstream.request(n);
                    None
                }
                Step::Next(mut subscriber, element) => {
                    subscriber.on_next(element);
                    Some(subscriber)
                }
                Step::Error(mut subscriber, error) => {
                    subscriber.on_error(error);
                    None
                }
                Step::Complete(mut subscriber) => {
                    subscriber.on_complete();
                    None
                }
                Step::Release(subscriber) => {
                    drop(subscriber);
                    None
                }
            };
            state = self.inner.lock();
            if back.is_some() {
                state.downstream = back;
            }
        }
        state.draining = false;
    }

    /// [`Pull::Later`]: a helper thread comes by and lets the drain ask
    /// upstream.
    fn later(&self) {
        let helper = self.helper.get_or_init(|| {
            let (sender, visits) = std::sync::mpsc::channel::<Pacer>();
            // Ends when the last clone of the pacer (and so the sender) is
            // gone; a queued visit holds a clone, so none is lost.
            std::thread::spawn(move || {
                for pacer in visits {
                    pacer.inner.lock().later_due = true;
                    pacer.drain();
                }
            });
            sender
        });
        let _ = helper.send(self.clone());
    }
}

impl Subscriber<u64> for Pacer {
    fn on_subscribe(&mut self, subscription: Arc<dyn Subscription>) {
        let mut state = self.inner.lock();
        if state.upstream.is_some() || state.upstream_over {
            drop(state);
            return subscription.cancel(); // §2.5
        }
        if state.downstream_gone {
            // Downstream left before upstream came: nothing is wanted.
            state.upstream_over = true;
            drop(state);
            return subscription.cancel();
        }
        state.upstream = Some(subscription);
        let later = state.pull == Pull::Later;
        drop(state);
        if later {
            self.later();
        }
        self.drain();
    }

    fn on_next(&mut self, element: u64) {
        let mut state = self.inner.lock();
        if state.done.is_some() || state.upstream_over {
            return;
        }
        state.outstanding = state.outstanding.saturating_sub(1);
        if !state.downstream_gone {
            state.buffer.push_back(element);
        }
        drop(state);
        self.drain();
    }

    fn on_error(&mut self, error: StreamError) {
        let mut state = self.inner.lock();
        state.upstream_over = true; // §2.4
        state.upstream = None;
        if state.done.is_none() {
            match state.fallback.clone() {
                Some(fallback) => {
                    state.buffer.extend(fallback);
                    state.done = Some(None);
                }
                None => {
                    state.buffer.clear(); // §4.2: pass it on at once
                    state.done = Some(Some(error));
                }
            }
        }
        drop(state);
        self.drain();
    }

    fn on_complete(&mut self) {
        let mut state = self.inner.lock();
        state.upstream_over = true;
        state.upstream = None;
        if state.done.is_none() {
            state.done = Some(None);
        }
        drop(state);
        self.drain();
    }
}

impl Publisher<u64> for Pacer {
    fn subscribe(&self, mut subscriber: Box<dyn Subscriber<u64>>) {
        let mut state = self.inner.lock();
        if state.subscribed {
            drop(state);
            subscriber.on_subscribe(Arc::new(Refused));
            subscriber.on_error(StreamError::msg("Pacer serves one subscriber"));
            return;
        }
        state.subscribed = true;
        // The drain is held while on_subscribe runs: a request from inside
        // it only adds demand, and the drain below serves it.
        state.draining = true;
        drop(state);
        subscriber.on_subscribe(Arc::new(Downstream {
            pacer: self.clone(),
        }));
        let mut state = self.inner.lock();
        state.downstream = Some(subscriber);
        state.draining = false;
        drop(state);
        self.drain();
    }
}

struct Refused;

impl Subscription for Refused {
    fn request(&self, _: u64) {}
    fn cancel(&self) {}
}

struct Downstream {
    pacer: Pacer,
}

impl Subscription for Downstream {
    fn request(&self, n: u64) {
        let mut state = self.pacer.inner.lock();
        if state.downstream_gone || state.cancelled {
            return; // §3.6
        }
        if n == 0 {
            state.illegal = true; // §3.9
            state.cancel_upstream = !state.upstream_over;
        } else {
            state.demand = demand::add(state.demand, n);
        }
        let later = state.pull == Pull::Later;
        drop(state);
        if later {
            self.pacer.later();
        }
        self.pacer.drain();
    }

    fn cancel(&self) {
        let mut state = self.pacer.inner.lock();
        if state.downstream_gone || state.cancelled {
            return;
        }
        if state.lax_cancel {
            state.cancelled = true;
        } else {
            state.downstream_gone = true;
        }
        state.cancel_upstream = !state.upstream_over && state.done.is_none();
        drop(state);
        self.pacer.drain();
    }
}
