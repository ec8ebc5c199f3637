//! §2.3's publisher half: a subscriber built around a publisher (retry,
//! repeat) must not call `subscribe` from `on_complete` / `on_error`. The
//! whitebox factory hands it the TCK's recording publisher.

use std::collections::BTreeSet;
use std::sync::Arc;

use reactive_streams::{Publisher, StreamError, Subscriber, Subscription};
use reactive_streams_tck::outcome::Verdict;
use reactive_streams_tck::subscriber::{
    RecordingPublisher, SubscriberWhiteboxFactory, SubscriberWhiteboxVerification, WhiteboxProbe,
};

use crate::factories::{generous, patient};

/// Requests one at a time; on a terminal signal it subscribes to its
/// publisher again (a retry/repeat): from inside the signal (the defect)
/// or from a thread of its own.
struct Repeating {
    publisher: Option<RecordingPublisher<u64>>,
    inline: bool,
    subscription: Option<Arc<dyn Subscription>>,
}

impl Repeating {
    fn again(&mut self) {
        self.subscription = None;
        let Some(publisher) = self.publisher.clone() else {
            return;
        };
        let fresh = Box::new(Repeating {
            publisher: None,
            inline: self.inline,
            subscription: None,
        });
        if self.inline {
            publisher.subscribe(fresh);
        } else {
            std::thread::spawn(move || publisher.subscribe(fresh));
        }
    }
}

impl Subscriber<u64> for Repeating {
    fn on_subscribe(&mut self, subscription: Arc<dyn Subscription>) {
        if self.subscription.is_some() {
            return subscription.cancel();
        }
        subscription.request(1);
        self.subscription = Some(subscription);
    }
    fn on_next(&mut self, _: u64) {
        if let Some(subscription) = &self.subscription {
            subscription.request(1);
        }
    }
    fn on_error(&mut self, _: StreamError) {
        self.again();
    }
    fn on_complete(&mut self) {
        self.again();
    }
}

pub(crate) struct Repeaters {
    pub(crate) inline: bool,
}

impl SubscriberWhiteboxFactory for Repeaters {
    type Element = u64;
    fn create_subscriber(&self, probe: WhiteboxProbe<u64>) -> Box<dyn Subscriber<u64>> {
        Box::new(probe.wrap(Repeating {
            publisher: None,
            inline: self.inline,
            subscription: None,
        }))
    }
    fn element(&self, index: u64) -> u64 {
        index
    }
    fn create_subscriber_with_publisher(
        &self,
        probe: WhiteboxProbe<u64>,
        publisher: RecordingPublisher<u64>,
    ) -> Option<Box<dyn Subscriber<u64>>> {
        Some(Box::new(probe.wrap(Repeating {
            publisher: Some(publisher),
            inline: self.inline,
            subscription: None,
        })))
    }
}

#[test]
fn a_subscriber_resubscribing_from_a_terminal_signal_fails_2_3() {
    let results = SubscriberWhiteboxVerification::new(Repeaters { inline: true })
        .target("Repeating")
        .env(patient())
        .run_all()
        .unwrap();
    let failed: BTreeSet<&str> = results
        .iter()
        .filter(|r| r.verdict == Verdict::Failed)
        .map(|r| r.test.as_str())
        .collect();
    assert_eq!(failed, BTreeSet::from(["spec_2_03"]));
    let result = results.iter().find(|r| r.test == "spec_2_03").unwrap();
    insta::assert_snapshot!(result.message.as_deref().unwrap());
}

#[test]
fn a_subscriber_resubscribing_from_its_own_thread_passes() {
    let results = SubscriberWhiteboxVerification::new(Repeaters { inline: false })
        .env(generous())
        .run_all()
        .unwrap();
    let failed: Vec<_> = results
        .iter()
        .filter(|r| r.verdict == Verdict::Failed)
        .map(reactive_streams_tck::runner::failure_text)
        .collect();
    assert!(failed.is_empty(), "{}", failed.join("\n"));
}
