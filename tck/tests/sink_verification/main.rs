//! Self-tests of the `futures::Sink` verification: a correct bounded sink
//! (with and without a buffer of its own) passes; each broken sink fails
//! exactly the rule it breaks, with a snapshotted message; sinks in front
//! of a destination the TCK can pause, and the factory's declarations
//! (`never_waits`, `latest_value`).

mod broken;
mod correct;
mod declared;
mod destinations;
mod laxest;
mod queue;
#[path = "../support/test_threads.rs"]
mod test_threads;
