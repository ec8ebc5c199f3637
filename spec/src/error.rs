use std::error::Error;
use std::fmt;
use std::sync::Arc;

/// The error carried by `on_error` (Reactive Streams) and by `end` / `stop`
/// reasons (Streamlets).
///
/// It is cheap to clone (one `Arc`), so a multicast publisher can hand the
/// same failure to every subscriber, and it is `Send + Sync`. Tests recognise
/// a particular cause with [`StreamError::downcast_ref`].
///
/// ```
/// use reactive_streams::{IllegalDemand, StreamError};
///
/// let error = StreamError::illegal_demand(0);
/// assert!(error.is_illegal_demand());
/// assert_eq!(error.downcast_ref::<IllegalDemand>().unwrap().requested, 0);
///
/// let custom = StreamError::msg("disk full");
/// assert_eq!(custom.to_string(), "disk full");
/// assert_eq!(custom.clone().to_string(), "disk full");
/// ```
#[derive(Clone)]
pub struct StreamError {
    inner: Arc<dyn Error + Send + Sync + 'static>,
}

impl StreamError {
    /// Wraps any error.
    pub fn new<E>(error: E) -> Self
    where
        E: Error + Send + Sync + 'static,
    {
        StreamError {
            inner: Arc::new(error),
        }
    }

    /// An error that is only a message.
    pub fn msg(message: impl Into<String>) -> Self {
        StreamError::new(Message(message.into()))
    }

    /// The error §3.9 demands for `request(0)`: an [`IllegalDemand`].
    pub fn illegal_demand(requested: u64) -> Self {
        StreamError::new(IllegalDemand { requested })
    }

    /// Whether this is the §3.9 illegal-demand error.
    pub fn is_illegal_demand(&self) -> bool {
        self.downcast_ref::<IllegalDemand>().is_some()
    }

    /// The wrapped error as a concrete type, if it is one.
    pub fn downcast_ref<E: Error + 'static>(&self) -> Option<&E> {
        let inner: &(dyn Error + 'static) = &*self.inner;
        inner.downcast_ref::<E>()
    }

    /// The wrapped error.
    pub fn as_error(&self) -> &(dyn Error + Send + Sync + 'static) {
        &*self.inner
    }
}

impl fmt::Debug for StreamError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_tuple("StreamError").field(&self.inner).finish()
    }
}

impl fmt::Display for StreamError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(&self.inner, f)
    }
}

impl Error for StreamError {
    fn source(&self) -> Option<&(dyn Error + 'static)> {
        self.inner.source()
    }
}

/// Demand of zero was requested (§3.9).
///
/// Reactive Streams on the JVM also forbids negative demand; with `u64`
/// demand that case cannot be written, so zero is the only illegal value.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct IllegalDemand {
    /// The demand that was requested (always 0 with `u64` demand).
    pub requested: u64,
}

impl fmt::Display for IllegalDemand {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "illegal demand: request({}) — §3.9 requires a demand of at least 1",
            self.requested
        )
    }
}

impl Error for IllegalDemand {}

#[derive(Debug)]
struct Message(String);

impl fmt::Display for Message {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl Error for Message {}
