//! Self-tests of the processor verification: a conforming processor passes
//! every rule test; each broken processor fails the rule it breaks, with a
//! snapshot-tested message.
//!
//! The extended verification's self-tests sit beside them
//! (`extended_*.rs`): conforming implementations pass it; ones broken in
//! ways only a generated schedule or concurrency shows pass the quick
//! verification and fail the extended one, with a readable, shrunk
//! counterexample.

mod broken;
mod correct;
mod crosstalk;
mod declarations;
mod exact_delivery;
#[path = "../support/extended.rs"]
mod extended;
mod extended_broken;
mod extended_correct;
mod extended_identity;
mod extended_unusual;
mod factories;
mod filtering;
mod flawed;
mod lax;
mod leaving;
mod many_parties;
mod prefetched;
mod seats;
mod self_cancelling;
mod serial_upstream;
#[path = "../support/test_threads.rs"]
mod test_threads;
mod unusual;
#[path = "../support/verdicts.rs"]
mod verdicts;
