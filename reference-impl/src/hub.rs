//! The subscriber list of a hot stage: one [`Slot`] and one drain per
//! subscriber, shared by [`MulticastPublisher`](crate::MulticastPublisher)
//! and the processors.

use std::sync::Arc;

use reactive_streams::{StreamError, Subscriber, Subscription};

use crate::drain::{Drain, Producer};
use crate::executor::Executor;
use crate::overflow::BoundedBuffer;
use crate::slot::{Slot, SlotProducer};

pub(crate) type SlotDrain<T> = Drain<T, SlotProducer<T>>;

/// Something that must hear when a downstream subscription asks for more
/// or leaves.
pub(crate) trait HubOwner: Send + Sync + 'static {
    fn requested(&self, id: u64, n: u64);
    fn left(&self, id: u64);
}

/// The subscription a hub subscriber holds: the drain's, plus telling the
/// owner about demand and departure.
pub(crate) struct HubSubscription<T: Send + 'static, P = SlotProducer<T>> {
    pub(crate) id: u64,
    pub(crate) drain: Arc<Drain<T, P>>,
    pub(crate) owner: Arc<dyn HubOwner>,
}

impl<T: Send + 'static, P: Producer<T>> Subscription for HubSubscription<T, P> {
    fn request(&self, n: u64) {
        if self.drain.is_finished() {
            return;
        }
        self.drain.request(n);
        if n == 0 {
            self.owner.left(self.id);
        } else {
            self.owner.requested(self.id, n);
        }
    }

    fn cancel(&self) {
        if self.drain.is_finished() {
            return;
        }
        self.drain.cancel();
        self.owner.left(self.id);
    }
}

/// Creates the slot and drain of a new subscriber; the caller registers the
/// slot, then calls [`start`].
pub(crate) fn open<T: Send + 'static>(
    buffer: BoundedBuffer<T>,
    executor: Executor,
) -> (Arc<Slot<T>>, Arc<SlotDrain<T>>) {
    let slot = Slot::new(buffer);
    let drain = Drain::new(SlotProducer(slot.clone()), executor);
    slot.set_waker(drain.waker());
    (slot, drain)
}

/// Greets the subscriber; signals already sent to the slot follow.
pub(crate) fn start<T: Send + 'static, P: Producer<T>>(
    id: u64,
    drain: Arc<Drain<T, P>>,
    owner: Arc<dyn HubOwner>,
    subscriber: Box<dyn Subscriber<T>>,
) {
    let subscription = Arc::new(HubSubscription {
        id,
        drain: drain.clone(),
        owner,
    });
    drain.start(subscriber, subscription);
}

/// The terminal of a hot stage, replayed to late subscribers.
#[derive(Clone)]
pub(crate) enum Terminal {
    Completed,
    Failed(StreamError),
    Cancelled,
}

impl Terminal {
    pub(crate) fn reason(&self) -> Option<StreamError> {
        match self {
            Terminal::Completed => None,
            Terminal::Failed(error) => Some(error.clone()),
            Terminal::Cancelled => Some(StreamError::msg(
                "processor cancelled: its last subscriber left, so upstream was cancelled",
            )),
        }
    }
}
