//! Conforming subscribers the TCK verifies itself against (its self-tests,
//! doc examples and benchmark use them). Not part of the supported API.
//!
//! * [`Greedy`]: synchronous; requests a batch in `on_subscribe` and tops
//!   it up from `on_next`.
//! * [`Queued`]: asynchronous; every signal goes through a channel to a
//!   worker thread, which processes it, reports it to an optional
//!   [`WhiteboxProbe`], and requests one more after each element.

use std::sync::Arc;
use std::sync::mpsc;

use reactive_streams::{StreamError, Subscriber, Subscription};

use super::WhiteboxProbe;

/// A synchronous subscriber. See the [module](self) docs.
pub struct Greedy {
    batch: u64,
    outstanding: u64,
    subscription: Option<Arc<dyn Subscription>>,
    probe: Option<WhiteboxProbe<u64>>,
}

impl Greedy {
    /// Requests `batch` at a time (at least 1).
    pub fn new(batch: u64) -> Self {
        Greedy {
            batch: batch.max(1),
            outstanding: 0,
            subscription: None,
            probe: None,
        }
    }

    /// Reports to `probe` and registers its subscription as the puppet.
    pub fn with_probe(mut self, probe: WhiteboxProbe<u64>) -> Self {
        self.probe = Some(probe);
        self
    }
}

impl std::fmt::Debug for Greedy {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Greedy")
            .field("batch", &self.batch)
            .finish_non_exhaustive()
    }
}

impl Subscriber<u64> for Greedy {
    fn on_subscribe(&mut self, subscription: Arc<dyn Subscription>) {
        if self.subscription.is_some() {
            return subscription.cancel();
        }
        if let Some(probe) = &self.probe {
            probe.registered(subscription.clone());
        }
        self.outstanding = self.batch;
        self.subscription = Some(subscription.clone());
        subscription.request(self.batch);
    }

    fn on_next(&mut self, element: u64) {
        if let Some(probe) = &self.probe {
            probe.received_next(&element);
        }
        self.outstanding = self.outstanding.saturating_sub(1);
        if self.outstanding <= self.batch / 2 {
            if let Some(subscription) = &self.subscription {
                let more = self.batch - self.outstanding;
                self.outstanding += more;
                subscription.request(more);
            }
        }
    }

    fn on_error(&mut self, error: StreamError) {
        self.subscription = None;
        if let Some(probe) = &self.probe {
            probe.received_error(&error);
        }
    }

    fn on_complete(&mut self) {
        self.subscription = None;
        if let Some(probe) = &self.probe {
            probe.received_complete();
        }
    }
}

enum Signal {
    Subscribe(Arc<dyn Subscription>),
    Next(u64),
    Error(StreamError),
    Complete,
}

/// An asynchronous subscriber. See the [module](self) docs.
pub struct Queued {
    signals: mpsc::Sender<Signal>,
    subscribed: bool,
}

impl Queued {
    /// Starts the worker thread; it reports to `probe` if given.
    pub fn new(probe: Option<WhiteboxProbe<u64>>) -> Self {
        let (signals, inbox) = mpsc::channel();
        std::thread::Builder::new()
            .name(String::from("queued-subscriber"))
            .spawn(move || work(inbox, probe))
            .expect("spawn the subscriber's worker");
        Queued {
            signals,
            subscribed: false,
        }
    }
}

impl std::fmt::Debug for Queued {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Queued").finish_non_exhaustive()
    }
}

/// The worker owns the subscription: only it calls `request`, so calls are
/// serial (§2.7), and it stops at the terminal signal (§2.4).
fn work(inbox: mpsc::Receiver<Signal>, probe: Option<WhiteboxProbe<u64>>) {
    let mut subscription: Option<Arc<dyn Subscription>> = None;
    for signal in inbox {
        match signal {
            Signal::Subscribe(s) => {
                if let Some(probe) = &probe {
                    probe.registered(s.clone());
                }
                s.request(1);
                subscription = Some(s);
            }
            Signal::Next(element) => {
                if let Some(probe) = &probe {
                    probe.received_next(&element);
                }
                if let Some(s) = &subscription {
                    s.request(1);
                }
            }
            Signal::Error(error) => {
                if let Some(probe) = &probe {
                    probe.received_error(&error);
                }
                return;
            }
            Signal::Complete => {
                if let Some(probe) = &probe {
                    probe.received_complete();
                }
                return;
            }
        }
    }
}

impl Subscriber<u64> for Queued {
    fn on_subscribe(&mut self, subscription: Arc<dyn Subscription>) {
        if self.subscribed {
            return subscription.cancel();
        }
        self.subscribed = true;
        let _ = self.signals.send(Signal::Subscribe(subscription));
    }

    fn on_next(&mut self, element: u64) {
        let _ = self.signals.send(Signal::Next(element));
    }

    fn on_error(&mut self, error: StreamError) {
        let _ = self.signals.send(Signal::Error(error));
    }

    fn on_complete(&mut self) {
        let _ = self.signals.send(Signal::Complete);
    }
}
