//! The extended processor verification: the publisher's generated
//! schedules and stress against the processor's output side, and generated
//! upstream scripts against both sides at once.
//!
//! * `tck_extended_schedules`, `tck_extended_stress`: each publisher is a
//!   fresh processor fed by a conforming TCK upstream of the factory's
//!   inputs (infinite, or failing at once, as the schedule asks), checked
//!   by the publisher's reference model. Schedules subscribe one subscriber
//!   only: the model owes every subscriber all the elements, which a hot,
//!   multicast processor does not (the quick verification checks how it
//!   serves several).
//! * `tck_extended_upstream` (rule id `tck.extended_upstream`): the TCK is
//!   the processor's upstream *and* its downstream, and generates what both
//!   do — downstream `request(n)` and `cancel()`, upstream bursts of
//!   `on_next` within the demand the processor signalled (from the test's
//!   thread or another one, one after the other as §1.3 allows),
//!   `on_complete` or `on_error` at any point. Checked after every step:
//!   the processor never has more demand upstream than downstream demand
//!   plus its declared [`max_upstream_demand`](ProcessorFactory::max_upstream_demand)
//!   (`tck.bounded_upstream_demand`; a declared filter may also ask for a
//!   replacement of each input it drops), never `request(0)` (§2.1), every
//!   input that downstream demanded comes out (of a declared filter, every
//!   passing one), in order, and no more (§1.1), the upstream's `on_complete` reaches downstream once it has
//!   everything, its `on_error` reaches downstream (§4.2; unless the factory
//!   declares `recovers_from_errors()`), and a downstream `cancel()`
//!   reaches upstream (when the factory declares
//!   `propagates_cancellation()`). A processor declaring
//!   [`max_outputs`](ProcessorFactory::max_outputs) `k` (a `take(k)`) may
//!   cancel upstream and complete downstream once `k` came out, and never
//!   emits more. Failures shrink to a minimal script.

use std::fmt;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use proptest::prelude::*;
use reactive_streams::{Publisher, Subscriber, demand};

use crate::context::{Failure, Outcome, RuleBody, RuleCx};
use crate::engine::{Prepared, Test};
use crate::explore::{Scripted, scripted};
use crate::outcome::Verdict;
use crate::probe::{Probe, Signal};
use crate::processor::ProcessorFactory;
use crate::processor::as_publisher::AsPublisher;
use crate::processor::as_subscriber::ProcessorSubject;
use crate::processor::passing;
use crate::processor::upstream::{self, Ending, Recorder};
use crate::publisher::PublisherFactory;
use crate::publisher::extended::schedule::{amount, show_amount};

/// The most steps of an upstream script.
pub const MAX_UPSTREAM_STEPS: usize = 10;

/// A processor factory seen as a publisher factory: each publisher is a
/// fresh processor fed by the TCK's upstream, as the quick verification's
/// [`AsPublisher`] makes it, except that a publisher of `n` is fed `n`
/// inputs (as many as it takes for `n` to pass a declared filter) and
/// serves as many subscribers as the processor declares.
struct Fed<F>(AsPublisher<F>);

impl<F: ProcessorFactory> PublisherFactory for Fed<F> {
    type Element = F::Output;

    fn create_publisher(&self, elements: u64) -> Box<dyn Publisher<F::Output>> {
        // A filter is fed until `elements` inputs passed, as in the quick
        // verification.
        self.0.fed(Ending::After(passing::inputs_for(
            &*self.0.factory,
            elements,
        )))
    }

    fn create_failed_publisher(&self) -> Option<Box<dyn Publisher<F::Output>>> {
        self.0.create_failed_publisher()
    }

    fn max_elements(&self) -> u64 {
        self.0.max_elements()
    }

    fn max_sync_recursion_depth(&self) -> u32 {
        self.0.max_sync_recursion_depth()
    }

