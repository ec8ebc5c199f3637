//! Streamlet sources, sinks and bridges.

mod support;
#[path = "support/threaded_pull.rs"]
mod threaded_pull;

use std::sync::{Arc, Mutex};

use reactive_streams::{Publisher, Sink, Source, StreamError, Talkback};
use reactive_streams_reference::streamlet::{
    CollectSink, HybridSource, ListenSource, PublisherSource, PullSource, SourcePublisher,
};
use reactive_streams_reference::{Overflow, collect, range};
use support::{DEADLINE, Event, recorder};
use threaded_pull::ThreadedPull;

#[derive(Debug, Clone, PartialEq)]
enum Seen {
    Data(u64),
    End(Option<String>),
}

/// A sink the test steers through its talkback.
#[derive(Clone, Default)]
struct Manual {
    talkback: Arc<Mutex<Option<Arc<dyn Talkback>>>>,
    seen: Arc<Mutex<Vec<Seen>>>,
}

impl Manual {
    fn tb(&self) -> Arc<dyn Talkback> {
        self.talkback.lock().unwrap().clone().expect("greeted")
    }
    fn seen(&self) -> Vec<Seen> {
        self.seen.lock().unwrap().clone()
    }
}

impl Sink<u64> for Manual {
    fn greet(&mut self, talkback: Arc<dyn Talkback>) {
        let mut slot = self.talkback.lock().unwrap();
        assert!(slot.is_none(), "rule 1: greeted twice");
        *slot = Some(talkback);
    }
    fn receive(&mut self, data: u64) {
        self.seen.lock().unwrap().push(Seen::Data(data));
    }
    fn end(&mut self, reason: Option<StreamError>) {
        self.seen
            .lock()
            .unwrap()
            .push(Seen::End(reason.map(|e| e.to_string())));
    }
}

#[test]
fn pullable_answers_requests_only_while_started() {
    let source = PullSource::new(|| 0..3u64);
    let sink = Manual::default();
    source.connect(Box::new(sink.clone()));
    let tb = sink.tb();
    tb.request(); // not started: ignored (rule 2)
    assert!(sink.seen().is_empty());
    tb.start();
    tb.request();
    assert_eq!(sink.seen(), vec![Seen::Data(0)]);
    tb.stop(None);
    tb.request();
    assert_eq!(sink.seen().len(), 1, "nothing while stopped");
    tb.start(); // resume where it stopped
    tb.request();
    tb.request();
    assert_eq!(
        sink.seen(),
        vec![Seen::Data(0), Seen::Data(1), Seen::Data(2), Seen::End(None)]
    );
}

#[test]
fn pullable_does_not_end_while_stopped() {
    let source = PullSource::new(|| 0..1u64);
    let sink = Manual::default();
    source.connect(Box::new(sink.clone()));
    let tb = sink.tb();
    tb.start();
    tb.request();
    assert_eq!(sink.seen(), vec![Seen::Data(0), Seen::End(None)]);

    let empty = PullSource::new(|| 0..0u64);
    let sink = Manual::default();
    empty.connect(Box::new(sink.clone()));
    assert!(sink.seen().is_empty(), "rule 4: no end before start");
    sink.tb().start();
    assert_eq!(sink.seen(), vec![Seen::End(None)]);
}

#[test]
fn pullable_is_trampolined() {
    let (sink, all) = CollectSink::new();
    PullSource::new(|| 0..100_000u64).connect(Box::new(sink));
    assert_eq!(futures::executor::block_on(all).unwrap().len(), 100_000);
}

#[test]
fn listenable_pushes_to_started_sinks_only() {
    let source = ListenSource::new();
    let sink = Manual::default();
    source.connect(Box::new(sink.clone()));
    source.emit(1);
    assert!(sink.seen().is_empty());
    let tb = sink.tb();
    tb.start();
    source.emit(2);
    tb.stop(None);
    source.emit(3);
    tb.start();
    source.emit(4);
    source.end(Some(StreamError::msg("bye")));
    assert_eq!(
        sink.seen(),
        vec![Seen::Data(2), Seen::Data(4), Seen::End(Some("bye".into()))]
    );
}

