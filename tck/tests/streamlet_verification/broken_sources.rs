//! Broken sources: each breaks one condition, and the rule test for that
//! condition must fail naming it.
//!
//! Most are a synchronous pullable source ([`Buggy`]) with one bug switched
//! on; the ones that need a thread or several sinks have their own type
//! (the crosstalk between several sinks: [`SharedLog`]).

use std::collections::VecDeque;
use std::sync::Arc;

use parking_lot::Mutex;
use reactive_streams::{Sink, Source, StreamError, Talkback};
use reactive_streams_tck::streamlet::source::{SourceFactory, SourceKind};
use reactive_streams_tck::streamlet::testkit::{PullRange, PullState};
use reactive_streams_tck::testkit::{Trampoline, Turn};

pub use crate::shared_log::Crosstalk;
use crate::shared_log::SharedLog;

/// One bug each.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Bug {
    /// Greets every sink twice (streamlet.1.a).
    GreetsTwice,
    /// Treats a restart as a new connection and greets again (streamlet.1.a).
    GreetsAgainOnRestart,
    /// Replays its first element on connect, before the greet (streamlet.2.b).
    EmitsBeforeGreet,
    /// Pushes its first element right after the greet (streamlet.2.c).
    EmitsBeforeStart,
    /// Once asked, flushes every element it has without checking for a
    /// stop (streamlet.2.d).
    FlushesAfterStop,
    /// Sends one more element after its end (streamlet.2.e).
    EmitsAfterEnd,
    /// An empty source that ends on connect, then greets (streamlet.4.b).
    EndsBeforeGreet,
    /// An empty source that ends right after the greet (streamlet.4.c).
    EndsBeforeStart,
    /// Ends after its last element even if the sink stopped inside it
    /// (streamlet.4.d).
    EndsAfterStop,
    /// Ends twice (streamlet.4.e).
    EndsTwice,
    /// Never greets (tck.greets).
    NeverGreets,
    /// Delivers one element fewer than asked for (tck.create_n).
    ShortByOne,
    /// Never delivers again after a stop, though it declares restart
    /// support (tck.restart).
    NeverResumes,
    /// Ignores a start made inside one of its own emissions (after a stop
    /// in it), though it declares restart support: resumes only when
    /// started from outside (tck.restart).
    IgnoresStartInsideEmission,
    /// Sends element 1 again in place of element 2: the count is right,
    /// the identity is not (tck.create_n, by the declared element_index).
    RepeatsOne,
}

/// A synchronous pullable source of `0..count` with one bug.
#[derive(Debug, Clone, Copy)]
pub struct Buggy {
    count: u64,
    bug: Bug,
}

struct State {
    pull: PullState,
    stopped_once: bool,
    /// Restarted with [`Bug::GreetsAgainOnRestart`]: greet again.
    regreet: bool,
}

struct Stream {
    bug: Bug,
    /// Inside `sink.receive`: what [`Bug::IgnoresStartInsideEmission`] looks at.
    emitting: std::sync::atomic::AtomicBool,
    state: Trampoline<State, Box<dyn Sink<u64>>>,
}

/// What the drain sends the sink: the regreet is one more signal.
enum Out {
    Greet,
    Element(u64),
    /// The end, after this many elements.
    End(u64),
}

impl Stream {
    fn drain(self: &Arc<Self>) {
        let bug = self.bug;
        self.state.drain(
            |state| {
                if std::mem::take(&mut state.regreet) {
                    return Turn::Signal(Out::Greet);
                }
                let pull = &mut state.pull;
                let ends = pull.next == pull.count && (pull.live || bug == Bug::EndsAfterStop);
                if ends && !pull.ended {
                    pull.ended = true;
                    return Turn::Last(Out::End(pull.count));
                }
                let flushing = bug == Bug::FlushesAfterStop && pull.next > 0;
                if pull.ended || !flushing && (!pull.live || pull.pending == 0) {
                    return Turn::Wait;
                }
                pull.pending = pull.pending.saturating_sub(1);
                let element = pull.take_next();
                let element = if bug == Bug::RepeatsOne && element == 2 {
                    1
                } else {
                    element
                };
                Turn::Signal(Out::Element(element))
            },
            |sink, out| match out {
                Out::Greet => sink.greet(Arc::new(BuggyTalkback(self.clone()))),
                Out::Element(element) => {
                    self.emitting
                        .store(true, std::sync::atomic::Ordering::SeqCst);
                    sink.receive(element);
                    self.emitting
                        .store(false, std::sync::atomic::Ordering::SeqCst);
                }
                Out::End(count) => {
                    sink.end(None);
                    match bug {
                        Bug::EndsTwice => sink.end(None),
                        Bug::EmitsAfterEnd => sink.receive(count),
                        _ => {}
                    }
                }
            },
        );
    }
}

