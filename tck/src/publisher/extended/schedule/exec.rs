//! Runs one [`Schedule`] against a factory's publisher, checking the
//! [model](super::model) after every step.
//!
//! Waiting is bounded the TCK's usual way: what is owed is awaited up to
//! the timeout (a conforming synchronous publisher has delivered it before
//! the step returned, so this costs nothing); absence is shown once per
//! schedule, with one no-signal window at the end, and only when some
//! subscriber is still open (a cancelled or completed one proves its
//! silence by being dropped).

use std::fmt::Debug;

use super::model::SubModel;
use super::{INFINITE_CANCEL_INSIDE, Made, Schedule, Step, Who};
use crate::context::{Failure, Outcome, RuleBody, RuleCx};
use crate::probe::{Probe, Signal};
use crate::publisher::PublisherFactory;
use crate::publisher::rules::{Pub, create, create_failed, subscribed};

const CREATE_N: &str = "tck.create_n_gives_exactly_n";
/// The rule a failed publisher's signals are judged by.
const FAILED: &str = "1.4";
/// The rule a `request(0)` is judged by.
const ILLEGAL_DEMAND: &str = "3.9";

struct Sub<'f, T: Debug + Send + 'static> {
    who: Who,
    probe: Probe<T>,
    model: SubModel,
    /// The factory's `element_index`: where a later subscriber starts.
    index: &'f dyn Fn(&T) -> Option<u64>,
}

/// Runs `schedule` as the body of one rule test.
pub(crate) fn run<F: PublisherFactory>(cx: &RuleCx, f: &F, schedule: &Schedule) -> RuleBody {
    let elements = schedule.made.elements();
    cx.trace(format!("schedule: {schedule}"));
    let publisher: Pub<F> = match schedule.made {
        Made::Failed => create_failed(cx, f)?.ok_or_else(|| {
            cx.failure(
                "create_failed_publisher() to give a publisher, as it did before",
                "None",
            )
        })?,
        made => create(cx, f, made.elements())?,
    };
    let depth = f.max_sync_recursion_depth();
    let index = |element: &F::Element| f.element_index(element);
    let fresh_model = |model: SubModel| match schedule.made {
        Made::Failed => model.failing(),
        _ => model,
    };

    // The first subscriber sees the fresh publisher's stream from its
    // start; a second one may join late (a hot publisher).
    let mut probe = Probe::new(cx, Who::First.label())
        .sees_start()
        .depth_bound(depth)
        .stop_runaway();
    for &n in &schedule.reflexes.on_subscribe {
        probe = probe.request_on_subscribe(n);
    }
    if schedule.reflexes.on_next > 0 {
        probe = probe.request_on_next(schedule.reflexes.on_next);
    }
    if let Some(k) = schedule.reflexes.cancel_inside {
        probe = probe.cancel_after(k);
    }
    let mut subs = vec![Sub {
        who: Who::First,
        probe: subscribed(probe, &*publisher)?,
        model: fresh_model(SubModel::with_reflexes(&schedule.reflexes)),
        index: &index,
    }];
    settle_all(cx, &mut subs, elements)?;

    for step in schedule.effective_steps() {
        if let Step::SubscribeSecond = step {
            if !crate::publisher::serves_several(f) {
                continue;
            }
            let mut probe = Probe::new(cx, Who::Second.label())
                .depth_bound(depth)
                .stop_runaway();
            // A later subscriber may start where the stream has got to.
            let mut model = fresh_model(SubModel::joining(
                subs[0].model.delivered,
                !subs[0].model.is_present(),
            ));
            if schedule.made == Made::Infinite {
                probe = probe.cancel_after(INFINITE_CANCEL_INSIDE);
                model.cancel_inside = Some(INFINITE_CANCEL_INSIDE);
            }
            let probe = subscribed(probe, &*publisher)?;
            if probe.refused() {
                // Refused at subscribe time, `on_subscribe` then
                // `on_error` (§1.9 allows it): the schedule goes on with
                // the first subscriber alone.
                cx.trace(crate::publisher::refused_reason(2));
                continue;
            }
            subs.push(Sub {
                who: Who::Second,
                probe,
                model,
                index: &index,
            });
        } else {
            apply(&step, &mut subs)?;
        }
        settle_all(cx, &mut subs, elements)?;
    }
    conclude(cx, &mut subs, elements)?;
    drop(publisher);
    Ok(Outcome::Passed)
}

