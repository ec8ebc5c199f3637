//! The adapter rule tests (`adapter_1` … `adapter_6`) and the TCK's driver
//! of one adapter and its inner streams.

use std::fmt::Debug;
use std::sync::Arc;
use std::task::Poll;
use std::time::{Duration, Instant};

use super::AdapterFactory;
use super::inner::{Inners, Woke};
use crate::context::{Failure, Outcome, RuleBody, RuleCx};
use crate::futures::stream::driver::Driver;
use crate::wakers::{WakeProbe, poll_slice};

/// Items pushed into each inner stream in the quick scenarios.
pub(super) const ITEMS: u64 = 3;
/// Items pushed from another thread in the race of `adapter.2`.
pub const RACE_ROUNDS: u64 = 48;

/// The body of a rule test.
pub(crate) fn body<F: AdapterFactory>(test: &str) -> fn(&RuleCx, &F) -> RuleBody {
    match test {
        "adapter_1" => super::wake::adapter_1::<F>,
        "adapter_2" => super::race::adapter_2::<F>,
        "adapter_3" => adapter_3::<F>,
        "adapter_4" => adapter_4::<F>,
        "adapter_5" => super::identity::adapter_5::<F>,
        "adapter_6" => adapter_6::<F>,
        other => panic!("no adapter rule test named {other}"),
    }
}

/// One adapter poll's answer and the poll's number.
pub(super) type Polled<T> = (Poll<Option<T>>, u64);

/// An adapter under test, its inner streams and what it yielded.
pub(super) struct Adapted<F: AdapterFactory> {
    pub(super) d: Driver<F::Adapter>,
    pub(super) inners: Inners,
    factory_carried: Vec<Option<Vec<u64>>>,
    /// Adapter polls so far (the epoch inner streams tag wakers with).
    pub(super) polls: u64,
    /// The first poll of the current run of `Pending`s (none since the
    /// adapter's last `Ready`), if it is in one.
    pub(super) pending_since: Option<u64>,
}

impl<F: AdapterFactory> Adapted<F> {
    /// A fresh adapter around `factory.inputs()` fresh inner streams; a
    /// panic in `create_adapter` fails `rule`.
    pub(super) fn new(cx: &RuleCx, factory: &F, rule: &str) -> Result<Self, Failure> {
        let inputs = factory.inputs();
        let (inners, streams) = Inners::new(cx, inputs);
        let what = format!(
            "create_adapter({inputs} inner stream{})",
            plural(inputs as u64)
        );
        let adapter = cx.try_step(rule, what.clone(), || factory.create_adapter(streams))?;
        Ok(Adapted {
            d: Driver::new(cx, adapter, "the adapter"),
            inners,
            factory_carried: Vec::new(),
            polls: 0,
            pending_since: None,
        })
    }

    pub(super) fn cx(&self) -> &RuleCx {
        &self.d.cx
    }

    /// One `poll_next` with `waker`; the answer and the poll's number.
    pub(super) fn poll(
        &mut self,
        factory: &F,
        waker: &Arc<WakeProbe>,
        rule: &str,
    ) -> Result<Polled<F::Item>, Failure> {
        self.polls += 1;
        let epoch = self.polls;
        self.inners.begin_poll(epoch);
        let answer = self.d.poll(waker, rule)?;
        match &answer {
            Poll::Ready(Some(item)) => {
                self.factory_carried.push(factory.carried(item));
                self.pending_since = None;
            }
            Poll::Ready(None) => self.pending_since = None,
            Poll::Pending => {
                self.pending_since.get_or_insert(epoch);
            }
        }
        Ok((answer, epoch))
    }

    /// Whether what `woke` woke was registered in the current run of
    /// `Pending`s: then the adapter owes its latest waker a wake-up.
    pub(super) fn owes(&self, woke: Woke) -> bool {
        match (woke, self.pending_since) {
            (Woke::AtPoll(at), Some(since)) => at >= since,
            _ => false,
        }
    }

    /// The inner items each yielded item carried, by the factory's
    /// `carried` (`None` where it does not say).
    pub(super) fn carried(&self) -> &[Option<Vec<u64>>] {
        &self.factory_carried
    }

    /// Polls until the adapter has taken in what the inner streams hold: a
    /// `Pending` no wake-up follows within the no-signal window, or its
    /// end. Lenient about wake-ups (the wake-up rules judge those).
    pub(super) fn settle(&mut self, factory: &F, rule: &str) -> Result<(), Failure> {
        if self.d.ended {
            return Ok(());
        }
        let slice = poll_slice(self.cx().env());
        let deadline = Instant::now() + self.cx().env().timeout();
        let waker = self.d.fresh_waker();
        while Instant::now() < deadline {
            let since = waker.wakes();
            match self.poll(factory, &waker, rule)?.0 {
                Poll::Ready(Some(_)) => {}
                Poll::Ready(None) => return Ok(()),
                Poll::Pending => {
                    if !waker.wait_woken(since, slice) {
                        return Ok(());
                    }
                }
            }
        }
        Ok(())
    }

