//! The Streamlet TCK run against the reference streamlets: every kind of
//! source (pullable, listenable, hybrid) verified directly and bridged to a
//! publisher, the publisher-to-source bridge, and the sinks.
//!
//! `cargo test -p reactive-streams-reference --test tck_streamlets` runs it
//! as plain tests; `cargo xtask tck` runs the same tests one process each and
//! reports rule by rule.
//!
//! # Hot sources under a TCK that counts
//!
//! The TCK asks for "a source that delivers exactly `n` data to each sink
//! that starts the stream". A pullable source answers `n` requests; a hot
//! source ([`ListenSource`], [`HybridSource`]) pushes whatever it is given,
//! to whoever has started at that moment. [`FedOnStart`] turns one into the
//! other without changing it: each connected sink gets a fresh source, and
//! the first time that sink starts the stream, a feeder pushes `0..n` and
//! ends — inside the `start` call ([`Feeding::InsideStart`]) or from a
//! thread of its own ([`Feeding::FromThread`], as events and network data
//! arrive). The talkback the sink sees forwards every call unchanged; what
//! the TCK judges is the reference source's own behaviour.

use std::marker::PhantomData;
use std::sync::Arc;
use std::time::Duration;

use parking_lot::Mutex;
use reactive_streams::{Publisher, Sink, Source, StreamError, Talkback};
use reactive_streams_reference::streamlet::{
    CallbackSink, CollectSink, HybridSource, ListenSource, PublisherSource, PullSource,
    SourcePublisher, interval,
};
use reactive_streams_reference::{Overflow, failed, range};
use reactive_streams_tck::publisher::PublisherFactory;
use reactive_streams_tck::streamlet::sink::SinkFactory;
use reactive_streams_tck::streamlet::source::{SourceFactory, SourceKind};
use reactive_streams_tck::{
    publisher_verification, streamlet_sink_verification, streamlet_source_verification,
};

#[path = "support/threaded_pull.rs"]
mod threaded_pull;

use threaded_pull::ThreadedPull;

fn failure() -> StreamError {
    StreamError::msg("the reference failed source fails")
}

// ---------------------------------------------------------------------------
// Pullable sources, and the publisher-to-source bridge.

/// Makes a factory's failed source.
type FailedSource = fn() -> Box<dyn Source<u64>>;

/// Streamlet sources from a function `elements -> source`; all of them
/// pause and resume. [`Sources::failing`] adds the failed source.
struct Sources<F> {
    create: F,
    failed: Option<FailedSource>,
}

impl<F> Sources<F> {
    fn new(create: F) -> Self {
        Sources {
            create,
            failed: None,
        }
    }

    /// With `failed` as the factory's failed source.
    fn failing(self, failed: FailedSource) -> Self {
        Sources {
            failed: Some(failed),
            ..self
        }
    }
}

impl<F, S> SourceFactory for Sources<F>
where
    F: Fn(u64) -> S + Send + Sync + 'static,
    S: Source<u64> + 'static,
{
    type Element = u64;

    fn create_source(&self, elements: u64) -> Box<dyn Source<u64>> {
        Box::new((self.create)(elements))
    }

    fn supports_restart(&self) -> bool {
        true
    }

    /// Every source here delivers `0..n`: element `i` is `i`.
    fn element_index(&self, data: &u64) -> Option<u64> {
        Some(*data)
    }

    fn create_failed_source(&self) -> Option<Box<dyn Source<u64>>> {
        self.failed.map(|failed| failed())
    }
}

streamlet_source_verification!(pull_source, Sources::new(|n| PullSource::new(move || 0..n)));
// Its failed source bridges a failed publisher: the upstream `on_error`
// must reach the sink as an end with a reason.
streamlet_source_verification!(
    publisher_source_bridge,
    Sources::new(|n| PublisherSource::new(range(0, n)))
        .failing(|| Box::new(PublisherSource::new(failed::<u64>(failure()))))
);

// ---------------------------------------------------------------------------
// Listenable and hybrid sources.

/// The two hot reference sources, as the feeder drives them.
trait HotSource: Source<u64> + Clone + Send + Sync + 'static {
    const KIND: SourceKind;
    fn fresh() -> Self;
    fn push(&self, data: u64);
    fn finish(&self, reason: Option<StreamError>);
}

