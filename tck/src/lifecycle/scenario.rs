//! One run of a stage: tracked inputs in, a recording subscriber out, a
//! generated schedule of input emissions, input ends, demand and
//! consumption, then an end (completion, cancellation or an upstream
//! error), and what the ledger saw.
//!
//! An input is either *eager* (a synchronous range: it emits from inside
//! the stage's `request`, like most sources) or *driven* (it emits one
//! element, or completes, only when the schedule says so, on the
//! verification's thread), so the schedule decides how the inputs of a
//! multi-input stage interleave and when each ends.

use std::collections::{BTreeSet, HashMap, HashSet};
use std::fmt;
use std::sync::Arc;
use std::time::{Duration, Instant};

use parking_lot::{Condvar, Mutex};
use proptest::collection::vec;
use proptest::prelude::*;
use reactive_streams::done::{DoneLedger, Tracked};
use reactive_streams::{Publisher, StreamError, Subscriber, Subscription, demand};

use super::{LifecycleFactory, Lineage};

/// The downstream's final `request(demand::UNBOUNDED)`, in the one demand
/// vocabulary ([`show_demand`](crate::probe::show_demand) of `u64::MAX`).
const UNBOUNDED_REQUEST: &str = "request(∞)";
use crate::context::RuleCx;

/// Ids of input `j` start at `j * INPUT_STRIDE`, so a lineage tells the
/// inputs apart.
pub(crate) const INPUT_STRIDE: u64 = 1_000_000;

/// How a run ends.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum End {
    /// Every input completes; downstream asks for everything.
    Complete,
    /// Downstream cancels after the schedule.
    Cancel,
    /// Input 0 fails (an eager one after this many elements, a driven one
    /// after the schedule); the others complete; downstream asks for
    /// everything.
    Fail { after: u64 },
}

/// How an input emits.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Feed {
    /// A synchronous range of this many elements, emitted as requested.
    Eager(u64),
    /// Emits only on [`Step::Emit`], ends on [`Step::Finish`] or at the end.
    Driven,
}

/// One step of the schedule.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Step {
    /// A driven input emits its next datum, if the stage asked for one.
    Emit(usize),
    /// Downstream calls `request(n)`.
    Request(u64),
    /// Downstream drops every output it holds (it has consumed them).
    Consume,
    /// A driven input completes.
    Finish(usize),
}

/// The inputs, schedule and end of one run.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Script {
    pub(crate) feeds: Vec<Feed>,
    pub(crate) steps: Vec<Step>,
    pub(crate) end: End,
}

impl Script {
    /// One line per input, step and the end: what a failure prints.
    pub(crate) fn lines(&self) -> Vec<String> {
        let mut lines: Vec<String> = self
            .feeds
            .iter()
            .enumerate()
            .map(|(j, feed)| match feed {
                Feed::Eager(1) => format!("input {j}: 1 element as requested"),
                Feed::Eager(count) => format!("input {j}: {count} elements as requested"),
                Feed::Driven => format!("input {j}: driven"),
            })
            .collect();
        lines.extend(self.steps.iter().map(|step| match step {
            Step::Emit(j) => format!("input {j} emits"),
            Step::Request(n) => format!("request({})", crate::probe::show_demand(*n)),
            Step::Consume => "downstream drops its outputs".to_string(),
            Step::Finish(j) => format!("input {j} completes"),
        }));
        lines.push(match self.end {
            End::Complete => format!("every input completes, {UNBOUNDED_REQUEST} until completion"),
            End::Cancel => "cancel".to_string(),
            End::Fail { after } => match self.feeds[0] {
                Feed::Eager(_) => {
                    format!("input 0 fails after {after} elements, {UNBOUNDED_REQUEST}")
                }
                Feed::Driven => format!("input 0 fails, {UNBOUNDED_REQUEST}"),
            },
        });
        lines
    }
}

