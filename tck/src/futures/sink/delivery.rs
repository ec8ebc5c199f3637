//! [`Delivery`]: the consumer side of a sink under test, as the TCK sees
//! it — what the sink delivered, and, when it can be told to stall, a way
//! to stop its destination accepting.

type Take = Box<dyn FnMut() -> Option<u64> + Send>;
type Pause = Box<dyn FnMut(bool) + Send>;

/// The consumer side of a sink: takes one delivered item, if any, without
/// waiting (for a channel, `receiver.try_recv().ok()`). Taking makes room
/// in a bounded sink.
///
/// A delivery side that can also be told to stall ([`pausable`]) lets the
/// TCK see any sink `Pending` — a buffered or forwarding sink in front of a
/// destination that would otherwise always accept — and so check the
/// wake-ups of its `poll_ready`, `poll_flush` and `poll_close` (`sink.1`).
/// For a sink that forwards into another `Sink<u64>`, the TCK's own
/// [`Outlet`](super::Outlet) is such a destination, ready-made.
///
/// [`pausable`]: Delivery::pausable
pub struct Delivery {
    take: Take,
    pause: Option<Pause>,
}

impl Delivery {
    /// A delivery side that takes one delivered item with `take`.
    pub fn new(take: impl FnMut() -> Option<u64> + Send + 'static) -> Delivery {
        Delivery {
            take: Box::new(take),
            pause: None,
        }
    }

    /// Makes the consumer side one the TCK can stall: `pause(true)` makes
    /// the destination stop accepting (as a reader that stops reading: the
    /// sink in front of it then has to wait), `pause(false)` lets it accept
    /// again and wakes whoever waits for it. The TCK does not take items
    /// while it holds the destination paused, and takes every delivered
    /// item when it resumes it: for a bounded destination (an in-memory
    /// pipe with a small buffer) that is a pause already, and
    /// `pausable(|_| {})` says so.
    ///
    /// ```
    /// use std::sync::{atomic::{AtomicBool, Ordering}, Arc};
    /// use reactive_streams_tck::futures::sink::Delivery;
    ///
    /// // An in-memory pipe of the user's own, with a switch to stall it.
    /// let stalled = Arc::new(AtomicBool::new(false));
    /// let switch = stalled.clone();
    /// let delivery = Delivery::new(|| None)
    ///     .pausable(move |paused| switch.store(paused, Ordering::SeqCst));
    /// # drop((delivery, stalled));
    /// ```
    pub fn pausable(mut self, pause: impl FnMut(bool) + Send + 'static) -> Delivery {
        self.pause = Some(Box::new(pause));
        self
    }

    pub(crate) fn take(&mut self) -> Option<u64> {
        (self.take)()
    }

    pub(crate) fn can_pause(&self) -> bool {
        self.pause.is_some()
    }

    /// Stalls (`true`) or resumes (`false`) the destination, if it can be.
    pub(crate) fn pause(&mut self, paused: bool) {
        if let Some(pause) = self.pause.as_mut() {
            pause(paused);
        }
    }
}

impl std::fmt::Debug for Delivery {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Delivery")
            .field("pausable", &self.pause.is_some())
            .finish_non_exhaustive()
    }
}