    /// As the processor declares: the schedules' model owes a later
    /// subscriber only the rest of the stream from where it started, at
    /// the pace of the slowest subscriber present, as a hot, multicast
    /// stage serves them (issue 27).
    fn supports_multiple_subscribers(&self) -> bool {
        self.0.supports_multiple_subscribers()
    }

    fn max_subscribers(&self) -> Option<usize> {
        self.0.max_subscribers()
    }

    fn run_stochastic(&self) -> bool {
        self.0.run_stochastic()
    }

    fn element_index(&self, output: &F::Output) -> Option<u64> {
        self.0.element_index(output)
    }
}

/// One step of an upstream script.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum UpstreamStep {
    /// Downstream `request(n)`.
    Request(u64),
    /// Upstream: up to this many `on_next`, as far as the demand the
    /// processor signalled allows, from the test's thread or another one.
    Burst {
        /// The most elements.
        up_to: u64,
        /// Sent from a thread of its own (joined before the next step).
        other_thread: bool,
    },
    /// Upstream `on_complete`; no upstream signal follows.
    Complete,
    /// Upstream `on_error`; no upstream signal follows.
    Error,
    /// Downstream `cancel()`; nothing follows.
    Cancel,
}

impl fmt::Display for UpstreamStep {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            UpstreamStep::Request(n) => write!(f, "probe: request({})", show_amount(*n)),
            UpstreamStep::Burst {
                up_to,
                other_thread,
            } => write!(
                f,
                "upstream: up to {up_to} on_next (within the processor's demand){}",
                if *other_thread {
                    " from another thread"
                } else {
                    ""
                }
            ),
            UpstreamStep::Complete => f.write_str("upstream: on_complete"),
            UpstreamStep::Error => f.write_str("upstream: on_error"),
            UpstreamStep::Cancel => f.write_str("probe: cancel()"),
        }
    }
}

/// A generated case: a processor between the TCK's upstream and a probe.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UpstreamScript {
    /// What the probe requests from inside `on_subscribe`.
    pub on_subscribe: Vec<u64>,
    /// What happens then.
    pub steps: Vec<UpstreamStep>,
}

impl UpstreamScript {
    /// The steps that act: no upstream signal after an upstream terminal
    /// signal, nothing after a downstream `cancel()`.
    pub fn effective_steps(&self) -> Vec<UpstreamStep> {
        let mut ended = false;
        let mut steps = Vec::new();
        for step in &self.steps {
            match step {
                UpstreamStep::Burst { .. } | UpstreamStep::Complete | UpstreamStep::Error
                    if ended => {}
                UpstreamStep::Complete | UpstreamStep::Error => {
                    ended = true;
                    steps.push(*step);
                }
                UpstreamStep::Cancel => {
                    steps.push(*step);
                    break;
                }
                step => steps.push(*step),
            }
        }
        steps
    }
}

impl Scripted for UpstreamScript {
    fn script(&self) -> Vec<String> {
        let mut subscribe = String::from("upstream: on_subscribe; probe: subscribe");
        if !self.on_subscribe.is_empty() {
            let requests: Vec<_> = self
                .on_subscribe
                .iter()
                .map(|n| format!("request({}) from on_subscribe", show_amount(*n)))
                .collect();
            subscribe.push_str(&format!(" ({})", requests.join(", ")));
        }
        let mut lines = vec![String::from("create_processor()"), subscribe];
        lines.extend(self.effective_steps().iter().map(ToString::to_string));
        lines
    }
}

