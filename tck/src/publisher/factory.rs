//! What the user implements: how to make the publishers under test.

use std::fmt::Debug;

use reactive_streams::Publisher;

/// Makes the publishers the [publisher verification](crate::publisher)
/// subscribes to. Only [`create_publisher`](PublisherFactory::create_publisher)
/// is required; every other method declares a property with a sensible
/// default.
///
/// ```
/// use reactive_streams::Publisher;
/// use reactive_streams_tck::publisher::PublisherFactory;
/// use reactive_streams_tck::testkit::SyncRange;
///
/// struct Ranges;
///
/// impl PublisherFactory for Ranges {
///     type Element = u64;
///     fn create_publisher(&self, elements: u64) -> Box<dyn Publisher<u64>> {
///         Box::new(SyncRange::new(0, elements))
///     }
/// }
/// ```
pub trait PublisherFactory: Send + Sync + 'static {
    /// The element type; `Debug` so that traces and messages can show it.
    type Element: Debug + Send + 'static;

    /// A publisher that emits exactly `elements` elements to each subscriber
    /// that requests them, then `on_complete`. `u64::MAX` means an infinite
    /// publisher (it never completes). Never called with more than
    /// [`max_elements`](PublisherFactory::max_elements).
    fn create_publisher(&self, elements: u64) -> Box<dyn Publisher<Self::Element>>;

    /// A publisher that fails: after `on_subscribe` it signals `on_error`
    /// (with or without demand). `None` (the default): the rules that need
    /// one are skipped, saying so.
    fn create_failed_publisher(&self) -> Option<Box<dyn Publisher<Self::Element>>> {
        None
    }

    /// The most elements [`create_publisher`](PublisherFactory::create_publisher)
    /// can be asked for; `u64::MAX` (the default) means it can also make
    /// infinite publishers. Rules needing more are skipped.
    fn max_elements(&self) -> u64 {
        u64::MAX
    }

    /// The fewest elements [`create_publisher`](PublisherFactory::create_publisher)
    /// can be asked for; 0 (the default) means it can make empty
    /// publishers. A `just`-like publisher that always has exactly one
    /// element declares 1 here and 1 as
    /// [`max_elements`](PublisherFactory::max_elements). Rules needing a
    /// shorter publisher are skipped, saying so.
    fn min_elements(&self) -> u64 {
        0
    }

    /// How deep `on_next` may nest synchronously inside a `request` made
    /// from `on_next` (§3.3). 1, the default and the recommendation, means
    /// no nesting at all.
    fn max_sync_recursion_depth(&self) -> u32 {
        1
    }

    /// Whether one publisher serves several subscribers at once (§1.11).
    /// Default `true`. When `false`, a second subscriber must still get
    /// `on_subscribe` and then `on_error` or its elements (§1.9).
    fn supports_multiple_subscribers(&self) -> bool {
        true
    }

    /// How many subscribers one publisher serves at once, when it serves
    /// several but only up to a limit (§1.11 lets a publisher decide how
    /// many; §1.9 lets it refuse the next with `on_subscribe`, then
    /// `on_error`). `None`, the default, declares no limit: the meaning
    /// [`supports_multiple_subscribers`](PublisherFactory::supports_multiple_subscribers)
    /// always had. `Some(k)` with `k >= 2`: the scenarios with several
    /// subscribers use at most `k` at once (a scenario written for three
    /// runs with two), so they still run. Ignored when
    /// `supports_multiple_subscribers()` is `false`.
    ///
    /// Undeclared, a limit is no failure either: a scenario whose
    /// subscriber beyond the first gets `on_error` before any element is
    /// reported "not concluded: the publisher refused subscriber N (§1.9
    /// allows it)"; declaring the limit lets it conclude.
    fn max_subscribers(&self) -> Option<usize> {
        None
    }

    /// Which element `element` is: its index in the stream
    /// [`create_publisher`](PublisherFactory::create_publisher) makes (0 for
    /// the first). `None` (the default) tells nothing, and elements are
    /// only counted. Declared, every rule test checks that each subscriber
    /// gets each element at most once and in order (`tck.create_n_gives_exactly_n`):
    /// a publisher delivering one twice, skipping one or reordering fails,
    /// even when the count comes out right. A range of `0..n` declares
    /// `Some(*element)`.
    ///
    /// ```
    /// # use reactive_streams::Publisher;
    /// # use reactive_streams_tck::publisher::PublisherFactory;
    /// # use reactive_streams_tck::testkit::SyncRange;
    /// struct Ranges;
    ///
    /// impl PublisherFactory for Ranges {
    ///     type Element = u64;
    ///     fn create_publisher(&self, elements: u64) -> Box<dyn Publisher<u64>> {
    ///         Box::new(SyncRange::new(0, elements))
    ///     }
    ///     fn element_index(&self, element: &u64) -> Option<u64> {
    ///         Some(*element)
    ///     }
    /// }
    /// ```
    fn element_index(&self, element: &Self::Element) -> Option<u64> {
        let _ = element;
        None
    }

    /// Whether to run the stochastic checks (many threads requesting at
    /// once, §1.3 and the concurrent part of §3.8). Default `true`.
    fn run_stochastic(&self) -> bool {
        true
    }
}
