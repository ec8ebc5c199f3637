//! `stream.2`: the lost-wake-up race. A feeder thread pushes items while
//! the rule's thread polls the stream, and a wake-up lost because a push
//! overlapped a `poll_next` fails the rule.
//!
//! Two ways to lose a wake-up are played:
//!
//! * the item arrives while `poll_next` is between its check and its
//!   `Pending` (the consumer registers its waker too late);
//! * the producer wakes the consumer *before* the item is visible: the poll
//!   that wake-up causes finds nothing and returns `Pending`, and nothing
//!   wakes it again once the item lands. The window is inside the
//!   producer's `push`, too short to be hit by chance, so in every fourth
//!   round the TCK's waker holds the waking thread inside `wake()` until
//!   the woken task has polled once (at most [`poll_slice`] once that poll
//!   has started). A correct producer makes its item visible before it
//!   wakes, so the held wake-up costs it nothing; a producer that wakes
//!   under its own lock only waits out the slice.
//!
//! * the item arrives after `poll_next` found none and before it stored
//!   its waker (a check, then a registration, with no lock between): in
//!   every fourth round (see [`AtTake`]) the feeder pushes the item at the
//!   moment the stream takes the poll's waker (clones it, or wakes it by
//!   reference), and the stream goes on only once the push is done — the
//!   window is hit whenever the stream registers, not by chance. A stream
//!   that registers before it looks again finds the item; one that holds
//!   its lock around both keeps the push out until it has registered (the
//!   TCK waits at most [`poll_slice`] for a push under way), and is woken.
//!
//! A woken poller always polls at once, as an executor would: it never
//! waits for the feeder's push to return first, which would close the
//! second window.

use std::fmt::Debug;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, OnceLock};
use std::task::Poll;
use std::thread::{self, ThreadId};
use std::time::{Duration, Instant};

use parking_lot::{Condvar, Mutex};

use super::driver::{Driver, show};
use super::factory::{Feeder, StreamFactory};
use super::rules::{NO_FEEDER, RACE_ROUNDS, end, push, wrong_count};
use crate::context::{Failure, Outcome, RuleBody, RuleCx};
use crate::futures::at_take::AtTake;
use crate::wakers::{WakeProbe, poll_slice};

const RULE: &str = "stream.2";

/// Whether the wake-up of item `k` is held until the woken task polled.
fn holds_wake(k: u64) -> bool {
    k % 4 == 3
}

/// Whether item `k` is pushed at the moment the stream takes its waker.
fn at_take(k: u64) -> bool {
    k % 4 == 1
}

/// What the feeder thread and the polling thread share.
struct Race {
    /// The item the polling thread waits for; the feeder pushes item `k`
    /// once it reads `k` here.
    round: AtomicU64,
    /// Odd while `poll_next` runs.
    poll_seq: AtomicU64,
    /// Items pushed (the end counts as one).
    pushed: AtomicU64,
    /// `k + 1` while the feeder thread is inside `push(k)` (the end:
    /// `RACE_ROUNDS + 1`), else 0.
    pushing: AtomicU64,
    /// `k + 1` while the first wake-up from inside `push(k)` is still to be
    /// held, else 0.
    hold_armed: AtomicU64,
    /// Whether the feeder thread is held inside a wake-up.
    held: AtomicBool,
    /// Per item: `poll_seq` when its push began.
    began: Mutex<Vec<u64>>,
    /// Per item: whether its push overlapped a `poll_next`.
    overlapped: Mutex<Vec<bool>>,
    feeder: OnceLock<ThreadId>,
    stop: AtomicBool,
    /// How long a held wake-up waits for the woken task's poll to start,
    /// and then to return.
    hold_start: Duration,
    hold_done: Duration,
    /// Notified (under `lock`) whenever `pushed` grows, a wake-up is held,
    /// a poll starts or returns while one is held, or the feeder stops.
    lock: Mutex<()>,
    progressed: Condvar,
    /// The push at the stream's take of its waker.
    take: Arc<AtTake>,
}

