//! Self-tests of the subscriber verifications: conforming subscribers pass
//! every rule test; each broken subscriber fails the rule it breaks, with a
//! snapshot-tested message.
//!
//! The extended verification's self-tests sit beside them
//! (`extended_*.rs`): conforming implementations pass it; ones broken in
//! ways only a generated schedule or concurrency shows pass the quick
//! verification and fail the extended one, with a readable, shrunk
//! counterexample.

mod broken;
mod correct;
mod declarations;
#[path = "../support/extended.rs"]
mod extended;
mod extended_broken;
mod extended_correct;
mod extended_unusual;
mod factories;
mod late_calls;
mod laxest;
mod resubscribing;
mod self_cancelling;
mod slow;
mod stops;
#[path = "../support/test_threads.rs"]
mod test_threads;
mod unusual;
#[path = "../support/verdicts.rs"]
mod verdicts;