fn apply<T: Debug + Send + 'static>(step: &Step, subs: &mut [Sub<'_, T>]) -> Result<(), Failure> {
    fn target<'a, 'f, T: Debug + Send + 'static>(
        subs: &'a mut [Sub<'f, T>],
        who: Who,
    ) -> Option<&'a mut Sub<'f, T>> {
        subs.iter_mut().find(|s| s.who == who)
    }
    match *step {
        Step::Request {
            who,
            n,
            other_thread,
        } => {
            if let Some(sub) = target(subs, who) {
                sub.model.request(n);
                if other_thread {
                    request_from_thread(&sub.probe, n)?;
                } else {
                    sub.probe.request(n)?;
                }
            }
        }
        Step::Cancel(who) => {
            if let Some(sub) = target(subs, who) {
                sub.model.cancel();
                sub.probe.cancel()?;
            }
        }
        Step::SubscribeSecond => {}
    }
    Ok(())
}

/// `request(n)` from a thread of its own, joined before the next step.
fn request_from_thread<T: Debug + Send + 'static>(probe: &Probe<T>, n: u64) -> Result<(), Failure> {
    std::thread::scope(|scope| {
        std::thread::Builder::new()
            .name(String::from("requester"))
            .spawn_scoped(scope, || probe.request(n))
            .map_err(|error| {
                probe
                    .cx()
                    .failure("the TCK to start a thread", error.to_string())
            })?
            .join()
            .unwrap_or_else(|_| {
                Err(probe
                    .cx()
                    .failure("the requesting thread to finish", "it panicked"))
            })
    })
}

/// Settles every subscriber, each paced by the others present, until what
/// one got or gave up no longer changes what another is owed (a later
/// subscriber's start becomes known, one cancels or ends).
fn settle_all<T: Debug + Send + 'static>(
    cx: &RuleCx,
    subs: &mut [Sub<'_, T>],
    elements: u64,
) -> Result<(), Failure> {
    // Paces only grow (demand adds up, subscribers leave), so this ends.
    loop {
        for at in 0..subs.len() {
            subs[at].model.pace = pace_of(subs, at);
            settle(cx, &mut subs[at], elements)?;
        }
        if (0..subs.len()).all(|at| pace_of(subs, at) == subs[at].model.pace) {
            return Ok(());
        }
    }
}

/// The stream position every subscriber present but `at` has demand up
/// to: `at` is owed nothing beyond it.
fn pace_of<T: Debug + Send + 'static>(subs: &[Sub<'_, T>], at: usize) -> u64 {
    subs.iter()
        .enumerate()
        .filter(|(other, sub)| *other != at && sub.model.is_present())
        .map(|(_, sub)| sub.model.reach())
        .min()
        .unwrap_or(u64::MAX)
}

/// Waits until the publisher has given `sub` everything the model says it
/// owes, checking each signal as it comes, then checks nothing more is
/// already there.
fn settle<T: Debug + Send + 'static>(
    cx: &RuleCx,
    sub: &mut Sub<'_, T>,
    elements: u64,
) -> Result<(), Failure> {
    while !sub.model.is_cancelled() && sub.model.delivered < sub.model.owed(elements) {
        let owed = sub.model.owed(elements);
        let Ok(signal) = sub.probe.expect_signal() else {
            return Err(cx.failure_of(
                "3.8",
                format!(
                    "{owed} on_next to {} in total (demand {}, {elements} elements)",
                    sub.who.label(),
                    demand_text(&sub.model)
                ),
                format!(
                    "only {} arrived within {} ms",
                    sub.model.delivered,
                    cx.env().timeout().as_millis()
                ),
            ));
        };
        check(cx, sub, elements, signal)?;
    }
    if sub.model.completion_owed(elements) && !sub.model.completed {
        match sub.probe.expect_signal() {
            Ok(signal) => check(cx, sub, elements, signal)?,
            Err(_) => {
                return Err(cx.failure_of(
                    "1.5",
                    format!(
                        "on_complete to {} after all {elements} elements",
                        sub.who.label()
                    ),
                    format!("nothing within {} ms", cx.env().timeout().as_millis()),
                ));
            }
        }
        if !sub.model.completed {
            return Err(cx.failure_of(
                "1.5",
                format!(
                    "on_complete to {} after all {elements} elements",
                    sub.who.label()
                ),
                "another signal came first",
            ));
        }
    }
    if sub.model.error_owed() {
        let (rule, expected) = owed_error(&sub.model, sub.who);
        match sub.probe.expect_signal() {
            Ok(signal) => check(cx, sub, elements, signal)?,
            Err(_) => {
                return Err(cx.failure_of(
                    rule,
                    expected,
                    format!("nothing within {} ms", cx.env().timeout().as_millis()),
                ));
            }
        }
    }
    if sub.model.is_open() {
        leftover(cx, sub, elements)?;
    }
    Ok(())
}

