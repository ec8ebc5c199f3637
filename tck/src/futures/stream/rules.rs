//! The stream rule tests, one function per rule (`stream_1` … `stream_7`).
//!
//! Only `stream_1` and `stream_2` hold a stream to its wake-ups; every other
//! rule drives it leniently ([`Driver::next_lenient`]), so that a lost
//! wake-up fails the wake-up rules and no other.

use std::fmt::Debug;
use std::sync::Arc;
use std::task::Poll;
use std::time::{Duration, Instant};

use super::driver::{Driver, show};
use super::factory::{Feeder, StreamFactory};
use super::latest::{Owed, bounds};
use crate::context::{Failure, Outcome, RuleBody, RuleCx};
use crate::wakers::{WakeProbe, poll_slice};

/// Items in the streams the quick rules make.
pub const ITEMS: u64 = 3;
/// Items pushed from another thread in the race of `stream.2`.
pub const RACE_ROUNDS: u64 = 48;
/// Pending polls in a row that each wake their own waker, with nothing
/// pushed, before `stream.6` calls the stream busy.
pub const BUSY_POLLS: u32 = 32;

/// The rule id of the factory's own promise: a stream made for `n` items
/// yields exactly `n` (a fed one exactly what was pushed), each once and in
/// order when the factory's
/// [`item_index`](super::StreamFactory::item_index) tells which is which.
pub const EXACT_ITEMS: &str = "tck.stream_gives_exactly_n";

/// The body of a quick rule test.
pub(crate) fn body<F: StreamFactory>(test: &str) -> fn(&RuleCx, &F) -> RuleBody {
    match test {
        "stream_1" => stream_1::<F>,
        "stream_2" => super::race::stream_2::<F>,
        "stream_3" => stream_3::<F>,
        "stream_4" => stream_4::<F>,
        "stream_5" => stream_5::<F>,
        "stream_6" => stream_6::<F>,
        "stream_7" => stream_7::<F>,
        "tck_configuration" => super::config::tck_configuration::<F>,
        "tck_stream_gives_exactly_n" => super::items::tck_stream_gives_exactly_n::<F>,
        other => panic!("no stream rule test named {other}"),
    }
}

/// `answer`, a poll with nothing (more) pushed, must be `Pending`:
/// `Ready(None)` fails `expecting`, an item yielded `when` fails
/// [`EXACT_ITEMS`].
fn still_pending<S: futures_core::Stream + Send>(
    d: &Driver<S>,
    answer: Poll<Option<S::Item>>,
    expecting: &str,
    when: &str,
) -> Result<(), Failure>
where
    S::Item: Debug,
{
    match answer {
        Poll::Pending => Ok(()),
        // An end before the feeder ended loses every item still to be
        // pushed: data loss, whatever rule's test saw it.
        Poll::Ready(None) => Err(wrong_count(
            d,
            ITEMS,
            &format!(
                "Ready(None) after {} items {when} (the poll owed: {expecting})",
                d.yielded
            ),
        )),
        answer => Err(wrong_count(d, ITEMS, &format!("{} {when}", show(&answer)))),
    }
}

pub(super) fn wrong_count<S: futures_core::Stream + Send>(
    d: &Driver<S>,
    want: u64,
    actual: &str,
) -> Failure
where
    S::Item: Debug,
{
    d.cx.failure_of(
        EXACT_ITEMS,
        format!(
            "{} to yield {}, then Ready(None)",
            d.label,
            Owed::of(d.latest, want).describe()
        ),
        actual.to_string(),
    )
}

/// `Ready(None)` came after fewer than the `want` items owed. (Which
/// items came is `tck_stream_gives_exactly_n`'s to tell, and, when they
/// are what a latest-value stream yields, its message names the
/// declaration.)
pub(super) fn ended_early<S: futures_core::Stream + Send>(d: &Driver<S>, want: u64) -> Failure
where
    S::Item: Debug,
{
    wrong_count(d, want, &format!("Ready(None) after {} items", d.yielded))
}