impl fmt::Display for Script {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.lines().join("; "))
    }
}

impl crate::explore::Scripted for Script {
    fn script(&self) -> Vec<String> {
        self.lines()
    }
}

/// Which ends a property draws from.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Ends {
    Any,
    Only(EndKind),
}

/// An [`End`] without its parameters.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum EndKind {
    Complete,
    Cancel,
    Fail,
}

fn feed() -> impl Strategy<Value = Feed> {
    // Eager first: proptest shrinks towards the first alternative.
    prop_oneof![(0u64..10).prop_map(Feed::Eager), Just(Feed::Driven)]
}

fn step(inputs: usize) -> impl Strategy<Value = Step> {
    prop_oneof![
        4 => (0..inputs).prop_map(Step::Emit),
        2 => (1u64..5).prop_map(Step::Request),
        2 => Just(Step::Consume),
        1 => (0..inputs).prop_map(Step::Finish),
    ]
}

/// Scripts for a stage with `inputs` inputs.
pub(crate) fn scripts(inputs: usize, ends: Ends) -> impl Strategy<Value = Script> {
    let kinds = match ends {
        Ends::Any => vec![EndKind::Complete, EndKind::Cancel, EndKind::Fail],
        Ends::Only(kind) => vec![kind],
    };
    (
        vec(feed(), inputs),
        vec(step(inputs), 0..24),
        proptest::sample::select(kinds),
        1u64..10,
    )
        .prop_map(|(mut feeds, mut steps, kind, after)| {
            let end = match kind {
                EndKind::Complete => End::Complete,
                EndKind::Cancel => End::Cancel,
                EndKind::Fail => {
                    // Input 0 must still be open to fail.
                    steps.retain(|step| *step != Step::Finish(0));
                    let after = match &mut feeds[0] {
                        Feed::Eager(count) => {
                            *count = (*count).max(1);
                            1 + (after - 1) % *count
                        }
                        Feed::Driven => 0,
                    };
                    End::Fail { after }
                }
            };
            Script { feeds, steps, end }
        })
}

/// What one run saw.
#[derive(Debug, Default)]
pub(crate) struct Seen {
    /// done.1: outputs delivered after a datum they were made from was done.
    pub(crate) early: Vec<String>,
    /// done.2: outputs missing tokens of their inputs, or whose inputs were
    /// done while downstream held them.
    pub(crate) uncarried: Vec<String>,
    /// done.3: data downstream had consumed, which the stage no longer
    /// needed by its own declaration, still not done mid-stream.
    pub(crate) lingering: Vec<String>,
    /// done.3–5: data still not done after the end, once downstream had
    /// dropped its outputs (sorted).
    pub(crate) undone: Vec<u64>,
    /// done.6: data reported done more than once.
    pub(crate) twice: Vec<u64>,
    /// `tck.create_n_gives_exactly_n`, where the factory declares
    /// `element_index`: an output delivered again, out of order, or after
    /// one was skipped (the first such output).
    pub(crate) disordered: Vec<String>,
    /// The stage did not make progress: it did not subscribe or terminate
    /// in time.
    pub(crate) stuck: Option<Stuck>,
}

/// A signal the run waited for and did not get: another rule requires it
/// (no `done` rule does), so the rule test that ran the script could not
/// conclude.
#[derive(Debug, Clone)]
pub(crate) struct Stuck {
    /// The rule that requires the signal: §1.9 (`on_subscribe`), §1.5
    /// (`on_complete` once every input completed), §4.2 (`on_error` once
    /// input 0 failed).
    pub(crate) rule: &'static str,
    pub(crate) expected: String,
    pub(crate) actual: String,
}

/// The ledger's view: what was issued, what is done.
#[derive(Default)]
struct Book {
    issued: Vec<u64>,
    done: HashMap<u64, u32>,
}

#[derive(Default)]
struct Ledger {
    book: Mutex<Book>,
    changed: Condvar,
}

