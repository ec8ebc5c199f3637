//! `tck_extended_schedules` for sinks: generated schedules of `poll_ready`
//! (and, when it is ready, `start_send`), `poll_flush` and `poll_close`
//! calls, each with one of three wakers, interleaved with the delivery side
//! taking what was delivered — so the calls return `Pending` at different
//! points relative to the sends. Each step is checked against what the sink
//! rules require, and a failure is shrunk to a minimal script:
//!
//! * after a call returned `Pending`, once the delivery side has taken
//!   every delivered item (and at least one), or has resumed a destination
//!   that was paused when the call returned `Pending`, the waker of the
//!   most recent `Pending` call — whichever method it was — must be woken
//!   (`sink.1`);
//! * when `poll_flush` returns `Ready(Ok(()))`, every item accepted before
//!   has been delivered (`sink.2`) — for a latest-value sink, the last one;
//! * when `poll_close` returns `Ready(Ok(()))`, likewise (`sink.3`).
//!
//! When the [`Delivery`](super::Delivery) can pause its destination, the
//! schedules pause and resume it too. The TCK takes nothing while the
//! destination is paused: what a flush or close completed then owes is
//! checked once it resumes.
//!
//! The TCK calls `start_send` only right after a `poll_ready` returned
//! `Ready(Ok(()))`, as the trait requires; after an error or a completed
//! close the rest of the schedule is not run.

use std::sync::Arc;
use std::task::Poll;

use proptest::prelude::*;

use super::FuturesSinkFactory;
use super::driver::{Driver, FILL_LIMIT};
use super::rules::check_delivered;
use crate::context::{Failure, Outcome, RuleBody, RuleCx};
use crate::explore::config::ExtendedConfig;
use crate::explore::{Scripted, explore, judge_case};
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
    /// The destination is paused (only for a pausable delivery side).
    Pause,
    /// The destination resumes, and the delivery side takes every item
    /// delivered so far.
    Resume,
}

/// A generated sink schedule.
#[derive(Debug, Clone)]
pub(crate) struct Schedule {
    steps: Vec<Step>,
}

impl Schedule {
    /// Takes while paused, pauses while paused and resumes while running
    /// are cut, so every line of the script happens.
    fn normalized(raw: Vec<Step>) -> Schedule {
        let mut paused = false;
        let steps = raw
            .into_iter()
            .filter(|step| match step {
                Step::Take => !paused,
                Step::Pause => !std::mem::replace(&mut paused, true),
                Step::Resume => std::mem::replace(&mut paused, false),
                _ => true,
            })
            .collect();
        Schedule { steps }
    }
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
            Step::Pause => String::from("pause destination"),
            Step::Resume => String::from("resume destination (+ take delivered)"),
        }));
        lines
    }
}

fn strategy(pausable: bool) -> SBoxedStrategy<Schedule> {
    let waker = || 0..WAKERS as u8;
    let pause = if pausable { 2 } else { 0 };
    let step = prop_oneof![
        4 => waker().prop_map(Step::Send),
        2 => waker().prop_map(Step::Fill),
        2 => waker().prop_map(Step::Flush),
        1 => waker().prop_map(Step::Close),
        2 => Just(Step::Take),
        pause => Just(Step::Pause),
        pause => Just(Step::Resume),
    ];
    proptest::collection::vec(step, 0..20)
        .prop_map(Schedule::normalized)
        .sboxed()
}

/// The body of the sink's `tck_extended_schedules`.
pub(crate) fn explore_schedules<F: FuturesSinkFactory>(
    cx: &RuleCx,
    factory: &F,
    config: ExtendedConfig,
) -> RuleBody {
    let env = *cx.env();
    let pausable = factory.create_sink().1.can_pause();
    explore(cx, &config, "schedule", strategy(pausable), |schedule| {
        judge_case(Verification::FuturesSink, env, |case| {
            run(case, factory, schedule)
        })
    })
}

/// The most recent call that returned `Pending`.
struct PendingCall {
    method: &'static str,
    waker: Arc<WakeProbe>,
    /// The waker's wake count before the call.
    since: u64,
    /// Whether the destination was paused when it returned `Pending`.
    paused: bool,
}

/// A completed `poll_flush` or `poll_close` whose deliveries are still to
/// be checked (it completed while the destination was paused): the method
/// and the items accepted before it.
type Owed = (&'static str, u64);

/// What one schedule run tracks.
struct Run<'a, F: FuturesSinkFactory> {
    d: Driver<F>,
    factory: &'a F,
    pending: Option<PendingCall>,
    owed: Vec<Owed>,
}

