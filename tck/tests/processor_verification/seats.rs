//! The plumbing of a multicast stage over the TCK's
//! [`MulticastProcessor`](reactive_streams_tck::processor::testkit::MulticastProcessor)
//! queues, shared by [`Laggard`](crate::leaving::Laggard) and
//! [`Lockstep`](crate::crosstalk::Lockstep): the queues hold and deliver
//! each subscriber's elements within its demand; a [`Pacing`] stage of
//! their own decides what is asked upstream and how a request or a leave
//! is handled.

use std::sync::Arc;

use parking_lot::Mutex;
use reactive_streams::{StreamError, Subscriber, Subscription};

/// A stage pacing upstream for the queues.
pub trait Pacing: Send + Sync + Sized + 'static {
    /// One downstream subscriber's state, as the stage paces upstream.
    type Member: Send + 'static;
    /// Asks upstream for what the stage's pace wants now.
    fn refill(&self);
    /// Cancels upstream, once.
    fn shut(&self);
    /// The member's subscription on the queues, once given.
    fn seated(member: &mut Self::Member, queue: Arc<dyn Subscription>);
    /// A downstream `request(n)` (`n` may be 0).
    fn request(seat: &SeatSubscription<Self>, n: u64);
    /// A downstream `cancel()`.
    fn cancel(seat: &SeatSubscription<Self>);
}

/// The upstream subscription as the queues see it: their requests are
/// replaced by the stage's pacing.
pub struct Paced<S>(pub Arc<S>);

impl<S: Pacing> Subscription for Paced<S> {
    fn request(&self, _n: u64) {
        self.0.refill();
    }

    fn cancel(&self) {
        self.0.shut();
    }
}

/// A downstream subscriber, seen by the queues.
pub struct Seat<S: Pacing> {
    pub subscriber: Box<dyn Subscriber<u64>>,
    pub member: Arc<Mutex<S::Member>>,
    pub stage: Arc<S>,
}

impl<S: Pacing> Subscriber<u64> for Seat<S> {
    fn on_subscribe(&mut self, subscription: Arc<dyn Subscription>) {
        S::seated(&mut self.member.lock(), subscription.clone());
        self.subscriber.on_subscribe(Arc::new(SeatSubscription {
            queue: subscription,
            member: self.member.clone(),
            stage: self.stage.clone(),
        }));
    }

    fn on_next(&mut self, element: u64) {
        self.subscriber.on_next(element);
    }

    fn on_error(&mut self, error: StreamError) {
        self.subscriber.on_error(error);
    }

    fn on_complete(&mut self) {
        self.subscriber.on_complete();
    }
}

/// A downstream subscriber's subscription: its calls go to the stage.
pub struct SeatSubscription<S: Pacing> {
    /// Its subscription on the queues.
    pub queue: Arc<dyn Subscription>,
    pub member: Arc<Mutex<S::Member>>,
    pub stage: Arc<S>,
}

impl<S: Pacing> SeatSubscription<S> {
    /// Passes a leave on to the queues.
    pub fn call(&self, cancel: bool) {
        if cancel {
            self.queue.cancel();
        } else {
            self.queue.request(0);
        }
    }
}

impl<S: Pacing> Subscription for SeatSubscription<S> {
    fn request(&self, n: u64) {
        S::request(self, n);
    }

    fn cancel(&self) {
        S::cancel(self);
    }
}
