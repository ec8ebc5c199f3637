//! Bridges between the two protocols: [`PublisherSource`] and
//! [`SourcePublisher`].

use std::sync::Arc;

use std::task::{Context, Poll};

use parking_lot::Mutex;
use reactive_streams::{Publisher, Sink, Source, StreamError, Subscriber, Subscription, Talkback};

use super::SinkSubscriber;
use crate::drain::{Drain, Emission, Producer};
use crate::executor::Executor;
use crate::hub::{self, SlotDrain};
use crate::overflow::{BoundedBuffer, Overflow};
use crate::serial::SerialUpstream;
use crate::slot::{Slot, SlotProducer};

/// Any publisher as a pullable streamlet source: each sink gets its own
/// subscription; each `request` asks upstream for one element. `stop(None)`
/// pauses (elements already requested wait in a buffer and answer the
/// requests made after `start`); `stop(Some(_))`
/// also cancels the upstream subscription, so the stream will not resume.
///
/// ```
/// use reactive_streams::Source;
/// use reactive_streams_reference::range;
/// use reactive_streams_reference::streamlet::{CollectSink, PublisherSource};
///
/// let source = PublisherSource::new(range(0, 3));
/// let (sink, all) = CollectSink::new();
/// source.connect(Box::new(sink));
/// assert_eq!(futures::executor::block_on(all).unwrap(), vec![0, 1, 2]);
/// ```
pub struct PublisherSource<T> {
    publisher: Arc<dyn Publisher<T>>,
}

impl<T: Send + 'static> PublisherSource<T> {
    /// Wraps `publisher`.
    pub fn new(publisher: impl Publisher<T> + 'static) -> Self {
        PublisherSource {
            publisher: Arc::new(publisher),
        }
    }
}

impl<T: Send + 'static> Source<T> for PublisherSource<T> {
    fn connect(&self, sink: Box<dyn Sink<T>>) {
        let (slot, drain) = hub::open(BoundedBuffer::unbounded(), Executor::Inline);
        drain.pause();
        let upstream = Arc::new(SerialUpstream::new());
        self.publisher.subscribe(Box::new(Inlet {
            slot,
            upstream: upstream.clone(),
        }));
        let talkback = Arc::new(BridgeTalkback {
            drain: drain.clone(),
            upstream,
        });
        let subscription: Arc<dyn Subscription> = drain.clone();
        drain.start(
            Box::new(SinkSubscriber {
                sink,
                talkback: Some(talkback),
            }),
            subscription,
        );
    }
}

/// The subscriber a [`PublisherSource`] subscribes upstream.
struct Inlet<T> {
    slot: Arc<Slot<T>>,
    upstream: Arc<SerialUpstream>,
}

impl<T: Send + 'static> Subscriber<T> for Inlet<T> {
    fn on_subscribe(&mut self, subscription: Arc<dyn Subscription>) {
        self.upstream.set(subscription);
    }
    fn on_next(&mut self, element: T) {
        self.slot.offer(element);
    }
    fn on_error(&mut self, error: StreamError) {
        self.upstream.clear();
        self.slot.finish(Some(error));
    }
    fn on_complete(&mut self) {
        self.upstream.clear();
        self.slot.finish(None);
    }
}

struct BridgeTalkback<T: Send + 'static> {
    drain: Arc<SlotDrain<T>>,
    upstream: Arc<SerialUpstream>,
}

impl<T: Send + 'static> Talkback for BridgeTalkback<T> {
    fn start(&self) {
        self.drain.resume();
    }

    fn request(&self) {
        if !self.drain.is_paused() {
            self.drain.request(1);
            self.upstream.request(1);
        }
    }

    fn stop(&self, reason: Option<StreamError>) {
        // Elements already requested upstream still arrive; they wait in
        // the buffer and answer the sink's next requests after `start`.
        self.drain.pause();
        if reason.is_some() {
            self.upstream.cancel();
        }
    }
}

