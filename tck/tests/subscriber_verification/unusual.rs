//! Correct-but-unusual subscribers (issue 14, families 5 and 6), written
//! from the specification's text: each passes the whole whitebox
//! verification with no failure, and every skip says why.
//!
//! * A **greedy** subscriber asks for everything at once: `request(u64::MAX)`
//!   from `on_subscribe` (§3.17: unbounded), and its puppet adds more.
//! * A subscriber **with a helper** hands its elements to an inner helper
//!   that consumes them in chunks; when a chunk is full, the helper's own
//!   terminal method (`finish`) asks the subscription for the next chunk.
//!   Once cancelled, its requests still reach the subscription, as the
//!   no-ops §3.6 makes them.
//! * A subscriber whose **helper cancels**: a `take(1)`-like helper whose
//!   terminal method cancels the subscription; the puppet's later requests
//!   are no-ops.
//!
//! The generated `#[test]`s below are the regression tests: before issue
//! 14, the greedy subscriber failed `spec_3_08` (an overflow in the TCK)
//! and `spec_2_08` (fed until the watchdog fired); the one whose helper
//! cancels failed `spec_3_08` and the happy path ("total demand 1" after a
//! `request(1)` the trace shows).

#[path = "../common/unusual_subscribers.rs"]
pub mod unusual_subscribers;

use reactive_streams_tck::subscriber::{SubscriberWhiteboxFactory, SubscriberWhiteboxVerification};
use reactive_streams_tck::subscriber_whitebox_verification;

use crate::factories::generous;
use unusual_subscribers::{Greedies, Helped, Takers};

fn passes<F: SubscriberWhiteboxFactory>(name: &str, factory: F) {
    let results = SubscriberWhiteboxVerification::new(factory)
        .env(generous())
        .run_all()
        .unwrap();
    crate::verdicts::assert_no_failure_and_skips_explained(name, &results);
}

#[test]
fn a_greedy_subscriber_passes() {
    passes("greedy", Greedies);
}

#[test]
fn a_subscriber_with_a_helper_passes() {
    passes("with a helper", Helped);
}

#[test]
fn a_subscriber_whose_helper_cancels_passes() {
    passes("taking", Takers);
}

subscriber_whitebox_verification!(greedy, Greedies);
subscriber_whitebox_verification!(taking, Takers);
subscriber_whitebox_verification!(with_helper, Helped);
