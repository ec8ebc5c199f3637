//! Conforming subscribers pass every rule test, in both verifications.

use std::sync::Arc;

use parking_lot::Mutex;
use reactive_streams::{Subscriber, Subscription};
use reactive_streams_tck::outcome::{RuleResult, Verdict};
use reactive_streams_tck::subscriber::testkit::{Greedy, Queued};
use reactive_streams_tck::subscriber::{
    SubscriberBlackboxVerification, SubscriberWhiteboxVerification, WhiteboxProbe,
};
use reactive_streams_tck::{subscriber_blackbox_verification, subscriber_whitebox_verification};
use rstest::rstest;

use crate::factories::{Blackbox, Whitebox, generous};

fn assert_all_pass(results: Vec<RuleResult>) {
    crate::verdicts::assert_none_broken(&results, "a conforming subscriber broke rules");
    assert!(results.iter().any(|r| r.verdict == Verdict::Passed));
}

#[rstest]
#[case::greedy_one_at_a_time(Blackbox::new(|| Greedy::new(1)))]
#[case::greedy_batches(Blackbox::new(|| Greedy::new(8)))]
#[case::greedy_unbounded(Blackbox::new(|| Greedy::new(u64::MAX / 2)))]
#[case::queued_worker_thread(Blackbox::new(|| Queued::new(None)))]
fn conforming_subscribers_pass_the_blackbox_verification<S: Subscriber<u64> + 'static>(
    #[case] factory: Blackbox<S>,
) {
    assert_all_pass(
        SubscriberBlackboxVerification::new(factory)
            .env(generous())
            .run_all()
            .unwrap(),
    );
}

#[rstest]
#[case::reports_from_its_logic(Whitebox(|probe| Box::new(Greedy::new(4).with_probe(probe))))]
#[case::reports_from_its_worker_thread(Whitebox(|probe| Box::new(Queued::new(Some(probe)))))]
#[case::wrapped(Whitebox(|probe: WhiteboxProbe<u64>| Box::new(probe.wrap(Greedy::new(2)))))]
fn conforming_subscribers_pass_the_whitebox_verification(#[case] factory: Whitebox) {
    assert_all_pass(
        SubscriberWhiteboxVerification::new(factory)
            .env(generous())
            .run_all()
            .unwrap(),
    );
}

// The macros, as a user writes them: one `#[test]` per rule, named
// `greedy::subscriber_blackbox::spec_2_01` and so on.
subscriber_blackbox_verification!(greedy, Blackbox::new(|| Greedy::new(4)));
subscriber_blackbox_verification!(
    queued,
    Blackbox::new(|| Queued::new(None)),
    "Queued (worker thread)"
);
subscriber_whitebox_verification!(
    greedy_whitebox,
    Whitebox(|probe| Box::new(Greedy::new(4).with_probe(probe)))
);

/// Hands every element to a worker thread, which requests the next one.
/// The terminal signal takes the subscription out of the slot the worker
/// requests through (under the slot's lock), so no request can follow it
/// (§2.4); dropping the subscriber stops and joins the worker.
pub struct HandsToWorker {
    slot: Arc<Mutex<Option<Arc<dyn Subscription>>>>,
    work: Option<std::sync::mpsc::Sender<u64>>,
    worker: Option<std::thread::JoinHandle<()>>,
}

impl HandsToWorker {
    pub fn new() -> Self {
        let slot: Arc<Mutex<Option<Arc<dyn Subscription>>>> = Arc::default();
        let (work, elements) = std::sync::mpsc::channel::<u64>();
        let worker_slot = slot.clone();
        let worker = std::thread::spawn(move || {
            for _element in elements {
                if let Some(subscription) = worker_slot.lock().as_ref() {
                    subscription.request(1);
                }
            }
        });
        HandsToWorker {
            slot,
            work: Some(work),
            worker: Some(worker),
        }
    }

    fn terminated(&mut self) {
        self.slot.lock().take();
    }
}

impl Drop for HandsToWorker {
    fn drop(&mut self) {
        self.work.take();
        if let Some(worker) = self.worker.take() {
            let _ = worker.join();
        }
    }
}

impl Subscriber<u64> for HandsToWorker {
    fn on_subscribe(&mut self, subscription: Arc<dyn Subscription>) {
        let mut slot = self.slot.lock();
        if slot.is_some() {
            return subscription.cancel();
        }
        subscription.request(1);
        *slot = Some(subscription);
    }

    fn on_next(&mut self, element: u64) {
        if let Some(work) = &self.work {
            let _ = work.send(element);
        }
    }

    fn on_error(&mut self, _: reactive_streams::StreamError) {
        self.terminated();
    }

    fn on_complete(&mut self) {
        self.terminated();
    }
}

subscriber_blackbox_verification!(hands_to_worker, Blackbox::new(HandsToWorker::new));