/// Any streamlet source as a publisher. Each subscriber connects its own
/// sink to the source and starts it; demand is turned into pulls (one
/// `request` at a time, the next once the previous datum arrived), and data
/// a push source sends beyond demand waits in a buffer of `capacity` with
/// the given [`Overflow`] policy. Cancelling stops the source with a reason.
///
/// # Push sources: the overflow policy
///
/// A pullable source sends only what was pulled, so its buffer never holds
/// more than one datum. A listenable (or hybrid) source pushes whenever it
/// has data, demand or not; what the subscriber has not asked for yet waits
/// in its buffer of `capacity`, and when that is full the policy decides:
///
/// | policy | when a datum arrives at a full buffer | the subscriber sees |
/// |---|---|---|
/// | [`Overflow::Error`] | nothing is dropped silently | `on_error(`[`BufferOverflow`](crate::overflow::BufferOverflow)`)` at once, buffered data discarded |
/// | [`Overflow::DropOldest`] | the oldest buffered datum makes room | the freshest `capacity` data once it requests |
/// | [`Overflow::DropNewest`] | the new datum is dropped | the first `capacity` data since it last caught up |
///
/// A buffer of `n` loses nothing of a source that pushes at most `n` data
/// (the reference TCK run bridges hot sources of `n` that way, with
/// `Overflow::Error`, and passes the whole publisher verification); a
/// capacity of `usize::MAX` buffers without bound. Elements are never lost
/// while demand keeps up: the buffer only holds what was pushed beyond it.
///
/// ```
/// use reactive_streams_reference::collect;
/// use reactive_streams_reference::overflow::Overflow;
/// use reactive_streams_reference::streamlet::{PullSource, SourcePublisher};
///
/// let publisher = SourcePublisher::new(PullSource::new(|| 0..4), 16, Overflow::Error);
/// let all = futures::executor::block_on(collect(&publisher)).unwrap();
/// assert_eq!(all, vec![0, 1, 2, 3]);
/// ```
///
/// A listenable source pushing five data to a subscriber that has not
/// requested yet, with a buffer of two:
///
/// ```
/// use std::sync::{Arc, Mutex};
/// use reactive_streams::{Publisher, StreamError, Subscriber, Subscription};
/// use reactive_streams_reference::overflow::Overflow;
/// use reactive_streams_reference::streamlet::{ListenSource, SourcePublisher};
///
/// #[derive(Clone, Default)]
/// struct Record(Arc<Mutex<(Option<Arc<dyn Subscription>>, Vec<u32>, bool)>>);
/// impl Subscriber<u32> for Record {
///     fn on_subscribe(&mut self, s: Arc<dyn Subscription>) { self.0.lock().unwrap().0 = Some(s); }
///     fn on_next(&mut self, x: u32) { self.0.lock().unwrap().1.push(x); }
///     fn on_error(&mut self, _: StreamError) { self.0.lock().unwrap().2 = true; }
///     fn on_complete(&mut self) {}
/// }
///
/// for (policy, seen, failed) in [
///     (Overflow::DropOldest, vec![3, 4], false),
///     (Overflow::DropNewest, vec![0, 1], false),
///     (Overflow::Error, vec![], true),
/// ] {
///     let clicks = ListenSource::new();
///     let record = Record::default();
///     SourcePublisher::new(clicks.clone(), 2, policy).subscribe(Box::new(record.clone()));
///     (0..5).for_each(|x| clicks.emit(x));
///     let subscription = record.0.lock().unwrap().0.clone().unwrap();
///     subscription.request(10);
///     let state = record.0.lock().unwrap();
///     assert_eq!((state.1.clone(), state.2), (seen, failed), "{policy:?}");
/// }
/// ```
pub struct SourcePublisher<T> {
    source: Arc<dyn Source<T>>,
    capacity: usize,
    policy: Overflow,
}

impl<T: Send + 'static> SourcePublisher<T> {
    /// Wraps `source`, buffering up to `capacity` undemanded data.
    pub fn new(source: impl Source<T> + 'static, capacity: usize, policy: Overflow) -> Self {
        SourcePublisher {
            source: Arc::new(source),
            capacity,
            policy,
        }
    }
}

impl<T: Send + 'static> Publisher<T> for SourcePublisher<T> {
    fn subscribe(&self, subscriber: Box<dyn Subscriber<T>>) {
        let slot = Slot::new(BoundedBuffer::new(self.capacity, self.policy));
        let puller = Arc::new(Mutex::new(Pull {
            talkback: None,
            greeted: false,
            in_flight: false,
            ended: false,
            stop_owed: false,
        }));
        let drain = Drain::new(
            PullProducer {
                inner: SlotProducer(slot.clone()),
                puller: puller.clone(),
            },
            Executor::Inline,
        );
        slot.set_waker(drain.waker());
        self.source.connect(Box::new(Outlet {
            slot,
            puller: puller.clone(),
        }));
        let subscription = Arc::new(PullSubscription {
            drain: drain.clone(),
            puller,
        });
        drain.start(subscriber, subscription);
    }
}

