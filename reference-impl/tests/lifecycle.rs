//! Every reference processor and combinator, and a `SourcePublisher` over a
//! hot source, passes the TCK's datum-lifecycle verification with
//! `Tracked<u64>` elements.

use std::marker::PhantomData;
use std::sync::{Arc, Mutex};

use reactive_streams::done::Tracked;
use reactive_streams::{Publisher, StreamError, Subscriber, Subscription, demand};
use reactive_streams_reference::streamlet::{ListenSource, SourcePublisher};
use reactive_streams_reference::{
    BufferProcessor, FilterProcessor, FlatMapProcessor, IdentityProcessor, MapProcessor, Overflow,
    SlidingWindowProcessor, WindowProcessor, combine_latest_with, merge, zip_with,
};
use reactive_streams_tck::datum_lifecycle_verification;
use reactive_streams_tck::lifecycle::{LifecycleFactory, Lineage};

type Input = Box<dyn Publisher<Tracked<u64>>>;

/// A factory for a one-input processor emitting `O`: `make()` gives the
/// processor, which is subscribed to the input and returned as the stage.
pub struct Single<P, O>(pub fn() -> P, pub PhantomData<fn() -> O>);

impl<P, O> LifecycleFactory for Single<P, O>
where
    P: Subscriber<Tracked<u64>> + Publisher<O> + Clone + 'static,
    O: Lineage + Send + 'static,
{
    type Output = O;
    fn create_stage(&self, mut inputs: Vec<Input>) -> Box<dyn Publisher<O>> {
        let processor = (self.0)();
        inputs.remove(0).subscribe(Box::new(processor.clone()));
        Box::new(processor)
    }
}

/// A factory that declares how many consumed data of each input its
/// stages keep, which turns on done.3's mid-stream check.
pub struct Keeps<F>(pub usize, pub F);

impl<F: LifecycleFactory> LifecycleFactory for Keeps<F> {
    type Output = F::Output;
    fn inputs(&self) -> usize {
        self.1.inputs()
    }
    fn create_stage(&self, inputs: Vec<Input>) -> Box<dyn Publisher<F::Output>> {
        self.1.create_stage(inputs)
    }
    fn keeps_delivered(&self) -> Option<usize> {
        Some(self.0)
    }
    fn element_index(&self, output: &F::Output) -> Option<u64> {
        self.1.element_index(output)
    }
}

/// A factory that declares which output is which
/// ([`LifecycleFactory::element_index`]): input 0's datum `i` has id `i`.
pub struct Indexed<F: LifecycleFactory>(pub F, pub fn(&F::Output) -> Option<u64>);

impl<F: LifecycleFactory> LifecycleFactory for Indexed<F> {
    type Output = F::Output;
    fn inputs(&self) -> usize {
        self.0.inputs()
    }
    fn create_stage(&self, inputs: Vec<Input>) -> Box<dyn Publisher<F::Output>> {
        self.0.create_stage(inputs)
    }
    fn keeps_delivered(&self) -> Option<usize> {
        self.0.keeps_delivered()
    }
    fn element_index(&self, output: &F::Output) -> Option<u64> {
        (self.1)(output)
    }
}

/// Output `i` is datum `i` (identity, map, buffer).
fn datum(output: &Tracked<u64>) -> Option<u64> {
    Some(output.value)
}

/// The filter below drops every datum `v` with `v % 3 == 1`: the output
/// made from `v` is preceded by `v` data, `(v + 1) / 3` of them dropped.
fn passing_datum(output: &Tracked<u64>) -> Option<u64> {
    let v = output.value;
    Some(v - (v + 1) / 3)
}

/// Window `i` of 3 starts with datum `3i`.
// The window's own type: `Indexed` takes a `fn(&Output)`.
#[allow(clippy::ptr_arg)]
fn window_index(window: &Vec<Tracked<u64>>) -> Option<u64> {
    window.first().map(|datum| datum.value / 3)
}

/// Sliding window `i` starts with datum `i`.
// The window's own type: `Indexed` takes a `fn(&Output)`.
#[allow(clippy::ptr_arg)]
fn slide_index(window: &Vec<Tracked<u64>>) -> Option<u64> {
    window.first().map(|datum| datum.value)
}

/// The boxed input as a publisher the combinators accept.
pub struct Boxed(Input);

