//! [`SinkProbe`]: the TCK's sink, connected to the source under test.

use std::fmt::Debug;
use std::marker::PhantomData;
use std::sync::Arc;

use parking_lot::{Condvar, Mutex};
use reactive_streams::{Sink, Source, StreamError, Talkback};

use super::{RUNAWAY_LIMIT, RUNAWAY_STOP, describe_reason, wait_for};
use crate::context::{Failure, RuleCx};
use crate::streamlet::lifecycle::Lifecycle;

/// How the probe asks for data once it has started the stream.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Mode {
    /// Requests after starting and from inside every emission, as a sink of
    /// a pullable source does.
    Pull,
    /// Never requests: a listenable source pushes once started.
    Push,
}

impl Mode {
    /// `pull` or `push`, as scenarios name it.
    pub const fn as_str(self) -> &'static str {
        match self {
            Mode::Pull => "pull",
            Mode::Push => "push",
        }
    }
}

/// What the probe does on its own, inside the source's calls.
#[derive(Debug, Clone)]
struct Plan {
    mode: Mode,
    start_on_greet: bool,
    /// Stop from inside the emissions that bring the count to these.
    stop_at: Vec<u64>,
    stop_reason: Option<StreamError>,
    /// Stop (without a reason) and start again, both from inside the
    /// emissions that bring the count to these.
    restart_at: Vec<u64>,
    /// The most requests the probe issues (an infinite pullable source
    /// answering synchronously would otherwise recurse forever).
    request_limit: u64,
}

/// The rule a sink probe files duplicated or reordered elements under.
const CREATE_N: &str = "tck.create_n";

struct State {
    plan: Plan,
    life: Lifecycle,
    handed_out: bool,
    talkback: Option<Arc<dyn Talkback>>,
    greets: u32,
    received: u64,
    requests: u64,
    ends: u32,
    /// Stops the probe decided inside an emission that have not returned
    /// yet: a restart waits for them, or it could reach the source before
    /// the stop it follows.
    stopping: u32,
    /// A `stop()` from the test's thread is running: emissions racing with
    /// it are accepted, but the probe no longer requests or stops.
    halting: bool,
    /// Emissions or ends that broke a rule: past [`RUNAWAY_LIMIT`] the probe
    /// unwinds the source.
    violations: u64,
    /// Condition ids already reported, so a flood reports each once.
    reported: Vec<String>,
    /// Set when the test has let go of the probe: late signals are traced,
    /// not judged.
    retired: bool,
    /// The order elements came in, by the declared identity.
    order: crate::probe::identity::Order,
}

impl State {
    fn first_report(&mut self, id: &str) -> bool {
        if self.reported.iter().any(|r| r == id) {
            false
        } else {
            self.reported.push(id.to_string());
            true
        }
    }
}

struct Shared {
    cx: RuleCx,
    label: String,
    state: Mutex<State>,
    changed: Condvar,
    /// The scenario the test last used this probe in: a signal that
    /// arrives after the test moved on is reported as late, from it
    /// ([`RuleCx::failure_in`]).
    scenario: Mutex<Option<String>>,
}

/// What the probe got up to now.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Progress {
    /// The wanted number of emissions arrived.
    Received,
    /// The source ended the stream first.
    Ended,
}

