//! One run of a stage: tracked inputs in, a recording subscriber out, a
//! demand schedule, an end (completion, cancellation or an upstream
//! error), then what the ledger saw.

use std::collections::{HashMap, HashSet};
use std::fmt;
use std::sync::Arc;
use std::time::{Duration, Instant};

use parking_lot::{Condvar, Mutex};
use proptest::collection::vec;
use proptest::prelude::*;
use reactive_streams::done::{DoneLedger, Tracked};
use reactive_streams::{demand, Publisher, StreamError, Subscriber, Subscription};

use super::{LifecycleFactory, Lineage};
use crate::context::RuleCx;
use crate::testkit::SyncRange;

/// Ids of input `j` start at `j * INPUT_STRIDE`, so a lineage tells the
/// inputs apart.
pub(crate) const INPUT_STRIDE: u64 = 1_000_000;

/// How a run ends.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum End {
    /// Every input completes; downstream asks for everything.
    Complete,
    /// Downstream cancels after its demand schedule.
    Cancel,
    /// Input 0 fails after this many elements; downstream asks for
    /// everything.
    Fail { after: u64 },
}

/// The inputs, demand and end of one run.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Script {
    /// Elements of each input.
    pub(crate) counts: Vec<u64>,
    /// `request(n)` calls, in order; after each the run waits until the
    /// demand is met or the stage has terminated.
    pub(crate) demand: Vec<u64>,
    pub(crate) end: End,
}

impl fmt::Display for Script {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "inputs of {:?} elements, requests {:?}, then ",
            self.counts, self.demand
        )?;
        match self.end {
            End::Complete => f.write_str("request(max) until completion"),
            End::Cancel => f.write_str("cancel"),
            End::Fail { after } => write!(f, "input 0 fails after {after} elements"),
        }
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