impl Ledger {
    fn is_done(&self, id: u64) -> bool {
        self.book.lock().done.contains_key(&id)
    }

    /// Waits until every id of `ids` is done, at most `bound`; the ones
    /// still not done.
    fn wait_done(&self, ids: &[u64], bound: Duration) -> Vec<u64> {
        let deadline = Instant::now() + bound;
        let mut book = self.book.lock();
        loop {
            let left: Vec<u64> = ids
                .iter()
                .copied()
                .filter(|id| !book.done.contains_key(id))
                .collect();
            if left.is_empty() || self.changed.wait_until(&mut book, deadline).timed_out() {
                return ids
                    .iter()
                    .copied()
                    .filter(|id| !book.done.contains_key(id))
                    .collect();
            }
        }
    }
}

/// Runs `script` against a fresh stage from `factory`.
pub(crate) fn run<F: LifecycleFactory>(cx: &RuleCx, factory: &Arc<F>, script: &Script) -> Seen {
    let timeout = cx.env().timeout();
    let shared = Arc::new(Ledger::default());
    let ledger = {
        let shared = shared.clone();
        DoneLedger::new(move |id| {
            *shared.book.lock().done.entry(id).or_insert(0) += 1;
            shared.changed.notify_all();
        })
    };
    let inputs: Vec<Arc<Input>> = script
        .feeds
        .iter()
        .enumerate()
        .map(|(j, &feed)| {
            let fail_after = match (script.end, feed) {
                (End::Fail { after }, Feed::Eager(_)) if j == 0 => Some(after),
                _ => None,
            };
            Arc::new(Input::new(
                j as u64 * INPUT_STRIDE,
                feed,
                fail_after,
                ledger.clone(),
                shared.clone(),
            ))
        })
        .collect();
    drop(ledger);

    let mut seen = Seen::default();
    let boxed = inputs
        .iter()
        .map(|input| Box::new(InputPublisher(input.clone())) as Box<dyn Publisher<Tracked<u64>>>)
        .collect();
    let stage = cx.step(cx.rule(), "create_stage(inputs)", || {
        factory.create_stage(boxed)
    });
    let index_of = {
        let factory = factory.clone();
        Arc::new(move |output: &F::Output| factory.element_index(output)) as Arc<IndexOf<F::Output>>
    };
    let down = Arc::new(Downstream::<F::Output>::new(cx, shared.clone(), index_of));
    cx.step(cx.rule(), "subscribe(recorder)", || {
        stage.subscribe(Box::new(Recorder(down.clone())))
    });
    let Some(subscription) = down.wait(timeout, |d| d.subscription.clone()) else {
        seen.stuck = Some(Stuck {
            rule: "1.9",
            expected: "on_subscribe from the stage, which the verification subscribed to".into(),
            actual: format!("nothing within {} ms", timeout.as_millis()),
        });
        return seen;
    };

    let keeps = factory.keeps_delivered();
    // Released data may be dropped on another thread: as for a signal
    // after cancel (§1.8), "at once" is bounded by the larger of the
    // no-signal window and the prompt bound.
    let release_bound = cx.env().no_signal_timeout().max(cx.env().prompt());
    for step in &script.steps {
        match *step {
            Step::Emit(j) => {
                if let Some(id) = inputs[j].emit(cx) {
                    cx.trace(format!("input {j} emitted datum {id}"));
                }
            }
            Step::Finish(j) => {
                if inputs[j].finish(cx, None) {
                    cx.trace(format!("input {j} completed"));
                }
            }
            Step::Request(n) => {
                if down.state.lock().terminal.is_none() {
                    cx.step(
                        cx.rule(),
                        format!("request({})", crate::probe::show_demand(n)),
                        || subscription.request(n),
                    );
                }
            }
            Step::Consume => {
                let (held, delivered) = {
                    let mut state = down.state.lock();
                    (std::mem::take(&mut state.held), state.delivered_ids.clone())
                };
                check_held(&shared, &held, &mut seen.uncarried);
                cx.trace(format!(
                    "downstream drops the {} outputs it held",
                    held.len()
                ));
                drop(held);
                if let Some(keep) = keeps {
                    let released = released(&delivered, keep);
                    let left = shared.wait_done(&released, release_bound);
                    if !left.is_empty() {
                        seen.lingering.push(format!(
                            "{left:?} were still not done {} ms after downstream dropped every output made from them (the stage declares it keeps, of each input, at most its {keep} most recent delivered data)",
                            release_bound.as_millis()
                        ));
                    }
                }
            }
        }
    }

    match script.end {
        End::Cancel => cx.step(cx.rule(), "cancel()", || subscription.cancel()),
        End::Complete | End::Fail { .. } => {
            for (j, input) in inputs.iter().enumerate() {
                let error = matches!(script.end, End::Fail { .. }) && j == 0;
                if input.finish(cx, error.then_some(())) {
                    cx.trace(format!(
                        "input {j} {}",
                        if error { "failed" } else { "completed" }
                    ));
                }
            }
            if down.state.lock().terminal.is_none() {
                cx.step(cx.rule(), UNBOUNDED_REQUEST, || {
                    subscription.request(demand::UNBOUNDED)
                });
            }
            if down.wait(timeout, |d| d.terminal.clone()).is_none() {
                let (rule, expected) = match script.end {
                    End::Fail { .. } => (
                        "4.2",
                        "on_error from the stage (or the end of what it recovers with): input 0 failed, the other inputs ended, and downstream asked for everything",
                    ),
                    _ => (
                        "1.5",
                        "on_complete from the stage: every input completed and downstream asked for everything",
                    ),
                };
                seen.stuck = Some(Stuck {
                    rule,
                    expected: expected.into(),
                    actual: format!(
                        "no terminal signal within {} ms of the unbounded request",
                        timeout.as_millis()
                    ),
                });
            }
        }
    }

    let held = {
        let mut state = down.state.lock();
        // From now on downstream keeps nothing: an output still in flight
        // (a stage's worker may deliver after cancel, §1.8, §3.12) is
        // judged as it arrives and let go at once, never held until the
        // end and then blamed on the stage.
        state.released = true;
        seen.early.append(&mut state.early);
        seen.uncarried.append(&mut state.uncarried);
        std::mem::take(&mut state.held)
    };
    check_held(&shared, &held, &mut seen.uncarried);
    cx.trace(format!(
        "downstream drops the {} outputs it held",
        held.len()
    ));
    drop(held);
    drop(subscription);

    // The stage handle stays alive: ending the stream must release the
    // data, not dropping the processor.
    let issued = shared.book.lock().issued.clone();
    let mut undone = shared.wait_done(&issued, timeout);
    undone.sort_unstable();
    seen.undone = undone;
    // An output still in flight when the data were done is judged too:
    // once the stage lets go of the recorder nothing more can come. A
    // stage that keeps it (§3.13 is not this verification's business) is
    // given the release bound.
    let _ = down.wait(release_bound, |d| d.dropped.then_some(()));
    {
        // Late outputs, judged as they arrived.
        let mut state = down.state.lock();
        seen.early.append(&mut state.early);
        seen.uncarried.append(&mut state.uncarried);
        seen.disordered.append(&mut state.disordered);
    }
    let mut twice: Vec<u64> = shared
        .book
        .lock()
        .done
        .iter()
        .filter(|(_, count)| **count > 1)
        .map(|(id, _)| *id)
        .collect();
    twice.sort_unstable();
    seen.twice = twice;
    drop(stage);
    seen
}

