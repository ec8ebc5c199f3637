//! Concurrency stress for subscribers: the TCK plays a publisher whose
//! signals come from several threads, one after the other.
//!
//! §1.3 lets a publisher signal from any thread, as long as the signals
//! are serialised (each happens before the next). Each iteration draws a
//! [`SignalPlan`]: [`MOVES`] moves — a burst of `on_next` within the
//! demand the subscriber signalled, or the nudge (`trigger_request`) —
//! each made by one of several threads that take turns in the plan's
//! order (a mutex hands the turn over, so every move happens before the
//! next), ending in `on_complete`, `on_error` or nothing. Meanwhile the
//! subscriber requests and cancels as it likes, from whichever thread it
//! is on. Checked on every call it makes to its subscription: no call
//! from inside `on_complete` / `on_error` (§2.3), calls never overlap
//! (§2.7); and every signal returns normally (§2.13). A `request(0)` is
//! answered, as §3.9 asks, with `on_error` in the next move's turn, and
//! nothing follows it.

use std::cell::Cell;
use std::fmt;
use std::sync::Arc;
use std::sync::atomic::{AtomicU32, Ordering};
use std::time::Instant;

use parking_lot::{Condvar, Mutex};
use reactive_streams::{StreamError, Subscriber, Subscription, demand};

use crate::context::{Failure, Outcome, RuleBody, RuleCx};
use crate::explore::splitmix64;
use crate::subscriber::SubscriberBlackboxFactory;

/// Moves per iteration, before the terminal signal (if any).
pub const MOVES: usize = 24;

/// What one thread does in its turn.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Move {
    /// Up to this many `on_next`, as far as the demand allows.
    Burst(u64),
    /// `trigger_request`.
    Nudge,
    /// `on_complete`.
    Complete,
    /// `on_error`.
    Error,
}

/// One iteration: which thread makes which move, in order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SignalPlan {
    /// The signalling threads.
    pub threads: usize,
    /// `(thread, move)`, in the order they happen.
    pub moves: Vec<(usize, Move)>,
}

impl SignalPlan {
    /// The plan drawn from `seed` for `threads` threads.
    pub fn draw(seed: u64, threads: usize) -> SignalPlan {
        let threads = threads.max(1);
        let mut state = seed;
        let mut pick = |n: u64| splitmix64(&mut state) % n;
        let mut moves: Vec<(usize, Move)> = (0..MOVES)
            .map(|_| {
                let thread = pick(threads as u64) as usize;
                let mv = if pick(3) == 0 {
                    Move::Nudge
                } else {
                    Move::Burst(1 + pick(4))
                };
                (thread, mv)
            })
            .collect();
        let thread = pick(threads as u64) as usize;
        match pick(3) {
            0 => moves.push((thread, Move::Complete)),
            1 => moves.push((thread, Move::Error)),
            _ => {}
        }
        SignalPlan { threads, moves }
    }
}

impl fmt::Display for Move {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Move::Burst(k) => write!(f, "up to {k} on_next"),
            Move::Nudge => f.write_str("nudge"),
            Move::Complete => f.write_str("on_complete"),
            Move::Error => f.write_str("on_error"),
        }
    }
}

impl fmt::Display for SignalPlan {
    /// `signals-2: up to 3 on_next; signals-1: nudge; …`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let moves: Vec<String> = self
            .moves
            .iter()
            .map(|(thread, mv)| format!("signals-{}: {mv}", thread + 1))
            .collect();
        f.write_str(&moves.join("; "))
    }
}

thread_local! {
    /// This thread is inside `on_complete` or `on_error`.
    static IN_TERMINAL: Cell<bool> = const { Cell::new(false) };
}

/// The subscription the stressed subscriber gets.
#[derive(Default)]
struct Recorder {
    demand: Mutex<(u64, bool)>,
    inside: AtomicU32,
    /// The subscriber called `request(0)`.
    illegal_demand: std::sync::atomic::AtomicBool,
    broken: Mutex<Option<(&'static str, String, String)>>,
}

impl Recorder {
    fn break_rule(&self, rule: &'static str, expected: &str, actual: String) {
        let mut broken = self.broken.lock();
        if broken.is_none() {
            *broken = Some((rule, expected.to_string(), actual));
        }
    }

    fn call(&self, what: String, body: impl FnOnce(&mut (u64, bool))) {
        if self.inside.fetch_add(1, Ordering::SeqCst) > 0 {
            self.break_rule(
                "2.7",
                "calls on the subscription one at a time",
                format!("{what} overlapped another call"),
            );
        }
        if IN_TERMINAL.with(Cell::get) {
            self.break_rule(
                "2.3",
                "no call on the subscription from inside on_complete or on_error",
                format!("{what} from inside the terminal signal"),
            );
        }
        body(&mut self.demand.lock());
        self.inside.fetch_sub(1, Ordering::SeqCst);
    }
}

impl Subscription for Recorder {
    fn request(&self, n: u64) {
        // request(0) breaks no Subscriber rule: the subscription owes an
        // on_error (§3.9), which the next move delivers instead of itself.
        if n == 0 {
            self.illegal_demand.store(true, Ordering::SeqCst);
        }
        self.call(
            format!("request({})", crate::probe::show_demand(n)),
            |(demand, _)| {
                *demand = demand::add(*demand, n);
            },
        );
    }