impl Race {
    fn new(cx: &RuleCx) -> Race {
        Race {
            take: AtTake::new(cx, "item"),
            round: AtomicU64::new(u64::MAX),
            poll_seq: AtomicU64::new(0),
            pushed: AtomicU64::new(0),
            pushing: AtomicU64::new(0),
            hold_armed: AtomicU64::new(0),
            held: AtomicBool::new(false),
            began: Mutex::new(Vec::new()),
            overlapped: Mutex::new(Vec::new()),
            feeder: OnceLock::new(),
            stop: AtomicBool::new(false),
            hold_start: cx.env().timeout() / 4,
            hold_done: poll_slice(cx.env()),
            lock: Mutex::new(()),
            progressed: Condvar::new(),
        }
    }

    /// Tells whoever waits on `progressed` to look again.
    fn notify(&self) {
        let _guard = self.lock.lock();
        self.progressed.notify_all();
    }

    /// Waits until the feeder has pushed item `k` (the end, for
    /// [`RACE_ROUNDS`]), is held inside a wake-up, or failed, at most until
    /// `deadline`; whether it did any.
    fn wait_pushed(&self, cx: &RuleCx, k: u64, deadline: Instant) -> bool {
        let done = || {
            self.pushed.load(Ordering::SeqCst) > k
                || self.held.load(Ordering::SeqCst)
                || cx.has_failed()
        };
        let mut guard = self.lock.lock();
        while !done() {
            if self.progressed.wait_until(&mut guard, deadline).timed_out() {
                return done();
            }
        }
        true
    }

    /// Run inside every wake-up of the poller's waker: the first wake-up
    /// from inside a push of a holding round, on the feeder thread, waits
    /// there until the poller has polled once more.
    fn hold_wake(&self) {
        let k1 = self.pushing.load(Ordering::SeqCst);
        if k1 == 0 || self.feeder.get() != Some(&thread::current().id()) {
            return;
        }
        if self
            .hold_armed
            .compare_exchange(k1, 0, Ordering::SeqCst, Ordering::SeqCst)
            .is_err()
        {
            return;
        }
        // A poll that ran as the item landed may have taken it already: the
        // poller then waits for the next item, which only this thread can
        // push, and there is no window left to hold open.
        if self.round.load(Ordering::SeqCst) != k1 - 1 {
            return;
        }
        self.held.store(true, Ordering::SeqCst);
        // The poll to wait for is the first to start after this wake-up. A
        // poll running now must end first; if it does not within the
        // slice, it waits for something this thread holds (the producer
        // wakes under its own lock), and holding on would only delay it.
        let seq = self.poll_seq.load(Ordering::SeqCst);
        let mut waits = Vec::with_capacity(3);
        let start = if seq % 2 == 1 {
            waits.push((seq + 1, self.hold_done));
            seq + 2
        } else {
            seq + 1
        };
        waits.push((start, self.hold_start));
        waits.push((start + 1, self.hold_done));
        let reached = |at: u64| {
            self.poll_seq.load(Ordering::SeqCst) >= at || self.stop.load(Ordering::SeqCst)
        };
        let mut guard = self.lock.lock();
        self.progressed.notify_all();
        'waits: for (at, within) in waits {
            let deadline = Instant::now() + within;
            while !reached(at) {
                if self.progressed.wait_until(&mut guard, deadline).timed_out() {
                    break 'waits;
                }
            }
        }
        drop(guard);
        self.held.store(false, Ordering::SeqCst);
    }
}

