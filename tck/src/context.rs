//! The per-rule context: the trace, the failures seen on any thread, and
//! the step the rule is in.
//!
//! Every rule test gets its own [`RuleCx`] from the [runner](crate::runner).
//! Probes, helper threads and the rule body all write into it, so a failure
//! noticed on a publisher's thread (say, an `on_next` beyond demand) fails
//! the rule that owns the probe, and no other. Once the rule has finished its
//! context is sealed: a publisher still signalling from a leaked thread
//! writes into nothing.
//!
//! A [`Failure`] carries the id of the rule it shows broken, what was
//! expected and what happened. Its text is deterministic (no addresses,
//! timings or thread ids), so it can be snapshot-tested; those details
//! belong to the trace.

use std::collections::VecDeque;
use std::fmt;
use std::sync::Arc;
use std::time::{Duration, Instant};

use parking_lot::Mutex;

use crate::env::TestEnv;
use crate::outcome::TraceEvent;

/// How many failures a context keeps; the first is the one reported.
const MAX_FAILURES: usize = 16;
/// How many trace events are kept from the start of a rule test.
const TRACE_HEAD: usize = 96;
/// How many trace events are kept from the end of a rule test.
const TRACE_TAIL: usize = 160;

/// A broken rule: which one, what was expected, what happened.
///
/// ```
/// use reactive_streams_tck::context::Failure;
///
/// let failure = Failure::new("3.9", "on_error(illegal demand) after request(0)", "on_next(0)");
/// assert_eq!(
///     failure.to_string(),
///     "§3.9: expected on_error(illegal demand) after request(0); actual: on_next(0)"
/// );
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Failure {
    /// The rule shown broken: a catalogue id (`"1.1"`) or `tck.<name>`.
    pub rule: String,
    /// What the rule required.
    pub expected: String,
    /// What happened instead.
    pub actual: String,
    /// The scenario of the rule test that was running, if it named one.
    pub scenario: Option<String>,
    /// Whether this is a timing verdict: a call took longer than a bound
    /// the TCK chose (`RS_TCK_PROMPT_MS`) where the rule's text says only
    /// "timely". Such a failure warns instead of failing, unless the run
    /// is strict.
    pub timing: bool,
}

impl Failure {
    /// A failure of `rule`.
    pub fn new(
        rule: impl Into<String>,
        expected: impl Into<String>,
        actual: impl Into<String>,
    ) -> Self {
        Failure {
            rule: rule.into(),
            expected: expected.into(),
            actual: actual.into(),
            scenario: None,
            timing: false,
        }
    }

    /// This failure as a timing verdict (see [`Failure::timing`](Self#structfield.timing)).
    pub fn as_timing(mut self) -> Self {
        self.timing = true;
        self
    }

    /// Whether this failure only warns when the run is not strict: a
    /// timing verdict, or a broken SHOULD or MAY rule.
    pub fn warns(&self) -> bool {
        self.timing || crate::outcome::only_warns(&self.rule, false)
    }

    /// How reports name the rule: `§1.1`, or `tck.name` as is.
    pub fn rule_label(&self) -> String {
        rule_label(&self.rule)
    }
}

/// `§1.1` for catalogue ids, the id itself for `tck.`, `streamlet.`,
/// `done.`, `stream.`, `sink.` and `adapter.` ids.
pub fn rule_label(rule: &str) -> String {
    const OWN_PREFIXES: [&str; 6] = [
        "tck.",
        "streamlet.",
        "done.",
        "stream.",
        "sink.",
        "adapter.",
    ];
    if OWN_PREFIXES.iter().any(|prefix| rule.starts_with(prefix)) {
        rule.to_string()
    } else {
        format!("§{rule}")
    }
}

impl fmt::Display for Failure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: ", self.rule_label())?;
        if let Some(scenario) = &self.scenario {
            write!(f, "[{scenario}] ")?;
        }
        write!(f, "expected {}; actual: {}", self.expected, self.actual)
    }
}

