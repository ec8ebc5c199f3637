use std::sync::{Arc, Mutex};

use reactive_streams::{StreamError, Subscriber, Subscription};

/// What a [`Summer`] has seen, shared with whoever created it.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct Total {
    /// The sum of all elements.
    pub sum: u64,
    /// How many elements arrived.
    pub count: u64,
    /// `Some(Ok(()))` after on_complete, `Some(Err(message))` after on_error.
    pub outcome: Option<Result<(), String>>,
}

/// Adds up `u64` elements, requesting `batch` at a time and asking for the
/// next batch when the current one is used up.
#[derive(Debug)]
pub struct Summer {
    batch: u64,
    outstanding: u64,
    subscription: Option<Arc<dyn Subscription>>,
    total: Arc<Mutex<Total>>,
}

impl Summer {
    /// A summer requesting `batch` (at least 1) elements at a time, and the
    /// handle through which its total can be read.
    pub fn new(batch: u64) -> (Self, Arc<Mutex<Total>>) {
        let total = Arc::new(Mutex::new(Total::default()));
        let summer = Summer {
            batch: batch.max(1),
            outstanding: 0,
            subscription: None,
            total: total.clone(),
        };
        (summer, total)
    }

    fn record(&self, update: impl FnOnce(&mut Total)) {
        update(&mut self.total.lock().unwrap_or_else(|p| p.into_inner()));
    }
}

impl Subscriber<u64> for Summer {
    fn on_subscribe(&mut self, subscription: Arc<dyn Subscription>) {
        if self.subscription.is_some() {
            // Already subscribed: a second subscription is refused (§2.5).
            subscription.cancel();
            return;
        }
        self.outstanding = self.batch;
        self.subscription = Some(subscription.clone());
        subscription.request(self.batch);
    }

    fn on_next(&mut self, element: u64) {
        self.record(|t| {
            t.sum = t.sum.wrapping_add(element);
            t.count += 1;
        });
        self.outstanding = self.outstanding.saturating_sub(1);
        if self.outstanding == 0 {
            if let Some(subscription) = &self.subscription {
                self.outstanding = self.batch;
                subscription.request(self.batch);
            }
        }
    }

    fn on_error(&mut self, error: StreamError) {
        // The subscription is cancelled now (§2.4): forget it, touch nothing.
        self.subscription = None;
        self.record(|t| t.outcome = Some(Err(error.to_string())));
    }

    fn on_complete(&mut self) {
        self.subscription = None;
        self.record(|t| t.outcome = Some(Ok(())));
    }
}