/// `stream.2`: an item arriving from another thread during `poll_next`
/// does not lose its wake-up, nor one whose producer wakes before the item
/// is visible.
pub(crate) fn stream_2<F: StreamFactory>(cx: &RuleCx, factory: &F) -> RuleBody {
    let Some((stream, feeder)) = factory.create_fed_stream() else {
        return Ok(Outcome::Skipped(String::from(NO_FEEDER)));
    };
    cx.scenario(format!(
        "fed stream, {RACE_ROUNDS} items pushed from another thread as it is polled"
    ));
    let race = Arc::new(Race::new(cx));
    let mut d = Driver::new(cx, stream, "fed stream");
    // One waker throughout: which waker is woken is stream.1's matter.
    let waker = d.fresh_waker();
    let holder = race.clone();
    waker.on_wake(Arc::new(move || holder.hold_wake()));
    waker.on_take(Some(race.take.hook(waker.name().to_string())));
    let timeout = cx.env().timeout();
    let result = thread::scope(|scope| {
        let feeder_cx = cx.clone();
        let race_ref = &*race;
        let spawned = thread::Builder::new()
            .name(String::from("rs-tck-feeder"))
            .spawn_scoped(scope, move || {
                feed_race(&feeder_cx, race_ref, feeder, timeout)
            });
        if let Err(error) = spawned {
            return Err(cx.failure("the TCK to start its feeder thread", error.to_string()));
        }
        let result = poll_race(&mut d, &race, &waker);
        race.stop.store(true, Ordering::SeqCst);
        race.take.stop();
        race.notify();
        result
    });
    waker.on_wake(Arc::new(|| {}));
    waker.on_take(None);
    result
}

fn feed_race(cx: &RuleCx, race: &Race, feeder: Feeder, timeout: Duration) {
    let _ = race.feeder.set(thread::current().id());
    let mut feeder = Some(feeder);
    for k in 0..=RACE_ROUNDS {
        let deadline = Instant::now() + timeout * 4;
        while race.round.load(Ordering::SeqCst) != k {
            if race.stop.load(Ordering::SeqCst) || Instant::now() > deadline {
                return;
            }
            thread::yield_now();
        }
        if at_take(k) && k < RACE_ROUNDS {
            if !race.take.begin_when_asked(k, timeout * 4) {
                return;
            }
        } else {
            // Vary where in the poll the item lands.
            for _ in 0..(k % 4) * 64 {
                std::hint::spin_loop();
            }
        }
        let before = race.poll_seq.load(Ordering::SeqCst);
        race.began.lock().push(before);
        race.hold_armed
            .store(if holds_wake(k) { k + 1 } else { 0 }, Ordering::SeqCst);
        race.pushing.store(k + 1, Ordering::SeqCst);
        let pushed = if k < RACE_ROUNDS {
            push(cx, feeder.as_mut().expect("feeder"), RULE, k)
        } else {
            end(cx, feeder.take().expect("feeder"), RULE)
        };
        race.pushing.store(0, Ordering::SeqCst);
        race.hold_armed.store(0, Ordering::SeqCst);
        race.take.finish(k);
        let after = race.poll_seq.load(Ordering::SeqCst);
        if let Err(failure) = pushed {
            cx.record(failure);
            race.notify();
            return;
        }
        race.overlapped
            .lock()
            .push(before % 2 == 1 || before != after);
        race.pushed.store(k + 1, Ordering::SeqCst);
        race.notify();
    }
}

/// A poll's answer, and `poll_seq` once it returned.
type Polled<T> = (Poll<Option<T>>, u64);

/// One `poll_next`, counted in `poll_seq`.
fn race_poll<S: futures_core::Stream + Send>(
    d: &mut Driver<S>,
    race: &Race,
    waker: &Arc<WakeProbe>,
) -> Result<Polled<S::Item>, Failure>
where
    S::Item: Debug,
{
    race.poll_seq.fetch_add(1, Ordering::SeqCst);
    if race.held.load(Ordering::SeqCst) {
        race.notify();
    }
    let answer = d.poll(waker, RULE);
    let seq = race.poll_seq.fetch_add(1, Ordering::SeqCst) + 1;
    if race.held.load(Ordering::SeqCst) {
        race.notify();
    }
    Ok((answer?, seq))
}

