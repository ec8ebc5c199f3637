//! The laxest conforming Streamlet sources (issue 38 §5): written from the
//! protocol text, each does the least it requires, as late as it allows,
//! and takes every freedom it grants. They pass the whole source
//! verification, quick and extended.
//!
//! The freedoms, and the sentences they rest on:
//!
//! * It greets late, from a thread of its own — rule 1: "A source MAY greet
//!   a connected sink synchronously or asynchronously."
//! * It serves at most two sinks at once and never greets a third while
//!   two are attached — rule 1: "A source MAY greet a sink with a talkback
//!   after they are connected" (may, so it may also not); or
//!   ([`Refusal::EndsAtStart`]) greets the third and ends its stream with
//!   a reason once it starts — rule 4: "The source MAY provide a reason
//!   (e.g. error).".
//! * It emits from its own thread, one element per request, after the
//!   request returned — rule 2: "A source MAY emit data IF AND ONLY IF all
//!   of the following conditions hold" (a permission, with no deadline and
//!   no thread), and the preamble: sources "might wait for the sink to
//!   request data before sending it".
//! * It finds its end lazily: after its last element it ends the stream
//!   only when asked for one more (pullable), or some time later from its
//!   thread (listenable) — rule 4: "A source MAY end a stream IF AND ONLY IF
//!   all of the conditions of (2) hold."
//! * It forgets the requests pending at a stop — rule 2 forbids emitting
//!   while stopped, and nothing carries a request over a stop.
//! * It shuts down at its first stop: a new start ends the stream (on the
//!   next request, pullable) instead of resuming — the preamble: "a source
//!   might decide to shut down the stream after it receives its first stop
//!   signal from the sink."
//! * Its failed source ends with a reason only when asked for data (or,
//!   listenable, once started) — rule 4: "The source MAY provide a reason
//!   (e.g. error)."
//!
//! What it must do it does: no emission or end while the stream is not
//! live (rules 2 and 4; a stop from another thread waits for the emission
//! in flight, so none begins after the stop returned), one greet per sink
//! (rule 1), one end per stream.

use std::cell::RefCell;
use std::sync::Arc;

use parking_lot::{Condvar, Mutex, ReentrantMutex};
use reactive_streams::{Sink, Source, StreamError, Talkback};
use reactive_streams_tck::streamlet::source::{SourceFactory, SourceKind};

/// How many sinks one lax source serves at once.
pub const CAPACITY: usize = 2;

/// The lax sources, pullable or listenable, declaring their capacity or
/// not.
#[derive(Debug, Clone, Copy)]
pub struct LaxSources {
    pub kind: SourceKind,
    /// Whether the factory declares `max_sinks_at_once()`: without it, the
    /// scenario with three sinks meets a refusal.
    pub declares_capacity: bool,
    /// How it refuses a sink beyond its capacity.
    pub refusal: Refusal,
}

/// How a lax source refuses a sink beyond the two it serves.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Refusal {
    /// Never greets it — rule 1: "A source MAY greet a sink with a
    /// talkback after they are connected."
    NeverGreets,
    /// Greets it and, once it starts (and, pullable, asks), ends its
    /// stream with a reason — rule 4: "A source MAY end a stream IF AND
    /// ONLY IF all of the conditions of (2) hold. The source MAY provide a
    /// reason (e.g. error)."
    EndsAtStart,
}

impl SourceFactory for LaxSources {
    type Element = u64;

    fn create_source(&self, elements: u64) -> Box<dyn Source<u64>> {
        Box::new(LaxSource::new(elements, self.kind, false, self.refusal))
    }

    fn kind(&self) -> SourceKind {
        self.kind
    }

    fn create_failed_source(&self) -> Option<Box<dyn Source<u64>>> {
        Some(Box::new(LaxSource::new(0, self.kind, true, self.refusal)))
    }

    /// A new start after a stop ends the stream: "an emission or an end
    /// after stop then start", which `tck_restart` holds it to.
    fn supports_restart(&self) -> bool {
        true
    }

    fn element_index(&self, data: &u64) -> Option<u64> {
        Some(*data)
    }

    fn max_sinks_at_once(&self) -> usize {
        if self.declares_capacity {
            CAPACITY
        } else {
            usize::MAX
        }
    }
}