/// Outputs downstream still holds: none of their inputs may be done yet
/// (done.2).
fn check_held<O: Lineage>(shared: &Ledger, held: &[O], uncarried: &mut Vec<String>) {
    for output in held {
        let mut inputs = Vec::new();
        output.inputs(&mut inputs);
        if let Some(id) = inputs.iter().find(|id| shared.is_done(**id)) {
            uncarried.push(format!(
                "datum {id} was done while downstream still held an output made from {inputs:?}"
            ));
        }
    }
}

/// The data downstream consumed that a stage keeping the `keep` most
/// recent delivered data of each input no longer holds.
fn released(delivered: &BTreeSet<u64>, keep: usize) -> Vec<u64> {
    let mut by_input: HashMap<u64, Vec<u64>> = HashMap::new();
    for &id in delivered {
        by_input.entry(id / INPUT_STRIDE).or_default().push(id);
    }
    let mut released: Vec<u64> = by_input
        .into_values()
        .flat_map(|ids| {
            let cut = ids.len().saturating_sub(keep);
            ids.into_iter().take(cut)
        })
        .collect();
    released.sort_unstable();
    released
}

/// A tracked input: emits `Tracked<u64>` whose token comes from the
/// verification's ledger, eagerly (from inside `request`, trampolined) or
/// when the schedule says so.
struct Input {
    first: u64,
    feed: Feed,
    fail_after: Option<u64>,
    ledger: DoneLedger,
    shared: Arc<Ledger>,
    state: Mutex<InputState>,
    /// The stage's subscriber; every signal to it is sent holding this
    /// lock, so signals are serial (§1.3).
    subscriber: Mutex<Option<Box<dyn Subscriber<Tracked<u64>>>>>,
}