/// Polls with a fresh waker each time until an item or the end; every
/// `Pending` must be followed by a wake-up of the waker of that poll.
fn next_strict<S: futures_core::Stream + Send>(
    d: &mut Driver<S>,
    rule: &str,
    why: &str,
) -> Result<Option<S::Item>, Failure>
where
    S::Item: Debug,
{
    let deadline = Instant::now() + d.cx.env().timeout();
    let mut earlier: Option<Arc<WakeProbe>> = None;
    loop {
        let waker = d.fresh_waker();
        match d.poll(&waker, rule)? {
            Poll::Ready(item) => return Ok(item),
            Poll::Pending => {
                let timeout = d.cx.env().timeout();
                if !waker.wait_woken(0, timeout) {
                    return Err(lost_wake(d, rule, &waker, earlier.as_deref(), why, timeout));
                }
                if Instant::now() >= deadline {
                    return Err(d.cx.failure_of(
                        rule,
                        format!("{} to make progress after its wake-ups", d.label),
                        format!(
                            "it kept returning Pending and waking itself for {} ms",
                            timeout.as_millis()
                        ),
                    ));
                }
                earlier = Some(waker);
            }
        }
    }
}

fn lost_wake<S: futures_core::Stream + Send>(
    d: &Driver<S>,
    rule: &str,
    waker: &WakeProbe,
    earlier: Option<&WakeProbe>,
    why: &str,
    timeout: Duration,
) -> Failure
where
    S::Item: Debug,
{
    let stale = earlier
        .filter(|e| e.wakes() > 0)
        .map(|e| {
            format!(
                ", though {} (the waker of an earlier poll) was woken",
                e.name()
            )
        })
        .unwrap_or_default();
    d.cx.failure_of(
        rule,
        format!(
            "a wake-up of {} (the waker of the most recent poll, which returned Pending) once {} could make progress ({why})",
            waker.name(),
            d.label
        ),
        format!(
            "no wake-up of {} within {} ms{stale}",
            waker.name(),
            timeout.as_millis()
        ),
    )
}

fn fed<F: StreamFactory>(factory: &F) -> Option<(F::Stream, Feeder)> {
    factory.create_fed_stream()
}

pub(super) fn push(cx: &RuleCx, feeder: &mut Feeder, rule: &str, i: u64) -> Result<(), Failure> {
    cx.try_step(rule, format!("feeder: push({i})"), || feeder.push(i))
}

pub(super) fn end(cx: &RuleCx, feeder: Feeder, rule: &str) -> Result<(), Failure> {
    cx.try_step(rule, "feeder: end", || feeder.end())
}

pub(super) const NO_FEEDER: &str = "needs a fed stream: the factory's create_fed_stream() returns None, so no item can be made to arrive";

/// A driver of `factory.create_stream(n)`, labelled as that call.
fn created<F: StreamFactory>(cx: &RuleCx, factory: &F, n: u64) -> Driver<F::Stream> {
    Driver::new(cx, factory.create_stream(n), format!("create_stream({n})"))
        .latest_value(factory.latest_value())
}

/// `stream.1`: after `Pending`, the most recent waker is woken once the
/// stream can make progress.
pub(crate) fn stream_1<F: StreamFactory>(cx: &RuleCx, factory: &F) -> RuleBody {
    const RULE: &str = "stream.1";
    cx.scenario(format!(
        "create_stream({ITEMS}), every poll with a new waker"
    ));
    let mut d = created(cx, factory, ITEMS);
    let owed = Owed::of(d.latest, ITEMS);
    let why = "it was made to yield its items with no help but polls";
    while d.yielded < owed.min {
        if next_strict(&mut d, RULE, why)?.is_none() {
            return Err(ended_early(&d, ITEMS));
        }
    }
    if !factory.endless() {
        while let Some(item) = next_strict(&mut d, RULE, why)? {
            if d.yielded > owed.max {
                let further = crate::probe::numbered(d.yielded, &item);
                return Err(wrong_count(&d, ITEMS, &format!("a further item {further}")));
            }
        }
    }
    d.drop_stream(RULE)?;

    let Some((stream, feeder)) = fed(factory) else {
        return Ok(Outcome::Passed);
    };
    cx.scenario("fed stream, polled with two wakers in turn before each item arrives");
    let mut d = Driver::new(cx, stream, "fed stream");
    let mut feeder = Some(feeder);
    for i in 0..=ITEMS {
        let first = d.fresh_waker();
        let second = d.fresh_waker();
        for waker in [&first, &second] {
            match d.poll(waker, RULE)? {
                Poll::Pending => {}
                answer => {
                    return Err(wrong_count(
                        &d,
                        ITEMS,
                        &format!(
                            "{} before the feeder pushed item {i} or ended",
                            show(&answer)
                        ),
                    ));
                }
            }
        }
        if i < ITEMS {
            push(cx, feeder.as_mut().expect("feeder"), RULE, i)?;
        } else {
            end(cx, feeder.take().expect("feeder"), RULE)?;
        }
        let timeout = cx.env().timeout();
        if !second.wait_woken(0, timeout) {
            let why = if i < ITEMS {
                format!("item {i} was pushed")
            } else {
                String::from("the feeder ended the stream")
            };
            return Err(lost_wake(&d, RULE, &second, Some(&first), &why, timeout));
        }
        let why = "it had been woken";
        match (next_strict(&mut d, RULE, why)?, i < ITEMS) {
            (Some(_), true) | (None, false) => {}
            (None, true) => {
                return Err(wrong_count(
                    &d,
                    ITEMS,
                    &format!("Ready(None) after {} items", d.yielded),
                ));
            }
            (Some(item), false) => {
                return Err(wrong_count(
                    &d,
                    ITEMS,
                    &format!("{item:?} after the feeder ended"),
                ));
            }
        }
    }
    Ok(Outcome::Passed)
}