/// The rule and the expectation of the `on_error` `model` is owed.
fn owed_error(model: &SubModel, who: Who) -> (&'static str, String) {
    if model.fails {
        (
            FAILED,
            format!(
                "on_error to {} from the failed publisher after on_subscribe",
                who.label()
            ),
        )
    } else {
        (
            ILLEGAL_DEMAND,
            format!(
                "on_error(StreamError::illegal_demand(0)) to {} after request(0)",
                who.label()
            ),
        )
    }
}

/// Checks whatever the probe already holds beyond what was checked.
fn leftover<T: Debug + Send + 'static>(
    cx: &RuleCx,
    sub: &mut Sub<'_, T>,
    elements: u64,
) -> Result<(), Failure> {
    while sub.probe.received() > sub.model.delivered
        || (sub.probe.is_terminated() && !sub.model.completed && !sub.model.errored)
    {
        let signal = sub.probe.expect_signal()?;
        check(cx, sub, elements, signal)?;
        if sub.model.is_cancelled() {
            break;
        }
    }
    Ok(())
}

/// One signal to an open subscriber, against the model.
fn check<T: Debug + Send + 'static>(
    cx: &RuleCx,
    sub: &mut Sub<'_, T>,
    elements: u64,
    signal: Signal<T>,
) -> Result<(), Failure> {
    let label = sub.who.label();
    match signal {
        Signal::Next(element) => {
            sub.model.delivered += 1;
            let number = sub.model.delivered;
            if sub.model.start.is_none() && number == 1 {
                sub.model.start = (sub.index)(&element);
            }
            // What is left of the stream from where it started.
            let left = elements.saturating_sub(sub.model.start.unwrap_or(0));
            if sub.model.fails {
                let (rule, expected) = owed_error(&sub.model, sub.who);
                return Err(cx.failure_of(
                    rule,
                    format!("{expected}, and no on_next"),
                    crate::probe::show_next(number, &element),
                ));
            }
            if sub.model.illegal_demand && number > sub.model.allowed(elements) {
                let (rule, expected) = owed_error(&sub.model, sub.who);
                return Err(cx.failure_of(
                    rule,
                    format!(
                        "{expected}, and no on_next beyond the {} demanded before",
                        sub.model.allowed(elements)
                    ),
                    crate::probe::show_next(number, &element),
                ));
            }
            if number > left {
                return Err(cx.failure_of(
                    CREATE_N,
                    if left == elements {
                        format!(
                            "exactly {elements} on_next to {label} from create_publisher({elements})"
                        )
                    } else {
                        format!(
                            "the {left} on_next left of create_publisher({elements}) to {label}, which joined at element {}",
                            elements - left
                        )
                    },
                    crate::probe::show_next(number, &element),
                ));
            }
            if number > sub.model.allowed(elements) {
                return Err(cx.failure_of(
                    "1.1",
                    format!(
                        "at most {} on_next to {label} (demand {})",
                        sub.model.allowed(elements),
                        demand_text(&sub.model)
                    ),
                    crate::probe::show_next(number, &element),
                ));
            }
        }
        Signal::Complete => {
            // A later subscriber whose start is not known may have joined
            // anywhere, even after the end.
            let left = match sub.model.start {
                Some(start) => elements.saturating_sub(start),
                None => sub.model.delivered,
            };
            if sub.model.fails || (sub.model.illegal_demand && sub.model.delivered < left) {
                let (rule, expected) = owed_error(&sub.model, sub.who);
                return Err(cx.failure_of(
                    rule,
                    expected,
                    format!("on_complete after {} on_next", sub.model.delivered),
                ));
            }
            if elements == u64::MAX && !(sub.model.after_all_left && sub.model.delivered == 0) {
                return Err(cx.failure_of(
                    CREATE_N,
                    format!("no on_complete to {label} from the infinite create_publisher(∞)"),
                    format!("on_complete after {} on_next", sub.model.delivered),
                ));
            }
            if sub.model.delivered < left {
                return Err(cx.failure_of(
                    CREATE_N,
                    if left == elements {
                        format!("{elements} on_next to {label} before on_complete")
                    } else {
                        format!(
                            "the {left} on_next left of create_publisher({elements}) to {label}, which joined at element {}, before on_complete",
                            elements - left
                        )
                    },
                    format!("on_complete after {}", sub.model.delivered),
                ));
            }
            sub.model.completed = true;
        }
        Signal::Error(_) if sub.model.fails => sub.model.errored = true,
        // Refused after `subscribe` returned, `on_error` from another
        // thread before any element (§1.9 allows it, as at subscribe
        // time), perhaps racing a `request(0)` of the schedule's: the
        // schedule goes on with the first subscriber alone.
        Signal::Error(error)
            if sub.who == Who::Second && sub.model.delivered == 0 && !error.is_illegal_demand() =>
        {
            cx.trace(crate::publisher::refused_reason(2));
            sub.model.errored = true;
        }
        Signal::Error(error) if sub.model.illegal_demand => {
            if !error.is_illegal_demand() {
                let (rule, expected) = owed_error(&sub.model, sub.who);
                return Err(cx.failure_of(
                    rule,
                    expected,
                    format!("on_error({error}), which is not an illegal-demand error"),
                ));
            }
            sub.model.errored = true;
        }
        // A stage that shut down when its last subscriber left may turn a
        // later one away with `on_error` as well as complete it (§1.9
        // lets a publisher reject a subscriber after `on_subscribe`).
        Signal::Error(_) if sub.model.after_all_left && sub.model.delivered == 0 => {
            sub.model.errored = true;
        }
        Signal::Error(error) => {
            return Err(cx.failure_of(
                CREATE_N,
                format!("exactly {elements} on_next to {label}, then on_complete"),
                format!("on_error({error}) after {} on_next", sub.model.delivered),
            ));
        }
    }
    Ok(())
}