#[test]
fn hybrid_pushes_and_answers_pulls() {
    let source = HybridSource::new();
    source.emit(7);
    let sink = Manual::default();
    source.connect(Box::new(sink.clone()));
    let tb = sink.tb();
    tb.start();
    tb.request();
    source.emit(8);
    tb.stop(None);
    source.emit(9);
    tb.start();
    tb.request();
    assert_eq!(
        sink.seen(),
        vec![Seen::Data(7), Seen::Data(8), Seen::Data(9)]
    );
}

#[test]
fn publisher_source_pulls_one_per_request_and_pauses() {
    let source = PublisherSource::new(range(0, 3));
    let sink = Manual::default();
    source.connect(Box::new(sink.clone()));
    let tb = sink.tb();
    tb.start();
    tb.request();
    tb.stop(None);
    tb.start();
    tb.request();
    tb.request();
    assert_eq!(
        sink.seen(),
        vec![Seen::Data(0), Seen::Data(1), Seen::Data(2), Seen::End(None)]
    );
}

#[test]
fn source_publisher_turns_demand_into_pulls() {
    let publisher = SourcePublisher::new(PullSource::new(|| 0..10u64), 4, Overflow::Error);
    let (subscriber, probe) = recorder::<u64>();
    publisher.subscribe(Box::new(subscriber));
    probe.request(3);
    assert_eq!(probe.elements(), vec![0, 1, 2]);
    probe.request(100);
    assert!(probe.completed());
    assert_eq!(probe.elements().len(), 10);
    assert!(probe.violations().is_empty());
    assert!(probe.wait_dropped());
}

#[test]
fn source_publisher_buffers_a_push_source_with_its_policy() {
    let source = ListenSource::new();
    let publisher = SourcePublisher::new(source.clone(), 2, Overflow::DropOldest);
    let (subscriber, probe) = recorder::<u64>();
    publisher.subscribe(Box::new(subscriber));
    for i in 0..5 {
        source.emit(i);
    }
    probe.request(10);
    assert_eq!(probe.elements(), vec![3, 4]);
    probe.cancel();
    assert!(probe.wait_dropped());
    source.emit(5);
    assert_eq!(probe.elements(), vec![3, 4]);
}

#[test]
fn bridges_round_trip() {
    let there = PublisherSource::new(range(0, 50));
    let back = SourcePublisher::new(there, 8, Overflow::Error);
    let all = futures::executor::block_on(collect(&back)).unwrap();
    assert_eq!(all, (0..50).collect::<Vec<_>>());
}

/// A source that greets from a thread the test spawns, with a talkback
/// whose `start` the test holds open and which records every call: what
/// a [`SourcePublisher`] does while its source is starting.
#[derive(Clone, Default)]
struct Gated {
    sink: Arc<Mutex<Option<Box<dyn Sink<u64>>>>>,
}

impl Source<u64> for Gated {
    fn connect(&self, sink: Box<dyn Sink<u64>>) {
        *self.sink.lock().unwrap() = Some(sink);
    }
}

struct GateTalkback {
    calls: Arc<Mutex<Vec<&'static str>>>,
    entered: std::sync::mpsc::Sender<()>,
    release: Mutex<std::sync::mpsc::Receiver<()>>,
}

impl Talkback for GateTalkback {
    fn start(&self) {
        self.entered.send(()).unwrap();
        self.release.lock().unwrap().recv().unwrap();
        self.calls.lock().unwrap().push("start");
    }
    fn request(&self) {
        self.calls.lock().unwrap().push("request");
    }
    fn stop(&self, _reason: Option<StreamError>) {
        self.calls.lock().unwrap().push("stop");
    }
}

