//! `tck_extended_schedules`: generated schedules of what happens to a
//! stream — items pushed before or after polls, polls with one of three
//! wakers, the end, a drop — each checked step by step against what the
//! stream rules require, and shrunk to a minimal script on failure.
//!
//! A fed stream gets schedules of `push`, `end`, `poll [wK]` and `drop`; a
//! stream without a feeder gets `create_stream(k)` and schedules of polls
//! and a drop. The checks, each failing its own rule:
//!
//! * a `Pending` poll while an item or the end is available, or followed by
//!   a push or the end, must be followed by a wake-up of that poll's waker
//!   (`stream.1`);
//! * `size_hint()` before every poll bounds the items still to come
//!   (`stream.3`);
//! * a fused stream reports `is_terminated()` after `Ready(None)`
//!   (`stream.4`);
//! * a drop returns normally and, once the feeder is gone too, no waker is
//!   still held (`stream.5`);
//! * the stream yields exactly the items pushed, then `Ready(None)` only
//!   after the end, each item once and in order where the factory's
//!   `item_index` tells ([`EXACT_ITEMS`]).

use std::fmt::Debug;
use std::sync::Arc;
use std::task::Poll;

use proptest::prelude::*;

use super::driver::Driver;
use super::factory::StreamFactory;
use super::latest::{Owed, bounds};
use super::rules::EXACT_ITEMS;
use crate::context::{Failure, Outcome, RuleBody, RuleCx};
use crate::explore::config::ExtendedConfig;
use crate::explore::{Scripted, explore, judge_case};
use crate::outcome::Verification;
use crate::wakers::WakeProbe;

use crate::explore::SCHEDULES_RULE as RULE;
const WAKERS: usize = 3;

/// One step of a schedule.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Step {
    /// The feeder pushes the next item.
    Push,
    /// The feeder ends the stream.
    End,
    /// `poll_next` with waker `w<k+1>`.
    Poll(u8),
    /// The stream is dropped (the rest of the schedule is cut).
    Drop,
}

/// A generated schedule.
#[derive(Debug, Clone)]
pub(crate) struct Schedule {
    /// `None` for a fed stream, `Some(k)` for `create_stream(k)`.
    items: Option<u64>,
    steps: Vec<Step>,
}

impl Schedule {
    /// Pushes after the end and everything after a drop are cut, so every
    /// line of the script happens.
    fn normalized(items: Option<u64>, raw: Vec<Step>) -> Schedule {
        let mut steps = Vec::new();
        let mut ended = false;
        for step in raw {
            match step {
                Step::Push | Step::End if ended || items.is_some() => continue,
                Step::End => ended = true,
                _ => {}
            }
            steps.push(step);
            if step == Step::Drop {
                break;
            }
        }
        Schedule { items, steps }
    }
}

impl Scripted for Schedule {
    fn script(&self) -> Vec<String> {
        let mut lines = vec![match self.items {
            None => String::from("create_fed_stream()"),
            Some(k) => format!("create_stream({k})"),
        }];
        let mut pushed = 0;
        for step in &self.steps {
            lines.push(match step {
                Step::Push => {
                    pushed += 1;
                    format!("push({})", pushed - 1)
                }
                Step::End => String::from("end"),
                Step::Poll(w) => format!("poll_next [w{}]", w + 1),
                Step::Drop => String::from("drop"),
            });
        }
        lines
    }
}

fn strategy(fed: bool) -> SBoxedStrategy<Schedule> {
    let poll = (0..WAKERS as u8).prop_map(Step::Poll);
    if fed {
        let step = prop_oneof![
            4 => poll,
            3 => Just(Step::Push),
            1 => Just(Step::End),
            1 => Just(Step::Drop),
        ];
        proptest::collection::vec(step, 0..16)
            .prop_map(|raw| Schedule::normalized(None, raw))
            .sboxed()
    } else {
        let step = prop_oneof![6 => poll, 1 => Just(Step::Drop)];
        (0u64..4, proptest::collection::vec(step, 0..12))
            .prop_map(|(k, raw)| Schedule::normalized(Some(k), raw))
            .sboxed()
    }
}

/// The body of `tck_extended_schedules`.
pub(crate) fn explore_schedules<F: StreamFactory>(
    cx: &RuleCx,
    factory: &F,
    config: ExtendedConfig,
) -> RuleBody {
    let fed = factory.create_fed_stream().is_some();
    let env = *cx.env();
    explore(cx, &config, "schedule", strategy(fed), |schedule| {
        judge_case(Verification::FuturesStream, env, |case| {
            run(case, factory, schedule)
        })
    })
}