impl std::error::Error for Failure {}

/// What a rule test concluded when it did not fail.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Outcome {
    /// Every scenario held.
    Passed,
    /// The test could not run; the reason says why.
    Skipped(String),
    /// The rule is enforced by Rust's types; the proof names the
    /// compile-fail test.
    EnforcedByTypes(String),
}

/// What a rule body returns: `?` on any probe expectation fails the rule.
pub type RuleBody = Result<Outcome, Failure>;

/// The context of one running rule test. Cheap to clone; all clones share
/// the trace and the failures.
#[derive(Clone)]
pub struct RuleCx {
    inner: Arc<Inner>,
}

struct Inner {
    rule: String,
    test: String,
    env: TestEnv,
    start: Instant,
    state: Mutex<State>,
    /// The factory's element identity (see [`RuleCx::declare_identity`]),
    /// type-erased: every probe of that element type created in this rule
    /// checks it.
    identity: Mutex<Option<Arc<dyn std::any::Any + Send + Sync>>>,
    /// The subject under test, shared, for what must outlive a borrow of
    /// it (see [`RuleCx::subject`]).
    subject: Mutex<Option<Arc<dyn std::any::Any + Send + Sync>>>,
}

#[derive(Default)]
struct State {
    head: Vec<TraceEvent>,
    tail: VecDeque<TraceEvent>,
    omitted: u64,
    failures: Vec<Failure>,
    steps: Vec<Step>,
    /// The innermost step that unwound most recently (a panic the runner
    /// attributes to it).
    unwound: Option<Step>,
    next_step_id: u64,
    /// Each thread's last trace event, for naming what a stuck thread
    /// was doing.
    last_event: std::collections::HashMap<String, String>,
    /// How many signals (`on_…` events) have been traced.
    signals: u64,
    /// How many steps (calls into the code under test) have returned or
    /// unwound.
    steps_ended: u64,
    deferred: Vec<Box<dyn FnOnce() + Send>>,
    scenario: Option<String>,
    /// When each scenario was named, for [`RuleCx::scenario_times`].
    scenario_starts: Vec<(Duration, String)>,
    /// The rule a probe unwinds the code under test for (see
    /// [`RuleCx::unwinding_for`]).
    unwinding_for: Option<String>,
    sealed: bool,
}

#[derive(Clone)]
struct Step {
    id: u64,
    rule: String,
    what: String,
    thread: String,
    started: Duration,
}

/// A step still running: what the watchdog names when a rule hangs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RunningStep {
    /// The rule the step's call is governed by.
    pub rule: String,
    /// The call, e.g. `request(1)`.
    pub what: String,
    /// The thread the call is running on.
    pub thread: String,
    /// When the call started, since the rule test started.
    pub started: Duration,
    /// The last event that thread recorded.
    pub last_event: Option<String>,
}

impl fmt::Debug for RuleCx {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("RuleCx")
            .field("rule", &self.inner.rule)
            .field("test", &self.inner.test)
            .finish_non_exhaustive()
    }
}

impl RuleCx {
    /// A fresh context for the rule test `test`, which checks `rule`.
    pub fn new(rule: impl Into<String>, test: impl Into<String>, env: TestEnv) -> Self {
        RuleCx {
            inner: Arc::new(Inner {
                rule: rule.into(),
                test: test.into(),
                env,
                start: Instant::now(),
                state: Mutex::new(State::default()),
                identity: Mutex::new(None),
                subject: Mutex::new(None),
            }),
        }
    }

