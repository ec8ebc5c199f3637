//! How each reference stage holds and releases datum-done tokens, shown on
//! synchronous pipelines (everything has happened when `request` returns).

use std::sync::Arc;
use std::sync::mpsc::Receiver;

use parking_lot::Mutex;
use reactive_streams::done::{DoneLedger, Tracked};
use reactive_streams::{Publisher, StreamError, Subscriber, Subscription};
use reactive_streams_reference::{
    BufferProcessor, FilterProcessor, FlatMapProcessor, IterPublisher, SlidingWindowProcessor,
    WindowProcessor, combine_latest_with,
};

/// Holds what it receives until the test drops it.
struct Holder<T> {
    inner: Arc<Mutex<Held<T>>>,
}

impl<T> Clone for Holder<T> {
    fn clone(&self) -> Self {
        Holder {
            inner: self.inner.clone(),
        }
    }
}

impl<T> Default for Holder<T> {
    fn default() -> Self {
        Holder {
            inner: Arc::default(),
        }
    }
}

struct Held<T> {
    items: Vec<T>,
    subscription: Option<Arc<dyn Subscription>>,
    ended: bool,
}

impl<T> Default for Held<T> {
    fn default() -> Self {
        Held {
            items: Vec::new(),
            subscription: None,
            ended: false,
        }
    }
}

impl<T> Holder<T> {
    fn request(&self, n: u64) {
        let subscription = self.inner.lock().subscription.clone().unwrap();
        subscription.request(n);
    }
    fn cancel(&self) {
        let subscription = self.inner.lock().subscription.clone().unwrap();
        subscription.cancel();
    }
    fn take(&self) -> Vec<T> {
        std::mem::take(&mut self.inner.lock().items)
    }
}

impl<T: Send + 'static> Subscriber<T> for Holder<T> {
    fn on_subscribe(&mut self, subscription: Arc<dyn Subscription>) {
        self.inner.lock().subscription = Some(subscription);
    }
    fn on_next(&mut self, element: T) {
        self.inner.lock().items.push(element);
    }
    fn on_error(&mut self, _: StreamError) {
        self.inner.lock().ended = true;
    }
    fn on_complete(&mut self) {
        self.inner.lock().ended = true;
    }
}

/// `count` tracked records with ids 0.., and the channel of done ids.
fn records(
    count: u64,
) -> (
    IterPublisher<impl Iterator<Item = Tracked<u64>>>,
    Receiver<u64>,
) {
    let (ledger, done) = DoneLedger::channel();
    let source = IterPublisher::new(move || {
        let ledger = ledger.clone();
        (0..count).map(move |id| Tracked::new(id, ledger.issue(id)))
    });
    (source, done)
}

fn done_now(done: &Receiver<u64>) -> Vec<u64> {
    let mut ids: Vec<u64> = done.try_iter().collect();
    ids.sort_unstable();
    ids
}

#[test]
fn a_filter_releases_what_it_drops_at_once() {
    let (source, done) = records(4);
    let odd = FilterProcessor::new(|t: &Tracked<u64>| t.value % 2 == 1);
    let sink = Holder::default();
    odd.subscribe(Box::new(sink.clone()));
    source.subscribe(Box::new(odd));
    sink.request(2);
    assert_eq!(done_now(&done), [0, 2]);
    drop(sink.take());
    assert_eq!(done_now(&done), [1, 3]);
}

#[test]
fn a_buffer_holds_what_it_caches_and_cancellation_releases_it() {
    let (source, done) = records(10);
    let buffer = BufferProcessor::new(4);
    let sink = Holder::default();
    buffer.subscribe(Box::new(sink.clone()));
    source.subscribe(Box::new(buffer.clone()));
    sink.request(1);
    drop(sink.take());
    // 0 was consumed; the buffer prefetched 1..=4 and holds them (and the
    // source pulled 5 ahead to see whether the stream ends).
    assert_eq!(done_now(&done), [0]);
    sink.cancel();
    assert_eq!(done_now(&done), [1, 2, 3, 4, 5]);
}

#[test]
fn a_window_holds_its_open_window_and_passes_it_on_whole() {
    let (source, done) = records(5);
    let windows = WindowProcessor::new(2);
    let sink = Holder::default();
    windows.subscribe(Box::new(sink.clone()));
    source.subscribe(Box::new(windows.clone()));
    sink.request(1);
    let first = sink.take();
    assert_eq!(first[0].len(), 2);
    assert_eq!(done_now(&done), []);
    drop(first);
    assert_eq!(done_now(&done), [0, 1]);
    sink.request(5);
    drop(sink.take());
    assert_eq!(done_now(&done), [2, 3, 4]);
}

#[test]
fn a_sliding_window_releases_a_datum_after_its_last_window() {
    let (source, done) = records(4);
    let windows = SlidingWindowProcessor::new(2);
    let sink = Holder::default();
    windows.subscribe(Box::new(sink.clone()));
    source.subscribe(Box::new(windows.clone()));
    sink.request(1);
    drop(sink.take()); // [0, 1]: 0 leaves, 1 stays for the next window
    assert_eq!(done_now(&done), [0]);
    sink.request(1);
    drop(sink.take()); // [1, 2]
    assert_eq!(done_now(&done), [1]);
}

#[test]
fn flat_map_keeps_an_input_until_its_last_output_is_done() {
    let (source, done) = records(2);
    let spread = FlatMapProcessor::new(|t: Tracked<u64>| {
        let value = t.value;
        t.fan_out([value * 10, value * 10 + 1])
    });
    let sink = Holder::default();
    spread.subscribe(Box::new(sink.clone()));
    source.subscribe(Box::new(spread.clone()));
    sink.request(1);
    let mut outputs = sink.take();
    assert_eq!(outputs[0].value, 0);
    drop(outputs.pop());
    // The second output of record 0 is still pending inside the operator.
    assert_eq!(done_now(&done), []);
    sink.request(1);
    drop(sink.take());
    assert_eq!(done_now(&done), [0]);
    sink.cancel();
    assert_eq!(done_now(&done), [1]);
}

#[test]
fn combine_latest_releases_a_replaced_datum_once_its_outputs_are_done() {
    let (left, left_done) = records(1);
    let (right, right_done) = records(3);
    let latest = combine_latest_with(left, right, Tracked::zip);
    let sink = Holder::default();
    latest.subscribe(Box::new(sink.clone()));
    sink.request(u64::MAX);
    let outputs = sink.take();
    assert_eq!(outputs.len(), 3);
    assert!(outputs.iter().all(|o| o.tokens.ids().len() == 2));
    // Replaced right-hand data are held only by the outputs now.
    assert_eq!(done_now(&right_done), []);
    drop(outputs);
    assert_eq!(done_now(&left_done), [0]);
    assert_eq!(done_now(&right_done), [0, 1, 2]);
    assert!(sink.inner.lock().ended);
}

#[test]
fn a_multicast_processor_keeps_a_datum_until_every_subscriber_is_done_with_it() {
    let (source, done) = records(2);
    let identity = reactive_streams_reference::IdentityProcessor::new();
    let (first, second) = (Holder::default(), Holder::default());
    identity.subscribe(Box::new(first.clone()));
    identity.subscribe(Box::new(second.clone()));
    source.subscribe(Box::new(identity.clone()));
    first.request(2);
    second.request(2);
    drop(first.take());
    assert_eq!(done_now(&done), []);
    drop(second.take());
    assert_eq!(done_now(&done), [0, 1]);
}
