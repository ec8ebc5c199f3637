//! What the user implements: how to make the sources under test.

use std::fmt::Debug;

use reactive_streams::Source;

use crate::streamlet::probe::Mode;

/// How a source delivers data once a sink has started the stream. The TCK
/// drives each stream the way a sink of that kind of source would.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum SourceKind {
    /// Emits in answer to `request` (an iterable, a random-number source).
    /// The TCK requests after starting and from inside every emission.
    #[default]
    Pullable,
    /// Pushes once started, without requests (events, timers, network
    /// streams). The TCK never requests.
    Listenable,
    /// Both: pushes once started and answers requests. The TCK runs every
    /// scenario twice, pulling and not.
    Hybrid,
}

impl SourceKind {
    /// The ways the TCK drives a stream of this kind.
    pub const fn modes(self) -> &'static [Mode] {
        match self {
            SourceKind::Pullable => &[Mode::Pull],
            SourceKind::Listenable => &[Mode::Push],
            SourceKind::Hybrid => &[Mode::Pull, Mode::Push],
        }
    }
}

/// Makes the sources the [source verification](crate::streamlet::source)
/// connects its probe sinks to. Only
/// [`create_source`](SourceFactory::create_source) is required; every other
/// method declares a property, with a default that suits a pullable source
/// of any length that ends.
///
/// ```
/// use reactive_streams::Source;
/// use reactive_streams_tck::streamlet::source::{SourceFactory, SourceKind};
/// use reactive_streams_tck::streamlet::testkit::PullRange;
///
/// struct Ranges;
///
/// impl SourceFactory for Ranges {
///     type Element = u64;
///     fn create_source(&self, elements: u64) -> Box<dyn Source<u64>> {
///         Box::new(PullRange::new(elements))
///     }
///     fn supports_restart(&self) -> bool {
///         true
///     }
/// }
/// assert_eq!(Ranges.kind(), SourceKind::Pullable);
/// ```
///
/// A bridge is verified through the same trait: its `create_source` wraps
/// whatever it bridges from (a publisher of `elements` elements, say) and
/// declares the kind it behaves as.
pub trait SourceFactory: Send + Sync + 'static {
    /// The data type; `Debug` so that traces and messages can show it.
    type Element: Debug + Send + 'static;

    /// A source that delivers exactly `elements` data to each sink that
    /// starts the stream (answering requests if pullable, pushing if
    /// listenable) and then ends the stream without a reason, if
    /// [`ends`](SourceFactory::ends). `u64::MAX` asks for a source that
    /// never ends. Never called with more than
    /// [`max_elements`](SourceFactory::max_elements); the TCK asks for at
    /// most 3.
    fn create_source(&self, elements: u64) -> Box<dyn Source<Self::Element>>;

    /// Pullable (the default), listenable or hybrid.
    fn kind(&self) -> SourceKind {
        SourceKind::Pullable
    }

    /// A source that ends the stream with a reason (an error) once a sink
    /// has started it (with or without a request). `None` (the default):
    /// the scenarios that need one are left out.
    fn create_failed_source(&self) -> Option<Box<dyn Source<Self::Element>>> {
        None
    }

    /// The most elements `create_source` can be asked for (default
    /// `u64::MAX`). Rule tests needing more are skipped.
    fn max_elements(&self) -> u64 {
        u64::MAX
    }

    /// Whether a finite source ends the stream after its last element
    /// (default `true`). `false` for sources that never end (a timer, an
    /// event bus): the rule tests about ends are skipped.
    fn ends(&self) -> bool {
        true
    }

    /// Whether a stopped stream delivers again after a new `start` (pause
    /// and resume; default `false`). Either way the TCK stops and restarts
    /// streams and judges what follows; `true` adds `tck_restart`, which
    /// requires an emission or an end after the restart.
    fn supports_restart(&self) -> bool {
        false
    }

    /// Which element `data` is: its index in the stream
    /// [`create_source`](SourceFactory::create_source) makes (0 for the
    /// first). `None` (the default) tells nothing. Declared, every sink
    /// probe of the source verification checks that it gets each element
    /// at most once and in order (`tck.create_n`): a duplicate, a swap or a
    /// skip fails, except that a stream resumed after a stop may go on
    /// from a later element (a listenable source pushes on meanwhile).
    fn element_index(&self, data: &Self::Element) -> Option<u64> {
        let _ = data;
        None
    }

    /// Whether one source serves several sinks at once (default `true`).
    /// Declared, each sink's stream is its own, `n` elements for each:
    /// `tck.create_n` checks that one sink stopping, starting again or
    /// reaching its end neither pauses, ends nor rewinds another (a sink
    /// starting later than another may miss what was sent before, as from
    /// a hot source). `false` leaves out the scenarios with several sinks
    /// on one source; declare it for a source that shares one run of
    /// elements out among its sinks (a work queue).
    fn supports_multiple_sinks(&self) -> bool {
        true
    }

    /// How many sinks one source serves at once (default: no limit). Rule
    /// 1 says a source MAY greet a connected sink, so a source may refuse
    /// a sink beyond what it serves by never greeting it (or, once that
    /// sink starts, by ending its stream with a reason, rule 4). The
    /// scenarios with several sinks on one source use at most this many
    /// (fewer than 2 leaves them out, as `supports_multiple_sinks()`
    /// `false` does); a sink a source leaves ungreeted all the same makes
    /// its test "not concluded", never failed.
    fn max_sinks_at_once(&self) -> usize {
        usize::MAX
    }

    /// `true` if the source greets every sink connected to it (at once or
    /// later, from any thread, up to
    /// [`max_sinks_at_once`](SourceFactory::max_sinks_at_once) at once),
    /// as most sources do. Rule 1 only says a source MAY greet a connected
    /// sink, so by default (`false`) a source that leaves a sink
    /// ungreeted breaks no rule: every test that needed the greet is "not
    /// concluded", saying so. Declared, not greeting a sink within the
    /// timeout fails `tck.greets` (and every test that waited for the
    /// greet), so a source that stopped greeting cannot pass unseen. A
    /// source that greets is verified the same either way.
    fn greets_sinks(&self) -> bool {
        false
    }
}