    /// Declares which element is which for this rule test (the factory's
    /// `element_index`): every [`Probe`](crate::probe::Probe) of element
    /// type `T` created afterwards checks that each element comes at most
    /// once and in order (`tck.create_n_gives_exactly_n`).
    pub(crate) fn declare_identity<T: 'static>(&self, identity: crate::probe::Identity<T>) {
        *self.inner.identity.lock() = Some(Arc::new(identity));
    }

    /// Shares the subject under test with this rule (the suite does, before
    /// the body runs).
    pub(crate) fn hold_subject(&self, subject: Arc<dyn std::any::Any + Send + Sync>) {
        *self.inner.subject.lock() = Some(subject);
    }

    /// The subject under test, if it is an `X`: for checks that outlive
    /// the body's borrow of it (a probe's identity check runs on the
    /// publisher's threads).
    pub(crate) fn subject<X: Send + Sync + 'static>(&self) -> Option<Arc<X>> {
        let any = self.inner.subject.lock().clone()?;
        any.downcast::<X>().ok()
    }

    /// The identity declared for elements of type `T`, if any.
    pub(crate) fn identity<T: 'static>(&self) -> Option<crate::probe::Identity<T>> {
        let any = self.inner.identity.lock().clone()?;
        any.downcast_ref::<crate::probe::Identity<T>>().cloned()
    }

    /// The rule this test checks (`"3.9"`, `"tck.configuration"`).
    pub fn rule(&self) -> &str {
        &self.inner.rule
    }

    /// The test's name (`"spec_3_09"`).
    pub fn test(&self) -> &str {
        &self.inner.test
    }

    /// The timing bounds.
    pub fn env(&self) -> &TestEnv {
        &self.inner.env
    }

    /// Time since the rule test started.
    pub fn elapsed(&self) -> Duration {
        self.inner.start.elapsed()
    }

    /// Appends an event to the trace, stamped with the time and the current
    /// thread. Ignored once the rule has finished.
    pub fn trace(&self, event: impl Into<String>) {
        let event = TraceEvent {
            at_micros: self.inner.start.elapsed().as_micros() as u64,
            thread: thread_label(),
            event: event.into(),
        };
        let mut state = self.inner.state.lock();
        if state.sealed {
            return;
        }
        if event.event.starts_with("on_") {
            state.signals += 1;
        }
        state
            .last_event
            .insert(event.thread.clone(), event.event.clone());
        if state.head.len() < TRACE_HEAD {
            state.head.push(event);
        } else {
            if state.tail.len() == TRACE_TAIL {
                state.tail.pop_front();
                state.omitted += 1;
            }
            state.tail.push_back(event);
        }
    }

    /// Names the scenario that follows; failures recorded from now on carry
    /// it, so a rule test with several scenarios says which one broke.
    pub fn scenario(&self, scenario: impl Into<String>) {
        let scenario = scenario.into();
        self.trace(format!("--- scenario: {scenario}"));
        let at = self.elapsed();
        let mut state = self.inner.state.lock();
        state.scenario_starts.push((at, scenario.clone()));
        state.scenario = Some(scenario);
    }

    /// Where the rule test's time went so far: the stretch before its first
    /// scenario (named `"(setup)"`), then each scenario, from when it was
    /// named to when the next one was (the last one to now). For the
    /// profile `RS_TCK_PROFILE=1` prints; the verdict never depends on it.
    pub fn scenario_times(&self) -> Vec<(String, Duration)> {
        let end = self.elapsed();
        let state = self.inner.state.lock();
        let mut times = Vec::with_capacity(state.scenario_starts.len() + 1);
        let mut from = (Duration::ZERO, String::from("(setup)"));
        for (at, name) in &state.scenario_starts {
            times.push((from.1, at.saturating_sub(from.0)));
            from = (*at, name.clone());
        }
        times.push((from.1, end.saturating_sub(from.0)));
        times
    }

    /// Ends the scenario named last: failures recorded from now on carry
    /// none until the next is named, and a probe of the ended one reports
    /// what it sees later as "late".
    pub(crate) fn end_scenario(&self) {
        self.inner.state.lock().scenario = None;
    }

    /// A failure of the rule this test checks.
    pub fn failure(&self, expected: impl Into<String>, actual: impl Into<String>) -> Failure {
        self.failure_of(self.inner.rule.clone(), expected, actual)
    }

    /// A failure of another rule (for example §1.1 noticed while testing
    /// §3.2), tagged with the current scenario.
    pub fn failure_of(
        &self,
        rule: impl Into<String>,
        expected: impl Into<String>,
        actual: impl Into<String>,
    ) -> Failure {
        let mut failure = Failure::new(rule, expected, actual);
        failure.scenario = self.inner.state.lock().scenario.clone();
        failure
    }

    /// The scenario named last, if any.
    pub fn current_scenario(&self) -> Option<String> {
        self.inner.state.lock().scenario.clone()
    }

    /// A failure of `rule` seen by something that belongs to `scenario`
    /// (a probe): tagged with it, as "late, from an earlier scenario: …"
    /// when the test has moved on to another, so a late signal is never
    /// filed under the scenario that happens to be running.
    pub fn failure_in(
        &self,
        scenario: Option<String>,
        rule: impl Into<String>,
        expected: impl Into<String>,
        actual: impl Into<String>,
    ) -> Failure {
        let mut failure = Failure::new(rule, expected, actual);
        let current = self.current_scenario();
        failure.scenario = match scenario {
            Some(own) if current.as_ref() != Some(&own) => {
                Some(format!("late, from an earlier scenario: {own}"))
            }
            Some(own) => Some(own),
            None => current,
        };
        failure
    }

    /// Records a failure seen on any thread. The rule fails even if its body
    /// returns `Ok`; the first failure recorded is the one reported.
    pub fn record(&self, failure: Failure) {
        self.trace(format!("FAILURE {failure}"));
        let mut state = self.inner.state.lock();
        if !state.sealed && state.failures.len() < MAX_FAILURES {
            state.failures.push(failure);
        }
    }

    /// Whether a failure has been recorded.
    pub fn has_failed(&self) -> bool {
        !self.inner.state.lock().failures.is_empty()
    }

    /// The first failure recorded, if any.
    pub fn first_failure(&self) -> Option<Failure> {
        self.inner.state.lock().failures.first().cloned()
    }

    /// Every failure recorded, in the order they were recorded (at most
    /// 16 are kept).
    pub fn failures(&self) -> Vec<Failure> {
        self.inner.state.lock().failures.clone()
    }

    /// How many signals (`on_subscribe`, `on_next`, …) have been traced so
    /// far: the watchdog tells a publisher that keeps emitting from one
    /// that is stuck.
    pub fn signals(&self) -> u64 {
        self.inner.state.lock().signals
    }

    /// How many steps have ended so far: a call returning is progress the
    /// watchdog tells from a hang, as a signal is.
    pub(crate) fn steps_ended(&self) -> u64 {
        self.inner.state.lock().steps_ended
    }

    /// Runs `f` as a named step (`"request(1)"`), so that a panic or a hang
    /// inside it is reported as "in request(1)" against `rule`. If `f`
    /// unwinds the step is remembered as the one that panicked (for the
    /// runner to read) and is no longer running, so the watchdog never
    /// names a call that has already ended.
    pub fn step<R>(&self, rule: &str, what: impl Into<String>, f: impl FnOnce() -> R) -> R {
        struct Guard<'a> {
            cx: &'a RuleCx,
            id: u64,
        }
        impl Drop for Guard<'_> {
            fn drop(&mut self) {
                self.cx.end_step(self.id, std::thread::panicking());
            }
        }
        let id = self.push_step(rule, what.into());
        let _guard = Guard { cx: self, id };
        f()
    }

    /// Runs `f` as a named step and turns a panic inside it into a failure
    /// of `rule`: "expected {what} to return normally; actual: it panicked:
    /// {payload}".
    pub fn try_step<R>(
        &self,
        rule: &str,
        what: impl Into<String>,
        f: impl FnOnce() -> R,
    ) -> Result<R, Failure> {
        let what = what.into();
        let id = self.push_step(rule, what.clone());
        let result = quietly(|| std::panic::catch_unwind(std::panic::AssertUnwindSafe(f)));
        self.end_step(id, false);
        result.map_err(|payload| {
            if let Some(location) = take_panic_location() {
                self.trace(format!("panicked at {location}"));
            }
            let message = panic_message(&*payload);
            self.failure_of(
                self.panic_rule(rule, &message),
                format!("{what} to return normally"),
                format!("it panicked: {message}"),
            )
        })
    }

    /// Notes that a probe is about to unwind the code under test (a
    /// publisher or source that kept breaking `rule` past the runaway
    /// limit, already recorded): the call the unwind passes through then
    /// fails `rule`, not the rule that governs the call.
    pub fn unwinding_for(&self, rule: impl Into<String>) {
        self.inner.state.lock().unwinding_for = Some(rule.into());
    }

    /// The rule a panic with `message` inside a call governed by `rule`
    /// breaks: `rule`, unless it is the TCK's own unwind (see
    /// [`RuleCx::unwinding_for`]).
    pub fn panic_rule(&self, rule: &str, message: &str) -> String {
        if message.starts_with(TCK_UNWIND_PREFIX) {
            if let Some(cause) = self.inner.state.lock().unwinding_for.clone() {
                return cause;
            }
        }
        rule.to_string()
    }

    fn push_step(&self, rule: &str, what: String) -> u64 {
        self.trace(what.clone());
        let started = self.elapsed();
        let mut state = self.inner.state.lock();
        state.next_step_id += 1;
        let id = state.next_step_id;
        state.steps.push(Step {
            id,
            rule: rule.to_string(),
            what,
            thread: thread_label(),
            started,
        });
        id
    }

    fn end_step(&self, id: u64, unwinding: bool) {
        // Steps of different threads interleave, so remove by identity.
        let mut state = self.inner.state.lock();
        state.steps_ended += 1;
        if let Some(at) = state.steps.iter().rposition(|s| s.id == id) {
            let step = state.steps.remove(at);
            // An unwind passes the innermost step first; outer steps of the
            // same unwind (smaller ids) keep it as the one that panicked.
            if unwinding && state.unwound.as_ref().is_none_or(|u| u.id < step.id) {
                state.unwound = Some(step);
            }
        }
    }

    /// The step a panic unwound from most recently: (rule, description).
    pub fn unwound_step(&self) -> Option<(String, String)> {
        self.inner
            .state
            .lock()
            .unwound
            .as_ref()
            .map(|s| (s.rule.clone(), s.what.clone()))
    }

    /// The steps still running, innermost last, each with its thread and
    /// that thread's last recorded event.
    pub fn running_steps(&self) -> Vec<RunningStep> {
        let state = self.inner.state.lock();
        state
            .steps
            .iter()
            .map(|s| RunningStep {
                rule: s.rule.clone(),
                what: s.what.clone(),
                thread: s.thread.clone(),
                started: s.started,
                last_event: state.last_event.get(&s.thread).cloned(),
            })
            .collect()
    }

    /// Schedules `f` to run after the rule test has concluded, on a detached
    /// thread: cleanup such as cancelling a subscription the rule left open,
    /// which must neither delay nor fail the rule. Dropped unrun if the rule
    /// has already concluded.
    pub fn defer(&self, f: impl FnOnce() + Send + 'static) {
        let mut state = self.inner.state.lock();
        if !state.sealed {
            state.deferred.push(Box::new(f));
        }
    }

    /// Takes the deferred cleanups (the runner calls this once).
    pub(crate) fn take_deferred(&self) -> Vec<Box<dyn FnOnce() + Send>> {
        std::mem::take(&mut self.inner.state.lock().deferred)
    }

    /// The innermost step in progress: (rule, description).
    pub fn current_step(&self) -> Option<(String, String)> {
        self.inner
            .state
            .lock()
            .steps
            .last()
            .map(|s| (s.rule.clone(), s.what.clone()))
    }

    /// Seals the context: later events and failures are ignored. Returns
    /// the trace.
    pub fn seal(&self) -> Vec<TraceEvent> {
        let mut state = self.inner.state.lock();
        state.sealed = true;
        state.deferred.clear();
        let mut trace = state.head.clone();
        if state.omitted > 0 {
            trace.push(TraceEvent {
                at_micros: state.tail.front().map_or(0, |e| e.at_micros),
                thread: String::from("-"),
                event: format!("… {} events omitted …", state.omitted),
            });
        }
        trace.extend(state.tail.iter().cloned());
        trace
    }
}

