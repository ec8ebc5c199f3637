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
        if lane.drain() && self.crosstalk == Some(Crosstalk::EndsOthersOnEnd) {
            for other in self.others(lane) {
                other.end_now();
            }
        }
    }
}

struct LaneState {
    pull: PullState,
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
    }

    fn request(&self) {
        if self.lane.state.state().pull.request() {
            self.log.drain(&self.lane);
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
