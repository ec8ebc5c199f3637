//! Issue 26 §2: every declaration a stream factory makes is honoured by
//! the rule tests and the extended schedules alike (both run in one
//! verification): a stream that never ends (`endless`), a producer with a
//! bounded capacity and an end of its own (`Feeder::capacity`,
//! `Feeder::on_end`), and what the other self-tests already cover (a fed
//! channel, `item_index`, `is_terminated`, `thread_bound`) pass.

use futures::channel::mpsc;
use futures::stream::FusedStream;
use futures::stream::{self, BoxStream, StreamExt};
use reactive_streams_tck::ExtendedConfig;
use reactive_streams_tck::futures::stream::{Feeder, StreamFactory, StreamVerification};
use reactive_streams_tck::outcome::RuleResult;

fn results<F: StreamFactory>(factory: F) -> Vec<RuleResult> {
    StreamVerification::new(factory)
        .extended(ExtendedConfig::builder().cases(64).seed(11).build())
        .run_all()
        .unwrap()
}

fn skipped(results: &[RuleResult]) -> Vec<String> {
    let mut skipped = Vec::new();
    for result in results {
        assert!(
            result.broken_rules().is_empty(),
            "{}: {:?}",
            result.test,
            result.message
        );
        if result.verdict == reactive_streams_tck::outcome::Verdict::Skipped {
            skipped.push(result.test.clone());
        }
    }
    skipped
}

/// Counts up from 0 forever.
struct Counting;

impl StreamFactory for Counting {
    type Item = u64;
    type Stream = BoxStream<'static, u64>;
    fn create_stream(&self, _items: u64) -> Self::Stream {
        stream::iter(0..).boxed()
    }
    fn endless(&self) -> bool {
        true
    }
    fn item_index(&self, item: &u64) -> Option<u64> {
        Some(*item)
    }
}

#[test]
fn an_endless_stream_passes_rules_and_schedules() {
    let results = results(Counting);
    assert_eq!(skipped(&results), ["stream_2", "stream_4"]);
}

/// A bounded channel with room for one item; its end closes the channel.
struct Bounded;

impl StreamFactory for Bounded {
    type Item = u64;
    type Stream = mpsc::Receiver<u64>;
    fn create_stream(&self, items: u64) -> Self::Stream {
        let (mut sender, receiver) = mpsc::channel(items as usize);
        for i in 0..items {
            sender.try_send(i).unwrap();
        }
        receiver
    }
    fn create_fed_stream(&self) -> Option<(Self::Stream, Feeder)> {
        // `channel(0)` holds one item per sender: one here.
        let (sender, receiver) = mpsc::channel(0);
        let mut pushing = sender.clone();
        let mut ending = sender;
        let feeder = Feeder::new(move |i| pushing.try_send(i).unwrap())
            .capacity(1)
            .on_end(move || ending.close_channel());
        Some((receiver, feeder))
    }
    fn item_index(&self, item: &u64) -> Option<u64> {
        Some(*item)
    }
    fn is_terminated(&self, stream: &Self::Stream) -> Option<bool> {
        Some(stream.is_terminated())
    }
}

#[test]
fn a_bounded_producer_passes_rules_and_schedules() {
    let results = results(Bounded);
    assert_eq!(skipped(&results), Vec::<String>::new());
}
