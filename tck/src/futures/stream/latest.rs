//! What a stream owes in items, for streams that yield every item and for
//! latest-value (watch-like) streams, which
//! [declare](super::StreamFactory::latest_value) that a poll after several
//! items arrived may yield only the newest: such a stream owes, of `n`
//! items, at least one (the newest, last) and at most `n`.

/// How many of `n` items a stream owes.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Owed {
    pub(crate) min: u64,
    pub(crate) max: u64,
}

impl Owed {
    /// Of `n` items: all, or for a latest-value stream 1 to `n`.
    pub(crate) fn of(latest: bool, n: u64) -> Owed {
        Owed {
            min: if latest { n.min(1) } else { n },
            max: n,
        }
    }

    /// Whether yielding `k` items pays what is owed.
    pub(crate) fn paid_by(&self, k: u64) -> bool {
        (self.min..=self.max).contains(&k)
    }

    /// `exactly 3 items`, or `1 to 3 items, the newest last (a latest-value
    /// stream)`.
    pub(crate) fn describe(&self) -> String {
        if self.min == self.max {
            format!("exactly {} items", self.max)
        } else {
            format!(
                "{} to {} items, the newest last (a latest-value stream)",
                self.min, self.max
            )
        }
    }
}

/// Added to a failure in which a stream that does not declare
/// `latest_value()` yielded fewer items than it was given.
pub(crate) const LATEST_HINT: &str =
    " (if it keeps only the newest item, as a watch does, its factory declares latest_value())";

/// Whether `hint` bounds a number of items to come known only to lie in
/// `min ..= max`: its lower bound may not exceed `max`, its upper bound may
/// not be below `min`.
pub(crate) fn bounds(hint: (usize, Option<usize>), min: u64, max: u64) -> bool {
    let (lower, upper) = hint;
    lower as u64 <= max && upper.is_none_or(|u| u as u64 >= min)
}