fn check_hint<S: futures_core::Stream + Send>(
    d: &Driver<S>,
    remaining: Option<u64>,
) -> Result<(), Failure>
where
    S::Item: Debug,
{
    let (lower, upper) = d.size_hint();
    let ok = match remaining {
        None => upper.is_none(),
        // A latest-value stream may skip all but the newest, and once it
        // has yielded an item, that may have been the newest.
        Some(r) if d.latest && d.yielded > 0 => bounds((lower, upper), 0, r),
        Some(r) => bounds((lower, upper), Owed::of(d.latest, r).min, r),
    };
    if ok {
        return Ok(());
    }
    let expected = match remaining {
        None => format!(
            "size_hint() of the endless {} ({} yielded) to have no upper bound",
            d.label, d.yielded
        ),
        Some(r) => format!(
            "size_hint() of {} ({} yielded, {r} to come) to bound them: lower ≤ {r} ≤ upper",
            d.label, d.yielded
        ),
    };
    Err(d
        .cx
        .failure_of("stream.3", expected, format!("{:?}", (lower, upper))))
}

/// `stream.3`: `size_hint()` bounds the items still to come.
pub(crate) fn stream_3<F: StreamFactory>(cx: &RuleCx, factory: &F) -> RuleBody {
    const RULE: &str = "stream.3";
    for n in [0, 1, ITEMS] {
        cx.scenario(format!("create_stream({n}), size_hint() before every poll"));
        let mut d = created(cx, factory, n);
        loop {
            let remaining = (!factory.endless()).then(|| n.saturating_sub(d.yielded));
            check_hint(&d, remaining)?;
            if d.next_lenient(RULE)?.is_none() || (factory.endless() && d.yielded >= n) {
                break;
            }
        }
        d.drop_stream(RULE)?;
    }
    let Some((stream, mut feeder)) = fed(factory) else {
        return Ok(Outcome::Passed);
    };
    cx.scenario(format!(
        "fed stream of {ITEMS} items, size_hint() before every poll and after every push"
    ));
    let mut d = Driver::new(cx, stream, "fed stream");
    for i in 0..ITEMS {
        check_hint(&d, Some(ITEMS - d.yielded))?;
        let waker = d.fresh_waker();
        // Ready or Pending: the hint is checked against what it yielded.
        let _answer = d.poll(&waker, RULE)?;
        check_hint(&d, Some(ITEMS - d.yielded))?;
        if d.yielded <= i {
            push(cx, &mut feeder, RULE, i)?;
            check_hint(&d, Some(ITEMS - d.yielded))?;
            d.next_lenient(RULE)?;
        }
    }
    end(cx, feeder, RULE)?;
    check_hint(&d, Some(ITEMS.saturating_sub(d.yielded)))?;
    d.drain_lenient(RULE)?;
    Ok(Outcome::Passed)
}