/// The TCK's sink in the source verification: connected to the source
/// under test, it records every greet, emission and end, and checks each
/// against rules 1, 2 and 4 the moment it arrives, whichever thread it
/// arrives on.
///
/// | signal | fails when | condition |
/// |---|---|---|
/// | `greet` | the sink was already greeted | `streamlet.1.a` |
/// | `receive` | not greeted / ended / never started / stopped since the last start | `streamlet.2.b` / `.e` / `.c` / `.d` |
/// | `end` | the same, for the end | `streamlet.4.b` / `.e` / `.c` / `.d` |
///
/// The probe itself obeys rules 3, 5 and 6: it starts only when greeted and
/// not live, and requests and stops only while live. It stops from inside
/// an emission ([`SinkProbe::stop_at`]), as the protocol's own example sink
/// does, so "after the stop" is exact: the source's next call on that
/// thread comes after it.
///
/// ```
/// use reactive_streams_tck::context::RuleCx;
/// use reactive_streams_tck::env::TestEnv;
/// use reactive_streams_tck::streamlet::probe::{Mode, SinkProbe};
/// use reactive_streams_tck::streamlet::testkit::PullRange;
///
/// let cx = RuleCx::new("streamlet.2.d", "doc", TestEnv::default());
/// let probe = SinkProbe::<u64>::new(&cx, "sink").mode(Mode::Pull).stop_at(2, None);
/// probe.connect_to(&PullRange::new(5))?;
/// probe.expect_greet()?;
/// probe.start()?;
/// probe.wait_received(2, "two emissions")?;
/// probe.quiet();
/// assert_eq!(probe.received(), 2);
/// assert!(!cx.has_failed());
/// # Ok::<(), reactive_streams_tck::context::Failure>(())
/// ```
pub struct SinkProbe<T> {
    shared: Arc<Shared>,
    element: PhantomData<fn(T)>,
}

