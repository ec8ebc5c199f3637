//! [`SharedLog`]: one pullable source object serving every sink connected
//! to it from one shared registry, each sink with a cursor of its own — and
//! the same source with one crosstalk bug, where what one sink does with
//! its stream reaches the others (issue 27 §2).
//!
//! Written from the protocol text: a sink's stream is live between its
//! start and its stop; the protocol lets a source emit and end only then,
//! and says nothing of the other sinks. What the factory promises — `n`
//! elements to each sink that starts, then the end — is what the crosstalk
//! breaks, and nothing else: with one sink connected each buggy source
//! behaves exactly as the correct one.

use std::sync::{Arc, Weak};

use parking_lot::Mutex;
use reactive_streams::{Sink, Source, StreamError, Talkback};
use reactive_streams_tck::streamlet::testkit::{Emission, PullState};
use reactive_streams_tck::testkit::{Trampoline, Turn};

/// How one sink's stream reaches the others.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Crosstalk {
    /// Keeps one "live" switch for the whole source: a stop by one sink
    /// pauses every sink, until each starts again.
    PausesAllOnStop,
    /// "The source is done": when one sink's stream runs out, every other
    /// live stream ends too.
    EndsOthersOnEnd,
    /// Shuts down when a sink leaves (the protocol lets a source do so):
    /// a stop by one sink ends every other live stream.
    EndsOthersOnStop,
    /// Takes a restart for a new run of the whole source: every other
    /// sink's cursor goes back to element 0.
    RewindsOthersOnRestart,
    /// Listenable, with one "running" switch: a start by one sink makes
    /// every other stream not ended live again and pushes to it, whether
    /// its sink never started it or stopped it (streamlet.2.c, .2.d, and
    /// the ends that follow, .4.c, .4.d; issue 39 §3).
    StartsOthers,
    /// One demand counter for the whole source: a request by one sink is
    /// served to the first live sink connected, which may be another
    /// (tck.create_n: the sink that asked waits in vain; rule 2 lets a
    /// source emit to a live sink unasked, so that one breaks no rule).
    SharedDemand,
    /// "The source is done": when one sink's stream runs out, every other
    /// stream not ended yet ends too, live or not (streamlet.4.c, .4.d;
    /// tck.create_n for a live one).
    EndsAllOnEnd,
}

impl Crosstalk {
    /// Whether the source pushes (listenable) instead of answering
    /// requests.
    pub fn pushes(self) -> bool {
        self == Crosstalk::StartsOthers
    }
}

/// A pullable source of `0..count`: one element per request while the
/// sink's stream is live, then the end; a stopped stream resumes where it
/// stopped. Every sink connected to one `SharedLog` is served from one
/// registry of lanes, one lane (cursor and sink) per sink.
pub struct SharedLog {
    count: u64,
    log: Arc<Log>,
}

impl SharedLog {
    /// A conforming source of `count` elements.
    pub fn new(count: u64) -> Self {
        Self::with(count, None)
    }

    /// A source of `count` elements with one crosstalk bug.
    pub fn with(count: u64, crosstalk: Option<Crosstalk>) -> Self {
        SharedLog {
            count,
            log: Arc::new(Log {
                crosstalk,
                lanes: Mutex::new(Vec::new()),
            }),
        }
    }
}

struct Log {
    crosstalk: Option<Crosstalk>,
    /// Weak: a lane lives as long as its sink holds the talkback.
    lanes: Mutex<Vec<Weak<Lane>>>,
}

impl Log {
    fn others(&self, lane: &Arc<Lane>) -> Vec<Arc<Lane>> {
        self.lanes
            .lock()
            .iter()
            .filter_map(Weak::upgrade)
            .filter(|other| !Arc::ptr_eq(other, lane))
            .collect()
    }

    fn drain(&self, lane: &Arc<Lane>) {
        if !lane.drain() {
            return;
        }
        match self.crosstalk {
            Some(Crosstalk::EndsOthersOnEnd) => {
                for other in self.others(lane) {
                    other.end_now();
                }
            }
            Some(Crosstalk::EndsAllOnEnd) => {
                for other in self.others(lane) {
                    other.end_regardless();
                }
            }
            _ => {}
        }
    }

    /// The lane a request of `lane`'s sink is credited to: its own, or,
    /// with [`Crosstalk::SharedDemand`], the first live one connected.
    fn credited(&self, lane: &Arc<Lane>) -> Arc<Lane> {
        if self.crosstalk != Some(Crosstalk::SharedDemand) {
            return lane.clone();
        }
        let first_live = self
            .lanes
            .lock()
            .iter()
            .filter_map(Weak::upgrade)
            .find(|other| {
                let state = other.state.state();
                state.pull.live && !state.pull.ended
            });
        first_live.unwrap_or_else(|| lane.clone())
    }
}

