use std::collections::BTreeSet;
use std::sync::{Arc, Mutex, MutexGuard};

use super::{DoneLedger, DoneToken};

/// Issues tokens for consecutive offsets and knows the highest offset below
/// which every datum is done — the position a source may safely commit.
///
/// ```
/// use reactive_streams::done::Checkpoint;
///
/// let checkpoint = Checkpoint::new();
/// let t0 = checkpoint.issue();          // offset 0
/// let t1 = checkpoint.issue();          // offset 1
/// let t2 = checkpoint.issue();          // offset 2
/// assert_eq!(checkpoint.committable(), None);
/// drop(t1);                              // 1 is done, but 0 is not
/// assert_eq!(checkpoint.committable(), None);
/// drop(t0);
/// assert_eq!(checkpoint.committable(), Some(1)); // 0 and 1 are done
/// drop(t2);
/// assert_eq!(checkpoint.committable(), Some(2));
/// ```
#[derive(Debug, Clone)]
pub struct Checkpoint {
    state: Arc<Mutex<Offsets>>,
    ledger: DoneLedger,
}

#[derive(Debug, Default)]
struct Offsets {
    next: u64,
    outstanding: BTreeSet<u64>,
}

impl Default for Checkpoint {
    fn default() -> Self {
        Checkpoint::new()
    }
}

impl Checkpoint {
    /// A checkpoint whose first offset is 0.
    pub fn new() -> Self {
        let state = Arc::new(Mutex::new(Offsets::default()));
        let on_done = Arc::downgrade(&state);
        let ledger = DoneLedger::new(move |offset| {
            if let Some(state) = on_done.upgrade() {
                lock(&state).outstanding.remove(&offset);
            }
        });
        Checkpoint { state, ledger }
    }

    /// A token for the next offset.
    pub fn issue(&self) -> DoneToken {
        let mut state = lock(&self.state);
        let offset = state.next;
        state.next += 1;
        state.outstanding.insert(offset);
        drop(state);
        self.ledger.issue(offset)
    }

    /// The highest offset such that it and every offset before it are done,
    /// or `None` if offset 0 is not done yet.
    pub fn committable(&self) -> Option<u64> {
        let state = lock(&self.state);
        let first_pending = state.outstanding.first().copied().unwrap_or(state.next);
        first_pending.checked_sub(1)
    }

    /// How many issued data are not done yet.
    pub fn in_flight(&self) -> usize {
        lock(&self.state).outstanding.len()
    }
}

fn lock(state: &Mutex<Offsets>) -> MutexGuard<'_, Offsets> {
    state
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
}