/// `stream.4`: a fused stream reports `is_terminated()` after its end.
pub(crate) fn stream_4<F: StreamFactory>(cx: &RuleCx, factory: &F) -> RuleBody {
    const RULE: &str = "stream.4";
    let probe = factory.create_stream(0);
    let fused = factory.is_terminated(&probe).is_some();
    drop(probe);
    if !fused {
        return Ok(Outcome::Skipped(String::from(
            "not a FusedStream (the factory's is_terminated() returns None): the futures docs place no requirement on a poll after Ready(None), so there is nothing to check",
        )));
    }
    let mut runs: Vec<(String, F::Stream, Option<Feeder>)> = Vec::new();
    if !factory.endless() {
        for n in [0, ITEMS] {
            runs.push((
                format!("create_stream({n})"),
                factory.create_stream(n),
                None,
            ));
        }
    }
    if let Some((stream, feeder)) = fed(factory) {
        runs.push((String::from("fed stream"), stream, Some(feeder)));
    }
    if runs.is_empty() {
        return Ok(Outcome::Skipped(String::from(
            "an endless stream with no fed stream never returns Ready(None)",
        )));
    }
    for (label, stream, feeder) in runs {
        cx.scenario(format!("{label}, is_terminated() after Ready(None)"));
        let mut d = Driver::new(cx, stream, label);
        if let Some(mut feeder) = feeder {
            push(cx, &mut feeder, RULE, 0)?;
            end(cx, feeder, RULE)?;
        }
        d.drain_lenient(RULE)?;
        let terminated = d.stream().and_then(|s| factory.is_terminated(s));
        cx.trace(format!("is_terminated() → {terminated:?}"));
        if terminated != Some(true) {
            return Err(cx.failure(
                format!(
                    "is_terminated() of {} to return true once poll_next has returned Ready(None)",
                    d.label
                ),
                format!("{terminated:?}"),
            ));
        }
    }
    Ok(Outcome::Passed)
}

fn released<S: futures_core::Stream + Send>(d: &Driver<S>, producer: &str) -> Result<(), Failure>
where
    S::Item: Debug,
{
    let timeout = d.cx.env().timeout();
    d.wakers.wait_released(timeout).map_err(|held| {
        d.cx.failure_of(
            "stream.5",
            format!(
                "no clone of a waker it was given alive once {}{producer} dropped",
                d.label
            ),
            format!("still alive {} ms later: {held}", timeout.as_millis()),
        )
    })
}

fn sees_closed(cx: &RuleCx, feeder: &Feeder, label: &str) -> Result<(), Failure> {
    if !feeder.has_closed_probe() {
        return Ok(());
    }
    let timeout = cx.env().timeout();
    let deadline = Instant::now() + timeout;
    while !feeder.producer_sees_closed() {
        if Instant::now() >= deadline {
            return Err(cx.failure_of(
                "stream.5",
                format!("the producer to see the stream gone after drop({label}) (the feeder's closed() probe)"),
                format!("closed() still false {} ms after the drop", timeout.as_millis()),
            ));
        }
        std::thread::sleep(Duration::from_micros(200));
    }
    cx.trace("feeder: closed() → true");
    Ok(())
}

/// `stream.5`: dropping the stream at any point releases what it holds.
pub(crate) fn stream_5<F: StreamFactory>(cx: &RuleCx, factory: &F) -> RuleBody {
    const RULE: &str = "stream.5";
    let mut points: Vec<(&str, Option<u64>)> = vec![
        ("before the first poll", Some(0)),
        ("after 1 item", Some(1)),
    ];
    if !factory.endless() {
        points.push(("after its end", None));
    }
    for (point, items) in points {
        cx.scenario(format!("create_stream({ITEMS}) dropped {point}"));
        let mut d = created(cx, factory, ITEMS);
        match items {
            Some(n) => while d.yielded < n && d.next_lenient(RULE)?.is_some() {},
            None => {
                d.drain_lenient(RULE)?;
            }
        }
        d.drop_stream(RULE)?;
        released(&d, " is")?;
    }
    for queued in [0, 2] {
        let Some((stream, mut feeder)) = fed(factory) else {
            break;
        };
        let queued = queued.min(feeder.room());
        let point = if queued == 0 {
            String::from("while Pending")
        } else {
            format!("with {queued} items pushed and not polled")
        };
        cx.scenario(format!("fed stream dropped {point}"));
        let mut d = Driver::new(cx, stream, "fed stream");
        let waker = d.fresh_waker();
        // Most likely Pending; an item from nowhere is another rule's matter.
        let _answer = d.poll(&waker, RULE)?;
        for i in 0..queued {
            push(cx, &mut feeder, RULE, i)?;
        }
        d.drop_stream(RULE)?;
        sees_closed(cx, &feeder, "fed stream")?;
        end(cx, feeder, RULE)?;
        released(&d, " and its feeder are")?;
    }
    Ok(Outcome::Passed)
}

