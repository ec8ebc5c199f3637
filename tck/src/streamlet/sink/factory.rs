//! What the user implements: how to make the sinks under test.

use std::fmt::Debug;

use reactive_streams::Sink;

/// Makes the sinks the [sink verification](crate::streamlet::sink) drives,
/// and the data it feeds them. The TCK verifies sinks that start the
/// stream by themselves once greeted (most do: that is how data starts to
/// flow).
///
/// ```
/// use reactive_streams::Sink;
/// use reactive_streams_tck::streamlet::sink::SinkFactory;
/// use reactive_streams_tck::streamlet::testkit::TakeN;
///
/// struct TakeFive;
///
/// impl SinkFactory for TakeFive {
///     type Element = u64;
///     fn create_sink(&self) -> Box<dyn Sink<u64>> {
///         Box::new(TakeN::new(5, true))
///     }
///     fn create_element(&self, index: u64) -> u64 {
///         index
///     }
///     fn stops_after(&self) -> Option<u64> {
///         Some(5)
///     }
/// }
/// ```
pub trait SinkFactory: Send + Sync + 'static {
    /// The data type; `Debug` so that traces and messages can show it.
    type Element: Debug + Send + 'static;

    /// A fresh sink.
    fn create_sink(&self) -> Box<dyn Sink<Self::Element>>;

    /// The `index`-th element the TCK feeds a sink (from 0).
    fn create_element(&self, index: u64) -> Self::Element;

    /// `Some(n)` if the sink starts the stream once greeted and stops it
    /// for good when it has received `n` elements, not before (a
    /// `take(n)`). Before that it may pause as often as it likes — stop,
    /// then start again, as rule 5 allows, from inside `receive` or from
    /// any thread: a stop followed by a start is not the stop this
    /// declares; the final one is. The rules about what a sink does after
    /// stopping (`streamlet.3.d`, `streamlet.6.d`) need it, and
    /// `tck.stops_after` holds the sink to it: a sink that never starts,
    /// never stops, or stops and does not start again (within the
    /// timeout) before its `n`-th element fails it. `None` (the default):
    /// those tests are skipped, and a sink that never starts passes (rule
    /// 5: a sink MAY start).
    fn stops_after(&self) -> Option<u64> {
        None
    }

    /// `true` if the sink starts the stream once greeted (at once or
    /// later, from any thread), as most sinks do. Rule 5 only says a sink
    /// MAY start, so by default (`false`) a sink that never starts passes,
    /// every test needing a started stream skipped, saying so; declared,
    /// it fails `tck.starts` (and every test that waited for the start),
    /// so a sink that stopped starting cannot pass unseen.
    fn starts_on_greet(&self) -> bool {
        false
    }
}