/// See the [module](self) docs.
pub struct LaxSource {
    count: u64,
    kind: SourceKind,
    fails: bool,
    refusal: Refusal,
    /// Sinks greeted whose stream has not ended.
    attached: Arc<Mutex<usize>>,
}

impl LaxSource {
    fn new(count: u64, kind: SourceKind, fails: bool, refusal: Refusal) -> Self {
        LaxSource {
            count,
            kind,
            fails,
            refusal,
            attached: Arc::default(),
        }
    }
}

#[derive(Default)]
struct LaneState {
    live: bool,
    ended: bool,
    stopped_once: bool,
    /// A start after a stop: the stream ends instead of resuming.
    shut_down: bool,
    requests: u64,
    next: u64,
    /// The talkback is gone: nobody can start the stream again.
    orphaned: bool,
}

struct Lane {
    count: u64,
    pulls: bool,
    fails: bool,
    state: Mutex<LaneState>,
    wake: Condvar,
    /// Held for each signal; `stop` takes it too (re-entrantly from inside
    /// a signal), so a stop from another thread waits for the emission in
    /// flight.
    sink: ReentrantMutex<RefCell<Option<Box<dyn Sink<u64>>>>>,
    attached: Arc<Mutex<usize>>,
}

/// What the lane's thread does next.
enum Next {
    Emit(u64),
    End(Option<StreamError>),
    Wait,
    Exit,
}

impl Lane {
    /// The lane's thread: greets, then emits and ends as the stream allows.
    fn run(self: Arc<Self>) {
        let talkback = Arc::new(LaxTalkback(self.clone()));
        {
            let held = self.sink.lock();
            let mut slot = held.borrow_mut();
            if let Some(sink) = slot.as_mut() {
                sink.greet(talkback);
            }
        }
        loop {
            {
                let mut state = self.state.lock();
                while matches!(self.next(&state), Next::Wait) {
                    self.wake.wait(&mut state);
                }
            }
            let held = self.sink.lock();
            // Decided under the sink's lock: a stop may have come in between.
            let next = {
                let mut state = self.state.lock();
                let next = self.next(&state);
                match &next {
                    Next::Emit(data) => {
                        state.next = data + 1;
                        state.requests = state.requests.saturating_sub(1);
                    }
                    Next::End(_) => {
                        state.ended = true;
                        state.live = false;
                    }
                    Next::Wait | Next::Exit => {}
                }
                next
            };
            let Ok(mut slot) = held.try_borrow_mut() else {
                continue;
            };
            match next {
                Next::Emit(data) => {
                    if let Some(sink) = slot.as_mut() {
                        sink.receive(data);
                    }
                }
                Next::End(reason) => {
                    if let Some(mut sink) = slot.take() {
                        sink.end(reason);
                    }
                    *self.attached.lock() -= 1;
                    return;
                }
                Next::Wait => {}
                Next::Exit => return,
            }
        }
    }

    fn next(&self, state: &LaneState) -> Next {
        if state.ended || (state.orphaned && !state.live) {
            return Next::Exit;
        }
        if !state.live || (self.pulls && state.requests == 0) {
            return Next::Wait;
        }
        if self.fails {
            Next::End(Some(StreamError::msg("the lax failed source fails")))
        } else if state.shut_down || state.next == self.count {
            Next::End(None)
        } else {
            Next::Emit(state.next)
        }
    }
}

struct LaxTalkback(Arc<Lane>);

impl Talkback for LaxTalkback {
    fn start(&self) {
        let mut state = self.0.state.lock();
        if state.live || state.ended {
            return;
        }
        state.live = true;
        state.shut_down |= state.stopped_once;
        self.0.wake.notify_all();
    }

    fn request(&self) {
        let mut state = self.0.state.lock();
        if state.live {
            state.requests += 1;
            self.0.wake.notify_all();
        }
    }

    fn stop(&self, _reason: Option<StreamError>) {
        let _no_emission_in_flight = self.0.sink.lock();
        let mut state = self.0.state.lock();
        state.live = false;
        state.stopped_once = true;
        state.requests = 0;
    }
}

impl Drop for LaxTalkback {
    fn drop(&mut self) {
        self.0.state.lock().orphaned = true;
        self.0.wake.notify_all();
    }
}