#[derive(Default)]
struct InputState {
    subscribed: bool,
    demand: u64,
    sent: u64,
    /// A thread is signalling (eager inputs): a `request` only adds demand.
    emitting: bool,
    ended: bool,
    cancelled: bool,
}

/// What an input sends next.
enum Signal {
    Next(u64),
    Complete,
    Error,
}

impl Input {
    fn new(
        first: u64,
        feed: Feed,
        fail_after: Option<u64>,
        ledger: DoneLedger,
        shared: Arc<Ledger>,
    ) -> Self {
        Input {
            first,
            feed,
            fail_after,
            ledger,
            shared,
            state: Mutex::new(InputState::default()),
            subscriber: Mutex::new(None),
        }
    }

    fn send(&self, signal: Signal) {
        let mut subscriber_slot = self.subscriber.lock();
        let Some(subscriber) = subscriber_slot.as_mut() else {
            return;
        };
        match signal {
            Signal::Next(id) => {
                self.shared.book.lock().issued.push(id);
                subscriber.on_next(Tracked::new(id, self.ledger.issue(id)));
            }
            Signal::Complete => subscriber.on_complete(),
            Signal::Error => subscriber.on_error(StreamError::msg(
                "upstream failure injected by the datum-lifecycle verification",
            )),
        }
        // After its end or a cancel the input lets go of the stage's
        // subscriber (§3.13), and whatever that subscriber holds.
        let state = self.state.lock();
        if state.ended || state.cancelled {
            drop(state);
            subscriber_slot.take();
        }
    }

    /// Eager inputs: emits while there is demand, then completes or fails.
    fn drain(&self) {
        loop {
            let signal = {
                let mut state = self.state.lock();
                let Feed::Eager(count) = self.feed else {
                    state.emitting = false;
                    return;
                };
                if state.ended || state.cancelled {
                    state.emitting = false;
                    return;
                }
                if self.fail_after == Some(state.sent) {
                    state.ended = true;
                    Signal::Error
                } else if state.sent == count {
                    state.ended = true;
                    Signal::Complete
                } else if state.demand > 0 {
                    state.demand -= 1;
                    state.sent += 1;
                    Signal::Next(self.first + state.sent - 1)
                } else {
                    state.emitting = false;
                    return;
                }
            };
            self.send(signal);
        }
    }

