//! The stream-adapter verification: a [`futures::Stream`](futures_core::Stream)
//! that wraps one or more other streams (map, filter, chunks, buffered,
//! select, merge, zip, chain, timeout, throttle …), built by the factory
//! around [`Inner`] streams the TCK provides, feeds and watches (rules
//! `adapter.1` … `adapter.6` of
//! [`ADAPTER_RULES`](reactive_streams::rules::ADAPTER_RULES)).
//!
//! The [stream verification](crate::futures::stream) checks a stream as a whole; a
//! wrapper, though, can only be judged against what its inner streams did:
//! which of them was woken, which ended, which was dropped. Here the TCK
//! owns the inner streams, so a failure names the inner stream and the
//! adapter poll it happened in:
//!
//! ```text
//! adapter.1: [1 inner stream, each Pending polled again with a new waker, then item pushed]
//! expected a wake-up of w2 (the waker of the adapter's poll #2, which returned Pending)
//! once inner 0, which the adapter polled then, woke its waker (item 0 was pushed);
//! actual: no wake-up of w2 within 1000 ms, though w1 (the waker of an earlier poll) was woken
//! ```
//!
//! | test | rule | what it does |
//! |---|---|---|
//! | `adapter_1` | `adapter.1` | the adapter is polled twice with new wakers; an item pushed into (or the end of) an inner stream the second poll left `Pending` must wake the second waker |
//! | `adapter_2` | `adapter.2` | items pushed from another thread into the inner streams while the adapter is polled, in every fourth round at the moment the adapter takes its waker (clones it or wakes it by reference): a wake-up lost when the push overlapped the adapter's `poll_next` fails |
//! | `adapter_3` | `adapter.3` | the inner streams end one after another, the adapter is polled to its end: no inner stream may be polled after its `Ready(None)`; with several inner streams, every order of their ends (each ending first, items still queued in the others; each staying `Pending` while the others end, then fed and ended; all orders for 2 and 3, each rotation beyond) |
//! | `adapter_4` | `adapter.4` | the adapter dropped before its first poll, while `Pending`, part-way and after its end: every inner stream is dropped, no waker clone is kept |
//! | `adapter_5` | `adapter.5` | with [`carried`](AdapterFactory::carried) declared: every item once, each inner stream's items in order (all of them if [`passes_every_item`](AdapterFactory::passes_every_item), so no end before every inner stream ended, unless [`ends_at_first_end`](AdapterFactory::ends_at_first_end) is declared), also in every order of the inner streams' ends that `adapter_3` plays; skipped without the declaration |
//! | `adapter_6` | `adapter.6` | `size_hint()` before every poll and after every push, checked at the end against the items the adapter really yielded after it |
//!
//! Only `adapter_1` and `adapter_2` hold the adapter to its wake-ups; the
//! other tests poll again after a short wait whether woken or not.
//!
//! ```ignore
//! use reactive_streams_tck::stream_adapter_verification;
//! stream_adapter_verification!(my_map, MyMapFactory);
//! // → my_map::stream_adapter::adapter_1, …, my_map::stream_adapter::adapter_6
//! ```
//!
//! or [`AdapterVerification::run_all`] for the results as data:
//!
//! ```
//! use futures_core::stream::BoxStream;
//! use reactive_streams_tck::futures::adapter::{AdapterFactory, AdapterVerification, Inner};
//! use reactive_streams_tck::outcome::Verdict;
//!
//! /// The identity adapter: the inner stream itself.
//! struct Identity;
//! impl AdapterFactory for Identity {
//!     type Item = u64;
//!     type Adapter = BoxStream<'static, u64>;
//!     fn create_adapter(&self, mut inner: Vec<Inner>) -> Self::Adapter {
//!         Box::pin(inner.remove(0))
//!     }
//!     fn carried(&self, item: &u64) -> Option<Vec<u64>> {
//!         Some(vec![*item])
//!     }
//! }
//!
//! let results = AdapterVerification::new(Identity).run_all().unwrap();
//! assert!(results.iter().all(|r| r.verdict == Verdict::Passed));
//! ```

mod identity;
mod inner;
mod orders;
mod race;
mod rules;
mod wake;

pub use inner::Inner;

use std::fmt::Debug;

use futures_core::Stream;

use crate::engine::{Engine, Table, Vacuity, by_name};