/// `stream.6`: a poll no wake-up caused loses nothing and does not
/// busy-wake.
pub(crate) fn stream_6<F: StreamFactory>(cx: &RuleCx, factory: &F) -> RuleBody {
    const RULE: &str = "stream.6";
    cx.scenario(format!(
        "create_stream({ITEMS}), every Pending polled again at once"
    ));
    let mut d = created(cx, factory, ITEMS);
    let slice = poll_slice(cx.env());
    let deadline = Instant::now() + cx.env().timeout() * (ITEMS as u32 + 1);
    let done = |d: &Driver<F::Stream>| d.ended || (factory.endless() && d.yielded >= ITEMS);
    while !done(&d) {
        if Instant::now() >= deadline {
            break;
        }
        let waker = d.fresh_waker();
        if d.poll(&waker, RULE)?.is_pending() && d.poll(&waker, RULE)?.is_pending() {
            waker.wait_woken(0, slice);
        }
    }
    let owed = Owed::of(d.latest, ITEMS);
    let complete = if factory.endless() {
        d.yielded >= ITEMS
    } else {
        d.ended && owed.paid_by(d.yielded)
    };
    if !complete {
        // Items lost to polls no wake-up caused are data loss, a MUST-level
        // breach of the factory's promise, not this SHOULD rule's warning.
        return Err(cx.failure_of(
            EXACT_ITEMS,
            format!(
                "{} then Ready(None) from {} with every Pending polled again at once",
                owed.describe(),
                d.label
            ),
            format!(
                "{} items{}",
                d.yielded,
                if d.ended {
                    " then Ready(None)"
                } else {
                    " and no end"
                }
            ),
        ));
    }
    d.drop_stream(RULE)?;

    let Some((stream, mut feeder)) = fed(factory) else {
        return Ok(Outcome::Passed);
    };
    cx.scenario("fed stream, polled again and again with nothing pushed");
    let mut d = Driver::new(cx, stream, "fed stream");
    let waker = d.fresh_waker();
    let started = Instant::now();
    let mut self_wakes = 0;
    let mut polls = 0;
    while self_wakes < BUSY_POLLS {
        let since = waker.wakes();
        polls += 1;
        let answer = d.poll(&waker, RULE)?;
        still_pending(
            &d,
            answer,
            "Pending from a poll with nothing pushed and the feeder not ended",
            "before anything was pushed",
        )?;
        if !waker.wait_woken(since, slice) {
            break;
        }
        self_wakes += 1;
    }
    if self_wakes >= BUSY_POLLS {
        let ms = started.elapsed().as_secs_f64() * 1000.0;
        cx.trace(format!(
            "{self_wakes} self wake-ups in {polls} polls over {ms:.3} ms"
        ));
        return Err(cx.failure(
            "a Pending poll_next with nothing pushed not to wake its own waker again (SHOULD NOT busy-wake)",
            format!(
                "each of {BUSY_POLLS} polls in a row returned Pending and woke {} at once, nothing pushed (rate: 1 wake-up per Pending)",
                waker.name()
            ),
        ));
    }
    cx.scenario(format!(
        "fed stream of {ITEMS} items, after each two polls no wake-up caused, with one waker"
    ));
    for i in 0..ITEMS {
        push(cx, &mut feeder, RULE, i)?;
        if d.next_lenient(RULE)?.is_none() {
            break;
        }
        // The second poll, with the waker the stream already holds and no
        // wake-up since, is the executor's spurious re-poll.
        let spurious = d.fresh_waker();
        for _ in 0..2 {
            let answer = d.poll(&spurious, RULE)?;
            still_pending(
                &d,
                answer,
                "Pending from a poll no wake-up caused, with nothing pushed since the last item",
                "before the next was pushed",
            )?;
        }
    }
    end(cx, feeder, RULE)?;
    d.drain_lenient(RULE)?;
    if d.yielded != ITEMS {
        return Err(wrong_count(
            &d,
            ITEMS,
            &format!(
                "{} items, then Ready(None), with polls no wake-up caused in between",
                d.yielded
            ),
        ));
    }
    Ok(Outcome::Passed)
}