impl<T: Debug + Send + 'static> SinkProbe<T> {
    /// A probe recording into `cx`, named `label` in the trace. By default
    /// it pulls, starts only when told, never stops by itself and issues at
    /// most 64 requests.
    pub fn new(cx: &RuleCx, label: &str) -> Self {
        SinkProbe {
            shared: Arc::new(Shared {
                cx: cx.clone(),
                scenario: Mutex::new(cx.current_scenario()),
                label: label.to_string(),
                state: Mutex::new(State {
                    plan: Plan {
                        mode: Mode::Pull,
                        start_on_greet: false,
                        stop_at: Vec::new(),
                        stop_reason: None,
                        restart_at: Vec::new(),
                        request_limit: 64,
                    },
                    life: Lifecycle::default(),
                    handed_out: false,
                    talkback: None,
                    greets: 0,
                    received: 0,
                    requests: 0,
                    ends: 0,
                    stopping: 0,
                    halting: false,
                    violations: 0,
                    reported: Vec::new(),
                    order: Default::default(),
                    retired: false,
                }),
                changed: Condvar::new(),
            }),
            element: PhantomData,
        }
    }

    /// Pulls or waits for pushes.
    pub fn mode(self, mode: Mode) -> Self {
        self.shared.state.lock().plan.mode = mode;
        self
    }

    /// Starts the stream (and, pulling, requests) from inside `greet`, as
    /// the protocol's example sink does.
    pub fn start_on_greet(self) -> Self {
        self.shared.state.lock().plan.start_on_greet = true;
        self
    }

    /// Stops the stream, with `reason`, from inside the `k`-th emission
    /// (counted over the whole stream; repeatable for a restarted stream).
    pub fn stop_at(self, k: u64, reason: Option<StreamError>) -> Self {
        {
            let mut state = self.shared.state.lock();
            state.plan.stop_at.push(k);
            state.plan.stop_reason = reason;
        }
        self
    }

    /// Stops the stream (without a reason) and starts it again, both from
    /// inside the `k`-th emission (rule 5 allows a start once the stream
    /// is stopped, wherever the sink is); pulling, it then requests.
    pub fn restart_at(self, k: u64) -> Self {
        self.shared.state.lock().plan.restart_at.push(k);
        self
    }

    /// Issues at most `n` requests in total.
    pub fn request_limit(self, n: u64) -> Self {
        self.shared.state.lock().plan.request_limit = n;
        self
    }

    /// The rule context this probe records into.
    pub fn cx(&self) -> &RuleCx {
        // Every use by the test goes through here: the probe belongs to
        // the scenario it was last used in.
        *self.shared.scenario.lock() = self.shared.cx.current_scenario();
        &self.shared.cx
    }

    /// The source's end. Only one per probe.
    ///
    /// # Panics
    ///
    /// If called twice: one probe observes one stream.
    pub fn sink(&self) -> Box<dyn Sink<T>> {
        let mut state = self.shared.state.lock();
        assert!(!state.handed_out, "a sink probe observes one stream");
        state.handed_out = true;
        Box::new(ProbeSink {
            shared: self.shared.clone(),
            element: PhantomData,
            identity: self.shared.cx.identity::<T>(),
        })
    }

    /// `source.connect(self.sink())` as a step: a panic fails the rule
    /// under test.
    pub fn connect_to(&self, source: &dyn Source<T>) -> Result<(), Failure> {
        let sink = self.sink();
        let cx = self.cx();
        cx.try_step(cx.rule(), self.event("connect"), || source.connect(sink))
    }

    /// Waits for the greet, for a test that cannot go on without it: no
    /// greet within the timeout is a failure of `tck.greets`. Rule 1 says
    /// a source MAY greet, so the source verification reports it as "not
    /// concluded" unless the factory declares
    /// [`greets_sinks()`](crate::streamlet::source::SourceFactory::greets_sinks).
    pub fn expect_greet(&self) -> Result<(), Failure> {
        let timeout = self.cx().env().timeout();
        match wait_for(&self.shared.state, &self.shared.changed, timeout, |s| {
            (s.greets > 0).then_some(())
        }) {
            Some(()) => Ok(()),
            None => Err(self.cx().failure_of(
                "tck.greets",
                "a greet after connect",
                format!(
                    "{} was not greeted within {} ms",
                    self.shared.label,
                    timeout.as_millis()
                ),
            )),
        }
    }

    /// Waits up to the timeout for the greet; whether it came. Rule 1 says
    /// a source MAY greet a connected sink: one it never greets is a sink
    /// it refused, not a broken rule (see [`expect_greet`](Self::expect_greet)
    /// for the sink a test cannot do without).
    pub fn wait_greet(&self) -> bool {
        let timeout = self.cx().env().timeout();
        wait_for(&self.shared.state, &self.shared.changed, timeout, |s| {
            (s.greets > 0).then_some(())
        })
        .is_some()
    }

    /// Starts the stream from the test's thread and, pulling, requests. The
    /// probe keeps rule 5: it does nothing unless greeted, not ended and not
    /// live.
    pub fn start(&self) -> Result<(), Failure> {
        let timeout = self.cx().env().timeout();
        let settled = wait_for(&self.shared.state, &self.shared.changed, timeout, |s| {
            (s.stopping == 0).then_some(())
        });
        if settled.is_none() {
            return Err(self.cx().failure(
                "talkback.stop() called from inside an emission to return",
                format!("it had not returned after {} ms", timeout.as_millis()),
            ));
        }
        let talkback = {
            let mut state = self.shared.state.lock();
            if state.life.cannot_start().is_some() {
                self.cx()
                    .trace(self.event("start skipped: the stream is not startable"));
                return Ok(());
            }
            // Live before the call: the source may emit from inside start.
            if state.life.started {
                // A restart: the source may have gone on meanwhile.
                state.order.rejoin();
            }
            state.life.started = true;
            state.life.live = true;
            state.talkback.clone()
        };
        let Some(talkback) = talkback else {
            return Ok(());
        };
        let cx = self.cx();
        cx.try_step(cx.rule(), self.event("talkback.start()"), || {
            talkback.start()
        })?;
        if self.shared.state.lock().plan.mode == Mode::Pull {
            self.request()?;
        }
        Ok(())
    }

    /// Stops the stream from the test's thread, not from inside an
    /// emission: the source's own thread may be emitting meanwhile. An
    /// emission or end that reaches the probe while `stop()` runs raced
    /// with it and is accepted; one that arrives after `stop()` returned
    /// breaks `streamlet.2.d` / `streamlet.4.d`, however the source's
    /// thread got there (a "started?" check made before the stop, acted on
    /// after it, is exactly that). Does nothing unless the stream is live
    /// (rule 6 binds the probe).
    pub fn stop(&self) -> Result<(), Failure> {
        let talkback = {
            let mut state = self.shared.state.lock();
            if !state.life.is_live() || state.halting || state.retired {
                return Ok(());
            }
            state.halting = true;
            state.talkback.clone()
        };
        let result = match talkback {
            Some(talkback) => {
                let cx = self.cx();
                cx.try_step(
                    cx.rule(),
                    self.event("talkback.stop() from the test's thread"),
                    || talkback.stop(None),
                )
            }
            None => Ok(()),
        };
        let mut state = self.shared.state.lock();
        state.halting = false;
        state.life.live = false;
        self.shared.changed.notify_all();
        drop(state);
        self.cx().trace(self.event("talkback.stop() returned"));
        result
    }

    /// Requests once, if the stream is live and the request limit allows
    /// (rule 3 binds the probe too).
    pub fn request(&self) -> Result<(), Failure> {
        let talkback = {
            let mut state = self.shared.state.lock();
            if !state.life.is_live() || state.requests >= state.plan.request_limit {
                return Ok(());
            }
            state.requests += 1;
            state.talkback.clone()
        };
        let Some(talkback) = talkback else {
            return Ok(());
        };
        let cx = self.cx();
        cx.try_step(cx.rule(), self.event("talkback.request()"), || {
            talkback.request()
        })
    }

    /// Raises the request limit to `limit` and, pulling, requests once
    /// from the test's thread: a sink that held back (its limit reached,
    /// nothing outstanding) goes on pulling from inside each emission.
    pub fn request_more(&self, limit: u64) -> Result<(), Failure> {
        let pulling = {
            let mut state = self.shared.state.lock();
            state.plan.request_limit = state.plan.request_limit.max(limit);
            state.plan.mode == Mode::Pull
        };
        if pulling {
            self.request()?;
        }
        Ok(())
    }

    /// Waits until `n` emissions arrived in total, or the stream ended.
    /// Neither within the timeout fails `tck.create_n`: the factory
    /// promised `wanted`.
    pub fn wait_received(&self, n: u64, wanted: &str) -> Result<Progress, Failure> {
        let timeout = self.cx().env().timeout();
        let progress = wait_for(&self.shared.state, &self.shared.changed, timeout, |s| {
            if s.received >= n {
                Some(Progress::Received)
            } else if s.life.ended {
                Some(Progress::Ended)
            } else {
                None
            }
        });
        progress.ok_or_else(|| {
            self.cx().failure_of(
                "tck.create_n",
                wanted.to_string(),
                format!(
                    "{} had {} emission(s) and no end after {} ms",
                    self.shared.label,
                    self.received(),
                    timeout.as_millis()
                ),
            )
        })
    }

    /// Waits until the stream ends; no end within the timeout fails
    /// `tck.create_n` (the factory promised a source that ends).
    pub fn wait_end(&self, wanted: &str) -> Result<(), Failure> {
        let timeout = self.cx().env().timeout();
        wait_for(&self.shared.state, &self.shared.changed, timeout, |s| {
            s.life.ended.then_some(())
        })
        .ok_or_else(|| {
            self.cx().failure_of(
                "tck.create_n",
                wanted.to_string(),
                format!(
                    "{} had {} emission(s) and no end after {} ms",
                    self.shared.label,
                    self.received(),
                    timeout.as_millis()
                ),
            )
        })
    }

    /// Gives the source one no-signal window to break a rule; whatever it
    /// does is judged by the probe as it arrives.
    pub fn quiet(&self) {
        let window = self.cx().env().no_signal_timeout();
        let _ = wait_for(&self.shared.state, &self.shared.changed, window, |_| {
            None::<()>
        });
    }

    /// Lets `offset` pass (less if the stream ends meanwhile) before the
    /// test's next call: not to wait for anything, but to place that call
    /// at a chosen point between two emissions.
    pub fn linger(&self, offset: std::time::Duration) {
        let _ = wait_for(&self.shared.state, &self.shared.changed, offset, |s| {
            s.life.ended.then_some(())
        });
    }

    /// How many emissions arrived.
    pub fn received(&self) -> u64 {
        self.shared.state.lock().received
    }

    /// How many times the sink was greeted.
    pub fn greets(&self) -> u32 {
        self.shared.state.lock().greets
    }

    /// How many times the source ended the stream.
    pub fn ends(&self) -> u32 {
        self.shared.state.lock().ends
    }

    /// The stream as the probe sees it.
    pub fn lifecycle(&self) -> Lifecycle {
        self.shared.state.lock().life
    }

    fn event(&self, what: &str) -> String {
        format!("{}: {what}", self.shared.label)
    }
}