impl Publisher<Tracked<u64>> for Boxed {
    fn subscribe(&self, subscriber: Box<dyn Subscriber<Tracked<u64>>>) {
        self.0.subscribe(subscriber);
    }
}

fn pair(mut inputs: Vec<Input>) -> (Boxed, Boxed) {
    let right = inputs.pop().unwrap();
    (Boxed(inputs.pop().unwrap()), Boxed(right))
}

pub struct Zip;

impl LifecycleFactory for Zip {
    type Output = Tracked<(u64, u64)>;
    fn inputs(&self) -> usize {
        2
    }
    fn create_stage(&self, inputs: Vec<Input>) -> Box<dyn Publisher<Self::Output>> {
        let (left, right) = pair(inputs);
        Box::new(zip_with(left, right, Tracked::zip))
    }
    fn keeps_delivered(&self) -> Option<usize> {
        Some(0)
    }
    /// Pair `i` is the left input's datum `i` with the right one's.
    fn element_index(&self, pair: &Tracked<(u64, u64)>) -> Option<u64> {
        Some(pair.value.0)
    }
}

pub struct CombineLatest;

impl LifecycleFactory for CombineLatest {
    type Output = Tracked<(u64, u64)>;
    fn inputs(&self) -> usize {
        2
    }
    fn create_stage(&self, inputs: Vec<Input>) -> Box<dyn Publisher<Self::Output>> {
        let (left, right) = pair(inputs);
        Box::new(combine_latest_with(left, right, Tracked::zip))
    }
    fn keeps_delivered(&self) -> Option<usize> {
        // The latest of each side, cloned into every pair it is in.
        Some(1)
    }
}

/// A merge of two inputs: each output is one input datum, tokens and all.
pub struct Merge;

impl LifecycleFactory for Merge {
    type Output = Tracked<u64>;
    fn inputs(&self) -> usize {
        2
    }
    fn create_stage(&self, inputs: Vec<Input>) -> Box<dyn Publisher<Self::Output>> {
        Box::new(merge(inputs))
    }
    fn keeps_delivered(&self) -> Option<usize> {
        // Nothing once delivered.
        Some(0)
    }
}

fn identity() -> IdentityProcessor<Tracked<u64>> {
    IdentityProcessor::new()
}

fn map() -> MapProcessor<Tracked<u64>, Tracked<u64>> {
    // The value stays the datum's id: the verification reads lineage from it.
    MapProcessor::new(|t: Tracked<u64>| t.map(|id| id))
}

/// [`map`] through `MapProcessor::new_static` (a function pointer names
/// the function's type here).
type StaticMap = MapProcessor<Tracked<u64>, Tracked<u64>, fn(Tracked<u64>) -> Tracked<u64>>;

fn map_static() -> StaticMap {
    MapProcessor::new_static(|t: Tracked<u64>| t.map(|id| id))
}

fn filter() -> FilterProcessor<Tracked<u64>> {
    FilterProcessor::new(|t: &Tracked<u64>| t.value % 3 != 1)
}

/// [`filter`] through `FilterProcessor::new_static`.
type StaticFilter = FilterProcessor<Tracked<u64>, fn(&Tracked<u64>) -> bool>;

fn filter_static() -> StaticFilter {
    FilterProcessor::new_static(|t: &Tracked<u64>| t.value % 3 != 1)
}

fn buffer() -> BufferProcessor<Tracked<u64>> {
    BufferProcessor::new(4)
}

fn window() -> WindowProcessor<Tracked<u64>> {
    WindowProcessor::new(3)
}

fn sliding_window() -> SlidingWindowProcessor<Tracked<u64>> {
    SlidingWindowProcessor::new(3)
}

type Spread = FlatMapProcessor<Tracked<u64>, Vec<Tracked<u64>>>;

fn flat_map() -> Spread {
    // 0, 1 or 2 outputs per input: none releases it at once, two share it.
    FlatMapProcessor::new(|t: Tracked<u64>| {
        let copies = vec![t.value; (t.value % 3) as usize];
        t.fan_out(copies)
    })
}

