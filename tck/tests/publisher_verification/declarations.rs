//! Issue 26 §2: every declaration a publisher factory makes is honoured by
//! the quick and the extended verification alike. Each correct publisher
//! below needs its declaration and passes both; `min_elements` and
//! `max_elements` are covered by the unusual corpus (`AlwaysEmpty`,
//! `JustOnes`, in `unusual.rs` and `extended_unusual.rs`).
//!
//! `max_sync_recursion_depth` above 1 has no self-test: a publisher can
//! only nest `on_next` inside the same subscriber's `on_next` by aliasing
//! `&mut` (unsafe); both verifications hand the declared depth to the
//! same probe bound.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use reactive_streams::{Publisher, StreamError, Subscriber, Subscription};
use reactive_streams_tck::outcome::RuleResult;
use reactive_streams_tck::publisher::{PublisherFactory, PublisherVerification};
use reactive_streams_tck::testkit::{SyncRange, SyncRanges};

use crate::unusual::{JustOnes, LazyEnds};

fn passes_quick_and_extended<F: PublisherFactory>(
    name: &str,
    factory: impl Fn() -> F,
) -> (Vec<String>, Vec<String>) {
    let quick: Vec<RuleResult> = PublisherVerification::new(factory()).run_all().unwrap();
    let quick = crate::verdicts::assert_clean_and_skips_explained(name, &quick);
    let extended = PublisherVerification::new(factory())
        .env(crate::extended::passing_env())
        .extended(crate::extended::config(200, 10))
        .run_extended()
        .unwrap();
    let extended = crate::verdicts::assert_clean_and_skips_explained(name, &extended);
    (quick, extended)
}

/// A range that serves one subscriber: a later one gets `on_subscribe`
/// and then `on_error` (§1.9, §1.11).
struct OnlyOnce {
    range: SyncRange,
    taken: AtomicBool,
}

struct Nothing;

impl Subscription for Nothing {
    fn request(&self, _: u64) {}
    fn cancel(&self) {}
}

impl Publisher<u64> for OnlyOnce {
    fn subscribe(&self, mut subscriber: Box<dyn Subscriber<u64>>) {
        if self.taken.swap(true, Ordering::SeqCst) {
            subscriber.on_subscribe(Arc::new(Nothing));
            return subscriber.on_error(StreamError::msg("this publisher serves one subscriber"));
        }
        self.range.subscribe(subscriber);
    }
}

struct Unicast;

impl PublisherFactory for Unicast {
    type Element = u64;
    fn create_publisher(&self, elements: u64) -> Box<dyn Publisher<u64>> {
        Box::new(OnlyOnce {
            range: SyncRange::new(0, elements),
            taken: AtomicBool::new(false),
        })
    }
    fn create_failed_publisher(&self) -> Option<Box<dyn Publisher<u64>>> {
        SyncRanges.create_failed_publisher()
    }
    fn supports_multiple_subscribers(&self) -> bool {
        false
    }
}

/// `supports_multiple_subscribers() == false`.
#[test]
fn a_unicast_publisher_passes_quick_and_extended() {
    passes_quick_and_extended("unicast", || Unicast);
}

/// `run_stochastic() == false` and no failed publisher
/// (`create_failed_publisher() == None`): the tests needing them are
/// skipped, saying so, in both.
struct Calm;

impl PublisherFactory for Calm {
    type Element = u64;
    fn create_publisher(&self, elements: u64) -> Box<dyn Publisher<u64>> {
        SyncRanges.create_publisher(elements)
    }
    fn run_stochastic(&self) -> bool {
        false
    }
}

#[test]
fn a_publisher_declining_stochastic_tests_passes_quick_and_extended() {
    let (quick, extended) = passes_quick_and_extended("calm", || Calm);
    assert!(!quick.is_empty(), "the quick stochastic tests ran");
    assert!(
        extended
            .iter()
            .any(|s| s.starts_with("tck_extended_stress")),
        "the extended stress ran: {extended:?}"
    );
}

/// `min_elements() == max_elements() == 1`, and a publisher that finds
/// its end lazily.
#[test]
fn a_just_like_and_a_lazy_publisher_pass_quick_and_extended() {
    passes_quick_and_extended("lazy ends", || LazyEnds);
    passes_quick_and_extended("just ones", || JustOnes);
}