/// Upstream scripts: mostly requests and bursts, now and then an upstream
/// terminal signal or a downstream cancel.
pub fn upstream_scripts() -> SBoxedStrategy<UpstreamScript> {
    let step = prop_oneof![
        5 => amount().prop_map(UpstreamStep::Request),
        5 => (1u64..=4, prop::bool::weighted(0.3))
            .prop_map(|(up_to, other_thread)| UpstreamStep::Burst { up_to, other_thread }),
        1 => Just(UpstreamStep::Complete),
        1 => Just(UpstreamStep::Error),
        1 => Just(UpstreamStep::Cancel),
    ];
    (
        prop::collection::vec(step, 0..=MAX_UPSTREAM_STEPS),
        prop::collection::vec(amount(), 0..=1),
    )
        .prop_map(|(steps, on_subscribe)| UpstreamScript {
            on_subscribe,
            steps,
        })
        .sboxed()
}

/// What the upstream did, as the model sees it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Terminal {
    Complete,
    Error,
}

/// The downstream probe, as the model sees it.
#[derive(Debug, Default)]
struct Model {
    requested: u64,
    /// Inputs sent upstream.
    sent: u64,
    /// Of those, the ones the factory declares to pass
    /// ([`passes`](ProcessorFactory::passes)): the outputs they make.
    outputs: u64,
    delivered: u64,
    upstream: Option<Terminal>,
    cancelled: bool,
    completed: bool,
    errored: bool,
    /// The factory's [`max_outputs`](ProcessorFactory::max_outputs): the
    /// processor may end its stream itself once that many came out.
    max_outputs: u64,
}

impl Model {
    fn owed(&self) -> u64 {
        self.outputs.min(self.requested).min(self.max_outputs)
    }

    /// Outputs that make the stream complete once the upstream completed:
    /// every passing input, up to the declared most.
    fn all_outputs(&self) -> u64 {
        self.outputs.min(self.max_outputs)
    }

    /// Inputs sent that a declared filter drops: a conforming filter asks
    /// upstream for a replacement of each.
    fn dropped(&self) -> u64 {
        self.sent - self.outputs
    }

    /// What must come out, for messages: "3 inputs" (for a filter, "the
    /// 2 passing inputs").
    fn coming_out(&self) -> String {
        if self.dropped() == 0 {
            format!("{} inputs", self.sent)
        } else {
            format!("the {} passing inputs", self.outputs)
        }
    }

    /// What went in, for messages: "3 inputs went in" (and, for a filter,
    /// how many of them pass).
    fn inputs(&self) -> String {
        if self.dropped() == 0 {
            format!("{} inputs went in", self.sent)
        } else {
            format!(
                "{} inputs went in, {} of them passing the declared filter",
                self.sent, self.outputs
            )
        }
    }

    fn is_open(&self) -> bool {
        !self.cancelled && !self.completed && !self.errored
    }
}

/// Declares the processor's `element_index` to the probe of one upstream
/// script: outputs are owed once each and in order, numbered by the
/// passing inputs, as in the quick verification. Once `fallback` is set (a
/// processor that recovers from the upstream error may emit a fallback
/// instead, numbered by no input) outputs go unchecked.
fn declare_identity<F: ProcessorFactory>(cx: &RuleCx, f: &Arc<F>, fallback: &Arc<AtomicBool>) {
    let numbering = AsPublisher::new(f.clone(), std::time::Duration::ZERO);
    let fallback = fallback.clone();
    cx.declare_identity(crate::probe::Identity::new(move |output: &F::Output| {
        if fallback.load(Ordering::SeqCst) {
            return None;
        }
        numbering.element_index(output)
    }));
}

