//! [`RecordingPublisher`]: the publisher the TCK hands to a whitebox
//! subscriber built around one (retry, repeat, resubscribe), so that the
//! publisher half of §2.3 can be checked: `on_complete` and `on_error`
//! must not call `subscribe` on it.

use std::sync::Arc;

use parking_lot::Mutex;
use reactive_streams::{Publisher, Subscriber};

use super::probe_subscription::current_signal;
use crate::context::RuleCx;

/// A publisher that only records: every `subscribe` is traced with the
/// signal it was made inside, and one made from inside `on_complete` or
/// `on_error` fails §2.3. It never signals the subscribers it is given;
/// it keeps them until it is dropped, so their drop never runs inside the
/// call that handed them over.
///
/// Given to [`SubscriberWhiteboxFactory::create_subscriber_with_publisher`](crate::subscriber::SubscriberWhiteboxFactory::create_subscriber_with_publisher).
pub struct RecordingPublisher<T> {
    shared: Arc<Shared<T>>,
}

struct Shared<T> {
    cx: RuleCx,
    subscribers: Mutex<Vec<Box<dyn Subscriber<T>>>>,
}

impl<T> Clone for RecordingPublisher<T> {
    fn clone(&self) -> Self {
        RecordingPublisher {
            shared: self.shared.clone(),
        }
    }
}

impl<T: Send + 'static> RecordingPublisher<T> {
    pub(crate) fn new(cx: &RuleCx) -> Self {
        RecordingPublisher {
            shared: Arc::new(Shared {
                cx: cx.clone(),
                subscribers: Mutex::new(Vec::new()),
            }),
        }
    }

    /// How many times `subscribe` was called.
    pub fn subscribes(&self) -> usize {
        self.shared.subscribers.lock().len()
    }
}

impl<T: Send + 'static> Publisher<T> for RecordingPublisher<T> {
    fn subscribe(&self, subscriber: Box<dyn Subscriber<T>>) {
        let cx = &self.shared.cx;
        let signal = current_signal();
        cx.trace(match signal {
            Some(signal) => format!("publisher: subscribe [inside {signal}]"),
            None => String::from("publisher: subscribe"),
        });
        if let Some(signal @ ("on_complete" | "on_error")) = signal {
            cx.record(cx.failure_of(
                "2.3",
                format!("no call on the publisher from inside {signal}"),
                format!("subscribe on the publisher from inside {signal}"),
            ));
        }
        self.shared.subscribers.lock().push(subscriber);
    }
}
