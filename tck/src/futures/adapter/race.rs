//! `adapter_2`: no wake-up is lost when an inner stream wakes while the
//! adapter's `poll_next` runs (the lost-wake-up race of `stream.2`, across
//! the wrapper).
//!
//! In every fourth round the push lands at the moment the adapter takes
//! the waker of its poll (clones it or wakes it by reference; see
//! [`AtTake`]), the first, second or third take of the poll in turn, and
//! the adapter goes on only once the push is done. That poll is the one
//! right after the adapter yielded the previous round's item, as an
//! executor polls again after an item, when the wake-up that brought the
//! item has used up the adapter's registration: an adapter that polls its
//! inner streams and only then registers its task's waker, with no lock
//! between, loses that wake-up every time, not by chance.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::task::Poll;
use std::time::{Duration, Instant};

use parking_lot::Mutex;

use super::AdapterFactory;
use super::inner::{Inners, Woke};
use super::rules::{Adapted, RACE_ROUNDS};
use crate::context::{Outcome, RuleBody, RuleCx};
use crate::futures::at_take::AtTake;
use crate::wakers::WakeProbe;

const RULE: &str = "adapter.2";

/// One push of the feeder thread.
#[derive(Clone, Copy)]
struct Pushed {
    value: u64,
    woke: Woke,
    /// Whether it overlapped an adapter `poll_next`.
    overlapped: bool,
    /// `poll_seq` right after the push: a poll that starts later saw it.
    seq_after: u64,
    /// Wake-ups of the adapter's waker before the push: one more is owed
    /// if the push woke what the adapter waits on.
    wakes_before: u64,
}

/// What the feeder thread and the polling thread share.
struct Race {
    /// The push the polling thread waits for; the feeder pushes `k` once
    /// it reads `k` here.
    round: AtomicU64,
    /// Odd while the adapter's `poll_next` runs.
    poll_seq: AtomicU64,
    pushes: Mutex<Vec<Pushed>>,
    stop: AtomicBool,
    /// The push at the adapter's take of its waker.
    take: Arc<AtTake>,
}

/// Whether push `k` lands at the moment the adapter takes its waker.
fn at_take(k: u64) -> bool {
    k % 4 == 1
}

impl Race {
    fn pushed(&self, k: u64) -> Option<Pushed> {
        self.pushes.lock().get(k as usize).copied()
    }
}

fn feed(cx: &RuleCx, race: &Race, inners: &Inners, waker: &WakeProbe, timeout: Duration) {
    for k in 0..RACE_ROUNDS {
        let deadline = Instant::now() + timeout * 4;
        while race.round.load(Ordering::SeqCst) != k {
            if race.stop.load(Ordering::SeqCst) || Instant::now() > deadline {
                return;
            }
            std::thread::yield_now();
        }
        if at_take(k) {
            if !race.take.begin_when_asked(k, timeout * 4) {
                return;
            }
        } else {
            // Vary where in the adapter's poll the push lands.
            for _ in 0..(k % 8) * 128 {
                std::hint::spin_loop();
            }
        }
        let wakes_before = waker.wakes();
        let before = race.poll_seq.load(Ordering::SeqCst);
        let j = k as usize % inners.count();
        let pushed = cx.try_step(RULE, format!("feeder: push into inner {j}"), || {
            inners.push(j)
        });
        race.take.finish(k);
        let after = race.poll_seq.load(Ordering::SeqCst);
        let Ok((value, woke)) = pushed else { return };
        race.pushes.lock().push(Pushed {
            value,
            woke,
            overlapped: before % 2 == 1 || before != after,
            seq_after: after,
            wakes_before,
        });
    }
}

/// `adapter.2`: pushes from another thread while the adapter is polled;
/// a wake-up owed for a push that overlapped a poll must still come.
pub(crate) fn adapter_2<F: AdapterFactory>(cx: &RuleCx, factory: &F) -> RuleBody {
    cx.scenario(format!(
        "{RACE_ROUNDS} items pushed into the inner streams in turn from another thread as the adapter is polled"
    ));
    let mut a = Adapted::new(cx, factory, RULE)?;
    let race = Race {
        round: AtomicU64::new(u64::MAX),
        poll_seq: AtomicU64::new(0),
        pushes: Mutex::new(Vec::new()),
        stop: AtomicBool::new(false),
        take: AtTake::new(cx, "item"),
    };
    let timeout = cx.env().timeout();
    // One waker throughout: which waker is woken is adapter.1's matter.
    let waker = a.d.fresh_waker();
    waker.on_take(Some(race.take.hook(waker.name().to_string())));
    let outcome = std::thread::scope(|scope| {
        let (race_ref, inners, feeder_waker) = (&race, a.inners.clone(), waker.clone());
        let feeder_cx = cx.clone();
        let spawned = std::thread::Builder::new()
            .name(String::from("rs-tck-feeder"))
            .spawn_scoped(scope, move || {
                feed(&feeder_cx, race_ref, &inners, &feeder_waker, timeout)
            });
        if let Err(error) = spawned {
            return Err(cx.failure("the TCK to start its feeder thread", error.to_string()));
        }
        let outcome = poll_race(&mut a, factory, &race, &waker);
        race.stop.store(true, Ordering::SeqCst);
        race.take.stop();
        outcome
    });
    waker.on_take(None);
    match outcome? {
        Outcome::Passed => {
            for j in 0..a.inners.count() {
                a.inners.end(j);
            }
            a.drain(factory, RULE)?;
            Ok(Outcome::Passed)
        }
        other => Ok(other),
    }
}

