//! Generated scripts against Streamlet sources (the TCK plays the sink)
//! and sinks (the TCK plays the source).
//!
//! **Sinks**: a [`SinkScript`] greets the sink under test, then emits in
//! bursts while the stream is live and may end it, with or without a
//! reason; the source probe judges every talkback call (rules 3, 5, 6) and
//! every call into the sink must return normally.
//!
//! **Sources**:
//! A [`SourceScript`] creates a source of a few elements, connects the
//! streamlet verification's judging sink probe (pulling or pushed, as the
//! source's kind allows; it requests from inside every emission when
//! pulling, and stops from inside the emissions the script names), then
//! runs up to six steps: `start()` (a restart after a stop, where the
//! factory supports restarts) and `request()`. The probe judges every
//! greet, emission and end as it arrives (rules 1, 2 and 4). When the
//! script never stops the stream and started it, the source must emit all
//! its elements and end (`tck.create_n`); when it started the stream again
//! after its last stop, the source must end it (`tck.create_n`).

use std::fmt;
use std::sync::Arc;

use proptest::prelude::*;

pub mod source_stress;

use crate::context::{Outcome, RuleBody, RuleCx};
use crate::engine::{Prepared, Test};
use crate::env::TestEnv;
use crate::explore::config::ExtendedConfig;
use crate::explore::{Scripted, StressPlans, scripted, stress_rounds, stressed};
use crate::runner::RuleMeta;
use reactive_streams::StreamError;
use source_stress::{STRESS_ELEMENTS, SourceStressPlan};

use crate::outcome::{RuleResult, Verdict};
use crate::streamlet::probe::{Mode, SinkProbe, SourceProbe};
use crate::streamlet::sink::SinkFactory;
use crate::streamlet::source::{SourceFactory, greeting};

/// The most elements a generated source has.
pub const MAX_SOURCE_ELEMENTS: u64 = 12;
/// The most steps of a script.
pub const MAX_SOURCE_STEPS: usize = 6;

/// What the sink does from the test's thread.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SinkStep {
    /// `talkback.start()` (and, pulling, a request); a restart after a
    /// stop.
    Start,
    /// `talkback.request()`, if the stream is live.
    Request,
}

/// A generated case against one source.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SourceScript {
    /// `create_source(elements)`.
    pub elements: u64,
    /// Pull (request after start and inside every emission) or push.
    pub mode: Mode,
    /// Stop from inside the emissions with these numbers (over the whole
    /// stream).
    pub stops: Vec<u64>,
    /// What happens after the greet.
    pub steps: Vec<SinkStep>,
}

impl Scripted for SourceScript {
    fn script(&self) -> Vec<String> {
        let mut connect = format!("sink: connect ({}", self.mode.as_str());
        for k in &self.stops {
            connect.push_str(&format!(", stop() inside emission #{k}"));
        }
        connect.push(')');
        let mut lines = vec![format!("create_source({})", self.elements), connect];
        lines.extend(self.steps.iter().map(|step| step.to_string()));
        lines
    }
}

impl fmt::Display for SinkStep {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SinkStep::Start => f.write_str("sink: start()"),
            SinkStep::Request => f.write_str("sink: request()"),
        }
    }
}

/// Scripts for a source of up to `max_elements` elements, in one of
/// `modes`.
pub fn source_scripts(max_elements: u64, modes: &'static [Mode]) -> SBoxedStrategy<SourceScript> {
    let step = prop_oneof![2 => Just(SinkStep::Start), 3 => Just(SinkStep::Request)];
    (
        prop::collection::vec(step, 0..=MAX_SOURCE_STEPS),
        prop::collection::btree_set(1u64..=MAX_SOURCE_ELEMENTS, 0..=2),
        0..modes.len().max(1),
        0..=max_elements.min(MAX_SOURCE_ELEMENTS),
    )
        .prop_map(move |(steps, stops, mode, elements)| SourceScript {
            elements,
            mode: modes.get(mode).copied().unwrap_or(Mode::Pull),
            stops: stops.into_iter().collect(),
            steps,
        })
        .sboxed()
}