impl<T> Drop for SinkProbe<T> {
    fn drop(&mut self) {
        let talkback = {
            let mut state = self.shared.state.lock();
            state.retired = true;
            let live = state.life.is_live();
            let talkback = state.talkback.take();
            talkback.filter(|_| live)
        };
        // A live stream is stopped once the rule has concluded, so no
        // source keeps pushing into a finished test.
        if let Some(talkback) = talkback {
            self.shared.cx.defer(move || talkback.stop(None));
        }
    }
}

/// What the probe does after a signal, outside its lock (the source may
/// call back synchronously).
enum Reaction {
    None,
    Start {
        then_request: bool,
    },
    Request,
    Stop(Option<StreamError>),
    /// Stop, then start again (and, pulling, request).
    Restart {
        then_request: bool,
    },
    /// Unwind a source that floods the probe with broken signals.
    Unwind,
}

struct ProbeSink<T> {
    shared: Arc<Shared>,
    element: PhantomData<fn(T)>,
    /// Which element is which, if the rule declared it (`tck.create_n`).
    identity: Option<crate::probe::Identity<T>>,
}

impl<T> ProbeSink<T> {
    fn react(&self, reaction: Reaction, from: &str) {
        let shared = &*self.shared;
        let cx = &shared.cx;
        let talkback = shared.state.lock().talkback.clone();
        let Some(talkback) = talkback else {
            if let Reaction::Stop(_) | Reaction::Restart { .. } = reaction {
                shared.state.lock().stopping -= 1;
                shared.changed.notify_all();
            }
            return;
        };
        let call = |what: &str, f: &dyn Fn()| {
            let what = format!("{}: talkback.{what} from {from}", shared.label);
            if let Err(failure) = cx.try_step(cx.rule(), what, f) {
                cx.record(failure);
            }
        };
        match reaction {
            Reaction::None => {}
            Reaction::Start { then_request } => {
                call("start()", &|| talkback.start());
                if then_request {
                    let mut state = shared.state.lock();
                    if state.life.is_live() && state.requests < state.plan.request_limit {
                        state.requests += 1;
                        drop(state);
                        call("request()", &|| talkback.request());
                    }
                }
            }
            Reaction::Request => call("request()", &|| talkback.request()),
            Reaction::Stop(reason) => {
                let what = format!("stop({})", describe_reason(reason.as_ref()));
                call(&what, &|| talkback.stop(reason.clone()));
                shared.state.lock().stopping -= 1;
                shared.changed.notify_all();
            }
            Reaction::Restart { then_request } => {
                call("stop(no reason)", &|| talkback.stop(None));
                let startable = {
                    let mut state = shared.state.lock();
                    state.stopping -= 1;
                    let startable = !state.life.ended && !state.retired && !state.halting;
                    if startable {
                        // Live before the call: the source may emit from
                        // inside start, and may have gone on meanwhile.
                        state.order.rejoin();
                        state.life.live = true;
                    }
                    shared.changed.notify_all();
                    startable
                };
                if startable {
                    call("start()", &|| talkback.start());
                    let mut state = shared.state.lock();
                    if then_request
                        && state.life.is_live()
                        && state.requests < state.plan.request_limit
                    {
                        state.requests += 1;
                        drop(state);
                        call("request()", &|| talkback.request());
                    }
                }
            }
            Reaction::Unwind => std::panic::panic_any(RUNAWAY_STOP),
        }
    }