datum_lifecycle_verification!(
    identity_processor,
    Keeps(0, Indexed(Single(identity, PhantomData), datum))
);
datum_lifecycle_verification!(
    map_processor,
    Keeps(0, Indexed(Single(map, PhantomData), datum))
);
datum_lifecycle_verification!(
    map_processor_static,
    Keeps(0, Indexed(Single(map_static, PhantomData), datum))
);
datum_lifecycle_verification!(
    filter_processor,
    Keeps(0, Indexed(Single(filter, PhantomData), passing_datum))
);
datum_lifecycle_verification!(
    filter_processor_static,
    Keeps(
        0,
        Indexed(Single(filter_static, PhantomData), passing_datum)
    )
);
datum_lifecycle_verification!(
    buffer_processor,
    Keeps(0, Indexed(Single(buffer, PhantomData), datum))
);
datum_lifecycle_verification!(
    window_processor,
    Keeps(0, Indexed(Single(window, PhantomData), window_index))
);
// A sliding window of 3 keeps the last 2 data it delivered.
datum_lifecycle_verification!(
    sliding_window_processor,
    Keeps(2, Indexed(Single(sliding_window, PhantomData), slide_index))
);
// The datum whose copies are still coming. Its copies share a value, so
// which copy is which cannot be told: no element_index.
datum_lifecycle_verification!(flat_map_processor, Keeps(1, Single(flat_map, PhantomData)));
datum_lifecycle_verification!(zip, Zip);
// Pairs of each side's latest, and a merge's interleaving, are not
// numbered by what they carry: no element_index.
datum_lifecycle_verification!(combine_latest, CombineLatest);
datum_lifecycle_verification!(merge_two, Merge);

// ---- A SourcePublisher over a hot source ----
//
// Every target above emits only what downstream asked for. A
// `SourcePublisher` over a listenable source buffers, for its subscriber,
// what the source pushes beyond demand: this stage relays its input into a
// `ListenSource` (requesting everything) and publishes that source through
// a `SourcePublisher`, so data wait in the publisher's buffer when
// downstream cancels, and the cancel must release them (done.4): the
// source keeps the stopped connection, and with it the buffer's slot,
// until it ends.

/// How many pushed data the stage's buffer holds: more than any script
/// emits, so nothing overflows.
const HOT_CAPACITY: usize = 64;

/// The stage: it connects downstream first, then subscribes to the input,
/// so nothing is pushed before a sink listens.
struct HotRelay {
    input: Mutex<Option<Input>>,
}

impl Publisher<Tracked<u64>> for HotRelay {
    fn subscribe(&self, subscriber: Box<dyn Subscriber<Tracked<u64>>>) {
        let source = ListenSource::new();
        SourcePublisher::new(source.clone(), HOT_CAPACITY, Overflow::Error).subscribe(subscriber);
        match self.input.lock().unwrap().take() {
            Some(input) => input.subscribe(Box::new(Relay {
                source,
                subscription: None,
            })),
            // A second subscriber: the one input is taken.
            None => source.end(Some(StreamError::msg("the relay has one subscriber"))),
        }
    }
}

/// Pushes every datum of the input into the source.
struct Relay {
    source: ListenSource<Tracked<u64>>,
    subscription: Option<Arc<dyn Subscription>>,
}

impl Subscriber<Tracked<u64>> for Relay {
    fn on_subscribe(&mut self, subscription: Arc<dyn Subscription>) {
        if self.subscription.is_some() {
            return subscription.cancel(); // §2.5
        }
        subscription.request(demand::UNBOUNDED);
        self.subscription = Some(subscription);
    }
    fn on_next(&mut self, datum: Tracked<u64>) {
        self.source.emit(datum);
    }
    fn on_error(&mut self, error: StreamError) {
        self.subscription = None;
        self.source.end(Some(error));
    }
    fn on_complete(&mut self) {
        self.subscription = None;
        self.source.end(None);
    }
}

pub struct HotSourcePublisher;

impl LifecycleFactory for HotSourcePublisher {
    type Output = Tracked<u64>;
    fn create_stage(&self, mut inputs: Vec<Input>) -> Box<dyn Publisher<Tracked<u64>>> {
        Box::new(HotRelay {
            input: Mutex::new(Some(inputs.remove(0))),
        })
    }
    fn keeps_delivered(&self) -> Option<usize> {
        Some(0)
    }
    /// Output `i` is datum `i`: the source pushes them in order.
    fn element_index(&self, output: &Tracked<u64>) -> Option<u64> {
        Some(output.value)
    }
}

datum_lifecycle_verification!(hot_source_publisher, HotSourcePublisher);

// ---- end of the SourcePublisher over a hot source ----
