//! `sink.1`'s race: room made from another thread at the moment the sink
//! takes the waker of a `poll_ready`, `poll_flush` or `poll_close` (see
//! [`AtTake`]). A sink that finds itself full, lets go of its lock and
//! only then registers the waker loses the wake-up of room made in
//! between; here that room is made inside the registration, every time.
//! A sink that registers before it looks again, or holds one lock around
//! both, passes.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use super::FuturesSinkFactory;
use super::driver::{Driver, show};
use crate::context::{Failure, RuleCx};
use crate::futures::at_take::AtTake;

const RULE: &str = "sink.1";

/// Which take of the call makes the room: the first, then the second.
const TAKES: [u64; 2] = [0, 1];

/// The race for `method`, once per take in [`TAKES`], each on a sink of
/// its own filled until `poll_ready` returns `Pending` (its destination
/// paused first, if it can be).
pub(super) fn room_at_take<F: FuturesSinkFactory>(
    cx: &RuleCx,
    factory: &F,
    method: &str,
    races: &mut Races,
) -> Result<(), Failure> {
    for nth in TAKES {
        let k = races.rounds;
        races.rounds += 1;
        one_race(cx, factory, method, nth, &races.take, k)?;
    }
    Ok(())
}

/// The races of one `sink_1`, a round each: one [`AtTake`], so that a sink
/// holding what the room needs while it takes its waker costs the window
/// only twice in all.
pub(super) struct Races {
    take: Arc<AtTake>,
    rounds: u64,
}

impl Races {
    pub(super) fn new(cx: &RuleCx) -> Races {
        Races {
            take: AtTake::new(cx, "room"),
            rounds: 0,
        }
    }
}

fn one_race<F: FuturesSinkFactory>(
    cx: &RuleCx,
    factory: &F,
    method: &str,
    nth: u64,
    race: &Arc<AtTake>,
    k: u64,
) -> Result<(), Failure> {
    let mut d = Driver::new(cx, factory);
    let pausable = d.can_pause();
    let (start, release) = if pausable {
        (
            "its destination paused, ",
            "the destination resumed and emptied",
        )
    } else {
        ("", "one item taken")
    };
    let take = if nth == 0 { "first" } else { "second" };
    cx.scenario(format!(
        "{start}a sink filled until poll_ready returns Pending, then {method} called, and {release} from another thread at the moment {method} takes its waker (its {take} clone or wake_by_ref)"
    ));
    let fill = d.wakers.fresh();
    if d.fill(&fill, RULE)? != Ok(true) {
        // Never Pending, or failing: sink_1's other scenario tells.
        return Ok(());
    }
    let waker = d.wakers.fresh();
    waker.on_take(Some(race.hook(waker.name().to_string())));
    let mut delivery = d.lend_delivery();
    let made = AtomicBool::new(false);
    let answer = std::thread::scope(|scope| {
        let (race_ref, delivery, made) = (&**race, &mut delivery, &made);
        let worker_cx = cx.clone();
        let timeout = cx.env().timeout();
        let spawned = std::thread::Builder::new()
            .name(String::from("rs-tck-feeder"))
            .spawn_scoped(scope, move || {
                if !race_ref.begin_when_asked(k, timeout * 4) {
                    return;
                }
                if pausable {
                    // As sink_1's other scenario: resumed, and everything
                    // delivered taken (for a destination whose pause is
                    // only the TCK not taking, the take makes the room).
                    worker_cx.trace("delivery: resumed");
                    delivery.pause(false);
                    while let Some(item) = delivery.take() {
                        worker_cx.trace(format!("delivery: took {item}"));
                    }
                    made.store(true, Ordering::SeqCst);
                } else {
                    let taken = delivery.take();
                    worker_cx.trace(format!("delivery: took {taken:?}"));
                    made.store(taken.is_some(), Ordering::SeqCst);
                }
                race_ref.finish(k);
            });
        if let Err(error) = spawned {
            return Err(cx.failure("the TCK to start its feeder thread", error.to_string()));
        }
        race.arm(k, nth);
        let answer = d.call(method, &waker, RULE);
        let by_take = race.disarm(k);
        let answer = answer?;
        if !by_take {
            race.request(k);
        }
        if !race.wait_done(k, cx.env().timeout() * 4) {
            race.stop();
        }
        Ok((answer, by_take))
    });
    waker.on_take(None);
    d.return_delivery(delivery);
    if pausable {
        d.paused = false;
    }
    let (answer, by_take) = answer?;
    // No room made (nothing delivered to take): no wake-up owed here;
    // sink_1's other scenario tells.
    if !answer.is_pending() || !made.load(Ordering::SeqCst) {
        return Ok(());
    }
    let timeout = cx.env().timeout();
    if waker.wait_woken(0, timeout) {
        return Ok(());
    }
    let when = if by_take {
        format!("at the moment {method} took {}", waker.name())
    } else {
        format!("after {method} returned {}", show(&answer))
    };
    let what = if pausable {
        "its destination was resumed and emptied"
    } else {
        "an item was taken from the full sink"
    };
    Err(cx.failure_of(
        RULE,
        format!(
            "a wake-up of {} (the waker of {method}, which returned Pending) once {what} from thread rs-tck-feeder {when}",
            waker.name()
        ),
        format!(
            "no wake-up of {} within {} ms (lost in the race)",
            waker.name(),
            timeout.as_millis()
        ),
    ))
}