    /// Polls, leniently, until the adapter ends, or it has yielded nothing
    /// for the timeout: no adapter rule makes it end when its inner streams
    /// do (`select(inner, pending())` never does), so a test that drains
    /// judges what came.
    pub(super) fn drain(&mut self, factory: &F, rule: &str) -> Result<(), Failure> {
        if self.d.ended {
            return Ok(());
        }
        let timeout = self.cx().env().timeout();
        let slice = poll_slice(self.cx().env());
        let mut deadline = Instant::now() + timeout;
        let waker = self.d.fresh_waker();
        loop {
            let since = waker.wakes();
            match self.poll(factory, &waker, rule)?.0 {
                Poll::Ready(Some(_)) => deadline = Instant::now() + timeout,
                Poll::Ready(None) => return Ok(()),
                Poll::Pending if Instant::now() >= deadline => {
                    self.cx().trace(format!(
                        "the adapter has not ended: Pending for {} ms after its last item, woken or not ({} items yielded)",
                        timeout.as_millis(),
                        self.d.yielded
                    ));
                    return Ok(());
                }
                Poll::Pending => {
                    waker.wait_woken(since, slice);
                }
            }
        }
    }

    /// Pushes the next item of every inner stream, `items` rounds, then
    /// ends them all: a prefilled adapter.
    pub(super) fn prefill(&self, items: u64) {
        for _ in 0..items {
            for j in 0..self.inners.count() {
                self.inners.push(j);
            }
        }
        for j in 0..self.inners.count() {
            self.inners.end(j);
        }
    }
}

pub(super) fn plural(n: impl Into<u64>) -> &'static str {
    if n.into() == 1 { "" } else { "s" }
}

/// `adapter.3`: no inner stream is polled after its `Ready(None)`. The
/// inner streams record such a poll as a failure of `adapter.3` whichever
/// test sees it; this one makes the most of them.
pub(crate) fn adapter_3<F: AdapterFactory>(cx: &RuleCx, factory: &F) -> RuleBody {
    const RULE: &str = "adapter.3";
    cx.scenario(format!(
        "every inner stream with {ITEMS} items and ended before the first poll, polled to the adapter's end"
    ));
    let mut a = Adapted::new(cx, factory, RULE)?;
    a.prefill(ITEMS);
    a.drain(factory, RULE)?;

    let inputs = factory.inputs();
    cx.scenario(format!(
        "inner 0 ended at once, empty; then {ITEMS} items pushed into each other inner stream, the adapter settling after each, then their ends"
    ));
    let mut a = Adapted::new(cx, factory, RULE)?;
    a.inners.end(0);
    a.settle(factory, RULE)?;
    for _ in 0..ITEMS {
        for j in 1..inputs {
            a.inners.push(j);
            a.settle(factory, RULE)?;
        }
    }
    for j in 1..inputs {
        a.inners.end(j);
        a.settle(factory, RULE)?;
    }
    a.drain(factory, RULE)?;
    super::orders::every_order(cx, factory, RULE, false)?;
    Ok(Outcome::Passed)
}

/// Waits, at most the timeout, until every inner stream is dropped and
/// no clone of a waker given to the adapter is alive.
fn released<F: AdapterFactory>(a: &Adapted<F>, point: &str) -> Result<(), Failure> {
    let cx = a.cx();
    let timeout = cx.env().timeout();
    let deadline = Instant::now() + timeout;
    let mut alive = a.inners.alive();
    while !alive.is_empty() && Instant::now() < deadline {
        std::thread::sleep(Duration::from_micros(200));
        alive = a.inners.alive();
    }
    if !alive.is_empty() {
        return Err(cx.failure(
            format!(
                "every inner stream dropped once the adapter was dropped {point} (it owns them)"
            ),
            format!(
                "{} still alive {} ms later",
                alive.join(", "),
                timeout.as_millis()
            ),
        ));
    }
    a.d.wakers.wait_released(timeout).map_err(|held| {
        cx.failure(
            format!("no clone of a waker given to the adapter alive once it was dropped {point}"),
            format!("still alive {} ms later: {held}", timeout.as_millis()),
        )
    })
}

