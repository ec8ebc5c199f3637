//! [`SourceProbe`]: the TCK's source and talkback, driving the sink under
//! test.

use std::fmt::Debug;
use std::sync::Arc;
use std::thread::ThreadId;
use std::time::Instant;

use parking_lot::{Condvar, Mutex, MutexGuard};
use reactive_streams::{Sink, Source, StreamError, Talkback};

use super::{describe_reason, wait_for};
use crate::context::{Failure, RuleCx};
use crate::streamlet::lifecycle::{Broken, Lifecycle};

struct State {
    life: Lifecycle,
    /// The thread inside the TCK's `end` call, while it runs.
    ending: Option<ThreadId>,
    /// The thread inside an emission (the probe found the stream live and
    /// calls `receive`), while it runs: a stop from another thread waits
    /// for it, so no emission begins after a stop returned (rule 2 binds
    /// the probe too).
    emitting: Option<ThreadId>,
    starts: u32,
    requests: u64,
    stops: u32,
    /// Requests made while live and not yet answered by an emission.
    pending: u64,
    /// Emissions made so far: an element's ordinal in messages.
    emitted: u64,
    /// `emitted` when the sink first stopped the live stream.
    emitted_at_stop: Option<u64>,
    /// `emitted` when the sink last stopped the live stream.
    emitted_at_last_stop: Option<u64>,
    reported: Vec<String>,
    retired: bool,
}

struct Shared<T> {
    cx: RuleCx,
    label: String,
    state: Mutex<State>,
    changed: Condvar,
    /// The sink under test. Held only while the TCK calls into it, never
    /// while a talkback call is judged, so a sink may call its talkback
    /// from inside any signal.
    sink: Mutex<Option<Box<dyn Sink<T>>>>,
}

/// The TCK's source in the sink verification: the sink under test is
/// connected to it; the test greets the sink, emits to it and ends the
/// stream, always within rules 1, 2 and 4; the talkback judges every call
/// the sink makes against rules 3, 5 and 6 the moment it arrives.
///
/// | talkback call | fails when | condition |
/// |---|---|---|
/// | `start` | the stream is already started and not stopped / ended | `streamlet.5.c` / `.d` |
/// | `request` | never started / stopped since the last start / ended | `streamlet.3.c` / `.d` / `.e` |
/// | `stop` | the same | `streamlet.6.c` / `.d` / `.e` |
///
/// ```
/// use std::sync::Arc;
/// use reactive_streams::{Sink, StreamError, Talkback};
/// use reactive_streams_tck::context::RuleCx;
/// use reactive_streams_tck::env::TestEnv;
/// use reactive_streams_tck::streamlet::probe::SourceProbe;
///
/// /// Starts when greeted, and again on every emission: breaks rule 5.
/// struct Eager(Option<Arc<dyn Talkback>>);
/// impl Sink<u64> for Eager {
///     fn greet(&mut self, talkback: Arc<dyn Talkback>) {
///         talkback.start();
///         self.0 = Some(talkback);
///     }
///     fn receive(&mut self, _: u64) {
///         self.0.as_ref().unwrap().start();
///     }
///     fn end(&mut self, _: Option<StreamError>) {}
/// }
///
/// let cx = RuleCx::new("streamlet.5.c", "doc", TestEnv::default());
/// let source = SourceProbe::<u64>::new(&cx, "source");
/// source.connect_sink(Box::new(Eager(None)));
/// source.greet()?;
/// assert!(source.wait_started());
/// source.emit(0)?;
/// assert_eq!(
///     cx.first_failure().unwrap().to_string(),
///     "streamlet.5.c: expected no start while the stream is already started \
///      (no stop since the last start); actual: the sink called talkback.start()"
/// );
/// # Ok::<(), reactive_streams_tck::context::Failure>(())
/// ```
pub struct SourceProbe<T: 'static> {
    shared: Arc<Shared<T>>,
}

