//! Correct subscribers that end their own subscription (issue 26 §3),
//! written from the specification's text: a subscriber may `cancel` at any
//! time (§3.5 lets the subscription be cancelled; §3.6 and §3.7 make later
//! calls no-ops), also from `on_subscribe`, and also through a helper it
//! owns. Each is offered as a blackbox and as a whitebox subscriber; the
//! whitebox ones register a puppet whose `trigger_request` still reaches
//! the (cancelled) subscription, a no-op by §3.6, so demand stays 0.
//!
//! Every one of them cancels a second subscription (§2.5) and forgets its
//! subscription on a terminal signal (§2.4).

#![allow(dead_code)]

use std::sync::Arc;
use std::sync::mpsc;

use reactive_streams::{StreamError, Subscriber, Subscription};
use reactive_streams_tck::subscriber::{
    SubscriberBlackboxFactory, SubscriberWhiteboxFactory, WhiteboxProbe,
};

/// When the subscriber ends its own subscription.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Ends {
    /// From `on_subscribe`, before asking for anything.
    OnSubscribe,
    /// From `on_subscribe`, after asking for one element.
    AfterRequest,
    /// From the first `on_next` (it asked for one element first).
    OnFirstNext,
    /// Through a helper thread it owns, which takes the subscription in
    /// `on_subscribe`, asks for one element and cancels; `on_subscribe`
    /// waits for the helper's answer, so its calls stay serial with the
    /// subscriber's own (§2.7) and end before any terminal signal (§2.3).
    ByHelper,
}

impl Ends {
    pub const ALL: [Ends; 4] = [
        Ends::OnSubscribe,
        Ends::AfterRequest,
        Ends::OnFirstNext,
        Ends::ByHelper,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Ends::OnSubscribe => "cancels in on_subscribe",
            Ends::AfterRequest => "requests 1 and cancels in on_subscribe",
            Ends::OnFirstNext => "cancels in its first on_next",
            Ends::ByHelper => "cancels through a helper thread",
        }
    }
}

/// The helper a [`Ends::ByHelper`] subscriber owns: a thread that is
/// handed the subscription and ends it.
struct Helper {
    to_helper: mpsc::Sender<Arc<dyn Subscription>>,
    done: mpsc::Receiver<()>,
}

impl Helper {
    fn spawn() -> Helper {
        let (to_helper, inbox) = mpsc::channel::<Arc<dyn Subscription>>();
        let (finished, done) = mpsc::channel();
        std::thread::spawn(move || {
            for subscription in inbox {
                subscription.request(1);
                subscription.cancel();
                if finished.send(()).is_err() {
                    return;
                }
            }
        });
        Helper { to_helper, done }
    }

    /// Hands `subscription` over and waits until the helper has ended it.
    fn end(&self, subscription: Arc<dyn Subscription>) {
        if self.to_helper.send(subscription).is_ok() {
            let _ = self.done.recv();
        }
    }
}

/// A subscriber that ends its own subscription as [`Ends`] says.
pub struct SelfCancelling {
    ends: Ends,
    probe: Option<WhiteboxProbe<u64>>,
    subscription: Option<Arc<dyn Subscription>>,
    helper: Option<Helper>,
}

impl SelfCancelling {
    pub fn new(ends: Ends, probe: Option<WhiteboxProbe<u64>>) -> SelfCancelling {
        SelfCancelling {
            ends,
            probe,
            subscription: None,
            helper: (ends == Ends::ByHelper).then(Helper::spawn),
        }
    }
}

impl Subscriber<u64> for SelfCancelling {
    fn on_subscribe(&mut self, subscription: Arc<dyn Subscription>) {
        if self.subscription.is_some() {
            return subscription.cancel(); // §2.5
        }
        if let Some(probe) = &self.probe {
            // The puppet is the subscription itself: once cancelled, what
            // it is asked to request is a no-op (§3.6).
            probe.registered(subscription.clone());
        }
        self.subscription = Some(subscription.clone());
        match self.ends {
            Ends::OnSubscribe => subscription.cancel(),
            Ends::AfterRequest => {
                subscription.request(1);
                subscription.cancel();
            }
            Ends::OnFirstNext => subscription.request(1),
            Ends::ByHelper => {
                if let Some(helper) = &self.helper {
                    helper.end(subscription);
                }
            }
        }
    }

    fn on_next(&mut self, element: u64) {
        if let Some(probe) = &self.probe {
            probe.received_next(&element);
        }
        if self.ends == Ends::OnFirstNext {
            if let Some(subscription) = &self.subscription {
                subscription.cancel();
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

/// Blackbox factory of [`SelfCancelling`] subscribers.
pub struct SelfCancellingBlackbox(pub Ends);

impl SubscriberBlackboxFactory for SelfCancellingBlackbox {
    type Element = u64;
    type Subscriber = SelfCancelling;

    fn create_subscriber(&self) -> SelfCancelling {
        SelfCancelling::new(self.0, None)
    }

    fn element(&self, index: u64) -> u64 {
        index
    }
}

/// Whitebox factory of [`SelfCancelling`] subscribers.
pub struct SelfCancellingWhitebox(pub Ends);

impl SubscriberWhiteboxFactory for SelfCancellingWhitebox {
    type Element = u64;

    fn create_subscriber(&self, probe: WhiteboxProbe<u64>) -> Box<dyn Subscriber<u64>> {
        Box::new(SelfCancelling::new(self.0, Some(probe)))
    }

    fn element(&self, index: u64) -> u64 {
        index
    }
}
