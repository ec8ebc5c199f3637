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

use super::config::{
    show_seed, ExtendedConfig, ExtendedConfigError, SEED_ENV, STRESS_ITERATIONS_ENV,
};
use super::explore::{self, case_seed, Scripted, MAX_SHRINK_RUNS};
use super::publisher::whole_run;
use super::source_stress::{SourceStressPlan, STRESS_ELEMENTS};
use crate::context::{Failure, Outcome, RuleBody, RuleCx};
use crate::env::TestEnv;
use crate::outcome::{RuleResult, Verdict, Verification};
use crate::runner::{self, rule_of_test, RuleMeta};
use reactive_streams::StreamError;

use crate::streamlet::probe::{Mode, SinkProbe, SourceProbe};
use crate::streamlet::sink::SinkFactory;
use crate::streamlet::source::SourceFactory;

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

/// The extended source tests: `tck_extended_schedules` and
/// `tck_extended_stress` (see [`source_stress`](super::source_stress)).
pub const SOURCE_TESTS: &[&str] = &["tck_extended_schedules", "tck_extended_stress"];

/// Generated sink scripts against a [`SourceFactory`]'s sources.
pub struct SourceExtendedVerification<F: SourceFactory> {
    factory: Arc<F>,
    env: Option<TestEnv>,
    config: Option<ExtendedConfig>,
    target: String,
}

impl<F: SourceFactory> SourceExtendedVerification<F> {
    /// An extended verification of `factory`'s sources, named after its
    /// type.
    pub fn new(factory: F) -> Self {
        SourceExtendedVerification {
            factory: Arc::new(factory),
            env: None,
            config: None,
            target: std::any::type_name::<F>()
                .rsplit("::")
                .next()
                .unwrap_or("source")
                .to_string(),
        }
    }

    /// Timing bounds, per case (default: [`TestEnv::try_from_env`]).
    pub fn env(mut self, env: TestEnv) -> Self {
        self.env = Some(env);
        self
    }

    /// Budget and seed (default: [`ExtendedConfig::try_from_env`]).
    pub fn config(mut self, config: ExtendedConfig) -> Self {
        self.config = Some(config);
        self
    }

    /// The name results carry as their `target`.
    pub fn target(mut self, name: impl Into<String>) -> Self {
        self.target = name.into();
        self
    }

    /// Runs one extended test by name (`"tck_extended_schedules"`).
    ///
    /// # Panics
    ///
    /// If `test` is not in [`SOURCE_TESTS`].
    pub fn run(&self, test: &str) -> Result<RuleResult, ExtendedConfigError> {
        assert!(
            SOURCE_TESTS.contains(&test),
            "no extended source test named {test}"
        );
        let env = match self.env {
            Some(env) => env,
            None => TestEnv::try_from_env()?,
        };
        let config = match self.config {
            Some(config) => config,
            None => ExtendedConfig::try_from_env()?,
        };
        let meta = RuleMeta::new(
            Verification::StreamletSource,
            self.target.clone(),
            rule_of_test(test),
            test,
        );
        if test == "tck_extended_stress" {
            let factory = self.factory.clone();
            let case_meta = meta.clone();
            return Ok(runner::run_rule(
                &meta,
                &whole_run(&env, config.stress_iterations()),
                move |cx| source_stress(cx, &factory, &env, &config, &case_meta),
            ));
        }
        let rounds = config.cases().div_ceil(config.parallelism() as u64) + MAX_SHRINK_RUNS;
        let factory = self.factory.clone();
        let case_meta = meta.clone();
        Ok(runner::run_rule(
            &meta,
            &whole_run(&env, rounds),
            move |cx| {
                let strategy = source_scripts(factory.max_elements(), factory.kind().modes());
                explore::explore(cx, &config, "script", strategy, |case: &SourceScript| {
                    let (factory, case) = (factory.clone(), case.clone());
                    runner::run_rule(&case_meta, &env, move |cx| run(cx, &*factory, &case))
                })
            },
        ))
    }

    /// Runs every extended source test.
    pub fn run_all(&self) -> Result<Vec<RuleResult>, ExtendedConfigError> {
        SOURCE_TESTS.iter().map(|test| self.run(test)).collect()
    }
}

