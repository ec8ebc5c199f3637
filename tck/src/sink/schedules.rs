//! `tck_extended_schedules` for sinks: generated schedules of `poll_ready`
//! (and, when it is ready, `start_send`), `poll_flush` and `poll_close`
//! calls, each with one of three wakers, interleaved with the delivery side
//! taking what was delivered — so the calls return `Pending` at different
//! points relative to the sends. Each step is checked against what the sink
//! rules require, and a failure is shrunk to a minimal script:
//!
//! * after a call returned `Pending`, once the delivery side has taken
//!   every delivered item (and at least one), the waker of the most recent
//!   `Pending` call — whichever method it was — must be woken (`sink.1`);
//! * when `poll_flush` returns `Ready(Ok(()))`, every item accepted before
//!   has been delivered (`sink.2`);
//! * when `poll_close` returns `Ready(Ok(()))`, likewise (`sink.3`).
//!
//! The TCK calls `start_send` only right after a `poll_ready` returned
//! `Ready(Ok(()))`, as the trait requires; after an error or a completed
//! close the rest of the schedule is not run.

use std::sync::Arc;
use std::task::Poll;

use proptest::prelude::*;

use super::rules::{Driver, FILL_LIMIT};
use super::SinkFactory;
use crate::context::{Failure, Outcome, RuleBody, RuleCx};
use crate::explore::{config_or_env, explore, judge_case, Scripted};
use crate::extended::ExtendedConfig;
use crate::outcome::Verification;
use crate::wakers::WakeProbe;

use crate::explore::SCHEDULES_RULE as RULE;
const WAKERS: usize = 3;

/// One step of a sink schedule.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Step {
    /// `poll_ready` with waker `w<k+1>`, then `start_send` of the next item
    /// if it returned `Ready(Ok(()))`.
    Send(u8),
    /// `Send` with waker `w<k+1>` again and again until `poll_ready`
    /// returns `Pending` (at most [`FILL_LIMIT`] items).
    Fill(u8),
    /// `poll_flush` with waker `w<k+1>`.
    Flush(u8),
    /// `poll_close` with waker `w<k+1>`.
    Close(u8),
    /// The delivery side takes every item delivered so far.
    Take,
}

/// A generated sink schedule.
#[derive(Debug, Clone)]
pub(crate) struct Schedule {
    steps: Vec<Step>,
}

impl Scripted for Schedule {
    fn script(&self) -> Vec<String> {
        let mut lines = vec![String::from("create_sink()")];
        lines.extend(self.steps.iter().map(|step| match step {
            Step::Send(w) => format!("poll_ready [w{}] (+ start_send)", w + 1),
            Step::Fill(w) => format!("fill [w{}] (poll_ready + start_send until Pending)", w + 1),
            Step::Flush(w) => format!("poll_flush [w{}]", w + 1),
            Step::Close(w) => format!("poll_close [w{}]", w + 1),
            Step::Take => String::from("take delivered"),
        }));
        lines
    }
}

fn strategy() -> SBoxedStrategy<Schedule> {
    let waker = || 0..WAKERS as u8;
    let step = prop_oneof![
        4 => waker().prop_map(Step::Send),
        2 => waker().prop_map(Step::Fill),
        2 => waker().prop_map(Step::Flush),
        1 => waker().prop_map(Step::Close),
        2 => Just(Step::Take),
    ];
    proptest::collection::vec(step, 0..20)
        .prop_map(|steps| Schedule { steps })
        .sboxed()
}

/// The body of the sink's `tck_extended_schedules`.
pub(crate) fn explore_schedules<F: SinkFactory>(
    cx: &RuleCx,
    factory: &F,
    config: Option<ExtendedConfig>,
) -> RuleBody {
    let config = config_or_env(cx, config)?;
    let env = *cx.env();
    explore(cx, &config, "schedule", strategy(), |schedule| {
        judge_case(Verification::FuturesSink, env, |case| {
            run(case, factory, schedule)
        })
    })
}

