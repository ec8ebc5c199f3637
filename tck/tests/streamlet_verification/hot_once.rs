//! [`HotOnce`]: a hot listenable source shared by every sink connected to
//! it, as the protocol's timer example is — one run of data for all, a sink
//! that starts late or is stopped meanwhile misses what went by.
//!
//! Written from the protocol text: the first start by any sink sets a
//! thread of the source pushing `0..count` to every sink whose stream is
//! live at that moment, then ending every live stream. A stream that is not
//! live then (never started yet, or stopped) gets its end when its sink
//! starts it (rule 4 lets the end come only while the stream is live). Stop
//! pauses, start resumes.

use std::cell::RefCell;
use std::sync::Arc;

use parking_lot::{Mutex, ReentrantMutex};
use reactive_streams::{Sink, Source, StreamError, Talkback};

/// See the [module](self) docs.
pub struct HotOnce {
    hub: Arc<Hub>,
}

impl HotOnce {
    /// A source of `count` elements, fed on the first start.
    pub fn new(count: u64) -> Self {
        HotOnce {
            hub: Arc::new(Hub {
                count,
                state: Mutex::new(HubState::default()),
            }),
        }
    }
}

struct Hub {
    count: u64,
    state: Mutex<HubState>,
}

#[derive(Default)]
struct HubState {
    lanes: Vec<Arc<Lane>>,
    fed: bool,
    finished: bool,
}

impl Hub {
    fn lanes(&self) -> Vec<Arc<Lane>> {
        self.state.lock().lanes.clone()
    }

    /// The feeder: every element to every live stream, then the end.
    fn feed(&self) {
        for data in 0..self.count {
            for lane in self.lanes() {
                lane.push(data);
            }
        }
        self.state.lock().finished = true;
        for lane in self.lanes() {
            lane.settle(self);
        }
    }

    fn finished(&self) -> bool {
        self.state.lock().finished
    }
}

#[derive(Default)]
struct Flags {
    live: bool,
    ended: bool,
}

/// One sink. Each signal holds the sink's lock; `stop` takes it too
/// (re-entrantly from inside a signal), so a stop from another thread waits
/// for the emission in flight and none begins after it returned.
struct Lane {
    sink: ReentrantMutex<RefCell<Option<Box<dyn Sink<u64>>>>>,
    flags: Mutex<Flags>,
}

impl Lane {
    fn push(&self, data: u64) {
        let sink = self.sink.lock();
        if !self.flags.lock().live {
            return;
        }
        let Ok(mut slot) = sink.try_borrow_mut() else {
            // A signal to this sink is running on this thread: the feeder
            // never pushes from inside one.
            return;
        };
        if let Some(sink) = slot.as_mut() {
            sink.receive(data);
        }
    }

    /// Ends the stream if the run is over and the stream live, when the
    /// sink is at hand (not inside its own greet).
    fn settle(&self, hub: &Hub) {
        let sink = self.sink.lock();
        let Ok(mut slot) = sink.try_borrow_mut() else {
            return;
        };
        {
            let mut flags = self.flags.lock();
            if !flags.live || flags.ended || !hub.finished() {
                return;
            }
            flags.ended = true;
            flags.live = false;
        }
        if let Some(mut sink) = slot.take() {
            sink.end(None);
        }
    }
}

struct HotTalkback {
    hub: Arc<Hub>,
    lane: Arc<Lane>,
}

impl Talkback for HotTalkback {
    fn start(&self) {
        {
            let mut flags = self.lane.flags.lock();
            if flags.live || flags.ended {
                return;
            }
            flags.live = true;
        }
        let feed = !std::mem::replace(&mut self.hub.state.lock().fed, true);
        if feed {
            let hub = self.hub.clone();
            std::thread::Builder::new()
                .name(String::from("hot-once"))
                .spawn(move || hub.feed())
                .expect("a thread for the source");
        }
        self.lane.settle(&self.hub);
    }

    fn request(&self) {}

    fn stop(&self, _reason: Option<StreamError>) {
        let _no_emission_in_flight = self.lane.sink.lock();
        self.lane.flags.lock().live = false;
    }
}

impl Source<u64> for HotOnce {
    fn connect(&self, sink: Box<dyn Sink<u64>>) {
        let lane = Arc::new(Lane {
            sink: ReentrantMutex::new(RefCell::new(Some(sink))),
            flags: Mutex::new(Flags::default()),
        });
        self.hub.state.lock().lanes.push(lane.clone());
        let talkback = Arc::new(HotTalkback {
            hub: self.hub.clone(),
            lane: lane.clone(),
        });
        {
            let held = lane.sink.lock();
            let mut slot = held.borrow_mut();
            if let Some(sink) = slot.as_mut() {
                sink.greet(talkback);
            }
        }
        // A start from inside the greet found the sink busy.
        lane.settle(&self.hub);
    }
}