/// How the panic payloads the probes unwind code under test with begin.
pub const TCK_UNWIND_PREFIX: &str = "rs-tck: unwinding";

/// The current thread's name, or its id when it has none.
fn thread_label() -> String {
    let current = std::thread::current();
    match current.name() {
        Some(name) => name.to_string(),
        None => format!("{:?}", current.id()),
    }
}

thread_local! {
    /// How many quiet regions this thread is inside.
    static QUIET: std::cell::Cell<u32> = const { std::cell::Cell::new(0) };
    /// Where the last quiet panic on this thread happened.
    static LOCATION: std::cell::RefCell<Option<String>> = const { std::cell::RefCell::new(None) };
}

/// Runs `f` with panics on this thread kept off stderr: the TCK catches
/// them and reports them as failures, with the location in the trace.
/// Panics elsewhere go to the hook that was installed before.
pub(crate) fn quietly<R>(f: impl FnOnce() -> R) -> R {
    static INSTALL: std::sync::Once = std::sync::Once::new();
    INSTALL.call_once(|| {
        let previous = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            if QUIET.with(|quiet| quiet.get()) > 0 {
                let location = info.location().map(|l| l.to_string());
                LOCATION.with(|slot| *slot.borrow_mut() = location);
            } else {
                previous(info);
            }
        }));
    });
    struct Leave;
    impl Drop for Leave {
        fn drop(&mut self) {
            QUIET.with(|quiet| quiet.set(quiet.get() - 1));
        }
    }
    QUIET.with(|quiet| quiet.set(quiet.get() + 1));
    let _leave = Leave;
    f()
}