impl HotSource for ListenSource<u64> {
    const KIND: SourceKind = SourceKind::Listenable;
    fn fresh() -> Self {
        ListenSource::new()
    }
    fn push(&self, data: u64) {
        self.emit(data);
    }
    fn finish(&self, reason: Option<StreamError>) {
        self.end(reason);
    }
}

impl HotSource for HybridSource<u64> {
    const KIND: SourceKind = SourceKind::Hybrid;
    fn fresh() -> Self {
        HybridSource::new()
    }
    fn push(&self, data: u64) {
        self.emit(data);
    }
    fn finish(&self, reason: Option<StreamError>) {
        self.end(reason);
    }
}

/// Where the feeder of a [`FedOnStart`] source runs.
#[derive(Debug, Clone, Copy)]
enum Feeding {
    /// Inside the sink's first `start` call, right after the source's own
    /// `start` returned.
    InsideStart,
    /// On a thread spawned by the sink's first `start`.
    FromThread,
}

/// What the feeder gives the source.
#[derive(Debug, Clone, Copy)]
enum Script {
    /// `0..n`, then the end.
    Elements(u64),
    /// An end with a reason, at once.
    Fails,
}

/// A hot source per connected sink, fed by `script` the first time that
/// sink starts the stream (see the module docs).
struct FedOnStart<S> {
    script: Script,
    feeding: Feeding,
    source: PhantomData<fn() -> S>,
}

impl<S: HotSource> FedOnStart<S> {
    fn new(script: Script, feeding: Feeding) -> Self {
        FedOnStart {
            script,
            feeding,
            source: PhantomData,
        }
    }
}

type Feed = Box<dyn FnOnce() + Send>;

impl<S: HotSource> Source<u64> for FedOnStart<S> {
    fn connect(&self, sink: Box<dyn Sink<u64>>) {
        let source = S::fresh();
        let fed = source.clone();
        let script = self.script;
        let run = move || match script {
            Script::Elements(n) => {
                for data in 0..n {
                    fed.push(data);
                }
                fed.finish(None);
            }
            Script::Fails => fed.finish(Some(failure())),
        };
        let feed: Feed = match self.feeding {
            Feeding::InsideStart => Box::new(run),
            Feeding::FromThread => Box::new(move || {
                std::thread::spawn(run);
            }),
        };
        source.connect(Box::new(HookedSink {
            sink,
            feed: Some(feed),
            _source: source.clone(),
        }));
    }
}

/// Hands the sink a talkback that runs the feed after its first `start`.
struct HookedSink<S> {
    sink: Box<dyn Sink<u64>>,
    feed: Option<Feed>,
    /// Kept for the stream's life, as a program keeps the hot source it
    /// emits into: a source dropped after its feed would no longer answer
    /// a hybrid sink's requests, and those must be verified too. (The
    /// source holds this sink in turn; the cycle ends with the stream.)
    _source: S,
}

impl<S: HotSource> Sink<u64> for HookedSink<S> {
    fn greet(&mut self, talkback: Arc<dyn Talkback>) {
        self.sink.greet(Arc::new(HookedTalkback {
            talkback,
            feed: Mutex::new(self.feed.take()),
        }));
    }

    fn receive(&mut self, data: u64) {
        self.sink.receive(data);
    }

    fn end(&mut self, reason: Option<StreamError>) {
        self.sink.end(reason);
    }
}

struct HookedTalkback {
    talkback: Arc<dyn Talkback>,
    feed: Mutex<Option<Feed>>,
}

impl Talkback for HookedTalkback {
    fn start(&self) {
        self.talkback.start();
        let feed = self.feed.lock().take();
        if let Some(feed) = feed {
            feed();
        }
    }

    fn request(&self) {
        self.talkback.request();
    }

    fn stop(&self, reason: Option<StreamError>) {
        self.talkback.stop(reason);
    }
}

/// Hot reference sources of kind `S::KIND`, fed as `feeding` says.
///
/// Restart is declared: stop then start pauses and resumes these sources.
/// What is pushed while a sink has the stream stopped is not for that sink
/// (a listenable source has no memory of it; a hybrid one lets the sink pull
/// the latest value), and the end waits for the next start.
struct HotSources<S> {
    feeding: Feeding,
    source: PhantomData<fn() -> S>,
}

