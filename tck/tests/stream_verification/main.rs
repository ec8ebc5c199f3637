//! Self-tests of the `futures::Stream` verification: a correct channel and
//! unusual-but-correct streams pass every rule; each deliberately broken
//! stream fails exactly the rule it breaks, with a snapshotted message; a
//! latest-value (watch-like) stream passes declared, and fails undeclared.

mod broken;
mod channel;
mod correct;
mod declarations;
mod laxest;
mod macros;
mod watch;
