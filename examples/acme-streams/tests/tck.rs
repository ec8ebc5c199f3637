//! The Reactive Streams TCK, run against this crate's own types.
//!
//! `cargo test --test tck` runs every rule as a test; `cargo rs-tck` (in
//! this folder, once installed) or `cargo xtask tck --manifest-path
//! examples/acme-streams/Cargo.toml` (from the TCK's repository) runs them
//! one process each and reports.

use acme_streams::{Countdown, Scale, Summer};
use reactive_streams::{Publisher, Subscriber};
use reactive_streams_tck::processor::ProcessorFactory;
use reactive_streams_tck::publisher::PublisherFactory;
use reactive_streams_tck::subscriber::{
    SubscriberBlackboxFactory, SubscriberWhiteboxFactory, WhiteboxProbe,
};
use reactive_streams_tck::{
    processor_verification, publisher_verification, subscriber_blackbox_verification,
    subscriber_whitebox_verification,
};

struct Countdowns;

impl PublisherFactory for Countdowns {
    type Element = u64;

    fn create_publisher(&self, elements: u64) -> Box<dyn Publisher<u64>> {
        Box::new(Countdown::new(elements))
    }
}

publisher_verification!(countdown, Countdowns);

struct Summers;

impl SubscriberBlackboxFactory for Summers {
    type Element = u64;
    type Subscriber = Summer;

    fn create_subscriber(&self) -> Summer {
        Summer::new(4).0
    }

    fn element(&self, index: u64) -> u64 {
        index
    }
}

subscriber_blackbox_verification!(summer, Summers);

struct InstrumentedSummers;

impl SubscriberWhiteboxFactory for InstrumentedSummers {
    type Element = u64;

    fn create_subscriber(&self, probe: WhiteboxProbe<u64>) -> Box<dyn Subscriber<u64>> {
        Box::new(probe.wrap(Summer::new(4).0))
    }

    fn element(&self, index: u64) -> u64 {
        index
    }
}

subscriber_whitebox_verification!(summer_whitebox, InstrumentedSummers, "summer");

struct Scales;

impl ProcessorFactory for Scales {
    type Input = u64;
    type Output = u64;
    type Processor = Scale;

    fn create_processor(&self) -> Scale {
        Scale::new(3)
    }

    fn input(&self, index: u64) -> u64 {
        index
    }

    // Scale serves one downstream subscriber (a second is refused).
    fn supports_multiple_subscribers(&self) -> bool {
        false
    }
}

processor_verification!(scale, Scales);