/// Scripts for a stage with `inputs` inputs.
pub(crate) fn scripts(inputs: usize, ends: Ends) -> impl Strategy<Value = Script> {
    let kinds = match ends {
        Ends::Any => vec![EndKind::Complete, EndKind::Cancel, EndKind::Fail],
        Ends::Only(kind) => vec![kind],
    };
    (
        vec(0u64..10, inputs),
        vec(1u64..5, 0..6),
        proptest::sample::select(kinds),
        1u64..10,
    )
        .prop_map(|(mut counts, demand, kind, after)| {
            let end = match kind {
                EndKind::Complete => End::Complete,
                EndKind::Cancel => End::Cancel,
                EndKind::Fail => {
                    counts[0] = counts[0].max(1);
                    End::Fail {
                        after: 1 + (after - 1) % counts[0],
                    }
                }
            };
            Script {
                counts,
                demand,
                end,
            }
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
    /// done.3–5: data still not done after the end, once downstream had
    /// dropped its outputs (sorted).
    pub(crate) undone: Vec<u64>,
    /// done.6: data reported done more than once.
    pub(crate) twice: Vec<u64>,
    /// The stage did not make progress: it neither met the demand nor
    /// terminated in time.
    pub(crate) stuck: Option<String>,
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
}

/// Runs `script` against a fresh stage from `factory`.
pub(crate) fn run<F: LifecycleFactory>(cx: &RuleCx, factory: &F, script: &Script) -> Seen {
    let timeout = cx.env().timeout();
    let shared = Arc::new(Ledger::default());
    let ledger = {
        let shared = shared.clone();
        DoneLedger::new(move |id| {
            *shared.book.lock().done.entry(id).or_insert(0) += 1;
            shared.changed.notify_all();
        })
    };
    let inputs: Vec<Box<dyn Publisher<Tracked<u64>>>> = script
        .counts
        .iter()
        .enumerate()
        .map(|(j, &count)| {
            let fail_after = match script.end {
                End::Fail { after } if j == 0 => Some(after),
                _ => None,
            };
            Box::new(Input {
                range: SyncRange::new(j as u64 * INPUT_STRIDE, count),
                ledger: ledger.clone(),
                shared: shared.clone(),
                fail_after,
            }) as Box<dyn Publisher<Tracked<u64>>>
        })
        .collect();
    drop(ledger);

    let mut seen = Seen::default();
    let stage = cx.step(cx.rule(), "create_stage(inputs)", || {
        factory.create_stage(inputs)
    });
    let down = Arc::new(Downstream::<F::Output>::new(shared.clone()));
    cx.step(cx.rule(), "subscribe(recorder)", || {
        stage.subscribe(Box::new(Recorder(down.clone())))
    });
    let Some(subscription) = down.wait(timeout, |d| d.subscription.clone()) else {
        seen.stuck = Some(format!(
            "the stage did not call on_subscribe within {} ms",
            timeout.as_millis()
        ));
        return seen;
    };

    let mut requested: u64 = 0;
    for &n in &script.demand {
        let what = format!("request({})", crate::probe::show_demand(n));
        cx.trace(what.clone());
        cx.step(cx.rule(), what, || subscription.request(n));
        requested = demand::add(requested, n);
        let met = down.wait(timeout, |d| {
            (d.delivered >= requested || d.terminal.is_some()).then_some(())
        });
        if met.is_none() {
            seen.stuck = Some(format!(
                "after request({requested}) in total the stage delivered {} outputs and did not terminate within {} ms",
                down.state.lock().delivered,
                timeout.as_millis()
            ));
            break;
        }
    }
    if seen.stuck.is_none() {
        match script.end {
            End::Cancel => cx.step(cx.rule(), "cancel()", || subscription.cancel()),
            End::Complete | End::Fail { .. } => {
                if down.state.lock().terminal.is_none() {
                    cx.step(cx.rule(), "request(max)", || {
                        subscription.request(demand::UNBOUNDED)
                    });
                }
                if down.wait(timeout, |d| d.terminal.clone()).is_none() {
                    seen.stuck = Some(format!(
                        "the stage did not terminate within {} ms of unbounded demand",
                        timeout.as_millis()
                    ));
                }
            }
        }
    }

    let held = {
        let mut state = down.state.lock();
        seen.early = std::mem::take(&mut state.early);
        seen.uncarried = std::mem::take(&mut state.uncarried);
        std::mem::take(&mut state.held)
    };
    // Still held here: none of their inputs may be done yet.
    for output in &held {
        let mut inputs = Vec::new();
        output.inputs(&mut inputs);
        if let Some(id) = inputs.iter().find(|id| shared.is_done(**id)) {
            seen.uncarried.push(format!(
                "datum {id} was done while downstream still held an output made from {inputs:?}"
            ));
        }
    }
    cx.trace(format!(
        "downstream drops the {} outputs it held",
        held.len()
    ));
    drop(held);
    drop(subscription);

    // The stage handle stays alive: ending the stream must release the
    // data, not dropping the processor.
    let deadline = Instant::now() + timeout;
    let mut book = shared.book.lock();
    loop {
        let undone: Vec<u64> = book
            .issued
            .iter()
            .copied()
            .filter(|id| !book.done.contains_key(id))
            .collect();
        if undone.is_empty() || shared.changed.wait_until(&mut book, deadline).timed_out() {
            let mut undone: Vec<u64> = book
                .issued
                .iter()
                .copied()
                .filter(|id| !book.done.contains_key(id))
                .collect();
            undone.sort_unstable();
            seen.undone = undone;
            break;
        }
    }
    let mut twice: Vec<u64> = book
        .done
        .iter()
        .filter(|(_, count)| **count > 1)
        .map(|(id, _)| *id)
        .collect();
    twice.sort_unstable();
    seen.twice = twice;
    drop(book);
    drop(stage);
    seen
}

/// A tracked input: a synchronous range whose every element gets a token
/// from the verification's ledger as it is emitted.
struct Input {
    range: SyncRange,
    ledger: DoneLedger,
    shared: Arc<Ledger>,
    fail_after: Option<u64>,
}

impl Publisher<Tracked<u64>> for Input {
    fn subscribe(&self, subscriber: Box<dyn Subscriber<Tracked<u64>>>) {
        self.range.subscribe(Box::new(Issuer {
            downstream: subscriber,
            ledger: self.ledger.clone(),
            shared: self.shared.clone(),
            fail_after: self.fail_after,
            sent: 0,
            upstream: None,
            failed: false,
        }));
    }
}

struct Issuer {
    downstream: Box<dyn Subscriber<Tracked<u64>>>,
    ledger: DoneLedger,
    shared: Arc<Ledger>,
    fail_after: Option<u64>,
    sent: u64,
    upstream: Option<Arc<dyn Subscription>>,
    failed: bool,
}

impl Subscriber<u64> for Issuer {
    fn on_subscribe(&mut self, subscription: Arc<dyn Subscription>) {
        self.upstream = Some(subscription.clone());
        self.downstream.on_subscribe(subscription);
    }

    fn on_next(&mut self, id: u64) {
        if self.failed {
            return;
        }
        self.shared.book.lock().issued.push(id);
        self.downstream
            .on_next(Tracked::new(id, self.ledger.issue(id)));
        self.sent += 1;
        if self.fail_after == Some(self.sent) {
            self.failed = true;
            if let Some(upstream) = self.upstream.take() {
                upstream.cancel();
            }
            self.downstream.on_error(StreamError::msg(
                "upstream failure injected by the datum-lifecycle verification",
            ));
        }
    }

    fn on_error(&mut self, error: StreamError) {
        if !self.failed {
            self.downstream.on_error(error);
        }
    }

    fn on_complete(&mut self) {
        if !self.failed {
            self.downstream.on_complete();
        }
    }
}

struct Downstream<O> {
    ledger: Arc<Ledger>,
    state: Mutex<DownState<O>>,
    changed: Condvar,
}

struct DownState<O> {
    subscription: Option<Arc<dyn Subscription>>,
    delivered: u64,
    terminal: Option<Option<String>>,
    held: Vec<O>,
    early: Vec<String>,
    uncarried: Vec<String>,
}

impl<O> Downstream<O> {
    fn new(ledger: Arc<Ledger>) -> Self {
        Downstream {
            ledger,
            state: Mutex::new(DownState {
                subscription: None,
                delivered: 0,
                terminal: None,
                held: Vec::new(),
                early: Vec::new(),
                uncarried: Vec::new(),
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
/// it until the run ends.
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
        state.delivered += 1;
        state.held.push(output);
        drop(state);
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
