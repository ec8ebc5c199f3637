//! Where a publisher's drain loop runs.

use std::fmt;
use std::sync::Arc;

/// A unit of work handed to an [`Executor::Custom`] executor.
pub type Task = Box<dyn FnOnce() + Send + 'static>;

/// Where a [`Drain`](crate::drain::Drain) runs its emission loop.
///
/// * [`Executor::Inline`] runs it on the thread that requested (or woke the
///   producer): synchronous, trampolined, no allocation.
/// * [`Executor::Tokio`] spawns each run onto a tokio runtime; long runs give
///   the worker back after a budget of elements.
/// * [`Executor::Custom`] hands each run to any thread pool.
///
/// Cancellation never waits for the executor: the thread that cancels drops
/// the subscriber itself when no run is in progress (§3.13).
///
/// ```
/// use reactive_streams_reference::Executor;
///
/// let inline = Executor::Inline;
/// let pool = Executor::custom(|task| {
///     std::thread::spawn(task);
/// });
/// # let _ = (inline, pool);
/// ```
#[derive(Clone, Default)]
pub enum Executor {
    /// Run on the calling thread.
    #[default]
    Inline,
    /// Spawn onto this tokio runtime.
    Tokio(tokio::runtime::Handle),
    /// Hand each run to this function (e.g. a thread pool's `execute`).
    Custom(Arc<dyn Fn(Task) + Send + Sync>),
}

impl Executor {
    /// An executor from any function that runs a [`Task`] somewhere.
    pub fn custom(spawn: impl Fn(Task) + Send + Sync + 'static) -> Self {
        Executor::Custom(Arc::new(spawn))
    }

    /// Whether runs happen on the calling thread.
    pub fn is_inline(&self) -> bool {
        matches!(self, Executor::Inline)
    }

    pub(crate) fn execute(&self, task: impl FnOnce() + Send + 'static) {
        match self {
            Executor::Inline => task(),
            Executor::Tokio(handle) => {
                handle.spawn(async move { task() });
            }
            Executor::Custom(spawn) => spawn(Box::new(task)),
        }
    }
}

impl fmt::Debug for Executor {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Executor::Inline => f.write_str("Inline"),
            Executor::Tokio(_) => f.write_str("Tokio"),
            Executor::Custom(_) => f.write_str("Custom"),
        }
    }
}