/// Runs `script` against a fresh source of `factory`.
pub(crate) fn run<F: SourceFactory>(cx: &RuleCx, factory: &F, script: &SourceScript) -> RuleBody {
    cx.trace(format!("script: {}", script.script().join("; ")));
    let source = cx.try_step(
        cx.rule(),
        format!("create_source({})", script.elements),
        || factory.create_source(script.elements),
    )?;
    let mut probe = SinkProbe::new(cx, "sink").mode(script.mode);
    for &k in &script.stops {
        probe = probe.stop_at(k, None);
    }
    probe.connect_to(&*source)?;
    probe.expect_greet()?;
    let mut started = false;
    for step in &script.steps {
        match step {
            SinkStep::Start => {
                if started && !factory.supports_restart() {
                    continue;
                }
                probe.start()?;
                started = true;
            }
            SinkStep::Request => probe.request()?,
        }
    }
    let stopped = script.stops.iter().any(|&k| k <= script.elements);
    if started && !stopped && factory.ends() {
        let wanted = format!(
            "all {} emissions, then end, for a started stream nobody stopped",
            script.elements
        );
        probe.wait_received(script.elements, &wanted)?;
        probe.wait_end(&wanted)?;
        if probe.received() != script.elements {
            return Err(cx.failure_of(
                "tck.create_n",
                format!("exactly {} emissions, then end", script.elements),
                format!("{} emissions, then end", probe.received()),
            ));
        }
    }
    // A stream started again after its last stop must also end: every
    // stop of the script has fired (a stop is recorded with the emission
    // that asked for it, so none can still come) and the stream is live.
    let received = probe.received();
    let life = probe.lifecycle();
    if factory.ends()
        && life.live
        && !life.ended
        && !script.stops.is_empty()
        && script.stops.iter().all(|&k| k <= received)
    {
        probe.wait_end("an end, for a stream started again after its last stop")?;
    }
    probe.quiet();
    drop(source);
    Ok(Outcome::Passed)
}

/// Declares `factory`'s `element_index` to one generated case, run in a
/// context of its own: its sink probe checks each element at most once and
/// in order (`tck.create_n`), as in the quick verification.
fn declare_identity<F: SourceFactory>(cx: &RuleCx, factory: &Arc<F>) {
    let factory = factory.clone();
    cx.declare_identity(crate::probe::Identity::new(move |data: &F::Element| {
        factory.element_index(data)
    }));
}

/// The extended source test `name`: `tck_extended_schedules`, generated
/// sink scripts, or `tck_extended_stress` (see [`source_stress`]).
pub(crate) fn source_test<F: SourceFactory>(name: &str) -> Test<F> {
    if name == "tck_extended_stress" {
        return Test::extended(|factory: &Arc<F>, prepared: Prepared| {
            if let Some(result) = ungreeted(factory, (&prepared.0, &prepared.1)) {
                return result;
            }
            let factory = factory.clone();
            stressed(prepared, move |cx, case, config| {
                source_stress(cx, &factory, case, config)
            })
        });
    }
    Test::extended(|factory: &Arc<F>, prepared: Prepared| {
        if let Some(result) = ungreeted(factory, (&prepared.0, &prepared.1)) {
            return result;
        }
        // The declarations are read on the test's thread, under its watchdog.
        let (factory, declared) = (factory.clone(), factory.clone());
        scripted(
            prepared,
            move || source_scripts(declared.max_elements(), declared.kind().modes()),
            move |cx, case| {
                declare_identity(cx, &factory);
                greeting::judged(cx, &*factory, run(cx, &*factory, case))
            },
        )
    })
}

/// The result of the extended test `meta` if a source of `factory` leaves
/// its one sink ungreeted: "not concluded" (rule 1: a source MAY greet),
/// or failed if the factory declares `greets_sinks()` — decided once,
/// before any generated case waits out the timeout for a greet.
fn ungreeted<F: SourceFactory>(
    factory: &Arc<F>,
    (meta, env): (&RuleMeta, &TestEnv),
) -> Option<RuleResult> {
    let factory = factory.clone();
    let result = crate::runner::run_rule(meta, env, move |cx| {
        let n = factory.max_elements().min(1);
        cx.scenario(format!("source of {n}, one sink connected"));
        let greeted = || -> RuleBody {
            let source = cx.try_step(cx.rule(), format!("create_source({n})"), || {
                factory.create_source(n)
            })?;
            let probe = SinkProbe::<F::Element>::new(cx, "sink");
            probe.connect_to(&*source)?;
            probe.expect_greet()?;
            Ok(Outcome::Passed)
        };
        greeting::judged(cx, &*factory, greeted())
    });
    (result.verdict != Verdict::Passed).then_some(result)
}

