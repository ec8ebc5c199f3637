//! Self-tests of the `futures::Sink` verification: a correct bounded sink
//! (with and without a buffer of its own) passes; each broken sink fails
//! exactly the rule it breaks, with a snapshotted message.

mod broken;
mod correct;
mod queue;