fn poll_race<S: futures_core::Stream + Send>(
    d: &mut Driver<S>,
    race: &Race,
    waker: &Arc<WakeProbe>,
) -> RuleBody
where
    S::Item: Debug,
{
    // Wake-ups that came for an item whose push began after poll_next had
    // returned Pending: proof that the stream wakes when there is no race.
    let mut woken_unraced = 0u64;
    for k in 0..=RACE_ROUNDS {
        race.round.store(k, Ordering::SeqCst);
        // Whether a poll caused by a wake-up from inside push(k) returned
        // Pending.
        let mut woken_early = false;
        let mut woken_in_push = false;
        loop {
            if d.cx.has_failed() {
                return Ok(Outcome::Passed);
            }
            let since = waker.wakes();
            let raced = at_take(k) && k < RACE_ROUNDS;
            if raced {
                // The first take in half of these rounds, the second in the rest.
                race.take.arm(k, (k / 4) % 2);
            }
            let polled = race_poll(d, race, waker);
            if raced && !race.take.disarm(k) {
                // No take in this poll: the item comes after it.
                race.take.request(k);
            }
            let (answer, seq) = polled?;
            match answer {
                Poll::Ready(Some(_)) if k < RACE_ROUNDS => break,
                Poll::Ready(None) if k == RACE_ROUNDS => return Ok(Outcome::Passed),
                Poll::Ready(other) => {
                    let actual = match other {
                        Some(item) => format!("{item:?} after the feeder ended"),
                        None => format!("Ready(None) after {} items", d.yielded),
                    };
                    return Err(wrong_count(d, RACE_ROUNDS, &actual));
                }
                Poll::Pending => {
                    woken_early |= woken_in_push;
                    woken_in_push = false;
                    match await_wake(d, race, waker, since, k)? {
                        Wake::BeforePush => {
                            // A wake-up of its own (a self-waking stream):
                            // the next poll waits for the push to begin, so
                            // that such a stream is not polled in a busy
                            // loop that starves the feeder.
                            let within = d.cx.env().timeout() * 4;
                            if !race.wait_pushed(&d.cx, k, Instant::now() + within) {
                                return Err(d.cx.failure_of(
                                    RULE,
                                    format!("the feeder to push item {k} from its thread"),
                                    format!("it had not within {} ms", within.as_millis()),
                                ));
                            }
                        }
                        Wake::Woken { in_push } => {
                            woken_in_push = in_push;
                            if race.began.lock().get(k as usize) == Some(&seq) {
                                woken_unraced += 1;
                            }
                        }
                        Wake::Lost => {
                            let lost = Lost {
                                k,
                                woken_unraced,
                                woken_early,
                            };
                            return judge_lost_wake(d, race, waker, lost);
                        }
                    }
                }
            }
        }
    }
    Ok(Outcome::Passed)
}

/// Waits for the wake-up owed once item `k` (the end, for
/// [`RACE_ROUNDS`]) has arrived. The stream's window of
/// [`timeout`](crate::env::TestEnv::timeout) starts when the feeder thread
/// has pushed, so a feeder starved on a loaded machine is not held against
/// the stream.
fn await_wake<S: futures_core::Stream + Send>(
    d: &Driver<S>,
    race: &Race,
    waker: &WakeProbe,
    since: u64,
    k: u64,
) -> Result<Wake, Failure>
where
    S::Item: Debug,
{
    let timeout = d.cx.env().timeout();
    let slice = poll_slice(d.cx.env());
    let feeder_deadline = Instant::now() + timeout * 4;
    while race.pushed.load(Ordering::SeqCst) <= k {
        // A failure on the feeder thread ends the race (the caller sees it).
        if d.cx.has_failed() {
            return Ok(Wake::Woken { in_push: false });
        }
        if waker.wait_woken(since, slice) {
            let in_push =
                race.held.load(Ordering::SeqCst) || race.pushing.load(Ordering::SeqCst) == k + 1;
            return Ok(if in_push || race.pushed.load(Ordering::SeqCst) > k {
                Wake::Woken { in_push }
            } else {
                Wake::BeforePush
            });
        }
        if Instant::now() >= feeder_deadline {
            return Err(d.cx.failure_of(
                RULE,
                format!("the feeder to push item {k} from its thread"),
                format!("it had not within {} ms", (timeout * 4).as_millis()),
            ));
        }
    }
    Ok(if waker.wait_woken(since, timeout) {
        Wake::Woken { in_push: false }
    } else {
        Wake::Lost
    })
}

/// How the wake-up owed for an item of the race came.
enum Wake {
    /// Before the feeder began to push the item: the stream woke itself.
    BeforePush,
    /// While or after the feeder pushed it (or the feeder failed);
    /// `in_push` when it came before the push had returned.
    Woken { in_push: bool },
    /// Not within the timeout after the push.
    Lost,
}