/// Where the last quiet panic on this thread happened, once.
pub(crate) fn take_panic_location() -> Option<String> {
    LOCATION.with(|slot| slot.borrow_mut().take())
}

/// The text of a panic payload.
pub fn panic_message(payload: &(dyn std::any::Any + Send)) -> String {
    if let Some(text) = payload.downcast_ref::<&'static str>() {
        (*text).to_string()
    } else if let Some(text) = payload.downcast_ref::<String>() {
        text.clone()
    } else {
        String::from("<a panic payload that is not a string>")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_first_failure_wins_and_sealing_stops_recording() {
        let cx = RuleCx::new("1.1", "spec_1_01", TestEnv::default());
        cx.record(cx.failure("a", "b"));
        cx.record(cx.failure_of("1.7", "c", "d"));
        assert_eq!(
            cx.first_failure().unwrap().to_string(),
            "§1.1: expected a; actual: b"
        );
        let trace = cx.seal();
        cx.trace("late");
        assert_eq!(cx.seal().len(), trace.len());
    }

    #[test]
    fn the_trace_keeps_its_head_and_tail() {
        let cx = RuleCx::new("1.1", "spec_1_01", TestEnv::default());
        for i in 0..1000 {
            cx.trace(format!("e{i}"));
        }
        let trace = cx.seal();
        assert_eq!(trace.len(), TRACE_HEAD + 1 + TRACE_TAIL);
        assert_eq!(trace[0].event, "e0");
        assert!(trace[TRACE_HEAD].event.contains("omitted"));
        assert_eq!(trace.last().unwrap().event, "e999");
    }

    #[test]
    fn scenarios_tag_failures() {
        let cx = RuleCx::new("3.9", "spec_3_09", TestEnv::default());
        cx.scenario("publisher of 3");
        assert_eq!(
            cx.failure("x", "y").to_string(),
            "§3.9: [publisher of 3] expected x; actual: y"
        );
    }
}
