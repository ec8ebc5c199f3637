//! Stages that handle tokens faithfully pass every rule.

use reactive_streams::Publisher;
use reactive_streams::done::Tracked;
use reactive_streams_tck::datum_lifecycle_verification;
use reactive_streams_tck::lifecycle::{LifecycleFactory, LifecycleVerification};
use reactive_streams_tck::outcome::Verdict;

use crate::merge::{Handling, Merges, Turns};
use crate::pair::{Combine, Pairs};
use crate::relay::{Declared, Parked, Relays, Release};

/// Passes each element on, tokens and all.
pub fn pass(element: Tracked<u64>, _: &Parked) -> Tracked<u64> {
    element
}

/// Keeps a clone of each element's tokens (a cache), released at the end.
pub fn cache(element: Tracked<u64>, parked: &Parked) -> Tracked<u64> {
    parked.lock().push(element.tokens.clone());
    element
}

/// The input itself.
pub struct Wire;

impl LifecycleFactory for Wire {
    type Output = Tracked<u64>;
    fn create_stage(
        &self,
        mut inputs: Vec<Box<dyn Publisher<Tracked<u64>>>>,
    ) -> Box<dyn Publisher<Tracked<u64>>> {
        inputs.remove(0)
    }
    fn element_index(&self, output: &Tracked<u64>) -> Option<u64> {
        Some(output.value)
    }
}

datum_lifecycle_verification!(
    passing_relay,
    Relays {
        op: pass,
        release: Release::ALWAYS
    }
);
datum_lifecycle_verification!(
    caching_relay,
    Relays {
        op: cache,
        release: Release::ALWAYS
    },
    "CachingRelay"
);
datum_lifecycle_verification!(wire, Wire);

#[test]
fn run_all_passes_and_names_every_rule() {
    let results = LifecycleVerification::new(Wire).run_all().unwrap();
    let rules: Vec<&str> = results.iter().map(|r| r.rule.as_str()).collect();
    assert_eq!(
        rules,
        ["done.1", "done.2", "done.3", "done.4", "done.5", "done.6"]
    );
    for result in &results {
        let expected = if result.rule == "done.6" {
            Verdict::EnforcedByTypes
        } else {
            Verdict::Passed
        };
        assert_eq!(result.verdict, expected, "{result:#?}");
    }
}

// Declaring what they keep turns on the mid-stream check of done.3.
datum_lifecycle_verification!(
    passing_relay_keeping_nothing,
    Declared(
        Relays {
            op: pass,
            release: Release::ALWAYS
        },
        0
    )
);
datum_lifecycle_verification!(combine_latest_pair, Pairs(Combine::Clone));

// Merges: each output is one input datum, carrying exactly its token.
datum_lifecycle_verification!(
    merge_pair,
    Merges {
        handling: Handling::Pass,
        turns: Turns::Arrival
    }
);
// Unusual but correct: strictly alternating inputs (a datum waits for the
// other input's turn), and a merge that keeps the tokens of the last two
// delivered data of each input and declares them.
datum_lifecycle_verification!(
    alternating_merge,
    Merges {
        handling: Handling::Pass,
        turns: Turns::Alternate
    }
);
datum_lifecycle_verification!(
    merge_keeping_the_last_two,
    Merges {
        handling: Handling::KeepLast(2),
        turns: Turns::Arrival
    }
);

// Unusual but correct: a worker thread that finishes the datum in hand
// after cancel(), delivering its output late (§1.8, §3.12).
datum_lifecycle_verification!(
    worker_delivering_after_cancel,
    crate::worker::Workers(crate::worker::InHand::Deliver)
);
