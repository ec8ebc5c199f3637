//! Self-tests of the datum-lifecycle verification: a faithful stage passes
//! every rule; each deliberately broken stage fails the rule it breaks.

mod broken;
mod correct;
mod disorder;
mod lax;
mod merge;
mod pair;
mod relay;
#[path = "../support/test_threads.rs"]
mod test_threads;
mod two_inputs;
mod worker;