/// What the schedule knows while it runs.
struct Model {
    /// Items the stream must yield in all (`None`: endless).
    total: Option<u64>,
    pushed: u64,
    ended: bool,
    /// The waker of the last poll, if it returned `Pending` and has not
    /// been woken since.
    pending: Option<(Arc<WakeProbe>, u64)>,
    /// For a latest-value stream: the index of the last item yielded, if
    /// told, and whether an item pushed may not have been yielded yet.
    last_index: Option<u64>,
    unseen: bool,
}

impl Model {
    /// How many items the stream owes in all, as yielded so far must not
    /// exceed: those pushed for a fed stream.
    fn owed(&self, fed: bool) -> u64 {
        if fed {
            self.pushed
        } else {
            self.total.unwrap_or(u64::MAX)
        }
    }
}

fn run<F: StreamFactory>(cx: &RuleCx, factory: &F, schedule: &Schedule) -> RuleBody {
    let (stream, mut feeder, label) = match schedule.items {
        None => match factory.create_fed_stream() {
            Some((stream, feeder)) => (stream, Some(feeder), String::from("fed stream")),
            None => return Ok(Outcome::Skipped(String::from("no fed stream"))),
        },
        Some(k) => (
            factory.create_stream(k),
            None,
            format!("create_stream({k})"),
        ),
    };
    let mut d = Driver::new(cx, stream, label).latest_value(factory.latest_value());
    let wakers: Vec<Arc<WakeProbe>> = (0..WAKERS).map(|_| d.fresh_waker()).collect();
    let mut model = Model {
        total: match schedule.items {
            None => Some(schedule.steps.iter().filter(|s| **s == Step::Push).count() as u64),
            Some(_) if factory.endless() => None,
            Some(k) => Some(k),
        },
        pushed: 0,
        ended: schedule.items.is_some(),
        pending: None,
        last_index: None,
        unseen: false,
    };
    let mut dropped = false;
    for step in &schedule.steps {
        match step {
            Step::Push => {
                let feeder = feeder.as_mut().expect("a fed schedule");
                if model.pushed - d.yielded >= feeder.room() {
                    // The producer is full: it waits for the stream to take
                    // one, and so does the TCK.
                    model.pending = None;
                    if d.next_lenient(RULE)?.is_none() {
                        return Err(early_end(&d, &model));
                    }
                }
                cx.try_step(RULE, format!("feeder: push({})", model.pushed), || {
                    feeder.push(model.pushed)
                })?;
                model.pushed += 1;
                model.unseen = true;
                expect_wake(&d, &mut model, "an item was pushed")?;
            }
            Step::End => {
                let feeder = feeder.take().expect("a fed schedule");
                cx.try_step(RULE, "feeder: end", || feeder.end())?;
                model.ended = true;
                expect_wake(&d, &mut model, "the feeder ended the stream")?;
            }
            Step::Poll(w) => {
                if d.ended {
                    // What a poll after the end returns is up to the stream.
                    continue;
                }
                poll(&mut d, factory, &mut model, &wakers[*w as usize])?;
            }
            Step::Drop => {
                d.drop_stream("stream.5")?;
                dropped = true;
                break;
            }
        }
    }
    if !dropped && model.total.is_some() && !d.ended {
        if let Some(feeder) = feeder.take() {
            cx.try_step(RULE, "feeder: end", || feeder.end())?;
            model.ended = true;
        }
        while let Some(item) = d.next_lenient(RULE)? {
            if let Some(i) = factory.item_index(&item) {
                model.last_index = Some(i);
            }
        }
        check_end(&d, factory, &model)?;
    }
    d.drop_stream("stream.5")?;
    if let Some(feeder) = feeder.take() {
        cx.try_step(RULE, "feeder: end", || feeder.end())?;
    }
    let timeout = cx.env().timeout();
    d.wakers.wait_released(timeout).map_err(|held| {
        cx.failure_of(
            "stream.5",
            format!(
                "no clone of a waker it was given alive once {} and its feeder are dropped",
                d.label
            ),
            format!("still alive {} ms later: {held}", timeout.as_millis()),
        )
    })?;
    Ok(Outcome::Passed)
}

fn expect_wake<S: futures_core::Stream + Send>(
    d: &Driver<S>,
    model: &mut Model,
    why: &str,
) -> Result<(), Failure>
where
    S::Item: Debug,
{
    let Some((waker, since)) = model.pending.take() else {
        return Ok(());
    };
    let timeout = d.cx.env().timeout();
    if waker.wait_woken(since, timeout) {
        return Ok(());
    }
    Err(d.cx.failure_of(
        "stream.1",
        format!(
            "a wake-up of {} (the waker of the most recent poll, which returned Pending) once {why}",
            waker.name()
        ),
        format!("no wake-up within {} ms", timeout.as_millis()),
    ))
}

