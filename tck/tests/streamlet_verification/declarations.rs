//! Issue 26 §2: every declaration a Streamlet source or sink factory makes
//! is honoured by the quick and the extended verification alike: each
//! correct source or sink below needs its declarations (the kind it is,
//! whether it restarts, whether it can fail, when it stops) and passes
//! both.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use reactive_streams::{Sink, Source, StreamError, Talkback};
use reactive_streams_tck::streamlet::sink::{SinkFactory, SinkVerification};
use reactive_streams_tck::streamlet::source::{SourceFactory, SourceVerification};
use reactive_streams_tck::streamlet::testkit::{Emission, PullState};
use reactive_streams_tck::testkit::{Trampoline, Turn};
use rstest::rstest;

use crate::correct::{GoodSink, GoodSource};

fn source_passes_quick_and_extended<F: SourceFactory>(name: &str, factory: impl Fn() -> F) {
    let quick = SourceVerification::new(factory()).run_all().unwrap();
    crate::verdicts::assert_clean_and_skips_explained(name, &quick);
    let extended = SourceVerification::new(factory())
        .env(crate::extended::passing_env())
        .extended(crate::extended::config(200, 10))
        .run_extended()
        .unwrap();
    crate::verdicts::assert_clean_and_skips_explained(name, &extended);
}

fn sink_passes_quick_and_extended<F: SinkFactory>(name: &str, factory: impl Fn() -> F) {
    let quick = SinkVerification::new(factory()).run_all().unwrap();
    crate::verdicts::assert_clean_and_skips_explained(name, &quick);
    let extended = SinkVerification::new(factory())
        .env(crate::extended::passing_env())
        .extended(crate::extended::config(200, 10))
        .run_extended()
        .unwrap();
    crate::verdicts::assert_clean_and_skips_explained(name, &extended);
}

/// `kind`, `supports_restart`, `create_failed_source`.
#[rstest]
#[case::pullable(GoodSource::Pullable)]
#[case::listenable(GoodSource::Listenable)]
#[case::hybrid_without_restarts(GoodSource::Hybrid)]
fn sources_of_every_kind_pass_quick_and_extended(#[case] source: GoodSource) {
    source_passes_quick_and_extended(&format!("{source:?}"), || source);
}

/// `stops_after`, with a pulling and a pushed sink, and a sink that never
/// stops.
#[rstest]
#[case::take_five_pulling(GoodSink::TakeFivePulling)]
#[case::take_three_pushed(GoodSink::TakeThreePushed)]
#[case::drain(GoodSink::Drain)]
fn sinks_stopping_by_themselves_pass_quick_and_extended(#[case] sink: GoodSink) {
    sink_passes_quick_and_extended(&format!("{sink:?}"), || sink);
}

/// A pullable source written from the protocol's text, with the
/// properties it declares: whether its stream ends after its last element,
/// whether one source serves several sinks, how many elements it can
/// have. A stopped stream resumes after a new start (pause and resume).
#[derive(Debug, Clone, Copy)]
struct Declared {
    ends: bool,
    unicast: bool,
    max_elements: u64,
}

struct DeclaredSource {
    count: u64,
    ends: bool,
    unicast: bool,
    connected: AtomicBool,
}

struct DeclaredStream {
    ends: bool,
    state: Trampoline<PullState, Box<dyn Sink<u64>>>,
}

impl DeclaredStream {
    fn drain(&self) {
        self.state.drain(
            |state| {
                if state.ended || !state.live {
                    return Turn::Wait;
                }
                if state.next == state.count {
                    if !self.ends {
                        // Nothing more, ever: the stream stays open.
                        return Turn::Wait;
                    }
                    state.ended = true;
                    return Turn::Last(Emission::End(None));
                }
                if state.pending == 0 {
                    return Turn::Wait;
                }
                state.pending -= 1;
                Turn::Signal(Emission::Receive(state.take_next()))
            },
            Emission::deliver,
        );
    }
}

struct DeclaredTalkback(Arc<DeclaredStream>);

impl Talkback for DeclaredTalkback {
    fn start(&self) {
        if self.0.state.state().start() {
            self.0.drain();
        }
    }

    fn request(&self) {
        if self.0.state.state().request() {
            self.0.drain();
        }
    }

    fn stop(&self, _reason: Option<StreamError>) {
        self.0.state.state().stop();
    }
}

/// The talkback of a sink a unicast source turned away: it ended the
/// stream at once, so every call is a no-op.
struct Refused;

impl Talkback for Refused {
    fn start(&self) {}
    fn request(&self) {}
    fn stop(&self, _reason: Option<StreamError>) {}
}

impl Source<u64> for DeclaredSource {
    fn connect(&self, mut sink: Box<dyn Sink<u64>>) {
        if self.unicast && self.connected.swap(true, Ordering::SeqCst) {
            sink.greet(Arc::new(Refused));
            return sink.end(Some(StreamError::msg("this source serves one sink")));
        }
        let stream = Arc::new(DeclaredStream {
            ends: self.ends,
            state: Trampoline::new(PullState::new(self.count)),
        });
        sink.greet(Arc::new(DeclaredTalkback(stream.clone())));
        stream.state.attach(sink);
        stream.drain();
    }
}

impl SourceFactory for Declared {
    type Element = u64;

    fn create_source(&self, elements: u64) -> Box<dyn Source<u64>> {
        assert!(elements <= self.max_elements, "asked for {elements}");
        Box::new(DeclaredSource {
            count: elements,
            ends: self.ends,
            unicast: self.unicast,
            connected: AtomicBool::new(false),
        })
    }

    fn max_elements(&self) -> u64 {
        self.max_elements
    }

    fn ends(&self) -> bool {
        self.ends
    }

    fn supports_restart(&self) -> bool {
        true
    }

    fn supports_multiple_sinks(&self) -> bool {
        !self.unicast
    }
}

/// `ends`, `supports_multiple_sinks`, `max_elements`.
#[rstest]
#[case::never_ends(Declared { ends: false, unicast: false, max_elements: u64::MAX })]
#[case::unicast(Declared { ends: true, unicast: true, max_elements: u64::MAX })]
#[case::at_most_one(Declared { ends: true, unicast: false, max_elements: 1 })]
#[case::empty(Declared { ends: true, unicast: false, max_elements: 0 })]
fn sources_with_declared_properties_pass_quick_and_extended(#[case] source: Declared) {
    source_passes_quick_and_extended(&format!("{source:?}"), || source);
}