impl<T: Debug + Send + 'static> SourceProbe<T> {
    /// A probe source recording into `cx`, named `label` in the trace.
    pub fn new(cx: &RuleCx, label: &str) -> Self {
        SourceProbe {
            shared: Arc::new(Shared {
                cx: cx.clone(),
                label: label.to_string(),
                state: Mutex::new(State {
                    life: Lifecycle::default(),
                    ending: None,
                    emitting: None,
                    starts: 0,
                    requests: 0,
                    stops: 0,
                    pending: 0,
                    emitted: 0,
                    emitted_at_stop: None,
                    emitted_at_last_stop: None,
                    reported: Vec::new(),
                    retired: false,
                }),
                changed: Condvar::new(),
                sink: Mutex::new(None),
            }),
        }
    }

    /// The rule context this probe records into.
    pub fn cx(&self) -> &RuleCx {
        &self.shared.cx
    }

    /// Connects the sink under test (rule 1: only this sink is ever
    /// greeted).
    ///
    /// # Panics
    ///
    /// If a sink is already connected: one probe drives one stream.
    pub fn connect_sink(&self, sink: Box<dyn Sink<T>>) {
        self.shared.cx.trace(self.event("connect"));
        let mut slot = self.shared.sink.lock();
        assert!(slot.is_none(), "a source probe drives one sink");
        *slot = Some(sink);
    }

    /// Greets the sink with the probe's talkback, once. A panic inside
    /// `greet` fails the rule under test.
    pub fn greet(&self) -> Result<(), Failure> {
        {
            let mut state = self.shared.state.lock();
            if state.life.greeted {
                return Ok(());
            }
            state.life.greeted = true;
        }
        let talkback: Arc<dyn Talkback> = Arc::new(ProbeTalkback {
            shared: self.shared.clone(),
        });
        self.call_sink("greet", move |sink| sink.greet(talkback))
    }

    /// Emits `data` if the stream is live (the probe keeps rule 2);
    /// returns whether it did. An emission answers one pending request, if
    /// any.
    pub fn emit(&self, data: T) -> Result<bool, Failure> {
        let ordinal = {
            let mut state = self.shared.state.lock();
            if !state.life.is_live() {
                return Ok(false);
            }
            state.pending = state.pending.saturating_sub(1);
            state.emitted += 1;
            state.emitting = Some(std::thread::current().id());
            state.emitted
        };
        let what = format!("receive {}", crate::probe::numbered(ordinal, &data));
        let result = self.call_sink(&what, move |sink| sink.receive(data));
        self.shared.state.lock().emitting = None;
        self.shared.changed.notify_all();
        result.map(|()| true)
    }

    /// Ends the stream, with `reason`, if it is live (the probe keeps rule
    /// 4); returns whether it did.
    pub fn end(&self, reason: Option<StreamError>) -> Result<bool, Failure> {
        {
            let mut state = self.shared.state.lock();
            if !state.life.is_live() {
                return Ok(false);
            }
            state.life.ended = true;
            state.ending = Some(std::thread::current().id());
        }
        let what = format!("end({})", describe_reason(reason.as_ref()));
        let result = self.call_sink(&what, move |sink| sink.end(reason));
        let mut state = self.shared.state.lock();
        state.ending = None;
        self.shared.changed.notify_all();
        result.map(|()| true)
    }

    fn call_sink(&self, what: &str, f: impl FnOnce(&mut dyn Sink<T>)) -> Result<(), Failure> {
        let cx = self.cx();
        let mut slot = self.shared.sink.lock();
        let Some(sink) = slot.as_mut() else {
            return Ok(());
        };
        cx.try_step(cx.rule(), self.event(what), || f(&mut **sink))
    }

    /// Waits up to the timeout for the sink to start the stream.
    pub fn wait_started(&self) -> bool {
        self.wait_until(|s| s.life.started)
    }

    /// Waits up to the timeout for the stream to be live (started, not
    /// stopped, not ended); returns whether it is.
    pub fn wait_live(&self) -> bool {
        self.wait_until(|s| s.life.is_live())
    }

    /// Waits up to the timeout for the sink to stop the live stream (a
    /// stop that breaks a rule is judged, not waited for).
    pub fn wait_stopped(&self) -> bool {
        self.wait_until(|s| s.emitted_at_stop.is_some())
    }

    /// Waits up to the timeout for the sink to have the stream stopped: a
    /// stop of the live stream not followed (yet) by a new start. A pause
    /// (stop, then start again, as rule 5 allows) that is over does not
    /// count.
    pub fn wait_halted(&self) -> bool {
        self.wait_until(|s| s.life.started && !s.life.live && !s.life.ended)
    }

    fn wait_until(&self, mut done: impl FnMut(&State) -> bool) -> bool {
        let timeout = self.cx().env().timeout();
        wait_for(&self.shared.state, &self.shared.changed, timeout, |s| {
            done(s).then_some(())
        })
        .is_some()
    }

    /// Gives the sink one no-signal window to break a rule; whatever it
    /// does is judged as it arrives.
    pub fn quiet(&self) {
        let window = self.cx().env().no_signal_timeout();
        let _ = wait_for(&self.shared.state, &self.shared.changed, window, |_| {
            None::<()>
        });
    }

    /// Drops the sink under test inside the scenario, as a step: a
    /// talkback call its `Drop` makes (a second `stop`, say) is judged like
    /// any other, not merely traced after the rule has concluded.
    pub fn drop_sink(&self) -> Result<(), Failure> {
        let sink = self.shared.sink.lock().take();
        let Some(sink) = sink else {
            return Ok(());
        };
        let cx = self.cx();
        cx.try_step(cx.rule(), self.event("drop the sink"), move || drop(sink))
    }

    /// How many elements the probe had emitted when the sink first stopped
    /// the live stream: `None` if it never did. An element whose `receive`
    /// the stop comes from counts, so this is at least what the sink had
    /// received.
    pub fn emitted_at_stop(&self) -> Option<u64> {
        self.shared.state.lock().emitted_at_stop
    }

    /// How many elements the probe had emitted when the sink last stopped
    /// the live stream (the stop a later start may have turned into a
    /// pause): `None` if it never did.
    pub fn emitted_at_last_stop(&self) -> Option<u64> {
        self.shared.state.lock().emitted_at_last_stop
    }

    /// How many elements the probe has emitted.
    pub fn emitted(&self) -> u64 {
        self.shared.state.lock().emitted
    }

    /// The stream as the probe sees it.
    pub fn lifecycle(&self) -> Lifecycle {
        self.shared.state.lock().life
    }

    /// How many times the sink called start, request and stop.
    pub fn calls(&self) -> (u32, u64, u32) {
        let state = self.shared.state.lock();
        (state.starts, state.requests, state.stops)
    }

    fn event(&self, what: &str) -> String {
        format!("{}: {what}", self.shared.label)
    }
}