/// Runs `script` against a fresh processor of `f`.
pub(crate) fn run<F: ProcessorFactory>(
    cx: &RuleCx,
    f: &Arc<F>,
    script: &UpstreamScript,
) -> RuleBody {
    cx.trace(format!("script: {}", script.script().join("; ")));
    let fallback = Arc::new(AtomicBool::new(false));
    declare_identity(cx, f, &fallback);
    let f = &**f;
    let processor = cx.try_step(cx.rule(), "create_processor()", || f.create_processor())?;
    let recorder = Arc::new(Recorder::default());
    let mut input: Box<dyn Subscriber<F::Input>> = Box::new(processor.clone());
    let subscription = recorder.clone();
    cx.try_step(cx.rule(), "upstream: on_subscribe", || {
        input.on_subscribe(subscription)
    })?;
    // The only subscriber of a fresh processor: its outputs from the first.
    let mut probe = Probe::new(cx, "probe")
        .sees_start()
        .depth_bound(f.max_sync_recursion_depth())
        .stop_runaway();
    let mut model = Model {
        max_outputs: f.max_outputs(),
        ..Model::default()
    };
    for &n in &script.on_subscribe {
        probe = probe.request_on_subscribe(n);
        model.requested = demand::add(model.requested, n);
    }
    probe.subscribe_to(&processor)?;
    probe.expect_subscribed()?;
    settle(cx, f, &probe, &recorder, &mut model)?;

    for step in script.effective_steps() {
        match step {
            UpstreamStep::Request(n) => {
                if model.is_open() {
                    model.requested = demand::add(model.requested, n);
                }
                probe.request(n)?;
            }
            UpstreamStep::Burst {
                up_to,
                other_thread,
            } => {
                let first = model.sent;
                let sent = if other_thread {
                    on_another_thread(cx, || burst(cx, f, &mut input, &recorder, up_to))?
                } else {
                    burst(cx, f, &mut input, &recorder, up_to)?
                };
                model.sent += sent;
                model.outputs += (first..model.sent).filter(|&i| f.passes(i)).count() as u64;
            }
            UpstreamStep::Complete => {
                if !recorder.seen().cancelled {
                    cx.try_step(cx.rule(), "upstream: on_complete", || input.on_complete())?;
                    model.upstream = Some(Terminal::Complete);
                }
            }
            UpstreamStep::Error => {
                if !recorder.seen().cancelled {
                    if f.recovers_from_errors() {
                        fallback.store(true, Ordering::SeqCst);
                    }
                    cx.try_step(cx.rule(), "upstream: on_error", || {
                        input.on_error(upstream::upstream_error())
                    })?;
                    model.upstream = Some(Terminal::Error);
                }
            }
            UpstreamStep::Cancel => {
                let open = model.is_open();
                model.cancelled = true;
                probe.cancel()?;
                if open && model.upstream.is_none() && f.propagates_cancellation() {
                    let timeout = cx.env().timeout();
                    if !recorder.wait(timeout, |s| s.cancelled) {
                        return Err(cx.failure_of(
                            "tck.cancel_propagates",
                            "cancel() upstream once the only downstream subscriber cancelled (the factory declares propagates_cancellation())",
                            format!("no cancel() upstream within {} ms", timeout.as_millis()),
                        ));
                    }
                }
            }
        }
        settle(cx, f, &probe, &recorder, &mut model)?;
    }
    if model.is_open() {
        if let Some(signal) = probe.poll_signal(cx.env().no_signal_timeout()) {
            check(cx, f, &mut model, signal)?;
        }
        leftover(cx, f, &probe, &mut model)?;
    }
    bounded(cx, f, &recorder, &model)?;
    drop(input);
    Ok(Outcome::Passed)
}

/// Up to `up_to` `on_next` upstream, each within the demand the processor
/// signalled; returns how many went.
fn burst<F: ProcessorFactory>(
    cx: &RuleCx,
    f: &F,
    input: &mut Box<dyn Subscriber<F::Input>>,
    recorder: &Recorder,
    up_to: u64,
) -> Result<u64, Failure> {
    let mut sent = 0;
    while sent < up_to && recorder.take_one() {
        let index = recorder.seen().sent - 1;
        let element = f.input(index);
        let what = format!("upstream: {}", crate::probe::show_next(index + 1, &element));
        cx.try_step(cx.rule(), what, || input.on_next(element))?;
        sent += 1;
    }
    Ok(sent)
}

