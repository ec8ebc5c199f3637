//! Broken Streamlet sources and sinks fail the extended verification with a
//! minimal script; each whole extended run breaks exactly the rules
//! snapshotted as `…_rules`.

use std::sync::Arc;

use parking_lot::Mutex;
use reactive_streams::{Sink, Source, StreamError, Talkback};
use reactive_streams_tck::streamlet::sink::{SinkFactory, SinkVerification};
use reactive_streams_tck::streamlet::source::SourceFactory;
use reactive_streams_tck::streamlet::source::SourceVerification;
use reactive_streams_tck::streamlet::testkit::PullRange;

/// One element too many: the extended verification names the shortest
/// script that shows it.
pub struct OneTooMany;

impl SourceFactory for OneTooMany {
    type Element = u64;
    fn create_source(&self, elements: u64) -> Box<dyn Source<u64>> {
        Box::new(PullRange::new(elements + 1))
    }
}

#[test]
fn a_source_with_one_element_too_many_fails_with_a_minimal_script() {
    crate::extended::assert_schedules_fail!(
        SourceVerification::new(OneTooMany),
        "OneTooMany",
        500,
        "one_too_many_rules"
    );
}

/// Starts when greeted and pulls, with a flaw in how it stops.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StopFlaw {
    /// Stops after its third element — and also when the stream ends with
    /// a reason, which the protocol forbids (nothing may be stopped once
    /// ended).
    OnError,
    /// Its clean-up: on `end`, it stops the stream to release the request
    /// it prefetched — which it only does from its second element on —
    /// though nothing may be stopped once ended (rule 6). The quick
    /// verification ends streams after 0 and 1 elements only.
    OnLateEnd,
}

pub struct Stopping {
    flaw: StopFlaw,
    talkback: Option<Arc<dyn Talkback>>,
    received: u64,
}

impl Sink<u64> for Stopping {
    fn greet(&mut self, talkback: Arc<dyn Talkback>) {
        talkback.start();
        talkback.request();
        self.talkback = Some(talkback);
    }
    fn receive(&mut self, _: u64) {
        self.received += 1;
        if let Some(talkback) = &self.talkback {
            if self.flaw == StopFlaw::OnError && self.received == 3 {
                talkback.stop(None);
            } else {
                talkback.request();
            }
        }
    }
    fn end(&mut self, reason: Option<StreamError>) {
        match self.flaw {
            StopFlaw::OnError => {
                if let (Some(talkback), Some(reason)) = (&self.talkback, reason) {
                    talkback.stop(Some(reason));
                }
            }
            StopFlaw::OnLateEnd => {
                if let Some(talkback) = self.talkback.take() {
                    if self.received >= 2 {
                        talkback.stop(None);
                    }
                }
            }
        }
    }
}

/// Makes [`Stopping`] sinks with one flaw.
pub struct StoppingSinks(pub StopFlaw);

impl SinkFactory for StoppingSinks {
    type Element = u64;
    fn create_sink(&self) -> Box<dyn Sink<u64>> {
        Box::new(Stopping {
            flaw: self.0,
            talkback: None,
            received: 0,
        })
    }
    fn create_element(&self, index: u64) -> u64 {
        index
    }
}

/// The quick verification catches this one too (its "after end" scenario
/// ends a stream with a reason): see `a_sink_stopping_after_a_late_end_…`
/// for a flaw only a generated script reaches.
#[test]
fn a_sink_stopping_an_ended_stream_fails_with_a_minimal_script() {
    crate::extended::assert_schedules_fail!(
        SinkVerification::new(StoppingSinks(StopFlaw::OnError)),
        "StopsOnError",
        500,
        "stops_on_error_rules"
    );
}

/// A pull range with a flaw only a generated script reaches: stopped from
/// inside its *last* emission, it takes the next `start()` for a no-op, so
/// the stream it should now end stays open for ever. The quick
/// verification stops only inside emissions #1 and #2 of three.
pub struct StuckAfterLastStop;

impl SourceFactory for StuckAfterLastStop {
    type Element = u64;
    fn create_source(&self, elements: u64) -> Box<dyn Source<u64>> {
        Box::new(Stuck {
            inner: PullRange::new(elements),
            elements,
        })
    }
    fn supports_restart(&self) -> bool {
        true
    }
}

struct Stuck {
    inner: PullRange,
    elements: u64,
}

#[derive(Default)]
struct StuckState {
    received: u64,
    stopped_at_last: bool,
}

impl Source<u64> for Stuck {
    fn connect(&self, sink: Box<dyn Sink<u64>>) {
        self.inner.connect(Box::new(StuckSink {
            sink,
            state: Arc::new(Mutex::new(StuckState::default())),
            elements: self.elements,
        }));
    }
}

struct StuckSink {
    sink: Box<dyn Sink<u64>>,
    state: Arc<Mutex<StuckState>>,
    elements: u64,
}

impl Sink<u64> for StuckSink {
    fn greet(&mut self, talkback: Arc<dyn Talkback>) {
        self.sink.greet(Arc::new(StuckTalkback {
            talkback,
            state: self.state.clone(),
            elements: self.elements,
        }));
    }
    fn receive(&mut self, data: u64) {
        self.state.lock().received += 1;
        self.sink.receive(data);
    }
    fn end(&mut self, reason: Option<StreamError>) {
        self.sink.end(reason);
    }
}

struct StuckTalkback {
    talkback: Arc<dyn Talkback>,
    state: Arc<Mutex<StuckState>>,
    elements: u64,
}

impl Talkback for StuckTalkback {
    fn start(&self) {
        let stuck = self.state.lock().stopped_at_last;
        if !stuck {
            self.talkback.start();
        }
    }
    fn request(&self) {
        self.talkback.request();
    }
    fn stop(&self, reason: Option<StreamError>) {
        {
            let mut state = self.state.lock();
            if self.elements > 0 && state.received == self.elements {
                state.stopped_at_last = true;
            }
        }
        self.talkback.stop(reason);
    }
}

#[test]
fn a_source_stuck_after_a_stop_in_its_last_emission_needs_a_generated_script() {
    crate::verdicts::assert_quick_misses(SourceVerification::new(StuckAfterLastStop).run_all());

    // A short timeout: every failing run waits it out for the end.
    crate::extended::assert_schedules_fail!(
        SourceVerification::new(StuckAfterLastStop),
        "StuckAfterLastStop",
        500,
        "stuck_after_last_stop_rules",
        env = crate::extended::short_timeout_env()
    );
}

#[test]
fn a_sink_stopping_after_a_late_end_needs_a_generated_script() {
    crate::verdicts::assert_quick_misses(
        SinkVerification::new(StoppingSinks(StopFlaw::OnLateEnd)).run_all(),
    );

    crate::extended::assert_schedules_fail!(
        SinkVerification::new(StoppingSinks(StopFlaw::OnLateEnd)),
        "StopsOnLateEnd",
        500,
        "stops_on_late_end_rules"
    );
}
