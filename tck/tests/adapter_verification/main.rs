//! Self-tests of the stream-adapter verification: unusual-but-correct
//! adapters pass every rule; each deliberately broken adapter fails exactly
//! the rule it breaks, with its rule set and message snapshotted.

mod adapters;
mod broken;
mod correct;
mod laxest;