impl<T: Debug + Send + 'static> Source<T> for SourceProbe<T> {
    fn connect(&self, sink: Box<dyn Sink<T>>) {
        self.connect_sink(sink);
    }
}

impl<T: 'static> Drop for SourceProbe<T> {
    fn drop(&mut self) {
        self.shared.state.lock().retired = true;
        // The sink holds the talkback, which holds the probe: let go of the
        // sink after the rule has concluded (its drop is the user's code).
        if let Some(sink) = self.shared.sink.try_lock().and_then(|mut s| s.take()) {
            self.shared.cx.defer(move || drop(sink));
        }
    }
}

struct ProbeTalkback<T> {
    shared: Arc<Shared<T>>,
}

impl<T> ProbeTalkback<T> {
    /// Records `call` and judges it with `check`; `apply` runs when the
    /// call was legal.
    fn call(
        &self,
        call: &str,
        what: &str,
        check: impl FnOnce(&Lifecycle) -> Option<Broken>,
        apply: impl FnOnce(&mut State),
    ) {
        let shared = &*self.shared;
        let cx = &shared.cx;
        let mut state = shared.state.lock();
        // Only a stop can make an emission already on its way a late one.
        if what == "stop" {
            Self::after_emission_in_flight(shared, &mut state);
        }
        let racing_end = state
            .ending
            .is_some_and(|thread| thread != std::thread::current().id());
        cx.trace(format!(
            "{}: the sink called talkback.{call}{}",
            shared.label,
            if racing_end {
                " (on another thread, while the source was inside end: not judged)"
            } else {
                ""
            }
        ));
        match check(&state.life) {
            _ if state.retired || racing_end => {}
            Some(broken) => {
                if !state.reported.contains(&broken.id) {
                    state.reported.push(broken.id.clone());
                    cx.record(cx.failure_of(
                        broken.id,
                        format!("no {what} {}", broken.when),
                        format!("the sink called talkback.{call}"),
                    ));
                }
            }
            None => apply(&mut state),
        }
        shared.changed.notify_all();
    }

    /// A stop from another thread than the one inside an emission waits
    /// (at most the timeout) for that emission to return before it is
    /// judged and applied, as a conforming source's stop does: otherwise
    /// the `receive` the probe was about to make could begin after the
    /// stop returned (rule 2). A sink that makes its own `receive` wait
    /// for that stop is not held up for longer than the timeout.
    fn after_emission_in_flight(shared: &Shared<T>, state: &mut MutexGuard<'_, State>) {
        let me = std::thread::current().id();
        let deadline = Instant::now() + shared.cx.env().timeout();
        while state.emitting.is_some_and(|thread| thread != me) {
            if shared.changed.wait_until(state, deadline).timed_out() {
                shared.cx.trace(format!(
                    "{}: a stop from another thread waited {} ms for the emission in flight, which did not return; judged now",
                    shared.label,
                    shared.cx.env().timeout().as_millis()
                ));
                return;
            }
        }
    }
}

impl<T: Send> Talkback for ProbeTalkback<T> {
    fn start(&self) {
        self.shared.state.lock().starts += 1;
        self.call("start()", "start", Lifecycle::cannot_start, |s| {
            s.life.started = true;
            s.life.live = true;
        });
    }

    fn request(&self) {
        self.shared.state.lock().requests += 1;
        self.call(
            "request()",
            "request",
            |l| l.not_live(3),
            |s| s.pending += 1,
        );
    }

    fn stop(&self, reason: Option<StreamError>) {
        self.shared.state.lock().stops += 1;
        let call = format!("stop({})", describe_reason(reason.as_ref()));
        self.call(
            &call,
            "stop",
            |l| l.not_live(6),
            |s| {
                s.life.live = false;
                s.emitted_at_stop.get_or_insert(s.emitted);
                s.emitted_at_last_stop = Some(s.emitted);
            },
        );
    }
}
