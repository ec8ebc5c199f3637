//! Subscribers: [`CallbackSubscriber`], [`QueuedSubscriber`] and
//! [`collect`] / [`CollectSubscriber`].

mod callback;
mod collect;
mod queued;

pub use callback::CallbackSubscriber;
pub use collect::{Collect, CollectSubscriber, collect};
pub use queued::{QueuedSubscriber, Signal};

/// Demand to ask for once `outstanding` elements remain of a `batch`, or
/// `None` if it is not time yet (low-water mark refill).
pub(crate) fn refill(batch: u64, low_water: u64, outstanding: u64) -> Option<u64> {
    if reactive_streams::demand::is_unbounded(batch) || outstanding > low_water {
        None
    } else {
        Some(batch - outstanding)
    }
}