fn on_another_thread<R: Send>(
    cx: &RuleCx,
    body: impl FnOnce() -> Result<R, Failure> + Send,
) -> Result<R, Failure> {
    std::thread::scope(|scope| {
        std::thread::Builder::new()
            .name(String::from("upstream"))
            .spawn_scoped(scope, body)
            .map_err(|error| cx.failure("the TCK to start a thread", error.to_string()))?
            .join()
            .unwrap_or_else(|_| Err(cx.failure("the upstream thread to finish", "it panicked")))
    })
}

/// After a step: the demand bound, then what downstream is owed.
fn settle<F: ProcessorFactory>(
    cx: &RuleCx,
    f: &F,
    probe: &Probe<F::Output>,
    recorder: &Recorder,
    model: &mut Model,
) -> Result<(), Failure> {
    bounded(cx, f, recorder, model)?;
    if !model.is_open() {
        return Ok(());
    }
    let timeout = cx.env().timeout().as_millis();
    if model.upstream == Some(Terminal::Error) && !f.recovers_from_errors() {
        // Elements still buffered may be dropped: only the error is owed.
        while model.is_open() {
            let Ok(signal) = probe.expect_signal() else {
                return Err(cx.failure_of(
                    "4.2",
                    "the upstream's on_error to reach downstream",
                    format!(
                        "nothing within {timeout} ms after {} on_next",
                        model.delivered
                    ),
                ));
            };
            check(cx, f, model, signal)?;
        }
        return Ok(());
    }
    while model.is_open() && model.delivered < model.owed() {
        let Ok(signal) = probe.expect_signal() else {
            return Err(cx.failure_of(
                "3.8",
                format!(
                    "{} on_next downstream: {}, downstream demand {}",
                    model.owed(),
                    model.inputs(),
                    show_amount(model.requested)
                ),
                format!("only {} arrived within {timeout} ms", model.delivered),
            ));
        };
        check(cx, f, model, signal)?;
    }
    if model.is_open()
        && model.upstream == Some(Terminal::Complete)
        && model.delivered == model.all_outputs()
    {
        let Ok(signal) = probe.expect_signal() else {
            return Err(cx.failure_of(
                "1.5",
                "the upstream's on_complete to reach downstream once every input came out",
                format!("nothing within {timeout} ms"),
            ));
        };
        check(cx, f, model, signal)?;
    }
    leftover(cx, f, probe, model)
}

/// Checks whatever the probe already holds beyond what was checked.
fn leftover<F: ProcessorFactory>(
    cx: &RuleCx,
    f: &F,
    probe: &Probe<F::Output>,
    model: &mut Model,
) -> Result<(), Failure> {
    while model.is_open() && (probe.received() > model.delivered || probe.is_terminated()) {
        let signal = probe.expect_signal()?;
        check(cx, f, model, signal)?;
    }
    Ok(())
}