struct BuggyTalkback(Arc<Stream>);

impl Talkback for BuggyTalkback {
    fn start(&self) {
        {
            let mut state = self.0.state.state();
            let never_resumes = self.0.bug == Bug::NeverResumes && state.stopped_once
                || self.0.bug == Bug::IgnoresStartInsideEmission
                    && self.0.emitting.load(std::sync::atomic::Ordering::SeqCst);
            if never_resumes || !state.pull.start() {
                return;
            }
            state.regreet = self.0.bug == Bug::GreetsAgainOnRestart && state.stopped_once;
        }
        self.0.drain();
    }

    fn request(&self) {
        if self.0.state.state().pull.request() {
            self.0.drain();
        }
    }

    fn stop(&self, _reason: Option<StreamError>) {
        let mut state = self.0.state.state();
        state.pull.stop();
        state.stopped_once = true;
    }
}

impl Source<u64> for Buggy {
    fn connect(&self, mut sink: Box<dyn Sink<u64>>) {
        let count = match self.bug {
            Bug::ShortByOne => self.count.saturating_sub(1),
            _ => self.count,
        };
        let stream = Arc::new(Stream {
            bug: self.bug,
            emitting: Default::default(),
            state: Trampoline::new(State {
                pull: PullState::new(count),
                stopped_once: false,
                regreet: false,
            }),
        });
        let talkback = || Arc::new(BuggyTalkback(stream.clone()));
        match self.bug {
            Bug::NeverGreets => {}
            Bug::EmitsBeforeGreet => {
                sink.receive(0);
                sink.greet(talkback());
            }
            Bug::GreetsTwice => {
                sink.greet(talkback());
                sink.greet(talkback());
            }
            Bug::EndsBeforeGreet if self.count == 0 => {
                sink.end(None);
                sink.greet(talkback());
            }
            Bug::EmitsBeforeStart => {
                sink.greet(talkback());
                sink.receive(0);
            }
            Bug::EndsBeforeStart if self.count == 0 => {
                sink.greet(talkback());
                sink.end(None);
            }
            _ => sink.greet(talkback()),
        }
        stream.state.attach(sink);
        stream.drain();
    }
}

/// Pushes every element to every connected sink as soon as any of them
/// starts (streamlet.2.c: the others never started).
#[derive(Default)]
pub struct Broadcast {
    sinks: Arc<Mutex<Vec<Box<dyn Sink<u64>>>>>,
}

struct BroadcastTalkback {
    sinks: Arc<Mutex<Vec<Box<dyn Sink<u64>>>>>,
    started: Mutex<bool>,
}

impl Talkback for BroadcastTalkback {
    fn start(&self) {
        let mut started = self.started.lock();
        if *started {
            return;
        }
        *started = true;
        drop(started);
        for sink in self.sinks.lock().iter_mut() {
            sink.receive(0);
        }
    }

    fn request(&self) {}

    fn stop(&self, _reason: Option<StreamError>) {}
}

impl Source<u64> for Broadcast {
    fn connect(&self, mut sink: Box<dyn Sink<u64>>) {
        sink.greet(Arc::new(BroadcastTalkback {
            sinks: self.sinks.clone(),
            started: Mutex::new(false),
        }));
        self.sinks.lock().push(sink);
    }
}

/// A failed source that reports its failure at once: greets, then ends
/// with the error before the sink started the stream (streamlet.4.c).
pub struct FailsOnGreet;

struct NoTalkback;

impl Talkback for NoTalkback {
    fn start(&self) {}
    fn request(&self) {}
    fn stop(&self, _reason: Option<StreamError>) {}
}

impl Source<u64> for FailsOnGreet {
    fn connect(&self, mut sink: Box<dyn Sink<u64>>) {
        sink.greet(Arc::new(NoTalkback));
        sink.end(Some(StreamError::msg("connection refused")));
    }
}

/// A hybrid "current value" source that forgets what each sink already
/// has: once started it pushes `0..count`, and it answers every request
/// with the latest element again, before its next push (tck.create_n: a
/// sink that pulls gets more than `count`). The reference `HybridSource`
/// had this bug. Signals go through a queue, so a request from inside
/// `receive` is answered after it returns.
pub struct EchoesLatest {
    count: u64,
}