fn poll_race<F: AdapterFactory>(
    a: &mut Adapted<F>,
    factory: &F,
    race: &Race,
    waker: &Arc<WakeProbe>,
) -> RuleBody {
    let cx = a.cx().clone();
    let timeout = cx.env().timeout();
    // Wake-ups owed for a push that came after the poll had returned:
    // proof that the adapter wakes when there is no race.
    let mut woken_unraced = 0u64;
    for k in 0..RACE_ROUNDS {
        race.round.store(k, Ordering::SeqCst);
        let feeder_deadline = Instant::now() + timeout * 4;
        loop {
            if cx.has_failed() {
                return Ok(Outcome::Passed);
            }
            let since = waker.wakes();
            let raced = at_take(k);
            if raced {
                race.take.arm(k, (k / 4) % 3);
            }
            let started = race.poll_seq.fetch_add(1, Ordering::SeqCst) + 1;
            let answer = a.poll(factory, waker, RULE);
            race.poll_seq.fetch_add(1, Ordering::SeqCst);
            let by_take = raced && race.take.disarm(k);
            let answer = answer?.0;
            if raced && !by_take && answer.is_pending() {
                // No take in this poll acted: the push comes after it.
                race.take.request(k);
            }
            match answer {
                // The poll right after an item, whose wake-up took the
                // adapter's registration, is where a registration made
                // late loses the next wake-up: the next round's push lands
                // in it.
                Poll::Ready(Some(_)) if at_take(k + 1) && a.inners.has_item(k) => break,
                Poll::Ready(Some(_)) => continue,
                // It may end early (take, take_while): the race is over.
                Poll::Ready(None) => return Ok(Outcome::Passed),
                Poll::Pending => {}
            }
            // Wait for the push, or a wake-up that comes first.
            let pushed = loop {
                if let Some(pushed) = race.pushed(k) {
                    break Some(pushed);
                }
                if waker.wait_woken(since, Duration::from_millis(1)) {
                    break None;
                }
                if cx.has_failed() {
                    return Ok(Outcome::Passed);
                }
                if Instant::now() >= feeder_deadline {
                    return Err(cx.failure(
                        format!("the feeder to push item {k} from its thread"),
                        format!("it had not within {} ms", (timeout * 4).as_millis()),
                    ));
                }
            };
            let Some(pushed) = pushed else { continue };
            if started > pushed.seq_after {
                // This poll began after the push: it saw the item.
                break;
            }
            if !a.owes(pushed.woke) {
                // The push woke nothing the adapter waits on: poll again.
                continue;
            }
            if waker.wait_woken(pushed.wakes_before, timeout) {
                if !pushed.overlapped {
                    woken_unraced += 1;
                }
                continue;
            }
            return judge_lost(a, factory, waker, &pushed, woken_unraced);
        }
    }
    Ok(Outcome::Passed)
}

/// A wake-up owed for `pushed` did not come. `adapter.2`'s failure only if
/// the push overlapped a poll and the adapter does wake for a push that
/// comes after its poll returned (seen in an earlier round, or in one
/// control round played now); otherwise it cannot be judged here
/// (`adapter.1` judges a lost wake-up with no race).
fn judge_lost<F: AdapterFactory>(
    a: &mut Adapted<F>,
    factory: &F,
    waker: &Arc<WakeProbe>,
    pushed: &Pushed,
    woken_unraced: u64,
) -> RuleBody {
    let value = pushed.value;
    let j = (value % a.inners.count() as u64) as usize;
    if !pushed.overlapped {
        return Ok(Outcome::Skipped(format!(
            "the race cannot be judged: the adapter lost the wake-up of item {value}, pushed into inner {j} after its poll_next had returned Pending (that is adapter.1's failure)"
        )));
    }
    if woken_unraced == 0 && !control_round(a, factory, waker, j)? {
        return Ok(Outcome::Skipped(format!(
            "the race cannot be judged: the wake-up of item {value} was lost, and so was the wake-up of a push made only after the adapter's poll_next had returned Pending (that is adapter.1's failure)"
        )));
    }
    let timeout = a.cx().env().timeout();
    Err(a.cx().failure(
        format!(
            "a wake-up of the adapter's waker after inner {j}, left Pending in the adapter's current run of Pending polls, woke its waker for item {value}, pushed from thread rs-tck-feeder while the adapter's poll_next was running"
        ),
        format!(
            "no wake-up within {} ms (lost in the race; a push after a poll had returned was not)",
            timeout.as_millis()
        ),
    ))
}

/// One push with no race: the adapter polled until `Pending`, then an
/// item pushed into inner `j` from this thread. Whether the wake-up it
/// owed came (`false` also when it owed none).
fn control_round<F: AdapterFactory>(
    a: &mut Adapted<F>,
    factory: &F,
    waker: &Arc<WakeProbe>,
    j: usize,
) -> Result<bool, crate::context::Failure> {
    a.cx()
        .trace("control round: an item pushed only after poll_next returned Pending");
    for _ in 0..RACE_ROUNDS * 2 {
        match a.poll(factory, waker, RULE)?.0 {
            Poll::Ready(Some(_)) => continue,
            Poll::Ready(None) => return Ok(false),
            Poll::Pending => {
                let since = waker.wakes();
                let (_, woke) = a.inners.push(j);
                return Ok(a.owes(woke) && waker.wait_woken(since, a.cx().env().timeout()));
            }
        }
    }
    Ok(false)
}