struct Pull {
    /// The talkback, once the source is started: the bridge pulls only
    /// through a started stream (Streamlet rule 3).
    talkback: Option<Arc<dyn Talkback>>,
    /// The source greeted the outlet (once: later greets are ignored).
    greeted: bool,
    /// A pull was sent and its datum has not arrived.
    in_flight: bool,
    /// The source ended the stream, or the subscriber stopped it.
    ended: bool,
    /// The subscriber stopped the stream while the outlet was starting the
    /// source: the outlet stops it once `start` has returned.
    stop_owed: bool,
}

/// Reads the slot and, when it is empty, pulls one datum from the source:
/// pulls happen only while the drain has demand, one at a time.
struct PullProducer<T> {
    inner: SlotProducer<T>,
    puller: Arc<Mutex<Pull>>,
}

impl<T: Send + 'static> Producer<T> for PullProducer<T> {
    fn poll_produce(&mut self, cx: &mut Context<'_>) -> Emission<T> {
        let talkback = {
            let mut pull = self.puller.lock();
            // The slot is read under the puller's lock, which `Outlet::receive`
            // holds while it takes a datum out of flight and into the slot:
            // otherwise a poll could find the slot empty and no pull in
            // flight while a datum is between the two, and pull one more
            // than the demand (a spurious `BufferOverflow` at capacity 1).
            if let Poll::Ready(next) = self.inner.poll_produce(cx) {
                return Poll::Ready(next);
            }
            if pull.in_flight || pull.ended {
                return Poll::Pending;
            }
            let Some(talkback) = pull.talkback.clone() else {
                return Poll::Pending;
            };
            pull.in_flight = true;
            talkback
        };
        // A synchronous source answers inside this call (into the slot).
        talkback.request();
        self.inner.poll_produce(cx)
    }

    fn poll_terminal(&mut self) -> Option<Option<StreamError>> {
        self.inner.poll_terminal()
    }
}

struct PullSubscription<T: Send + 'static> {
    drain: Arc<Drain<T, PullProducer<T>>>,
    puller: Arc<Mutex<Pull>>,
}

impl<T: Send + 'static> PullSubscription<T> {
    fn stop_source(&self) {
        let talkback = {
            let mut pull = self.puller.lock();
            if pull.ended {
                return;
            }
            pull.ended = true;
            let talkback = pull.talkback.take();
            // No talkback yet: if the outlet is starting the source, its
            // `greet` stops it once `start` returned (rule 6: no stop
            // before); if it was not greeted, it will not start it.
            pull.stop_owed = talkback.is_none();
            talkback
        };
        if let Some(talkback) = talkback {
            talkback.stop(Some(StreamError::msg("the subscriber cancelled")));
        }
    }
}

impl<T: Send + 'static> Subscription for PullSubscription<T> {
    fn request(&self, n: u64) {
        self.drain.request(n);
        if n == 0 {
            self.stop_source();
        }
    }

    fn cancel(&self) {
        self.drain.cancel();
        self.stop_source();
    }
}

/// The sink a [`SourcePublisher`] connects to the source.
struct Outlet<T> {
    slot: Arc<Slot<T>>,
    puller: Arc<Mutex<Pull>>,
}

impl<T: Send + 'static> Sink<T> for Outlet<T> {
    fn greet(&mut self, talkback: Arc<dyn Talkback>) {
        {
            let mut pull = self.puller.lock();
            if pull.ended || pull.greeted {
                return;
            }
            pull.greeted = true;
        }
        talkback.start();
        // Published only now, so that no pull (from the subscriber's
        // thread, say) reaches a source greeting from a thread of its own
        // before its start: a request before `start` breaks rule 3, and a
        // source ignoring it would leave the pull in flight for ever.
        let stop = {
            let mut pull = self.puller.lock();
            if !pull.ended {
                pull.talkback = Some(talkback.clone());
            }
            // The source may have ended inside `start`: then no stop.
            std::mem::take(&mut pull.stop_owed)
        };
        if stop {
            talkback.stop(Some(StreamError::msg("the subscriber cancelled")));
        }
        self.slot.poke();
    }

    fn receive(&mut self, data: T) {
        // Out of flight and into the slot in one step (see
        // `PullProducer::poll_produce`); the reader is woken after.
        let wake = {
            let mut pull = self.puller.lock();
            pull.in_flight = false;
            self.slot.push(data)
        };
        if wake == Some(true) {
            self.slot.poke();
        }
    }

    fn end(&mut self, reason: Option<StreamError>) {
        {
            let mut pull = self.puller.lock();
            pull.ended = true;
            pull.talkback = None;
            // Nothing to stop after an end (rule 6).
            pull.stop_owed = false;
        }
        self.slot.finish(reason);
    }
}