/// One poll on a thread of its own.
fn poll_elsewhere<S: futures_core::Stream + Send>(
    d: &mut Driver<S>,
    waker: &Arc<WakeProbe>,
    nth: u64,
) -> Result<Poll<Option<S::Item>>, Failure>
where
    S::Item: Debug + Send,
{
    let cx = d.cx.clone();
    std::thread::scope(|scope| {
        let handle = std::thread::Builder::new()
            .name(format!("rs-tck-poller-{nth}"))
            .spawn_scoped(scope, || d.poll(waker, "stream.7"));
        match handle {
            Ok(handle) => handle.join().unwrap_or_else(|_| {
                Err(cx.failure(
                    "poll_next to return normally on another thread",
                    "it panicked",
                ))
            }),
            Err(error) => Err(cx.failure("the TCK to start a polling thread", error.to_string())),
        }
    })
}

/// Polls, each time on a new thread, until an item or the end (lenient
/// about wake-ups, like [`Driver::next_lenient`]).
fn next_elsewhere<S: futures_core::Stream + Send>(
    d: &mut Driver<S>,
    polls: &mut u64,
) -> Result<Option<S::Item>, Failure>
where
    S::Item: Debug + Send,
{
    let timeout = d.cx.env().timeout();
    let slice = poll_slice(d.cx.env());
    let deadline = Instant::now() + timeout;
    let waker = d.fresh_waker();
    loop {
        *polls += 1;
        let since = waker.wakes();
        match poll_elsewhere(d, &waker, *polls)? {
            Poll::Ready(item) => return Ok(item),
            Poll::Pending if Instant::now() >= deadline => {
                return Err(d.cx.failure(
                    format!(
                        "{} to yield its item #{} or its end, polled from other threads",
                        d.label,
                        d.yielded + 1
                    ),
                    format!(
                        "poll_next returned Pending for {} ms, woken or not",
                        timeout.as_millis()
                    ),
                ));
            }
            Poll::Pending => {
                waker.wait_woken(since, slice);
            }
        }
    }
}

fn threads_failure<S: futures_core::Stream + Send>(
    d: &Driver<S>,
    polls: u64,
    actual: String,
) -> Failure
where
    S::Item: Debug,
{
    let what = if d.latest {
        Owed::of(true, ITEMS).describe()
    } else {
        format!("its {ITEMS} items")
    };
    d.cx.failure(
        format!(
            "{} to yield {what}, then Ready(None), when each poll runs on a thread of its own",
            d.label
        ),
        format!("{actual} (poll #{polls} on thread rs-tck-poller-{polls})"),
    )
}