impl Source<u64> for LaxSource {
    fn connect(&self, sink: Box<dyn Sink<u64>>) {
        let refused = {
            let mut attached = self.attached.lock();
            let refused = *attached >= CAPACITY;
            *attached += usize::from(!refused);
            refused
        };
        if refused && self.refusal == Refusal::NeverGreets {
            return;
        }
        let lane = Arc::new(Lane {
            count: self.count,
            pulls: self.kind != SourceKind::Listenable,
            fails: self.fails || refused,
            state: Mutex::new(LaneState::default()),
            wake: Condvar::new(),
            sink: ReentrantMutex::new(RefCell::new(Some(sink))),
            // A refused sink's end frees no place.
            attached: if refused {
                Arc::new(Mutex::new(1))
            } else {
                self.attached.clone()
            },
        });
        std::thread::Builder::new()
            .name(String::from("lax-source"))
            .spawn(move || lane.run())
            .expect("a thread for the source");
    }
}

#[cfg(test)]
mod tests {
    use reactive_streams_tck::outcome::Verdict;
    use reactive_streams_tck::streamlet::source::{SourceKind, SourceVerification};
    use rstest::rstest;

    use super::{LaxSources, Refusal};

    /// Declaring what it serves at once, every quick test runs within it
    /// and passes, none skipped.
    #[rstest]
    #[case::pullable(SourceKind::Pullable)]
    #[case::listenable(SourceKind::Listenable)]
    fn the_laxest_sources_pass_every_quick_test(#[case] kind: SourceKind) {
        let factory = LaxSources {
            kind,
            declares_capacity: true,
            refusal: Refusal::NeverGreets,
        };
        let results = SourceVerification::new(factory)
            .env(crate::extended::passing_env())
            .run_all()
            .unwrap();
        crate::verdicts::assert_all_passed(&format!("{kind:?}"), &results);
    }

    /// Declaring nothing, the scenario with three sinks meets the refusal
    /// of the third: not concluded, never failed (issue 38 §2).
    #[test]
    fn a_refused_third_sink_is_not_a_failure() {
        let factory = LaxSources {
            kind: SourceKind::Pullable,
            declares_capacity: false,
            refusal: Refusal::NeverGreets,
        };
        let results = SourceVerification::new(factory).run_all().unwrap();
        let skips = crate::verdicts::assert_clean_and_skips_explained("undeclared", &results);
        assert_eq!(skips.len(), 1, "{skips:#?}");
        let result = results.iter().find(|r| r.test == "streamlet_1_a").unwrap();
        assert_eq!(result.verdict, Verdict::Skipped);
        let message = result.message.as_deref().unwrap();
        assert!(
            message.starts_with("not concluded: the source refused sink C, the third sink"),
            "{message}"
        );
        assert!(message.contains("rule 1 allows it"), "{message}");
    }

    /// The extended verification: generated sink scripts and the stress.
    #[rstest]
    #[case::pullable(SourceKind::Pullable)]
    #[case::listenable(SourceKind::Listenable)]
    fn the_laxest_sources_pass_the_extended_verification(#[case] kind: SourceKind) {
        let factory = LaxSources {
            kind,
            declares_capacity: true,
            refusal: Refusal::NeverGreets,
        };
        let results = SourceVerification::new(factory)
            .env(crate::extended::passing_env())
            .extended(crate::extended::config(200, 10))
            .run_extended()
            .unwrap();
        crate::verdicts::assert_passed_or_skipped_with_reason(&format!("{kind:?}"), &results);
    }

    /// Declaring nothing and refusing the third sink by ending its stream
    /// with a reason once it starts: every scenario concludes and passes.
    #[rstest]
    #[case::pullable(SourceKind::Pullable)]
    #[case::listenable(SourceKind::Listenable)]
    fn a_sink_refused_at_its_start_passes(#[case] kind: SourceKind) {
        let factory = LaxSources {
            kind,
            declares_capacity: false,
            refusal: Refusal::EndsAtStart,
        };
        let results = SourceVerification::new(factory)
            .env(crate::extended::passing_env())
            .run_all()
            .unwrap();
        crate::verdicts::assert_all_passed(&format!("{kind:?}"), &results);
    }
}