impl<S: HotSource> HotSources<S> {
    fn new(feeding: Feeding) -> Self {
        HotSources {
            feeding,
            source: PhantomData,
        }
    }
}

impl<S: HotSource> SourceFactory for HotSources<S> {
    type Element = u64;

    fn create_source(&self, elements: u64) -> Box<dyn Source<u64>> {
        Box::new(FedOnStart::<S>::new(
            Script::Elements(elements),
            self.feeding,
        ))
    }

    fn kind(&self) -> SourceKind {
        S::KIND
    }

    fn create_failed_source(&self) -> Option<Box<dyn Source<u64>>> {
        Some(Box::new(FedOnStart::<S>::new(Script::Fails, self.feeding)))
    }

    fn supports_restart(&self) -> bool {
        true
    }

    /// The feeder pushes `0..n`: element `i` is `i`.
    fn element_index(&self, data: &u64) -> Option<u64> {
        Some(*data)
    }
}

streamlet_source_verification!(
    listen_source,
    HotSources::<ListenSource<u64>>::new(Feeding::InsideStart)
);
streamlet_source_verification!(
    listen_source_threaded,
    HotSources::<ListenSource<u64>>::new(Feeding::FromThread)
);
streamlet_source_verification!(
    hybrid_source,
    HotSources::<HybridSource<u64>>::new(Feeding::InsideStart)
);
streamlet_source_verification!(
    hybrid_source_threaded,
    HotSources::<HybridSource<u64>>::new(Feeding::FromThread)
);

/// [`interval`]: a listenable source that ticks from its own thread and
/// never ends, so it cannot deliver exactly `n`; the tests about ends and
/// counts are skipped (`ends()` is `false`), every other one runs.
struct Intervals;

impl SourceFactory for Intervals {
    type Element = u64;

    fn create_source(&self, _elements: u64) -> Box<dyn Source<u64>> {
        Box::new(interval(Duration::from_millis(1)))
    }

    fn kind(&self) -> SourceKind {
        SourceKind::Listenable
    }

    fn ends(&self) -> bool {
        false
    }

    fn supports_restart(&self) -> bool {
        true
    }
}

streamlet_source_verification!(interval_source, Intervals);

// ---------------------------------------------------------------------------
// Streamlet → Reactive Streams bridges.

/// Publishers from a function `elements -> publisher`; a failed one from
/// `failed`.
struct Publishers<F>(F);

impl<F, P> PublisherFactory for Publishers<F>
where
    F: Fn(u64) -> P + Send + Sync + 'static,
    P: Publisher<u64> + 'static,
{
    type Element = u64;

    fn create_publisher(&self, elements: u64) -> Box<dyn Publisher<u64>> {
        Box::new((self.0)(elements))
    }

    fn create_failed_publisher(&self) -> Option<Box<dyn Publisher<u64>>> {
        Some(Box::new(failed::<u64>(failure())))
    }

    /// The bridged sources emit `0..n`: element `i` is `i`.
    fn element_index(&self, element: &u64) -> Option<u64> {
        Some(*element)
    }
}

publisher_verification!(
    pull_source_bridge,
    Publishers(|n| SourcePublisher::new(PullSource::new(move || 0..n), 16, Overflow::Error))
);

streamlet_source_verification!(
    threaded_pull_source,
    Sources::new(|elements| ThreadedPull { elements })
);
// Capacity 1: a pullable source is pulled one datum at a time, so one
// datum is all its buffer ever holds; a second pull while one is in flight
// would overflow it (`BufferOverflow`).
publisher_verification!(
    threaded_pull_source_bridge,
    Publishers(|elements| SourcePublisher::new(ThreadedPull { elements }, 1, Overflow::Error))
);

/// The most elements a bridged hot source is asked for. A push source
/// pushes regardless of demand, so an infinite one would fill any buffer:
/// bridged without loss, a hot source is finite.
const MOST_PUSHED: u64 = 1024;