    /// A driven input emits its next datum if the stage asked for one.
    fn emit(&self, cx: &RuleCx) -> Option<u64> {
        let id = {
            let mut state = self.state.lock();
            if self.feed != Feed::Driven
                || !state.subscribed
                || state.ended
                || state.cancelled
                || state.demand == 0
            {
                return None;
            }
            state.demand -= 1;
            state.sent += 1;
            self.first + state.sent - 1
        };
        cx.step(cx.rule(), format!("on_next(datum {id})"), || {
            self.send(Signal::Next(id))
        });
        Some(id)
    }

    /// A driven input completes (or fails, with `error`), if still open.
    fn finish(&self, cx: &RuleCx, error: Option<()>) -> bool {
        {
            let mut state = self.state.lock();
            if self.feed != Feed::Driven || !state.subscribed || state.ended || state.cancelled {
                return false;
            }
            state.ended = true;
        }
        let (what, signal) = match error {
            Some(()) => ("on_error", Signal::Error),
            None => ("on_complete", Signal::Complete),
        };
        cx.step(cx.rule(), what, || self.send(signal));
        true
    }
}

struct InputPublisher(Arc<Input>);

impl Publisher<Tracked<u64>> for InputPublisher {
    fn subscribe(&self, mut subscriber: Box<dyn Subscriber<Tracked<u64>>>) {
        let input = &self.0;
        {
            let mut state = input.state.lock();
            if state.subscribed {
                drop(state);
                subscriber.on_subscribe(Arc::new(Inert));
                subscriber.on_error(StreamError::msg(
                    "a datum-lifecycle input serves one subscriber",
                ));
                return;
            }
            state.subscribed = true;
            // Held during on_subscribe: a request from inside it only adds
            // demand, which the drain below delivers.
            state.emitting = true;
        }
        let mut slot = input.subscriber.lock();
        let subscription: Arc<dyn Subscription> = Arc::new(InputSubscription(input.clone()));
        subscriber.on_subscribe(subscription);
        *slot = Some(subscriber);
        drop(slot);
        input.drain();
    }
}

struct Inert;

impl Subscription for Inert {
    fn request(&self, _: u64) {}
    fn cancel(&self) {}
}

struct InputSubscription(Arc<Input>);

impl Subscription for InputSubscription {
    fn request(&self, n: u64) {
        {
            let mut state = self.0.state.lock();
            state.demand = demand::add(state.demand, n);
            if state.emitting {
                return;
            }
            state.emitting = true;
        }
        self.0.drain();
    }

    fn cancel(&self) {
        self.0.state.lock().cancelled = true;
        // Let go of the stage's subscriber (§3.13) unless a signal to it is
        // running (maybe this cancel comes from inside it): that signal's
        // sender lets go once it returns.
        let taken = self
            .0
            .subscriber
            .try_lock()
            .and_then(|mut slot| slot.take());
        drop(taken);
    }
}

/// A factory's `element_index`: which output is which, if it tells.
type IndexOf<O> = dyn Fn(&O) -> Option<u64> + Send + Sync;

struct Downstream<O> {
    cx: RuleCx,
    ledger: Arc<Ledger>,
    index_of: Arc<IndexOf<O>>,
    state: Mutex<DownState<O>>,
    changed: Condvar,
}

struct DownState<O> {
    subscription: Option<Arc<dyn Subscription>>,
    terminal: Option<Option<String>>,
    held: Vec<O>,
    /// Downstream has dropped its outputs for good (the run ended): an
    /// output arriving later is judged and dropped at once.
    released: bool,
    /// The stage has dropped the recorder: no output can come any more.
    dropped: bool,
    /// Every datum some delivered output was made from.
    delivered_ids: BTreeSet<u64>,
    early: Vec<String>,
    uncarried: Vec<String>,
    /// Outputs delivered so far.
    outputs: u64,
    /// The order outputs came in, by the declared `element_index`: from
    /// output 0, the verification subscribing to a fresh stage.
    order: crate::probe::identity::Order,
    disordered: Vec<String>,
}