/// The end of a schedule: one no-signal window if a subscriber is still
/// open, then every cancelled or completed subscriber must be dropped
/// (§3.13, §1.6).
fn conclude<T: Debug + Send + 'static>(
    cx: &RuleCx,
    subs: &mut [Sub<'_, T>],
    elements: u64,
) -> Result<(), Failure> {
    if let Some(open) = subs.iter_mut().find(|s| s.model.is_open()) {
        // One window shows the silence of every open subscriber: they all
        // had the same time to receive something.
        if let Some(signal) = open.probe.poll_signal(cx.env().no_signal_timeout()) {
            check(cx, open, elements, signal)?;
        }
    }
    for sub in subs.iter_mut() {
        if sub.model.is_open() {
            leftover(cx, sub, elements)?;
        }
        if sub.model.is_open() {
            continue;
        }
        let (rule, after) = if sub.model.is_cancelled() {
            ("3.13", "cancel()")
        } else if sub.model.errored {
            ("1.6", "on_error")
        } else {
            ("1.6", "on_complete")
        };
        if let Err(failure) = sub.probe.wait_dropped() {
            return Err(cx.failure_of(
                rule,
                format!("the publisher to drop {} after {after}", sub.who.label()),
                failure.actual,
            ));
        }
    }
    Ok(())
}

fn demand_text(model: &SubModel) -> String {
    let mut text = super::show_amount(model.requested);
    if model.on_next > 0 {
        text.push_str(&format!(" + {} per on_next", model.on_next));
    }
    text
}