/// The most recent call that returned `Pending`: its method, its waker and
/// the waker's wake count before the call.
type PendingCall = (&'static str, Arc<WakeProbe>, u64);

fn run<F: SinkFactory>(cx: &RuleCx, factory: &F, schedule: &Schedule) -> RuleBody {
    let mut d = Driver::new(cx, factory);
    let wakers: Vec<Arc<WakeProbe>> = (0..WAKERS).map(|_| d.wakers.fresh()).collect();
    let mut pending: Option<PendingCall> = None;
    let mut delivered: Vec<u64> = Vec::new();
    for step in &schedule.steps {
        let (method, w) = match *step {
            Step::Take => {
                let taken = d.take_all();
                let took_some = !taken.is_empty();
                delivered.extend(taken);
                if took_some {
                    if let Some(call) = pending.take() {
                        expect_wake(&d, &call)?;
                    }
                }
                continue;
            }
            Step::Fill(w) => {
                let waker = &wakers[w as usize];
                let start = d.sent;
                loop {
                    let since = waker.wakes();
                    match d.call("poll_ready", waker, RULE)? {
                        Poll::Pending => {
                            pending = Some(("poll_ready", waker.clone(), since));
                            break;
                        }
                        Poll::Ready(Err(_)) => {
                            cx.trace("an error: the rest of the schedule is not run");
                            return Ok(Outcome::Passed);
                        }
                        Poll::Ready(Ok(())) => {
                            pending = None;
                            if d.start_send(RULE)?.is_err() {
                                cx.trace("an error: the rest of the schedule is not run");
                                return Ok(Outcome::Passed);
                            }
                            if d.sent - start >= FILL_LIMIT {
                                break;
                            }
                        }
                    }
                }
                continue;
            }
            Step::Send(w) => ("poll_ready", w),
            Step::Flush(w) => ("poll_flush", w),
            Step::Close(w) => ("poll_close", w),
        };
        let waker = &wakers[w as usize];
        let since = waker.wakes();
        match d.call(method, waker, RULE)? {
            Poll::Pending => pending = Some((method, waker.clone(), since)),
            Poll::Ready(Err(_)) => {
                cx.trace("an error: the rest of the schedule is not run");
                return Ok(Outcome::Passed);
            }
            Poll::Ready(Ok(())) => {
                pending = None;
                match method {
                    "poll_ready" => {
                        if d.start_send(RULE)?.is_err() {
                            cx.trace("an error: the rest of the schedule is not run");
                            return Ok(Outcome::Passed);
                        }
                    }
                    _ => {
                        delivered.extend(d.take_all());
                        let rule = if method == "poll_flush" {
                            "sink.2"
                        } else {
                            "sink.3"
                        };
                        all_delivered(&d, &delivered, method, rule)?;
                        if method == "poll_close" {
                            cx.trace("closed: the rest of the schedule is not run");
                            return Ok(Outcome::Passed);
                        }
                    }
                }
            }
        }
    }
    Ok(Outcome::Passed)
}

fn expect_wake<F: SinkFactory>(d: &Driver<F>, call: &PendingCall) -> Result<(), Failure> {
    let (method, waker, since) = call;
    let timeout = d.cx.env().timeout();
    if waker.wait_woken(*since, timeout) {
        return Ok(());
    }
    Err(d.cx.failure_of(
        "sink.1",
        format!(
            "a wake-up of {} (the waker of the most recent call, {method}, which returned Pending) once the delivery side took every delivered item",
            waker.name()
        ),
        format!("no wake-up within {} ms", timeout.as_millis()),
    ))
}

fn all_delivered<F: SinkFactory>(
    d: &Driver<F>,
    delivered: &[u64],
    method: &str,
    rule: &str,
) -> Result<(), Failure> {
    let missing: Vec<u64> = (0..d.sent).filter(|i| !delivered.contains(i)).collect();
    if missing.is_empty() {
        return Ok(());
    }
    Err(d.cx.failure_of(
        rule,
        format!(
            "every one of the {} items accepted before {method} returned Ready(Ok(())) to be delivered",
            d.sent
        ),
        format!(
            "items {} never delivered",
            missing
                .iter()
                .map(u64::to_string)
                .collect::<Vec<_>>()
                .join(", ")
        ),
    ))
}