impl<O> Downstream<O> {
    fn new(cx: &RuleCx, ledger: Arc<Ledger>, index_of: Arc<IndexOf<O>>) -> Self {
        Downstream {
            cx: cx.clone(),
            ledger,
            index_of,
            state: Mutex::new(DownState {
                subscription: None,
                terminal: None,
                held: Vec::new(),
                released: false,
                dropped: false,
                delivered_ids: BTreeSet::new(),
                early: Vec::new(),
                uncarried: Vec::new(),
                outputs: 0,
                order: crate::probe::identity::Order::from_start(),
                disordered: Vec::new(),
            }),
            changed: Condvar::new(),
        }
    }

    /// Waits until `ready` returns something, at most `timeout`.
    fn wait<R>(&self, timeout: Duration, ready: impl Fn(&DownState<O>) -> Option<R>) -> Option<R> {
        let deadline = Instant::now() + timeout;
        let mut state = self.state.lock();
        loop {
            if let Some(found) = ready(&state) {
                return Some(found);
            }
            if self.changed.wait_until(&mut state, deadline).timed_out() {
                return ready(&state);
            }
        }
    }
}

/// The downstream subscriber: checks each output as it arrives and holds
/// it until the schedule consumes it or the run ends; once the run has
/// ended, drops it at once.
struct Recorder<O>(Arc<Downstream<O>>);

impl<O: Lineage + Send + 'static> Subscriber<O> for Recorder<O> {
    fn on_subscribe(&mut self, subscription: Arc<dyn Subscription>) {
        self.0.state.lock().subscription = Some(subscription);
        self.0.changed.notify_all();
    }

    fn on_next(&mut self, output: O) {
        let (mut inputs, mut tokens) = (Vec::new(), Vec::new());
        output.inputs(&mut inputs);
        output.tokens(&mut tokens);
        let already: Vec<u64> = inputs
            .iter()
            .copied()
            .filter(|id| self.0.ledger.is_done(*id))
            .collect();
        // The user's element_index runs outside the lock.
        let index = (self.0.index_of)(&output);
        let carried: HashSet<u64> = tokens.iter().copied().collect();
        let missing: Vec<u64> = inputs
            .iter()
            .copied()
            .filter(|id| !carried.contains(id))
            .collect();
        let mut state = self.0.state.lock();
        if !already.is_empty() {
            state.early.push(format!(
                "an output made from {inputs:?} was delivered after {already:?} had been done"
            ));
        }
        if !missing.is_empty() {
            state.uncarried.push(format!(
                "an output made from {inputs:?} carries the tokens {tokens:?}, not those of {missing:?}"
            ));
        }
        state.outputs += 1;
        if let Some(index) = index {
            if let Err(wrong) = state.order.next(index) {
                if state.disordered.is_empty() {
                    let number = state.outputs;
                    state
                        .disordered
                        .push(format!("output #{number}, made from {inputs:?}, {wrong}"));
                }
            }
        }
        state.delivered_ids.extend(inputs.iter().copied());
        if state.released {
            drop(state);
            self.0.cx.trace(format!(
                "an output made from {inputs:?} arrived after downstream dropped its outputs: dropped at once"
            ));
            drop(output);
        } else {
            state.held.push(output);
            drop(state);
        }
        self.0.changed.notify_all();
    }

    fn on_error(&mut self, error: StreamError) {
        self.0.state.lock().terminal = Some(Some(error.to_string()));
        self.0.changed.notify_all();
    }

    fn on_complete(&mut self) {
        self.0.state.lock().terminal = Some(None);
        self.0.changed.notify_all();
    }
}

impl<O> Drop for Recorder<O> {
    fn drop(&mut self) {
        self.0.state.lock().dropped = true;
        self.0.changed.notify_all();
    }
}