    /// Judges a broken emission or end; past the runaway limit, unwinds.
    fn judge(&self, state: &mut State, rule: u8, what: &str, signal: &str) -> bool {
        if state.retired {
            return false;
        }
        let Some(broken) = state.life.not_live(rule) else {
            return false;
        };
        let cx = &self.shared.cx;
        if state.first_report(&broken.id) {
            // Named by the sink when the test connects several.
            let by = if self.shared.label == "sink" {
                String::new()
            } else {
                format!("{}: ", self.shared.label)
            };
            let scenario = self.shared.scenario.lock().clone();
            cx.record(cx.failure_in(
                scenario,
                broken.id.clone(),
                format!("no {what} {}", broken.when),
                format!("{by}{signal} arrived"),
            ));
        }
        state.violations += 1;
        let runaway = state.violations > RUNAWAY_LIMIT;
        if runaway {
            cx.unwinding_for(broken.id.clone());
        }
        runaway
    }
}

impl<T: Debug + Send> Sink<T> for ProbeSink<T> {
    fn greet(&mut self, talkback: Arc<dyn Talkback>) {
        let shared = &*self.shared;
        let cx = &shared.cx;
        let mut state = shared.state.lock();
        state.greets += 1;
        cx.trace(format!("{}: greet", shared.label));
        let mut reaction = Reaction::None;
        if state.greets == 1 {
            state.life.greeted = true;
            state.talkback = Some(talkback);
            if state.plan.start_on_greet && !state.life.ended && !state.retired {
                state.life.started = true;
                state.life.live = true;
                reaction = Reaction::Start {
                    then_request: state.plan.mode == Mode::Pull,
                };
            }
        } else if !state.retired && state.first_report("streamlet.1.a") {
            let scenario = shared.scenario.lock().clone();
            cx.record(cx.failure_in(
                scenario,
                "streamlet.1.a",
                "at most one greet per connected sink",
                format!("{} was greeted a second time", shared.label),
            ));
        }
        shared.changed.notify_all();
        drop(state);
        self.react(reaction, "greet");
    }