/// Makes fresh adapters around inner streams the TCK provides.
///
/// Only [`create_adapter`](Self::create_adapter) is required; an adapter
/// of several streams declares [`inputs`](Self::inputs), and one that
/// passes its items on unchanged (map to itself, filter, chunks, select,
/// merge …) declares [`carried`](Self::carried), so that `adapter.5`
/// checks it loses, duplicates and reorders nothing.
///
/// ```
/// use futures::StreamExt;
/// use futures::stream::BoxStream;
/// use reactive_streams_tck::futures::adapter::{AdapterFactory, Inner};
///
/// /// `select` of two streams: every item of both, each stream's in order.
/// struct Select;
/// impl AdapterFactory for Select {
///     type Item = u64;
///     type Adapter = BoxStream<'static, u64>;
///     fn inputs(&self) -> usize {
///         2
///     }
///     fn create_adapter(&self, inner: Vec<Inner>) -> Self::Adapter {
///         let mut inner = inner.into_iter();
///         let (a, b) = (inner.next().unwrap(), inner.next().unwrap());
///         futures::stream::select(a, b).boxed()
///     }
///     fn carried(&self, item: &u64) -> Option<Vec<u64>> {
///         Some(vec![*item])
///     }
/// }
/// ```
pub trait AdapterFactory: Send + Sync + 'static {
    /// What the adapter yields (printed in traces).
    type Item: Debug + Send + 'static;
    /// The adapter; `Send`, as the TCK polls it while other threads push
    /// into its inner streams.
    type Adapter: Stream<Item = Self::Item> + Send + 'static;

    /// How many inner streams the adapter wraps (default 1): `inner` in
    /// [`create_adapter`](Self::create_adapter) holds that many.
    fn inputs(&self) -> usize {
        1
    }

    /// A fresh adapter around `inner`, the [`inputs`](Self::inputs) streams
    /// the TCK provides (and feeds, ends and watches), in order.
    fn create_adapter(&self, inner: Vec<Inner>) -> Self::Adapter;

    /// The inner items `item` carries, by their values, for an adapter that
    /// keeps its items' identity (`vec![*item]` for map-to-itself, filter,
    /// select or merge; the chunk itself for chunks); `None` (the default)
    /// for one that makes new items, and `adapter.5` is skipped.
    fn carried(&self, item: &Self::Item) -> Option<Vec<u64>> {
        let _ = item;
        None
    }

    /// With [`carried`](Self::carried): whether every inner item comes out
    /// (default `true`); `false` for filter, take, skip and the like, which
    /// may drop some.
    fn passes_every_item(&self) -> bool {
        true
    }

    /// With several [`inputs`](Self::inputs): whether the adapter may end
    /// as soon as one of its inner streams has ended (a merge that stops
    /// at the first end, `take_until`, …). Default `false`: an adapter that
    /// [`passes_every_item`](Self::passes_every_item) ends only once every
    /// inner stream has ended, and one that ends while an inner stream is
    /// still open loses its later items (`adapter.5`). Declared, the items
    /// of every inner stream the adapter saw end are still owed, and it
    /// must not end before it saw one end; items still queued in the
    /// others when it ends may be cut.
    fn ends_at_first_end(&self) -> bool {
        false
    }
}

/// The tests, in order. The macro generates one `#[test]` for each; this
/// list and the macro come from one source.
pub const TESTS: &[&str] = &crate::__adapter_tests!(@names);

fn table<F: AdapterFactory>() -> Table<F> {
    by_name(TESTS, rules::body::<F>, &[])
}

/// Runs the stream-adapter verification against one factory.
pub struct AdapterVerification<F: AdapterFactory> {
    engine: Engine<F>,
}

crate::engine::verification!(
    AdapterVerification<F: AdapterFactory>, StreamAdapter, subject: F, make: |factory| factory,
    parallelism: 8, table: table::<F>, vacuity: Vacuity::Allowed, example: "adapter_1",
);

/// The list of adapter tests, and what is generated from it. Not API: use
/// [`stream_adapter_verification!`](crate::stream_adapter_verification).
#[doc(hidden)]
#[macro_export]
macro_rules! __adapter_tests {
    ($($then:tt)*) => {
        $crate::__test_list! { [
            adapter_1, adapter_2, adapter_3, adapter_4, adapter_5, adapter_6
        ] [] $($then)* }
    };
}

/// Generates the stream-adapter verification as `#[test]`s:
/// `<name>::stream_adapter::<test>` for every test in
/// [`adapter::TESTS`](crate::futures::adapter::TESTS).
///
/// Like [`stream_verification!`](crate::stream_verification): `$factory` is
/// any expression making an
/// [`AdapterFactory`](crate::futures::adapter::AdapterFactory), evaluated where the
/// macro is invoked; it works at the crate root, in any module and several
/// times in one, and needs no `use`. Results carry `stringify!($name)` as
/// their target, or the display name given as a third argument.
///
/// ```ignore
/// stream_adapter_verification!(map, MapFactory);
/// stream_adapter_verification!(select, SelectFactory, "futures-util select");
/// ```
#[macro_export]
macro_rules! stream_adapter_verification {
    ($($invocation:tt)*) => {
        $crate::__verification_macro! {
            __adapter_tests, quick, stream_adapter, $crate::futures::adapter::AdapterVerification<_>; $($invocation)*
        }
    };
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::runner::rule_of_test;
    use reactive_streams::rules::{ADAPTER_RULES, Check};

    #[test]
    fn the_catalogue_and_the_tests_name_each_other() {
        assert_eq!(TESTS.len(), ADAPTER_RULES.len());
        for (test, rule) in TESTS.iter().zip(ADAPTER_RULES) {
            assert_eq!(rule_of_test(test), rule.id);
            match rule.check {
                Check::Tested { tests } => {
                    assert_eq!(tests, [format!("stream_adapter::{test}").as_str()])
                }
                _ => panic!("{test} exists but {} is not tested", rule.id),
            }
        }
    }
}