struct LaneState {
    pull: PullState,
    /// Listenable: emits while live, unasked.
    pushes: bool,
    stopped_once: bool,
    /// Crosstalk: end the stream at the next turn.
    end_now: bool,
}

struct Lane {
    state: Trampoline<LaneState, Box<dyn Sink<u64>>>,
}

impl Lane {
    /// Delivers what the lane's sink is owed; whether this call delivered
    /// its end.
    fn drain(&self) -> bool {
        let mut ended = false;
        self.state.drain(
            |state| {
                let pull = &mut state.pull;
                if pull.ended || !pull.live {
                    return Turn::Wait;
                }
                if pull.next == pull.count || state.end_now {
                    pull.ended = true;
                    return Turn::Last(Emission::End(None));
                }
                if state.pushes {
                    return Turn::Signal(Emission::Receive(pull.take_next()));
                }
                if pull.pending == 0 {
                    return Turn::Wait;
                }
                pull.pending -= 1;
                Turn::Signal(Emission::Receive(pull.take_next()))
            },
            |sink, emission| {
                ended |= matches!(emission, Emission::End(_));
                Emission::deliver(sink, emission);
            },
        );
        ended
    }

    /// Ends the lane's stream if it is live.
    fn end_now(&self) {
        {
            let mut state = self.state.state();
            if !state.pull.live || state.pull.ended {
                return;
            }
            state.end_now = true;
        }
        self.drain();
    }

    /// Ends the lane's stream if it has not ended, live or not (the
    /// crosstalk of [`Crosstalk::EndsAllOnEnd`]).
    fn end_regardless(&self) {
        {
            let mut state = self.state.state();
            if state.pull.ended {
                return;
            }
            state.end_now = true;
            state.pull.live = true;
        }
        self.drain();
    }

    /// Makes the lane's stream live again if it has not ended, whether
    /// its sink started it or not (the crosstalk of
    /// [`Crosstalk::StartsOthers`]).
    fn run_regardless(&self) {
        {
            let mut state = self.state.state();
            if state.pull.ended || state.pull.live {
                return;
            }
            state.pull.live = true;
        }
        self.drain();
    }
}

struct LogTalkback {
    log: Arc<Log>,
    lane: Arc<Lane>,
}

impl Talkback for LogTalkback {
    fn start(&self) {
        let restart = {
            let mut state = self.lane.state.state();
            if !state.pull.start() {
                return;
            }
            state.stopped_once
        };
        if restart && self.log.crosstalk == Some(Crosstalk::RewindsOthersOnRestart) {
            for other in self.log.others(&self.lane) {
                let mut state = other.state.state();
                if !state.pull.ended {
                    state.pull.next = 0;
                }
            }
        }
        self.log.drain(&self.lane);
        if self.log.crosstalk == Some(Crosstalk::StartsOthers) {
            for other in self.log.others(&self.lane) {
                other.run_regardless();
            }
        }
    }

    fn request(&self) {
        if !self.lane.state.state().pull.live {
            return;
        }
        let lane = self.log.credited(&self.lane);
        if lane.state.state().pull.request() {
            self.log.drain(&lane);
        }
    }

    fn stop(&self, _reason: Option<StreamError>) {
        {
            let mut state = self.lane.state.state();
            state.pull.stop();
            state.stopped_once = true;
        }
        match self.log.crosstalk {
            Some(Crosstalk::PausesAllOnStop) => {
                for other in self.log.others(&self.lane) {
                    other.state.state().pull.stop();
                }
            }
            Some(Crosstalk::EndsOthersOnStop) => {
                for other in self.log.others(&self.lane) {
                    other.end_now();
                }
            }
            _ => {}
        }
    }
}

impl Source<u64> for SharedLog {
    fn connect(&self, mut sink: Box<dyn Sink<u64>>) {
        let lane = Arc::new(Lane {
            state: Trampoline::new(LaneState {
                pull: PullState::new(self.count),
                pushes: self.log.crosstalk.is_some_and(Crosstalk::pushes),
                stopped_once: false,
                end_now: false,
            }),
        });
        {
            let mut lanes = self.log.lanes.lock();
            lanes.retain(|lane| lane.strong_count() > 0);
            lanes.push(Arc::downgrade(&lane));
        }
        sink.greet(Arc::new(LogTalkback {
            log: self.log.clone(),
            lane: lane.clone(),
        }));
        lane.state.attach(sink);
        self.log.drain(&lane);
    }
}