struct Echo {
    count: u64,
    state: Mutex<EchoState>,
}

#[derive(Default)]
struct EchoState {
    /// `None` while a signal is being delivered (or before the greet).
    sink: Option<Box<dyn Sink<u64>>>,
    /// Answers to requests, delivered before the next push.
    answers: VecDeque<u64>,
    live: bool,
    next: u64,
    latest: Option<u64>,
    ended: bool,
}

enum EchoSignal {
    Data(u64),
    End,
}

impl Echo {
    fn pump(&self) {
        loop {
            let (mut sink, signal) = {
                let mut state = self.state.lock();
                if !state.live || state.ended || state.sink.is_none() {
                    return;
                }
                let signal = if let Some(answer) = state.answers.pop_front() {
                    EchoSignal::Data(answer)
                } else if state.next < self.count {
                    state.next += 1;
                    state.latest = Some(state.next - 1);
                    EchoSignal::Data(state.next - 1)
                } else {
                    state.ended = true;
                    EchoSignal::End
                };
                (state.sink.take().expect("checked"), signal)
            };
            match signal {
                EchoSignal::Data(data) => sink.receive(data),
                EchoSignal::End => {
                    sink.end(None);
                    return;
                }
            }
            self.state.lock().sink = Some(sink);
        }
    }
}

struct EchoTalkback(Arc<Echo>);

impl Talkback for EchoTalkback {
    fn start(&self) {
        self.0.state.lock().live = true;
        self.0.pump();
    }

    fn request(&self) {
        {
            let mut state = self.0.state.lock();
            if let Some(latest) = state.latest.filter(|_| state.live) {
                state.answers.push_back(latest);
            }
        }
        self.0.pump();
    }

    fn stop(&self, _reason: Option<StreamError>) {
        self.0.state.lock().live = false;
    }
}

impl Source<u64> for EchoesLatest {
    fn connect(&self, mut sink: Box<dyn Sink<u64>>) {
        let echo = Arc::new(Echo {
            count: self.count,
            state: Mutex::new(EchoState::default()),
        });
        sink.greet(Arc::new(EchoTalkback(echo.clone())));
        echo.state.lock().sink = Some(sink);
        echo.pump();
    }
}

/// The broken source factories.
#[derive(Debug, Clone, Copy)]
pub enum BadSource {
    Buggy(Bug),
    /// Conforming, but its failed source ends before the start.
    FailsOnGreet,
    Broadcast,
    EchoesLatest,
    /// One source serving several sinks, where what one sink does with its
    /// stream reaches the others (tck.create_n).
    Crosstalk(Crosstalk),
}

impl SourceFactory for BadSource {
    type Element = u64;

    fn create_source(&self, elements: u64) -> Box<dyn Source<u64>> {
        match *self {
            BadSource::Buggy(bug) => Box::new(Buggy {
                count: elements,
                bug,
            }),
            BadSource::Broadcast => Box::new(Broadcast::default()),
            BadSource::EchoesLatest => Box::new(EchoesLatest { count: elements }),
            BadSource::FailsOnGreet => Box::new(PullRange::new(elements)),
            BadSource::Crosstalk(crosstalk) => Box::new(SharedLog::with(elements, Some(crosstalk))),
        }
    }

    fn create_failed_source(&self) -> Option<Box<dyn Source<u64>>> {
        matches!(self, BadSource::FailsOnGreet)
            .then(|| Box::new(FailsOnGreet) as Box<dyn Source<u64>>)
    }

    fn kind(&self) -> SourceKind {
        match self {
            BadSource::Crosstalk(crosstalk) if crosstalk.pushes() => SourceKind::Listenable,
            BadSource::Buggy(_) | BadSource::FailsOnGreet | BadSource::Crosstalk(_) => {
                SourceKind::Pullable
            }
            BadSource::Broadcast => SourceKind::Listenable,
            BadSource::EchoesLatest => SourceKind::Hybrid,
        }
    }

    fn supports_restart(&self) -> bool {
        true
    }

    /// Every one greets every sink, but `Buggy(NeverGreets)`, which breaks
    /// this declaration (tck.greets); undeclared, a source that never
    /// greets breaks no rule (rule 1: a source MAY greet).
    fn greets_sinks(&self) -> bool {
        true
    }

    /// Declared by the bugs that need it: the others keep their exact
    /// rule sets.
    fn element_index(&self, data: &u64) -> Option<u64> {
        matches!(
            self,
            BadSource::Buggy(Bug::RepeatsOne) | BadSource::Crosstalk(_)
        )
        .then_some(*data)
    }
}