    fn receive(&mut self, data: T) {
        let shared = &*self.shared;
        // Rendered and dropped before the lock: the data's `Drop` is the
        // user's code.
        let value = crate::probe::Rendered(format!("{data:?}"));
        let index = self.identity.as_ref().and_then(|id| id.of(&data));
        drop(data);
        let mut state = shared.state.lock();
        state.received += 1;
        let signal = format!("receive {}", crate::probe::numbered(state.received, &value));
        shared.cx.trace(format!("{}: {signal}", shared.label));
        if let Some(index) = index {
            let owed = state.order.owed();
            if let Err(wrong) = state.order.next(index) {
                if state.first_report(CREATE_N) {
                    let owed =
                        owed.map_or_else(String::new, |owed| format!(": element {owed} next"));
                    let scenario = shared.scenario.lock().clone();
                    shared.cx.record(shared.cx.failure_in(
                        scenario,
                        CREATE_N,
                        format!(
                            "each element once and in order, by the factory's element_index{owed}"
                        ),
                        format!("{}: {signal} {wrong}", shared.label),
                    ));
                }
            }
        }
        let mut reaction = Reaction::None;
        if self.judge(&mut state, 2, "emission", &signal) {
            reaction = Reaction::Unwind;
        } else if state.life.is_live() && !state.retired && !state.halting {
            if state.plan.restart_at.contains(&state.received) {
                state.life.live = false;
                state.stopping += 1;
                reaction = Reaction::Restart {
                    then_request: state.plan.mode == Mode::Pull,
                };
            } else if state.plan.stop_at.contains(&state.received) {
                state.life.live = false;
                state.stopping += 1;
                reaction = Reaction::Stop(state.plan.stop_reason.clone());
            } else if state.plan.mode == Mode::Pull && state.requests < state.plan.request_limit {
                state.requests += 1;
                reaction = Reaction::Request;
            }
        }
        shared.changed.notify_all();
        let received = state.received;
        drop(state);
        self.react(reaction, &format!("emission #{received}"));
    }

    fn end(&mut self, reason: Option<StreamError>) {
        let shared = &*self.shared;
        let signal = format!("end({})", describe_reason(reason.as_ref()));
        let mut state = shared.state.lock();
        state.ends += 1;
        shared.cx.trace(format!("{}: {signal}", shared.label));
        let unwind = self.judge(&mut state, 4, "end", &signal);
        state.life.ended = true;
        // The sink never touches the talkback after the end.
        let talkback = state.talkback.take();
        shared.changed.notify_all();
        drop(state);
        drop(talkback);
        if unwind {
            std::panic::panic_any(RUNAWAY_STOP);
        }
    }
}