/// `adapter.4`: dropping the adapter at any point drops its inner streams
/// and the wakers it was given.
pub(crate) fn adapter_4<F: AdapterFactory>(cx: &RuleCx, factory: &F) -> RuleBody {
    const RULE: &str = "adapter.4";
    for point in [
        "before its first poll",
        "while Pending",
        "part-way, after 1 item",
        "after its end",
    ] {
        cx.scenario(format!("the adapter dropped {point}"));
        let mut a = Adapted::new(cx, factory, RULE)?;
        match point {
            "before its first poll" => {}
            "while Pending" => {
                let waker = a.d.fresh_waker();
                let _answer = a.poll(factory, &waker, RULE)?;
            }
            "part-way, after 1 item" => {
                for j in 0..a.inners.count() {
                    for _ in 0..ITEMS {
                        a.inners.push(j);
                    }
                }
                let waker = a.d.fresh_waker();
                let deadline = Instant::now() + cx.env().timeout();
                while a.d.yielded == 0 && !a.d.ended && Instant::now() < deadline {
                    if a.poll(factory, &waker, RULE)?.0.is_pending() {
                        waker.wait_woken(0, poll_slice(cx.env()));
                    }
                }
            }
            _ => {
                a.prefill(1);
                a.drain(factory, RULE)?;
            }
        }
        a.d.drop_stream(RULE)?;
        released(&a, point)?;
    }
    Ok(Outcome::Passed)
}

/// One `size_hint()` taken, with the items yielded before it.
struct Hint {
    hint: (usize, Option<usize>),
    yielded: u64,
    when: String,
}

fn take_hint<F: AdapterFactory>(a: &Adapted<F>, hints: &mut Vec<Hint>, when: &str) {
    hints.push(Hint {
        hint: a.d.size_hint(),
        yielded: a.d.yielded,
        when: when.to_string(),
    });
}

/// Every hint against the items the adapter really yielded after it.
fn check_hints<F: AdapterFactory>(a: &Adapted<F>, hints: &[Hint]) -> Result<(), Failure> {
    let total = a.d.yielded;
    for Hint {
        hint: (lower, upper),
        yielded,
        when,
    } in hints
    {
        let remaining = total - yielded;
        let ok = *lower as u64 <= remaining && upper.is_none_or(|u| u as u64 >= remaining);
        if !ok {
            return Err(a.cx().failure(
                format!(
                    "size_hint() of the adapter {when} ({yielded} items yielded, {remaining} still to come: it yielded {total} in all) to bound them: lower ≤ {remaining} ≤ upper"
                ),
                format!("{:?}", (lower, upper)),
            ));
        }
    }
    Ok(())
}

/// `adapter.6`: `size_hint()` bounds the items still to come, judged at
/// the end by the items that came.
pub(crate) fn adapter_6<F: AdapterFactory>(cx: &RuleCx, factory: &F) -> RuleBody {
    const RULE: &str = "adapter.6";
    cx.scenario(format!(
        "every inner stream with {ITEMS} items and ended, size_hint() before every poll"
    ));
    let mut a = Adapted::new(cx, factory, RULE)?;
    let mut hints = Vec::new();
    take_hint(&a, &mut hints, "when made");
    a.prefill(ITEMS);
    let waker = a.d.fresh_waker();
    let timeout = cx.env().timeout();
    let deadline = Instant::now() + timeout;
    loop {
        take_hint(&a, &mut hints, "before a poll");
        match a.poll(factory, &waker, RULE)?.0 {
            Poll::Ready(None) => break,
            Poll::Ready(Some(_)) => {}
            // It need not end (see `drain`): the hints are judged by
            // what came.
            Poll::Pending if Instant::now() >= deadline => break,
            Poll::Pending => {
                waker.wait_woken(0, poll_slice(cx.env()));
            }
        }
    }
    check_hints(&a, &hints)?;

    cx.scenario(format!(
        "{ITEMS} items pushed into each inner stream in turn, size_hint() after every push and every end"
    ));
    let mut a = Adapted::new(cx, factory, RULE)?;
    let mut hints = Vec::new();
    for _ in 0..ITEMS {
        for j in 0..a.inners.count() {
            a.inners.push(j);
            take_hint(&a, &mut hints, &format!("after a push into inner {j}"));
            a.settle(factory, RULE)?;
        }
    }
    for j in 0..a.inners.count() {
        a.inners.end(j);
        take_hint(&a, &mut hints, &format!("after the end of inner {j}"));
    }
    a.drain(factory, RULE)?;
    check_hints(&a, &hints)?;
    Ok(Outcome::Passed)
}

impl<F: AdapterFactory> Debug for Adapted<F> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Adapted")
            .field("polls", &self.polls)
            .finish_non_exhaustive()
    }
}