/// A wake-up lost in the race.
struct Lost {
    /// The item (the end, for [`RACE_ROUNDS`]) whose wake-up was lost.
    k: u64,
    woken_unraced: u64,
    /// Whether the producer had woken the poller from inside the push
    /// before the item was visible.
    woken_early: bool,
}

/// The wake-up of item `k` (or the end) was lost. It is `stream.2`'s
/// failure only if the loss is the race's: the item arrived while
/// `poll_next` ran (or the producer woke before the item was visible), and
/// the stream does wake its waker for an item that arrives after
/// `poll_next` returned `Pending` (seen in an earlier round, or in one more
/// round played now, unraced by construction). A stream that loses every
/// wake-up is `stream.1`'s failure, whichever item it happened to lose
/// first.
fn judge_lost_wake<S: futures_core::Stream + Send>(
    d: &mut Driver<S>,
    race: &Race,
    waker: &Arc<WakeProbe>,
    lost: Lost,
) -> RuleBody
where
    S::Item: Debug,
{
    let Lost {
        k,
        woken_unraced,
        woken_early,
    } = lost;
    let timeout = d.cx.env().timeout();
    let overlapped = race.overlapped.lock().get(k as usize).copied();
    let what = if k < RACE_ROUNDS {
        format!("item {k}")
    } else {
        String::from("the end")
    };
    let cannot_judge = |lost: &str| {
        Ok(Outcome::Skipped(format!(
            "the race cannot be judged: the stream also lost the wake-up of {lost}, which arrived after poll_next had returned Pending (that is stream.1's failure)"
        )))
    };
    if overlapped != Some(true) && !woken_early {
        return cannot_judge(&what);
    }
    let (now, _) = race_poll(d, race, waker)?;
    if woken_unraced == 0 {
        let unraced = match &now {
            Poll::Ready(Some(_)) if k < RACE_ROUNDS => control_round(d, race, waker, k + 1)?,
            _ => None,
        };
        match unraced {
            Some(true) => {}
            Some(false) if k + 1 < RACE_ROUNDS => return cannot_judge(&format!("item {}", k + 1)),
            Some(false) => return cannot_judge("the end"),
            None => {
                return Ok(Outcome::Skipped(format!(
                    "the race cannot be judged: the wake-up of {what} was lost while no item had yet arrived after a Pending poll_next, so whether the stream wakes at all without a race is unknown (stream.1 tells)"
                )));
            }
        }
    }
    let name = waker.name();
    let expected = if woken_early {
        format!(
            "a wake-up of {name} once {what} was visible: the producer woke {name} from inside its push on thread rs-tck-feeder before {what} was there, so the poll that wake-up caused returned Pending and another wake-up was owed"
        )
    } else {
        format!(
            "a wake-up of {name} after {what} arrived from thread rs-tck-feeder while poll_next was running and then returned Pending"
        )
    };
    Err(d.cx.failure_of(
        RULE,
        expected,
        format!(
            "no wake-up within {} ms (lost in the race); a poll now returns {}",
            timeout.as_millis(),
            show(&now)
        ),
    ))
}

/// One round with no race: a poll that returns `Pending`, then item `k`
/// (the end, for [`RACE_ROUNDS`]) pushed by the feeder thread after it
/// returned. Whether its wake-up came; `None` if the poll was not
/// `Pending`.
fn control_round<S: futures_core::Stream + Send>(
    d: &mut Driver<S>,
    race: &Race,
    waker: &Arc<WakeProbe>,
    k: u64,
) -> Result<Option<bool>, Failure>
where
    S::Item: Debug,
{
    d.cx.trace(format!(
        "control round: item {k} pushed only after poll_next returned Pending"
    ));
    let since = waker.wakes();
    if !race_poll(d, race, waker)?.0.is_pending() {
        return Ok(None);
    }
    race.round.store(k, Ordering::SeqCst);
    race.take.request(k);
    await_wake(d, race, waker, since, k).map(|wake| Some(!matches!(wake, Wake::Lost)))
}
