//! Issue 27: which output is which. Stages that declare `element_index`
//! (output `i` is input 0's datum `i`) but deliver one output twice, skip
//! one, or swap two. Each keeps every token rule (a datum it drops is done,
//! one it holds keeps its token, everything is released at the end), so
//! each fails `tck.create_n_gives_exactly_n` alone, seen by every `done`
//! rule test's scripts; conforming stages that declare it pass.

use std::sync::Arc;

use parking_lot::Mutex;
use reactive_streams::done::Tracked;
use reactive_streams::{Publisher, StreamError, Subscriber, Subscription};
use reactive_streams_tck::lifecycle::LifecycleFactory;
use reactive_streams_tck::outcome::Verdict;
use reactive_streams_tck::testkit::{anything_broken, broken_rules};
use rstest::rstest;

use crate::broken::verify_stage;
use crate::relay::{Relays, Release};

/// What is wrong with a [`Disorders`] stage.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Quirk {
    /// Datum 1's output is sent again (a clone of its tokens) in place of
    /// datum 2's, which is dropped: the count is right, one output twice.
    RepeatsOne,
    /// Datum 1 is dropped, as a filter would, though the declaration says
    /// every datum makes an output.
    SkipsOne,
    /// Datum 1 is held until datum 2 has gone out (or the input ends).
    SwapsTwo,
}

/// Stages passing input 0's data on with one [`Quirk`]; they declare that
/// output `i` is datum `i`.
pub struct Disorders(pub Quirk);

impl LifecycleFactory for Disorders {
    type Output = Tracked<u64>;

    fn create_stage(
        &self,
        mut inputs: Vec<Box<dyn Publisher<Tracked<u64>>>>,
    ) -> Box<dyn Publisher<Tracked<u64>>> {
        Box::new(Disorder {
            input: inputs.remove(0),
            quirk: self.0,
        })
    }

    fn element_index(&self, output: &Tracked<u64>) -> Option<u64> {
        Some(output.value)
    }
}

struct Disorder {
    input: Box<dyn Publisher<Tracked<u64>>>,
    quirk: Quirk,
}

/// What a stage keeps back: datum 1 (or a clone of its tokens), released
/// by the end of the stream or a cancel.
type Kept = Arc<Mutex<Option<Tracked<u64>>>>;

impl Publisher<Tracked<u64>> for Disorder {
    fn subscribe(&self, subscriber: Box<dyn Subscriber<Tracked<u64>>>) {
        self.input.subscribe(Box::new(Intake {
            downstream: subscriber,
            quirk: self.quirk,
            kept: Kept::default(),
        }));
    }
}

struct Intake {
    downstream: Box<dyn Subscriber<Tracked<u64>>>,
    quirk: Quirk,
    kept: Kept,
}

impl Subscriber<Tracked<u64>> for Intake {
    fn on_subscribe(&mut self, subscription: Arc<dyn Subscription>) {
        self.downstream.on_subscribe(Arc::new(Passing {
            upstream: subscription,
            kept: self.kept.clone(),
        }));
    }

    fn on_next(&mut self, datum: Tracked<u64>) {
        match (self.quirk, datum.value) {
            (Quirk::RepeatsOne, 1) => {
                *self.kept.lock() = Some(Tracked {
                    value: 1,
                    tokens: datum.tokens.clone(),
                });
                self.downstream.on_next(datum);
            }
            (Quirk::RepeatsOne, 2) => {
                drop(datum);
                let again = self.kept.lock().take();
                if let Some(again) = again {
                    self.downstream.on_next(again);
                }
            }
            (Quirk::SkipsOne, 1) => drop(datum),
            (Quirk::SwapsTwo, 1) => *self.kept.lock() = Some(datum),
            (Quirk::SwapsTwo, 2) => {
                self.downstream.on_next(datum);
                let held = self.kept.lock().take();
                if let Some(held) = held {
                    self.downstream.on_next(held);
                }
            }
            _ => self.downstream.on_next(datum),
        }
    }

    fn on_error(&mut self, error: StreamError) {
        let kept = self.kept.lock().take();
        drop(kept);
        self.downstream.on_error(error);
    }

    fn on_complete(&mut self) {
        let kept = self.kept.lock().take();
        if let (Quirk::SwapsTwo, Some(held)) = (self.quirk, kept) {
            self.downstream.on_next(held);
        }
        self.downstream.on_complete();
    }
}

struct Passing {
    upstream: Arc<dyn Subscription>,
    kept: Kept,
}

impl Subscription for Passing {
    fn request(&self, n: u64) {
        self.upstream.request(n);
    }

    fn cancel(&self) {
        let kept = self.kept.lock().take();
        drop(kept);
        self.upstream.cancel();
    }
}

#[rstest]
#[case::repeating_one(Quirk::RepeatsOne, "again or out of order, after element 1")]
#[case::skipping_one(Quirk::SkipsOne, "is element 2: element 1 was skipped")]
#[case::swapping_two(Quirk::SwapsTwo, "is element 2: element 1 was skipped")]
fn a_stage_delivering_out_of_order_fails_create_n_gives_exactly_n(
    #[case] quirk: Quirk,
    #[case] wrong: &str,
) {
    let results = verify_stage(Disorders(quirk));
    insta::assert_snapshot!(format!("disorder_{quirk:?}_rules"), broken_rules(&results));
    // Every done rule holds: the disorder is filed under its own rule, as
    // a violation each rule test's scripts saw.
    for result in &results {
        let own = if result.rule == "done.6" {
            Verdict::EnforcedByTypes
        } else {
            Verdict::Passed
        };
        assert_eq!(result.verdict, own, "{result:#?}");
        let violation = result
            .violations
            .iter()
            .find(|v| v.rule == "tck.create_n_gives_exactly_n")
            .unwrap_or_else(|| panic!("{} saw no disorder: {result:#?}", result.rule));
        assert!(
            violation.message.contains("expected each output at most once and in order from output 0, by the factory's element_index, in every generated script; actual: input 0: ")
                && violation.message.contains(" → output #")
                && violation.message.contains(wrong),
            "{}",
            violation.message
        );
    }
}

/// Conforming stages that declare `element_index` pass with nothing
/// broken: a relay passing data on, and one that caches their tokens
/// until the end (the worker delivering after cancel declares it too, in
/// `correct.rs`).
#[rstest]
#[case::passing_relay(Relays { op: crate::correct::pass, release: Release::ALWAYS })]
#[case::caching_relay(Relays { op: crate::correct::cache, release: Release::ALWAYS })]
fn a_conforming_relay_declaring_element_index_passes(#[case] relays: Relays) {
    let results = verify_stage(relays);
    assert_eq!(anything_broken(&results), Vec::<String>::new());
}