fn source_stress<F: SourceFactory>(
    cx: &RuleCx,
    factory: &Arc<F>,
    case: (&RuleMeta, &TestEnv),
    config: &ExtendedConfig,
) -> RuleBody {
    if !factory.kind().modes().contains(&Mode::Pull) {
        return Ok(Outcome::Skipped(String::from(
            "a listenable source: it takes no requests to race",
        )));
    }
    let elements = factory.max_elements().min(STRESS_ELEMENTS);
    let threads = config.stress_threads();
    let plans = StressPlans {
        who: "threads",
        draw: |seed| SourceStressPlan::draw(seed, threads, elements),
        show: |plan: &SourceStressPlan| {
            format!(
                "create_source({elements}); what each thread did, lined up by a barrier before each round:\n{plan}"
            )
        },
    };
    let factory = factory.clone();
    stress_rounds(
        cx,
        config,
        case,
        plans,
        move |cx, plan: &SourceStressPlan| {
            declare_identity(cx, &factory);
            greeting::judged(
                cx,
                &*factory,
                source_stress::run(cx, &*factory, plan, elements),
            )
        },
    )
}

/// What the TCK, as the source, does to the sink under test.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SourceStep {
    /// Up to this many emissions, as long as the stream is live.
    Emit(u64),
    /// `end()` if the stream is live; nothing follows.
    End,
    /// `end(reason)` if the stream is live; nothing follows.
    EndWithError,
}

/// A generated case against one sink: greet, then the steps.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SinkScript {
    /// What happens after the greet.
    pub steps: Vec<SourceStep>,
}

impl SinkScript {
    /// The steps that run: up to and including the first end.
    pub fn effective_steps(&self) -> Vec<SourceStep> {
        let mut steps = Vec::new();
        for step in &self.steps {
            steps.push(*step);
            if !matches!(step, SourceStep::Emit(_)) {
                break;
            }
        }
        steps
    }
}

impl fmt::Display for SourceStep {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SourceStep::Emit(1) => f.write_str("source: receive (if live)"),
            SourceStep::Emit(k) => write!(f, "source: up to {k} receive (while live)"),
            SourceStep::End => f.write_str("source: end() (if live)"),
            SourceStep::EndWithError => f.write_str("source: end(reason) (if live)"),
        }
    }
}

impl Scripted for SinkScript {
    fn script(&self) -> Vec<String> {
        let mut lines = vec![String::from("source: connect, greet")];
        lines.extend(self.effective_steps().iter().map(SourceStep::to_string));
        lines
    }
}

/// Sink scripts; shrinking favours fewer, smaller bursts.
pub fn sink_scripts() -> SBoxedStrategy<SinkScript> {
    let step = prop_oneof![
        6 => (1u64..=4).prop_map(SourceStep::Emit),
        1 => Just(SourceStep::End),
        1 => Just(SourceStep::EndWithError),
    ];
    prop::collection::vec(step, 0..=MAX_SOURCE_STEPS)
        .prop_map(|steps| SinkScript { steps })
        .sboxed()
}

/// Runs `script` against a fresh sink of `factory`: the source probe keeps
/// rules 1, 2 and 4 itself and judges every talkback call (rules 3, 5, 6).
pub(crate) fn run_sink<F: SinkFactory>(cx: &RuleCx, factory: &F, script: &SinkScript) -> RuleBody {
    cx.trace(format!("script: {}", script.script().join("; ")));
    let sink = cx.try_step(cx.rule(), "create_sink()", || factory.create_sink())?;
    let source = SourceProbe::new(cx, "source");
    source.connect_sink(sink);
    source.greet()?;
    let mut index = 0;
    for step in script.effective_steps() {
        match step {
            SourceStep::Emit(k) => {
                for _ in 0..k {
                    let element = factory.create_element(index);
                    if !source.emit(element)? {
                        break;
                    }
                    index += 1;
                }
            }
            SourceStep::End => {
                source.end(None)?;
            }
            SourceStep::EndWithError => {
                source.end(Some(StreamError::msg("TCK: generated end with a reason")))?;
            }
        }
    }
    source.quiet();
    Ok(Outcome::Passed)
}

/// The extended sink test `tck_extended_schedules`: generated source
/// scripts.
pub(crate) fn sink_test<F: SinkFactory>() -> Test<F> {
    Test::extended(|factory: &Arc<F>, prepared: Prepared| {
        let factory = factory.clone();
        scripted(prepared, sink_scripts, move |cx, case| {
            run_sink(cx, &*factory, case)
        })
    })
}