/// One downstream signal, against the model.
fn check<F: ProcessorFactory>(
    cx: &RuleCx,
    f: &F,
    model: &mut Model,
    signal: Signal<F::Output>,
) -> Result<(), Failure> {
    match signal {
        Signal::Next(element) => {
            model.delivered += 1;
            if model.delivered > model.max_outputs {
                return Err(cx.failure(
                    format!(
                        "at most {} on_next downstream: the factory's max_outputs() is {}",
                        model.max_outputs, model.max_outputs
                    ),
                    crate::probe::show_next(model.delivered, &element),
                ));
            }
            // After an upstream error, a recovering processor may emit
            // from its fallback: only downstream demand bounds it then.
            let fallback = model.upstream == Some(Terminal::Error) && f.recovers_from_errors();
            let limit = if fallback {
                model.requested
            } else {
                model.owed()
            };
            if model.delivered > limit {
                let expected = if fallback {
                    format!(
                        "at most {} on_next downstream: the downstream demand (the processor recovers from the upstream error)",
                        show_amount(limit)
                    )
                } else {
                    format!(
                        "at most {limit} on_next downstream: {}, downstream demand {}",
                        model.inputs(),
                        show_amount(model.requested)
                    )
                };
                return Err(cx.failure_of(
                    "1.1",
                    expected,
                    crate::probe::show_next(model.delivered, &element),
                ));
            }
        }
        Signal::Complete => {
            let passed_on =
                model.upstream == Some(Terminal::Complete) && model.delivered >= model.outputs;
            let recovered = model.upstream == Some(Terminal::Error) && f.recovers_from_errors();
            // A processor declaring at most k outputs (a take(k)) ends its
            // stream itself once k came out.
            let ended_itself = model.delivered >= model.max_outputs;
            if !passed_on && !recovered && !ended_itself {
                return Err(cx.failure(
                    format!(
                        "on_complete downstream only after upstream's, once all {} came out",
                        model.coming_out()
                    ),
                    format!("on_complete after {} on_next", model.delivered),
                ));
            }
            model.completed = true;
        }
        Signal::Error(error) => {
            if model.upstream != Some(Terminal::Error) || f.recovers_from_errors() {
                return Err(cx.failure(
                    "no on_error downstream: the upstream did not fail (or the processor recovers)",
                    format!("on_error({error}) after {} on_next", model.delivered),
                ));
            }
            model.errored = true;
        }
    }
    Ok(())
}

/// The processor's upstream demand stays within downstream demand plus its
/// declared prefetch, and is never 0.
fn bounded<F: ProcessorFactory>(
    cx: &RuleCx,
    f: &F,
    recorder: &Recorder,
    model: &Model,
) -> Result<(), Failure> {
    let seen = recorder.seen();
    if seen.illegal {
        return Err(cx.failure_of(
            "2.1",
            "the processor to request upstream at least 1 at a time",
            "request(0) upstream",
        ));
    }
    // A filter replaces each input it drops: those requests come on top.
    let limit = demand::add(
        demand::add(model.requested, f.max_upstream_demand()),
        model.dropped(),
    );
    if !demand::is_unbounded(model.requested) && seen.requested > limit {
        let replacements = if model.dropped() == 0 {
            String::new()
        } else {
            format!(
                " plus {} replacements of inputs the declared filter drops",
                model.dropped()
            )
        };
        return Err(cx.failure_of(
            "tck.bounded_upstream_demand",
            format!(
                "at most {} requested upstream: downstream demand {} plus max_upstream_demand() {}{replacements}",
                show_amount(limit),
                show_amount(model.requested),
                f.max_upstream_demand()
            ),
            format!("{} requested upstream", show_amount(seen.requested)),
        ));
    }
    Ok(())
}

/// The extended test `name` of the processor verification:
/// `tck_extended_schedules` and `tck_extended_stress` (the publisher's, on
/// the output side, fed by a TCK upstream) or `tck_extended_upstream`.
pub(crate) fn test<F: ProcessorFactory>(name: &str) -> Test<ProcessorSubject<F>> {
    if name != "tck_extended_upstream" {
        return Test::extended(|subject: &Arc<ProcessorSubject<F>>, prepared: Prepared| {
            let watchdog = prepared.1.watchdog();
            let fed = Arc::new(Fed(AsPublisher::new(subject.factory.clone(), watchdog)));
            let mut result = crate::publisher::extended::run(fed, prepared);
            // A skip names the declaration the user wrote: a processor's
            // `max_elements()` is its factory's `max_outputs()`.
            if result.verdict == Verdict::Skipped {
                result.message = result
                    .message
                    .map(|m| m.replace("max_elements()", "max_outputs()"));
            }
            result
        });
    }
    Test::extended(|subject: &Arc<ProcessorSubject<F>>, prepared: Prepared| {
        let factory = subject.factory.clone();
        scripted(prepared, upstream_scripts, move |cx, case| {
            run(cx, &factory, case)
        })
    })
}
