//! A watch-like (latest-value) channel: every push overwrites the item not
//! yet taken, so a stream polled after several pushes yields only the
//! newest. Declared `latest_value()`, it passes every rule; undeclared, it
//! fails as any stream that skips items does, and the messages name the
//! declaration; one that keeps the oldest item instead of the newest fails
//! even declared.

use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll, Waker};

use parking_lot::Mutex;
use reactive_streams_tck::ExtendedConfig;
use reactive_streams_tck::env::TestEnv;
use reactive_streams_tck::futures::stream::{Feeder, StreamFactory, StreamVerification};
use reactive_streams_tck::outcome::{RuleResult, Verdict};
use reactive_streams_tck::testkit::broken_rules;
use rstest::rstest;

#[derive(Default)]
struct Slot {
    newest: Option<u64>,
    waker: Option<Waker>,
    producer_done: bool,
    consumer_gone: bool,
}

type Shared = Arc<Mutex<Slot>>;

struct Sender {
    shared: Shared,
    keeps_oldest: bool,
}

impl Sender {
    fn send(&self, item: u64) {
        let waker = {
            let mut slot = self.shared.lock();
            if slot.consumer_gone {
                return;
            }
            // The bug: an item not yet taken is kept, the newer one lost.
            if !(self.keeps_oldest && slot.newest.is_some()) {
                slot.newest = Some(item);
            }
            slot.waker.take()
        };
        if let Some(waker) = waker {
            waker.wake();
        }
    }
}

impl Drop for Sender {
    fn drop(&mut self) {
        let waker = {
            let mut slot = self.shared.lock();
            slot.producer_done = true;
            slot.waker.take()
        };
        if let Some(waker) = waker {
            waker.wake();
        }
    }
}

pub struct WatchStream(Shared);

impl futures_core::Stream for WatchStream {
    type Item = u64;

    fn poll_next(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<u64>> {
        let mut slot = self.0.lock();
        if let Some(item) = slot.newest.take() {
            return Poll::Ready(Some(item));
        }
        if slot.producer_done {
            return Poll::Ready(None);
        }
        slot.waker = Some(cx.waker().clone());
        Poll::Pending
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        let slot = self.0.lock();
        let held = usize::from(slot.newest.is_some());
        (held, slot.producer_done.then_some(held))
    }
}

impl Drop for WatchStream {
    fn drop(&mut self) {
        let mut slot = self.0.lock();
        slot.consumer_gone = true;
        slot.waker = None;
    }
}

#[derive(Debug, Clone, Copy)]
pub struct Watches {
    pub declared: bool,
    pub keeps_oldest: bool,
}

impl Watches {
    fn pair(&self) -> (WatchStream, Sender) {
        let shared = Shared::default();
        let sender = Sender {
            shared: shared.clone(),
            keeps_oldest: self.keeps_oldest,
        };
        (WatchStream(shared), sender)
    }
}

impl StreamFactory for Watches {
    type Item = u64;
    type Stream = WatchStream;

    fn create_stream(&self, items: u64) -> WatchStream {
        let (stream, sender) = self.pair();
        for i in 0..items {
            sender.send(i);
        }
        stream
    }

    fn create_fed_stream(&self) -> Option<(WatchStream, Feeder)> {
        let (stream, sender) = self.pair();
        let shared = sender.shared.clone();
        let feeder =
            Feeder::new(move |i| sender.send(i)).closed(move || shared.lock().consumer_gone);
        Some((stream, feeder))
    }

    fn item_index(&self, item: &u64) -> Option<u64> {
        Some(*item)
    }

    fn latest_value(&self) -> bool {
        self.declared
    }
}

fn run_all(factory: Watches) -> Vec<RuleResult> {
    StreamVerification::new(factory)
        .env(TestEnv::default())
        .extended(ExtendedConfig::builder().cases(64).seed(29).build())
        .run_all()
        .unwrap()
}

#[test]
fn a_declared_latest_value_stream_passes() {
    for result in run_all(Watches {
        declared: true,
        keeps_oldest: false,
    }) {
        // Not a FusedStream.
        let want = if result.test == "stream_4" {
            Verdict::Skipped
        } else {
            Verdict::Passed
        };
        assert_eq!(result.verdict, want, "{result:#?}");
    }
}

#[rstest]
#[case::undeclared("latest_value_undeclared", Watches { declared: false, keeps_oldest: false })]
#[case::keeps_oldest("latest_value_keeps_oldest", Watches { declared: true, keeps_oldest: true })]
fn a_latest_value_stream_fails_undeclared_or_when_it_loses_the_newest(
    #[case] name: &str,
    #[case] factory: Watches,
) {
    let results = run_all(factory);
    insta::assert_snapshot!(format!("{name}_rules"), broken_rules(&results));
    let exact = results
        .iter()
        .find(|r| r.test == "tck_stream_gives_exactly_n")
        .unwrap();
    assert_eq!(exact.verdict, Verdict::Failed, "{exact:#?}");
    let message = exact.message.clone().unwrap();
    if !factory.declared {
        assert!(message.contains("latest_value()"), "{message}");
    }
    insta::assert_snapshot!(format!("{name}_message"), message);
}
