//! Issue 27 through a processor: a processor declaring which input each
//! output came from (`element_index`) is held to each output once and in
//! order; one that relabels an output fails exactly that, and the
//! conforming one passes.

use std::sync::Arc;

use reactive_streams::{Publisher, StreamError, Subscriber, Subscription};
use reactive_streams_tck::processor::testkit::IdentityProcessor;
use reactive_streams_tck::processor::{ProcessorFactory, ProcessorVerification};
use reactive_streams_tck::testkit::{anything_broken, broken_rules};

use crate::factories::generous;

/// The TCK's identity processor, passing input 2 on as a second 1 when
/// `relabels`: the count of outputs stays right, their identity does not.
#[derive(Clone)]
pub struct Relabelling {
    inner: IdentityProcessor<u64>,
    relabels: bool,
}

impl Subscriber<u64> for Relabelling {
    fn on_subscribe(&mut self, subscription: Arc<dyn Subscription>) {
        self.inner.on_subscribe(subscription);
    }
    fn on_next(&mut self, element: u64) {
        let element = if self.relabels && element == 2 {
            1
        } else {
            element
        };
        self.inner.on_next(element);
    }
    fn on_error(&mut self, error: StreamError) {
        self.inner.on_error(error);
    }
    fn on_complete(&mut self) {
        self.inner.on_complete();
    }
}

impl Publisher<u64> for Relabelling {
    fn subscribe(&self, subscriber: Box<dyn Subscriber<u64>>) {
        self.inner.subscribe(subscriber);
    }
}

/// [`Relabelling`] processors; input `i` is `i`, and each output names its
/// input.
pub struct Relabellings(pub bool);

impl ProcessorFactory for Relabellings {
    type Input = u64;
    type Output = u64;
    type Processor = Relabelling;

    fn create_processor(&self) -> Relabelling {
        Relabelling {
            inner: IdentityProcessor::new(),
            relabels: self.0,
        }
    }

    fn input(&self, index: u64) -> u64 {
        index
    }

    fn element_index(&self, output: &u64) -> Option<u64> {
        Some(*output)
    }

    fn supports_multiple_subscribers(&self) -> bool {
        false
    }
}

#[test]
fn a_processor_relabelling_an_output_fails_create_n_gives_exactly_n() {
    let results = ProcessorVerification::new(Relabellings(true))
        .env(generous())
        .run_all()
        .unwrap();
    insta::assert_snapshot!(broken_rules(&results));
}

#[test]
fn a_processor_declaring_element_index_passes() {
    let results = ProcessorVerification::new(Relabellings(false))
        .env(generous())
        .run_all()
        .unwrap();
    let broken = anything_broken(&results);
    assert!(broken.is_empty(), "{broken:#?}");
}

/// Issue 27 §4: a processor that recovers from an upstream error must
/// treat its upstream as cancelled while it keeps serving downstream; one
/// that still passes downstream demand upstream fails §2.4.
#[test]
fn a_recovering_processor_requesting_upstream_after_the_error_fails_2_4() {
    use crate::factories::Identities;
    use reactive_streams_tck::processor::testkit::Quirk;
    let factory = Identities {
        quirk: Quirk::RequestsAfterRecovery,
        recovers: true,
    };
    let results = ProcessorVerification::new(factory)
        .env(generous())
        .run_all()
        .unwrap();
    insta::assert_snapshot!(broken_rules(&results));
}
