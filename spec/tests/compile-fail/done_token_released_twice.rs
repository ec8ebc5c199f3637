//! done.6: a datum is done exactly once. A token is released by dropping
//! it, and dropping takes it by value: releasing the same reference twice
//! is a use of a moved value. Another reference is only had by cloning,
//! which the ledger counts, so the datum is done once, when the last one
//! goes.

use reactive_streams::done::{DoneLedger, DoneToken};

fn release_twice(token: DoneToken) {
    drop(token);
    drop(token);
}

fn main() {
    let ledger = DoneLedger::new(|_| {});
    release_twice(ledger.issue(1));
}
