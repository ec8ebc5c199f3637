//! Self-tests of the subscriber verifications: conforming subscribers pass
//! every rule test; each broken subscriber fails the rule it breaks, with a
//! snapshot-tested message.

mod broken;
mod conforming;
mod factories;
mod resubscribing;
mod stops;
mod unusual;
#[path = "../support/verdicts.rs"]
mod verdicts;
