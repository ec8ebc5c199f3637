//! Widely used stream adapters, verified exactly as published with the
//! stream-adapter verification (`adapter.1` … `adapter.6`), each built
//! around the inner streams the TCK provides.

use std::time::Duration;

use futures::future::ready;
use futures::stream::{BoxStream, StreamExt};
use reactive_streams_tck::futures::adapter::{AdapterFactory, Inner};

use crate::support::InRuntime;

crate::census! {
    futures_map: stream_adapter_verification(Adapt::every(1, |s| first(s).map(one).boxed())), "futures-util", "StreamExt::map";
    futures_filter: stream_adapter_verification(Adapt::some(1, |s| first(s).filter(|x| ready(x % 2 == 0)).map(one).boxed())), "futures-util", "StreamExt::filter";
    futures_then: stream_adapter_verification(Adapt::every(1, |s| first(s).then(|x| ready(one(x))).boxed())), "futures-util", "StreamExt::then";
    futures_chunks: stream_adapter_verification(Adapt::every(1, |s| first(s).chunks(2).boxed())), "futures-util", "StreamExt::chunks(2)";
    futures_ready_chunks: stream_adapter_verification(Adapt::every(1, |s| first(s).ready_chunks(2).boxed())), "futures-util", "StreamExt::ready_chunks(2)";
    futures_buffered: stream_adapter_verification(Adapt::every(1, |s| first(s).map(|x| ready(one(x))).buffered(2).boxed())), "futures-util", "StreamExt::buffered(2)";
    futures_buffer_unordered: stream_adapter_verification(Adapt::new_items(1, |s| first(s).map(|x| ready(one(x))).buffer_unordered(2).boxed())), "futures-util", "StreamExt::buffer_unordered(2)";
    futures_select: stream_adapter_verification(Adapt::every(2, |s| { let (a, b) = two(s); futures::stream::select(a, b).map(one).boxed() })), "futures-util", "stream::select";
    futures_select_all: stream_adapter_verification(Adapt::every(2, |s| futures::stream::select_all(s).map(one).boxed())), "futures-util", "stream::select_all";
    futures_chain: stream_adapter_verification(Adapt::every(2, |s| { let (a, b) = two(s); a.chain(b).map(one).boxed() })), "futures-util", "StreamExt::chain";
    futures_zip: stream_adapter_verification(Adapt::some(2, |s| { let (a, b) = two(s); a.zip(b).map(|(a, b)| vec![a, b]).boxed() })), "futures-util", "StreamExt::zip";
    futures_take: stream_adapter_verification(Adapt::some(1, |s| first(s).take(2).map(one).boxed())), "futures-util", "StreamExt::take(2)";
    futures_skip: stream_adapter_verification(Adapt::some(1, |s| first(s).skip(1).map(one).boxed())), "futures-util", "StreamExt::skip(1)";
    futures_fuse: stream_adapter_verification(Adapt::every(1, |s| first(s).fuse().map(one).boxed())), "futures-util", "StreamExt::fuse";
    futures_peekable: stream_adapter_verification(Adapt::every(1, |s| first(s).peekable().map(one).boxed())), "futures-util", "StreamExt::peekable";
    futures_flatten: stream_adapter_verification(Adapt::every(1, |s| first(s).map(|x| futures::stream::iter([x])).flatten().map(one).boxed())), "futures-util", "StreamExt::flatten";
    tokio_merge: stream_adapter_verification(Adapt::every(2, |s| { let (a, b) = two(s); tokio_stream::StreamExt::merge(a, b).map(one).boxed() })), "tokio-stream", "StreamExt::merge";
    tokio_stream_map: stream_adapter_verification(Adapt::every(2, |s| { let mut map = tokio_stream::StreamMap::new(); for (j, stream) in s.into_iter().enumerate() { map.insert(j, stream); } map.map(|(_, x)| one(x)).boxed() })), "tokio-stream", "StreamMap";
    tokio_timeout: stream_adapter_verification(Adapt::every(1, |s| InRuntime::make(|| Box::pin(tokio_stream::StreamExt::timeout(first(s), Duration::from_secs(10))))
        .map(|x| one(x.expect("no timeout in 10 s"))).boxed())), "tokio-stream", "StreamExt::timeout(10 s)";
    tokio_throttle: stream_adapter_verification(Adapt::every(1, |s| InRuntime::make(|| Box::pin(tokio_stream::StreamExt::throttle(first(s), Duration::from_millis(1)))).map(one).boxed())), "tokio-stream", "StreamExt::throttle(1 ms)";
    tokio_chunks_timeout: stream_adapter_verification(Adapt::every(1, |s| InRuntime::make(|| Box::pin(tokio_stream::StreamExt::chunks_timeout(first(s), 2, Duration::from_millis(10)))).boxed())), "tokio-stream", "StreamExt::chunks_timeout(2, 10 ms)";
}

fn one(item: u64) -> Vec<u64> {
    vec![item]
}

fn first(inner: Vec<Inner>) -> Inner {
    inner.into_iter().next().expect("one inner stream")
}

fn two(inner: Vec<Inner>) -> (Inner, Inner) {
    let mut inner = inner.into_iter();
    let a = inner.next().expect("two inner streams");
    (a, inner.next().expect("two inner streams"))
}

/// What an adapter declares about its items' identity.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Keeps {
    /// Every inner item, once, each inner stream's in order.
    Every,
    /// Some of them (filter, take, zip), once, in order.
    Some,
    /// Nothing declared (new items, or an order it does not promise).
    Nothing,
}

/// An adapter made by `make` around `inputs` inner streams, yielding the
/// inner items it carries.
struct Adapt {
    inputs: usize,
    make: fn(Vec<Inner>) -> BoxStream<'static, Vec<u64>>,
    keeps: Keeps,
}

impl Adapt {
    fn every(inputs: usize, make: fn(Vec<Inner>) -> BoxStream<'static, Vec<u64>>) -> Adapt {
        Adapt {
            inputs,
            make,
            keeps: Keeps::Every,
        }
    }

    fn some(inputs: usize, make: fn(Vec<Inner>) -> BoxStream<'static, Vec<u64>>) -> Adapt {
        Adapt {
            keeps: Keeps::Some,
            ..Adapt::every(inputs, make)
        }
    }

    fn new_items(inputs: usize, make: fn(Vec<Inner>) -> BoxStream<'static, Vec<u64>>) -> Adapt {
        Adapt {
            keeps: Keeps::Nothing,
            ..Adapt::every(inputs, make)
        }
    }
}

impl AdapterFactory for Adapt {
    type Item = Vec<u64>;
    type Adapter = BoxStream<'static, Vec<u64>>;
    fn inputs(&self) -> usize {
        self.inputs
    }
    fn create_adapter(&self, inner: Vec<Inner>) -> Self::Adapter {
        (self.make)(inner)
    }
    fn carried(&self, item: &Vec<u64>) -> Option<Vec<u64>> {
        (self.keeps != Keeps::Nothing).then(|| item.clone())
    }
    fn passes_every_item(&self) -> bool {
        self.keeps == Keeps::Every
    }
}