fn poll<F: StreamFactory>(
    d: &mut Driver<F::Stream>,
    factory: &F,
    model: &mut Model,
    waker: &Arc<WakeProbe>,
) -> Result<(), Failure> {
    let fed = d.label == "fed stream";
    if let Some(total) = model.total {
        let remaining = total.saturating_sub(d.yielded);
        // A latest-value stream owes at least the newest item, if it may
        // not have yielded it yet, and at most one per item still to come.
        let least = if !d.latest {
            remaining
        } else if fed {
            u64::from(model.unseen || total > model.pushed)
        } else {
            u64::from(d.yielded == 0 && total > 0)
        };
        let (lower, upper) = d.size_hint();
        if !bounds((lower, upper), least, remaining) {
            return Err(d.cx.failure_of(
                "stream.3",
                format!(
                    "size_hint() of {} ({} yielded, {remaining} to come) to bound them: lower ≤ {remaining} ≤ upper",
                    d.label, d.yielded
                ),
                format!("{:?}", (lower, upper)),
            ));
        }
    }
    let since = waker.wakes();
    match d.poll(waker, RULE)? {
        Poll::Ready(Some(item)) => {
            model.pending = None;
            let owed = model.owed(fed);
            if d.yielded > owed {
                return Err(d.cx.failure_of(
                    EXACT_ITEMS,
                    format!("{} to yield only the {owed} items it was given", d.label),
                    format!("item {}", crate::probe::numbered(d.yielded, &item)),
                ));
            }
            let at = d.yielded - 1;
            let index = factory.item_index(&item);
            if d.latest {
                return latest_item(d, model, owed, index, &item);
            }
            if let Some(index) = index.filter(|&i| i != at) {
                return Err(d.cx.failure_of(
                    EXACT_ITEMS,
                    format!(
                        "{} to yield its items once each and in order: item {at} next",
                        d.label
                    ),
                    format!("item {index} ({item:?}) (by the factory's item_index)"),
                ));
            }
        }
        Poll::Ready(None) => {
            model.pending = None;
            check_end(d, factory, model)?;
        }
        Poll::Pending => {
            model.pending = Some((waker.clone(), since));
            let available = if d.latest {
                model.unseen || model.ended
            } else {
                d.yielded < model.pushed || model.ended
            };
            if available {
                expect_wake(d, model, "it had an item or its end to yield")?;
            }
        }
    }
    Ok(())
}

/// An item of a latest-value stream: one not yet yielded, after the last
/// one (by the factory's `item_index`), of the `owed` given.
fn latest_item<S: futures_core::Stream + Send>(
    d: &Driver<S>,
    model: &mut Model,
    owed: u64,
    index: Option<u64>,
    item: &S::Item,
) -> Result<(), Failure>
where
    S::Item: Debug,
{
    model.unseen = index.is_some_and(|i| i + 1 < owed);
    let Some(i) = index else {
        return Ok(());
    };
    if i < owed && model.last_index.is_none_or(|last| i > last) {
        model.last_index = Some(i);
        return Ok(());
    }
    let after = model
        .last_index
        .map_or_else(String::new, |last| format!(" after item {last}"));
    Err(d.cx.failure_of(
        EXACT_ITEMS,
        format!(
            "{} to yield each of the {owed} items it was given at most once and in order (a latest-value stream): an item{after}",
            d.label
        ),
        format!("item {i} ({item:?}) (by the factory's item_index)"),
    ))
}

fn early_end<S: futures_core::Stream + Send>(d: &Driver<S>, model: &Model) -> Failure
where
    S::Item: Debug,
{
    d.cx.failure_of(
        EXACT_ITEMS,
        format!(
            "{} to yield the {} items pushed before its end",
            d.label, model.pushed
        ),
        format!("Ready(None) after {} items", d.yielded),
    )
}

fn check_end<F: StreamFactory>(
    d: &Driver<F::Stream>,
    factory: &F,
    model: &Model,
) -> Result<(), Failure> {
    let owed = model.total.unwrap_or(u64::MAX);
    let paid = if d.latest {
        Owed::of(true, owed).paid_by(d.yielded)
            && model.last_index.is_none_or(|i| owed == 0 || i + 1 == owed)
    } else {
        d.yielded == owed
    };
    if !model.ended || !paid {
        return Err(d.cx.failure_of(
            EXACT_ITEMS,
            format!(
                "{} to end only after the feeder ended it and it yielded all {owed} items",
                d.label
            ),
            format!("Ready(None) after {} items", d.yielded),
        ));
    }
    let terminated = d.stream().and_then(|s| factory.is_terminated(s));
    if terminated == Some(false) {
        return Err(d.cx.failure_of(
            "stream.4",
            format!(
                "is_terminated() of {} to return true once poll_next has returned Ready(None)",
                d.label
            ),
            "false",
        ));
    }
    Ok(())
}