/// Hot reference sources bridged by [`SourcePublisher`].
///
/// Overflow policy: a buffer of `n` per subscriber with
/// [`Overflow::Error`]. The source pushes its `n` elements as fast as it
/// can, whatever the subscriber requested (all of them inside `start`, with
/// [`Feeding::InsideStart`], before the subscriber has even been
/// subscribed); a buffer of `n` holds them all, so however slowly demand
/// comes no element is lost and the publisher emits exactly `n`, as the
/// publisher verification requires. `Overflow::Error` rather than a drop
/// policy because losing an element here would be a bug: a source pushing
/// more than promised fails the subscriber loudly (`BufferOverflow`)
/// instead of silently losing data. For a live source of unknown length,
/// pick a capacity and `DropOldest` (keep the freshest) or `DropNewest`
/// (keep the first) instead.
struct HotPublishers<S> {
    feeding: Feeding,
    source: PhantomData<fn() -> S>,
}

impl<S: HotSource> HotPublishers<S> {
    fn new(feeding: Feeding) -> Self {
        HotPublishers {
            feeding,
            source: PhantomData,
        }
    }
}

impl<S: HotSource> PublisherFactory for HotPublishers<S> {
    type Element = u64;

    fn create_publisher(&self, elements: u64) -> Box<dyn Publisher<u64>> {
        let capacity = usize::try_from(elements).expect("at most MOST_PUSHED");
        Box::new(SourcePublisher::new(
            FedOnStart::<S>::new(Script::Elements(elements), self.feeding),
            capacity,
            Overflow::Error,
        ))
    }

    fn create_failed_publisher(&self) -> Option<Box<dyn Publisher<u64>>> {
        Some(Box::new(SourcePublisher::new(
            FedOnStart::<S>::new(Script::Fails, self.feeding),
            1,
            Overflow::Error,
        )))
    }

    fn max_elements(&self) -> u64 {
        MOST_PUSHED
    }

    /// The source pushes `0..n`: element `i` is `i`.
    fn element_index(&self, element: &u64) -> Option<u64> {
        Some(*element)
    }
}

publisher_verification!(
    listen_source_bridge,
    HotPublishers::<ListenSource<u64>>::new(Feeding::FromThread)
);
publisher_verification!(
    hybrid_source_bridge,
    HotPublishers::<HybridSource<u64>>::new(Feeding::InsideStart)
);

// ---------------------------------------------------------------------------
// Sinks.

/// The collecting sink. It starts inside its greet, as documented: a
/// declaration the TCK holds it to (a collecting sink that never started
/// would otherwise pass, every test skipped: rule 5 lets a sink not start).
struct CollectSinks;

impl SinkFactory for CollectSinks {
    type Element = u64;

    fn create_sink(&self) -> Box<dyn Sink<u64>> {
        Box::new(CollectSink::<u64>::new().0)
    }

    fn create_element(&self, index: u64) -> u64 {
        index
    }

    fn starts_on_greet(&self) -> bool {
        true
    }
}

streamlet_sink_verification!(collect_sink, CollectSinks);

/// The collecting sink that takes two elements and stops.
struct TakeTwoSinks;

impl SinkFactory for TakeTwoSinks {
    type Element = u64;

    fn create_sink(&self) -> Box<dyn Sink<u64>> {
        Box::new(CollectSink::<u64>::take(2).0)
    }

    fn create_element(&self, index: u64) -> u64 {
        index
    }

    fn stops_after(&self) -> Option<u64> {
        Some(2)
    }

    fn starts_on_greet(&self) -> bool {
        true
    }
}

streamlet_sink_verification!(take_two_sink, TakeTwoSinks);

/// The callback sink, with an end callback too. It starts inside its greet
/// and pulls one datum after each (as documented); it never stops by
/// itself, so it declares no `stops_after`.
struct CallbackSinks;

impl SinkFactory for CallbackSinks {
    type Element = u64;

    fn create_sink(&self) -> Box<dyn Sink<u64>> {
        Box::new(CallbackSink::new(|_: u64| {}).on_end(|_| {}))
    }

    fn create_element(&self, index: u64) -> u64 {
        index
    }

    fn starts_on_greet(&self) -> bool {
        true
    }
}

streamlet_sink_verification!(callback_sink, CallbackSinks);