fn source_stress<F: SourceFactory>(
    cx: &RuleCx,
    factory: &Arc<F>,
    env: &TestEnv,
    config: &ExtendedConfig,
    meta: &RuleMeta,
) -> RuleBody {
    if !factory.kind().modes().contains(&Mode::Pull) {
        return Ok(Outcome::Skipped(String::from(
            "a listenable source: it takes no requests to race",
        )));
    }
    let elements = factory.max_elements().min(STRESS_ELEMENTS);
    let threads = config.stress_threads();
    let iterations = config.stress_iterations();
    cx.trace(format!(
        "{iterations} iterations of {threads} threads from seed {} ({STRESS_ITERATIONS_ENV}, {SEED_ENV})",
        show_seed(config.seed())
    ));
    for iteration in 0..iterations {
        let seed = case_seed(config.seed(), iteration);
        let plan = SourceStressPlan::draw(seed, threads, elements);
        let (factory, run_plan) = (factory.clone(), plan.clone());
        let result = runner::run_rule(meta, env, move |cx| {
            super::source_stress::run(cx, &*factory, &run_plan, elements)
        });
        if result.verdict == Verdict::Failed {
            for event in &result.trace {
                cx.trace(format!("[{}] {}", event.thread, event.event));
            }
            return Err(Failure::new(
                cx.rule(),
                "every stress iteration to pass",
                format!(
                    "iteration {} of {iterations} → {}\ncreate_source({elements}); what each thread did, lined up by a barrier before each round:\n{plan}(seed {}; replay it alone with {SEED_ENV}={} {STRESS_ITERATIONS_ENV}=1)",
                    iteration + 1,
                    result.message.as_deref().unwrap_or("(no message)"),
                    show_seed(config.seed()),
                    show_seed(seed),
                ),
            ));
        }
    }
    Ok(Outcome::Passed)
}

/// What a generated `#[test]` calls. Not API.
#[doc(hidden)]
pub fn __run_generated_source<F: SourceFactory>(test: &str, target: &str, factory: F) {
    match SourceExtendedVerification::new(factory)
        .target(target)
        .run(test)
    {
        Ok(result) => runner::conclude(&result),
        Err(error) => panic!("{error}"),
    }
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

/// The extended sink tests: `tck_extended_schedules`.
pub const SINK_TESTS: &[&str] = &["tck_extended_schedules"];

/// Generated source scripts against a [`SinkFactory`]'s sinks.
pub struct SinkExtendedVerification<F: SinkFactory> {
    factory: Arc<F>,
    env: Option<TestEnv>,
    config: Option<ExtendedConfig>,
    target: String,
}

impl<F: SinkFactory> SinkExtendedVerification<F> {
    /// An extended verification of `factory`'s sinks, named after its type.
    pub fn new(factory: F) -> Self {
        SinkExtendedVerification {
            factory: Arc::new(factory),
            env: None,
            config: None,
            target: std::any::type_name::<F>()
                .rsplit("::")
                .next()
                .unwrap_or("sink")
                .to_string(),
        }
    }

    /// Timing bounds, per case (default: [`TestEnv::try_from_env`]).
    pub fn env(mut self, env: TestEnv) -> Self {
        self.env = Some(env);
        self
    }

    /// Budget and seed (default: [`ExtendedConfig::try_from_env`]).
    pub fn config(mut self, config: ExtendedConfig) -> Self {
        self.config = Some(config);
        self
    }

    /// The name results carry as their `target`.
    pub fn target(mut self, name: impl Into<String>) -> Self {
        self.target = name.into();
        self
    }

    /// Runs one extended test by name (`"tck_extended_schedules"`).
    ///
    /// # Panics
    ///
    /// If `test` is not in [`SINK_TESTS`].
    pub fn run(&self, test: &str) -> Result<RuleResult, ExtendedConfigError> {
        assert!(
            SINK_TESTS.contains(&test),
            "no extended sink test named {test}"
        );
        let env = match self.env {
            Some(env) => env,
            None => TestEnv::try_from_env()?,
        };
        let config = match self.config {
            Some(config) => config,
            None => ExtendedConfig::try_from_env()?,
        };
        let meta = RuleMeta::new(
            Verification::StreamletSink,
            self.target.clone(),
            rule_of_test(test),
            test,
        );
        let rounds = config.cases().div_ceil(config.parallelism() as u64) + MAX_SHRINK_RUNS;
        let factory = self.factory.clone();
        let case_meta = meta.clone();
        Ok(runner::run_rule(
            &meta,
            &whole_run(&env, rounds),
            move |cx| {
                explore::explore(
                    cx,
                    &config,
                    "script",
                    sink_scripts(),
                    |case: &SinkScript| {
                        let (factory, case) = (factory.clone(), case.clone());
                        runner::run_rule(&case_meta, &env, move |cx| run_sink(cx, &*factory, &case))
                    },
                )
            },
        ))
    }

    /// Runs every extended sink test.
    pub fn run_all(&self) -> Result<Vec<RuleResult>, ExtendedConfigError> {
        SINK_TESTS.iter().map(|test| self.run(test)).collect()
    }
}

/// What a generated `#[test]` calls. Not API.
#[doc(hidden)]
pub fn __run_generated_sink<F: SinkFactory>(test: &str, target: &str, factory: F) {
    match SinkExtendedVerification::new(factory)
        .target(target)
        .run(test)
    {
        Ok(result) => runner::conclude(&result),
        Err(error) => panic!("{error}"),
    }
}