/// Subscribes to a [`SourcePublisher`] over a [`Gated`] source, requests,
/// greets from another thread, runs `meanwhile` while the source's
/// `start` is held open, then lets it return: the talkback calls, in order.
fn while_starting(meanwhile: impl FnOnce(&support::Probe<u64>)) -> Vec<&'static str> {
    let source = Gated::default();
    let publisher = SourcePublisher::new(source.clone(), 1, Overflow::Error);
    let (subscriber, probe) = recorder::<u64>();
    publisher.subscribe(Box::new(subscriber));
    probe.request(1);
    let calls = Arc::new(Mutex::new(Vec::new()));
    let (entered, inside_start) = std::sync::mpsc::channel();
    let (release, released) = std::sync::mpsc::channel();
    let talkback = Arc::new(GateTalkback {
        calls: calls.clone(),
        entered,
        release: Mutex::new(released),
    });
    let mut sink = source.sink.lock().unwrap().take().expect("connected");
    let greeter = std::thread::spawn(move || sink.greet(talkback));
    inside_start.recv().unwrap();
    meanwhile(&probe);
    release.send(()).unwrap();
    greeter.join().unwrap();
    calls.lock().unwrap().clone()
}

/// Regression (issue 31): the bridge published the talkback before it
/// started the source, so a request from the subscriber's thread in
/// between pulled before `start` (Streamlet rule 3), and a source ignoring
/// that pull left it in flight for ever: the stream stalled with demand.
#[test]
fn source_publisher_pulls_only_once_the_source_started() {
    let calls = while_starting(|probe| probe.request(1));
    assert_eq!(calls, ["start", "request"]);
}

/// Regression (issue 31): a cancel while the source is starting stops it
/// once started, never before (Streamlet rule 6).
#[test]
fn source_publisher_cancelled_while_starting_stops_the_source_after_start() {
    let calls = while_starting(|probe| probe.cancel());
    assert_eq!(calls, ["start", "stop"]);
}

/// Regression (issue 31): the bridge took a pulled datum out of flight
/// before it put it into the slot, so a poll in between (a request from
/// another thread) found neither and pulled once more than the demand.
/// The extras piled up, and two of them overflowed a buffer of 1: the
/// subscriber got a spurious `BufferOverflow`. Two threads request 1 at
/// once, round after round, against a source answering from its own
/// thread; every round must bring its two elements.
#[test]
fn source_publisher_pulls_no_more_than_the_demand_under_racing_requests() {
    const PUBLISHERS: u64 = 200;
    const ROUNDS: u64 = 100;
    for publisher in 0..PUBLISHERS {
        let bridge = SourcePublisher::new(ThreadedPull { elements: u64::MAX }, 1, Overflow::Error);
        let (subscriber, probe) = recorder::<u64>();
        bridge.subscribe(Box::new(subscriber));
        let at_once = std::sync::Barrier::new(2);
        let round_done = std::sync::Barrier::new(3);
        let stop = std::sync::atomic::AtomicBool::new(false);
        let seen = std::thread::scope(|scope| {
            for _ in 0..2 {
                let probe = probe.clone();
                let (at_once, round_done, stop) = (&at_once, &round_done, &stop);
                scope.spawn(move || {
                    for _ in 0..ROUNDS {
                        at_once.wait();
                        probe.request(1);
                        round_done.wait();
                        if stop.load(std::sync::atomic::Ordering::SeqCst) {
                            return;
                        }
                    }
                });
            }
            for round in 1..=ROUNDS {
                let owed = usize::try_from(2 * round).unwrap();
                probe.wait_until(DEADLINE, |log| {
                    log.elements_len() >= owed
                        || log.events.iter().any(|e| matches!(e, Event::Error(_)))
                });
                let seen = (probe.error().map(|e| e.to_string()), probe.elements().len());
                if seen != (None, owed) {
                    // Release the requesting threads before failing.
                    stop.store(true, std::sync::atomic::Ordering::SeqCst);
                    round_done.wait();
                    return Some((round, seen, owed));
                }
                round_done.wait();
            }
            None
        });
        assert_eq!(
            seen, None,
            "publisher {publisher}: (round, (error, elements), owed)"
        );
        probe.cancel();
    }
}