    fn cancel(&self) {
        self.call(String::from("cancel()"), |(_, cancelled)| *cancelled = true);
    }
}

struct Turns<S> {
    next: usize,
    subscriber: Option<S>,
    delivered: u64,
    failure: Option<Failure>,
    /// The terminal signal went out: the on_error answering a `request(0)`
    /// (§3.9); no move signals anything after it (§1.7).
    ended: bool,
}

/// Runs one iteration of `plan` against a fresh subscriber of `f`.
pub(crate) fn run<F: SubscriberBlackboxFactory>(cx: &RuleCx, f: &F, plan: &SignalPlan) -> RuleBody {
    cx.trace(format!("plan: {plan}"));
    let mut subscriber =
        cx.try_step("tck.factory", "create_subscriber", || f.create_subscriber())?;
    let recorder = Arc::new(Recorder::default());
    let subscription = recorder.clone();
    cx.try_step("2.13", "on_subscribe(subscription)", || {
        subscriber.on_subscribe(subscription)
    })?;
    let turns = Mutex::new(Turns {
        next: 0,
        subscriber: Some(subscriber),
        delivered: 0,
        failure: None,
        ended: false,
    });
    let changed = Condvar::new();
    let deadline = Instant::now() + cx.env().watchdog();
    std::thread::scope(|scope| {
        for me in 0..plan.threads {
            let (turns, changed, recorder) = (&turns, &changed, &recorder);
            let spawned = std::thread::Builder::new()
                .name(format!("signals-{}", me + 1))
                .spawn_scoped(scope, move || {
                    loop {
                        let mut t = turns.lock();
                        while t.next < plan.moves.len() && plan.moves[t.next].0 != me {
                            if changed.wait_until(&mut t, deadline).timed_out() {
                                return;
                            }
                        }
                        let Some(&(_, mv)) = plan.moves.get(t.next) else {
                            return;
                        };
                        let result = perform(cx, f, &mut t, recorder, mv);
                        t.next += 1;
                        if let Err(failure) = result {
                            t.failure.get_or_insert(failure);
                            t.next = plan.moves.len();
                        }
                        changed.notify_all();
                    }
                });
            if let Err(error) = spawned {
                turns
                    .lock()
                    .failure
                    .get_or_insert(cx.failure("the TCK to start a thread", error.to_string()));
                turns.lock().next = plan.moves.len();
                changed.notify_all();
            }
        }
    });
    let mut turns = turns.into_inner();
    if let Some(failure) = turns.failure.take() {
        return Err(failure);
    }
    if turns.next < plan.moves.len() {
        return Err(cx.failure(
            "every move of the plan to be made",
            format!(
                "move {} of {} was still waiting at the watchdog",
                turns.next + 1,
                plan.moves.len()
            ),
        ));
    }
    drop(turns.subscriber.take());
    if let Some((rule, expected, actual)) = recorder.broken.lock().take() {
        return Err(cx.failure_of(rule, expected, actual));
    }
    Ok(Outcome::Passed)
}

fn perform<F: SubscriberBlackboxFactory>(
    cx: &RuleCx,
    f: &F,
    turns: &mut Turns<F::Subscriber>,
    recorder: &Recorder,
    mv: Move,
) -> Result<(), Failure> {
    let thread = std::thread::current()
        .name()
        .unwrap_or("signals")
        .to_string();
    if turns.ended {
        return Ok(());
    }
    if recorder.illegal_demand.load(Ordering::SeqCst) {
        turns.ended = true;
        return signal(cx, turns, &thread, Move::Error);
    }
    let Some(subscriber) = turns.subscriber.as_mut() else {
        return Ok(());
    };
    match mv {
        Move::Burst(k) => {
            for _ in 0..k {
                let (demand, cancelled) = *recorder.demand.lock();
                if cancelled || turns.delivered >= demand {
                    break;
                }
                let element = f.element(turns.delivered);
                turns.delivered += 1;
                let what = crate::probe::show_next(turns.delivered, &element);
                cx.try_step("2.13", format!("{thread}: {what}"), || {
                    subscriber.on_next(element)
                })?;
            }
        }
        Move::Nudge => {
            cx.try_step("2.13", format!("{thread}: trigger_request"), || {
                f.trigger_request(subscriber)
            })?;
        }
        Move::Complete | Move::Error => return signal(cx, turns, &thread, mv),
    }
    Ok(())
}

/// The terminal signal `mv`: `on_complete`, or `on_error` (the stress
/// error, or the illegal-demand error once the subscriber requested 0).
fn signal<S: Subscriber<T>, T>(
    cx: &RuleCx,
    turns: &mut Turns<S>,
    thread: &str,
    mv: Move,
) -> Result<(), Failure> {
    let Some(subscriber) = turns.subscriber.as_mut() else {
        return Ok(());
    };
    let error = if turns.ended {
        StreamError::illegal_demand(0)
    } else {
        StreamError::msg("TCK: stress failure")
    };
    turns.ended = true;
    IN_TERMINAL.with(|cell| cell.set(true));
    let result = cx.try_step("2.13", format!("{thread}: {mv}"), || {
        if mv == Move::Complete {
            subscriber.on_complete();
        } else {
            subscriber.on_error(error);
        }
    });
    IN_TERMINAL.with(|cell| cell.set(false));
    result
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plans_are_drawn_from_the_seed_and_read_as_turns() {
        let plan = SignalPlan::draw(7, 3);
        assert_eq!(plan, SignalPlan::draw(7, 3));
        assert!(plan.moves.len() >= MOVES);
        assert!(plan.moves.iter().all(|(thread, _)| *thread < 3));
        assert!(plan.to_string().starts_with("signals-"));
    }
}