impl<F: FuturesSinkFactory> Run<'_, F> {
    /// Checks what the completed `method` owes now, or once the destination
    /// resumes.
    fn completed(&mut self, method: &'static str) -> Result<(), Failure> {
        if self.d.paused {
            self.owed.push((method, self.d.sent));
            return Ok(());
        }
        self.d.take_delivered();
        check_delivered(
            &self.d,
            self.factory.latest_value(),
            self.d.sent,
            method,
            rule_of(method),
        )
    }

    /// Resumes the destination, takes what was delivered and checks what
    /// completed calls owed.
    fn resume(&mut self) -> Result<usize, Failure> {
        self.d.pause(false);
        let took = self.d.take_delivered();
        for (method, sent) in std::mem::take(&mut self.owed) {
            check_delivered(
                &self.d,
                self.factory.latest_value(),
                sent,
                method,
                rule_of(method),
            )?;
        }
        Ok(took)
    }

    fn pend(&mut self, method: &'static str, waker: &Arc<WakeProbe>, since: u64) {
        self.pending = Some(PendingCall {
            method,
            waker: waker.clone(),
            since,
            paused: self.d.paused,
        });
    }
}

fn rule_of(method: &str) -> &'static str {
    if method == "poll_flush" {
        "sink.2"
    } else {
        "sink.3"
    }
}

fn run<F: FuturesSinkFactory>(cx: &RuleCx, factory: &F, schedule: &Schedule) -> RuleBody {
    let mut run = Run {
        d: Driver::new(cx, factory),
        factory,
        pending: None,
        owed: Vec::new(),
    };
    let wakers: Vec<Arc<WakeProbe>> = (0..WAKERS).map(|_| run.d.wakers.fresh()).collect();
    let stopped = steps(&mut run, &wakers, schedule)?;
    if run.d.paused {
        run.resume()?;
    }
    if let Some(why) = stopped {
        cx.trace(why);
    }
    Ok(Outcome::Passed)
}

/// Runs the schedule's steps; why it stopped early, if it did.
fn steps<F: FuturesSinkFactory>(
    run: &mut Run<'_, F>,
    wakers: &[Arc<WakeProbe>],
    schedule: &Schedule,
) -> Result<Option<&'static str>, Failure> {
    const ERROR: &str = "an error: the rest of the schedule is not run";
    for step in &schedule.steps {
        let (method, w) = match *step {
            Step::Take => {
                if run.d.take_delivered() > 0 {
                    if let Some(call) = run.pending.take() {
                        expect_wake(&run.d, &call, "the delivery side took every delivered item")?;
                    }
                }
                continue;
            }
            Step::Pause => {
                run.d.pause(true);
                continue;
            }
            Step::Resume => {
                let took = run.resume()?;
                if let Some(call) = run.pending.take() {
                    if call.paused || took > 0 {
                        expect_wake(
                            &run.d,
                            &call,
                            "the destination was resumed and the delivery side took every delivered item",
                        )?;
                    }
                }
                continue;
            }
            Step::Fill(w) => {
                let waker = &wakers[w as usize];
                let start = run.d.sent;
                loop {
                    let since = waker.wakes();
                    match run.d.call("poll_ready", waker, RULE)? {
                        Poll::Pending => {
                            run.pend("poll_ready", waker, since);
                            break;
                        }
                        Poll::Ready(Err(_)) => return Ok(Some(ERROR)),
                        Poll::Ready(Ok(())) => {
                            run.pending = None;
                            if run.d.start_send(RULE)?.is_err() {
                                return Ok(Some(ERROR));
                            }
                            if run.d.sent - start >= FILL_LIMIT {
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
        match run.d.call(method, waker, RULE)? {
            Poll::Pending => run.pend(method, waker, since),
            Poll::Ready(Err(_)) => return Ok(Some(ERROR)),
            Poll::Ready(Ok(())) => {
                run.pending = None;
                if method == "poll_ready" {
                    if run.d.start_send(RULE)?.is_err() {
                        return Ok(Some(ERROR));
                    }
                } else {
                    run.completed(method)?;
                    if method == "poll_close" {
                        return Ok(Some("closed: the rest of the schedule is not run"));
                    }
                }
            }
        }
    }
    Ok(None)
}

fn expect_wake<F: FuturesSinkFactory>(
    d: &Driver<F>,
    call: &PendingCall,
    why: &str,
) -> Result<(), Failure> {
    let timeout = d.cx.env().timeout();
    if call.waker.wait_woken(call.since, timeout) {
        return Ok(());
    }
    Err(d.cx.failure_of(
        "sink.1",
        format!(
            "a wake-up of {} (the waker of the most recent call, {}, which returned Pending) once {why}",
            call.waker.name(),
            call.method
        ),
        format!("no wake-up within {} ms", timeout.as_millis()),
    ))
}
