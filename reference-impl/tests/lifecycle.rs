//! Every reference processor and combinator passes the TCK's
//! datum-lifecycle verification with `Tracked<u64>` elements.

use std::marker::PhantomData;

use reactive_streams::done::Tracked;
use reactive_streams::{Publisher, Subscriber};
use reactive_streams_reference::{
    combine_latest_with, merge, zip_with, BufferProcessor, FilterProcessor, FlatMapProcessor,
    IdentityProcessor, MapProcessor, SlidingWindowProcessor, WindowProcessor,
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

datum_lifecycle_verification!(identity_processor, Keeps(0, Single(identity, PhantomData)));
datum_lifecycle_verification!(map_processor, Keeps(0, Single(map, PhantomData)));
datum_lifecycle_verification!(
    map_processor_static,
    Keeps(0, Single(map_static, PhantomData))
);
datum_lifecycle_verification!(filter_processor, Keeps(0, Single(filter, PhantomData)));
datum_lifecycle_verification!(
    filter_processor_static,
    Keeps(0, Single(filter_static, PhantomData))
);
datum_lifecycle_verification!(buffer_processor, Keeps(0, Single(buffer, PhantomData)));
datum_lifecycle_verification!(window_processor, Keeps(0, Single(window, PhantomData)));
// A sliding window of 3 keeps the last 2 data it delivered.
datum_lifecycle_verification!(
    sliding_window_processor,
    Keeps(2, Single(sliding_window, PhantomData))
);
// The datum whose copies are still coming.
datum_lifecycle_verification!(flat_map_processor, Keeps(1, Single(flat_map, PhantomData)));
datum_lifecycle_verification!(zip, Zip);
datum_lifecycle_verification!(combine_latest, CombineLatest);
datum_lifecycle_verification!(merge_two, Merge);
