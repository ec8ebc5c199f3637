//! Streamlet sources, sinks and bridges.

mod support;

use std::sync::{Arc, Mutex};

use reactive_streams::{Publisher, Sink, Source, StreamError, Talkback};
use reactive_streams_reference::streamlet::{
    CollectSink, HybridSource, ListenSource, PublisherSource, PullSource, SourcePublisher,
};
use reactive_streams_reference::{Overflow, collect, range};
use support::recorder;

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