/// What `stream.7` compares with: the same scenario polled on the rule's
/// thread alone. A stream that fails it there too breaks the factory's
/// promise ([`EXACT_ITEMS`]), not `stream.7`: its failure on other
/// threads is reported "not concluded". `None` if it yields what it
/// owes on one thread.
fn on_one_thread<F: StreamFactory>(cx: &RuleCx, factory: &F, fed: bool) -> Option<Failure> {
    cx.scenario(if fed {
        "the same fed stream polled on the rule's thread alone, to tell whether the threads are to blame"
    } else {
        "the same create_stream polled on the rule's thread alone, to tell whether the threads are to blame"
    });
    let run = || -> Result<(), Failure> {
        if fed {
            let Some((stream, mut feeder)) = self::fed(factory) else {
                return Ok(());
            };
            let mut d = Driver::new(cx, stream, "fed stream");
            for i in 0..ITEMS {
                push(cx, &mut feeder, EXACT_ITEMS, i)?;
                if d.next_lenient(EXACT_ITEMS)?.is_none() {
                    return Err(ended_early(&d, ITEMS));
                }
            }
            end(cx, feeder, EXACT_ITEMS)?;
            if let Some(item) = d.next_lenient(EXACT_ITEMS)? {
                return Err(wrong_count(
                    &d,
                    ITEMS,
                    &format!("{item:?} after the feeder ended"),
                ));
            }
            return Ok(());
        }
        let mut d = created(cx, factory, ITEMS);
        let owed = Owed::of(d.latest, ITEMS);
        while d.yielded < owed.min {
            if d.next_lenient(EXACT_ITEMS)?.is_none() {
                return Err(ended_early(&d, ITEMS));
            }
        }
        if !factory.endless() {
            while let Some(item) = d.next_lenient(EXACT_ITEMS)? {
                if d.yielded > owed.max {
                    let further = crate::probe::numbered(d.yielded, &item);
                    return Err(wrong_count(&d, ITEMS, &format!("a further item {further}")));
                }
            }
        }
        d.drop_stream(EXACT_ITEMS)
    };
    run().err()
}

/// The failure of a `stream.7` scenario, or, if the stream fails the same
/// scenario on one thread, that failure instead.
fn blamed<F: StreamFactory>(cx: &RuleCx, factory: &F, fed: bool, failure: Failure) -> Failure {
    on_one_thread(cx, factory, fed).unwrap_or(failure)
}

/// `stream.7`: polled from different threads in turn, the stream behaves
/// as on one thread.
pub(crate) fn stream_7<F: StreamFactory>(cx: &RuleCx, factory: &F) -> RuleBody {
    const RULE: &str = "stream.7";
    if factory.thread_bound() {
        return Ok(Outcome::Skipped(String::from(
            "the factory declares its streams thread-bound (thread_bound() returns true): they are not Send, so they cannot be polled from other threads",
        )));
    }
    cx.scenario(format!(
        "create_stream({ITEMS}), every poll on a new thread"
    ));
    let mut d = created(cx, factory, ITEMS);
    let owed = Owed::of(d.latest, ITEMS);
    let mut polls = 0;
    let created_run = |d: &mut Driver<F::Stream>, polls: &mut u64| -> Result<(), Failure> {
        while d.yielded < owed.min {
            if next_elsewhere(d, polls)?.is_none() {
                return Err(threads_failure(
                    d,
                    *polls,
                    format!("Ready(None) after {} items", d.yielded),
                ));
            }
        }
        if !factory.endless() {
            while let Some(item) = next_elsewhere(d, polls)? {
                if d.yielded > owed.max {
                    return Err(threads_failure(
                        d,
                        *polls,
                        format!("a further item {item:?}"),
                    ));
                }
            }
        }
        Ok(())
    };
    created_run(&mut d, &mut polls).map_err(|failure| blamed(cx, factory, false, failure))?;
    d.drop_stream(RULE)?;

    let Some((stream, mut feeder)) = fed(factory) else {
        return Ok(Outcome::Passed);
    };
    cx.scenario("fed stream, every poll on a new thread, items pushed from the rule's thread");
    let mut d = Driver::new(cx, stream, "fed stream");
    let mut polls = 0;
    let fed_run = || -> Result<(), Failure> {
        for i in 0..ITEMS {
            polls += 1;
            let waker = d.fresh_waker();
            match poll_elsewhere(&mut d, &waker, polls)? {
                Poll::Pending => {}
                answer => {
                    return Err(threads_failure(
                        &d,
                        polls,
                        format!("{} before item {i} was pushed", show(&answer)),
                    ));
                }
            }
            push(cx, &mut feeder, RULE, i)?;
            if next_elsewhere(&mut d, &mut polls)?.is_none() {
                return Err(threads_failure(
                    &d,
                    polls,
                    format!("Ready(None) after {} items", d.yielded),
                ));
            }
        }
        end(cx, feeder, RULE)?;
        if let Some(item) = next_elsewhere(&mut d, &mut polls)? {
            return Err(threads_failure(
                &d,
                polls,
                format!("a further item {item:?}"),
            ));
        }
        Ok(())
    };
    fed_run().map_err(|failure| blamed(cx, factory, true, failure))?;
    Ok(Outcome::Passed)
}
