//! Datum-done tracking: knowing when an element has fully left a pipeline.
//!
//! A source that must acknowledge its input (commit a queue offset, delete a
//! file) needs to know when each datum is *done*: consumed by a sink, dropped
//! by a filter, or released by every cache that held it. Backpressure alone
//! cannot tell, because a caching stage returns before the datum moves on.
//!
//! # Design: the references are the clones
//!
//! The classic design keeps a reference count beside each datum and asks
//! every stage to increment and decrement it at the right moments. In Rust
//! the count can be the ownership itself: a [`DoneToken`] is an owned value;
//! *cloning* it takes another reference (a cache that keeps the datum, a
//! second output made from it) and *dropping* it releases one. When the last
//! clone is dropped the datum is done, and its [`DoneLedger`] is told —
//! exactly once, because `Drop` of the shared part runs exactly once.
//!
//! So stages need no bookkeeping of their own:
//!
//! * a stage that passes a datum on moves its token along with it;
//! * a filter that discards a datum drops it, token included: done at once;
//! * a buffer or window holds the token as long as it holds the datum;
//! * a stage that merges inputs (zip, combine-latest) carries all their
//!   tokens in one [`Tracked`] item;
//! * a stage that fans one input out into several outputs clones the token
//!   into each, and the input is done when the last output is;
//! * cancellation and errors drop whatever a stage holds, releasing it.
//!
//! Safe code cannot release a datum twice or too early; the only mistake
//! left is to leak a token (`mem::forget`, a reference cycle), which the
//! TCK's datum-lifecycle verification detects. A pipeline that carries plain
//! `T` instead of [`Tracked<T>`] pays nothing.
//!
//! ```
//! use reactive_streams::done::{DoneLedger, Tracked};
//!
//! let (ledger, done) = DoneLedger::channel();
//! let a = Tracked::new("a", ledger.issue(1));
//! let b = Tracked::new("b", ledger.issue(2));
//!
//! let cached = a.clone();          // a cache keeps a copy of "a"
//! drop(a);                          // the original moved on and was consumed
//! assert!(done.try_recv().is_err()); // still held by the cache
//! drop(cached);
//! assert_eq!(done.try_recv(), Ok(1));
//!
//! let pair = Tracked::zip(b, Tracked::new("c", ledger.issue(3)));
//! assert_eq!(pair.value, ("b", "c"));
//! drop(pair);                       // one output carried both inputs
//! let mut rest: Vec<u64> = done.try_iter().collect();
//! rest.sort();
//! assert_eq!(rest, [2, 3]);
//! ```

use std::fmt;
use std::sync::Arc;
use std::sync::mpsc;

mod checkpoint;

pub use checkpoint::Checkpoint;

type Notify = dyn Fn(u64) + Send + Sync;

/// Issues [`DoneToken`]s and is told when each datum is done.
///
/// The notification is a callback, run on the thread that drops the last
/// clone of a token; [`DoneLedger::channel`] and [`Checkpoint`] are built on
/// it.
#[derive(Clone)]
pub struct DoneLedger {
    notify: Arc<Notify>,
}

impl fmt::Debug for DoneLedger {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("DoneLedger")
    }
}

impl DoneLedger {
    /// A ledger that calls `on_done(id)` when the datum `id` is done.
    pub fn new(on_done: impl Fn(u64) + Send + Sync + 'static) -> Self {
        DoneLedger {
            notify: Arc::new(on_done),
        }
    }

    /// A ledger that sends the id of each done datum into a channel.
    pub fn channel() -> (Self, mpsc::Receiver<u64>) {
        let (sender, receiver) = mpsc::channel();
        // A closed receiver means nobody is listening any more: not an error.
        let ledger = DoneLedger::new(move |id| {
            let _ = sender.send(id);
        });
        (ledger, receiver)
    }

    /// A token for the datum `id`. Ids are the source's own (an offset, a
    /// line number); the ledger does not check that they are unique.
    pub fn issue(&self, id: u64) -> DoneToken {
        DoneToken {
            shared: Arc::new(Reference {
                id,
                notify: self.notify.clone(),
            }),
        }
    }
}

/// One datum in flight. Clone it to hold another reference; the datum is
/// done when the last clone is dropped.
#[derive(Clone)]
pub struct DoneToken {
    shared: Arc<Reference>,
}

struct Reference {
    id: u64,
    notify: Arc<Notify>,
}

impl Drop for Reference {
    fn drop(&mut self) {
        (self.notify)(self.id);
    }
}

impl DoneToken {
    /// The id the source gave this datum.
    pub fn id(&self) -> u64 {
        self.shared.id
    }

    /// How many clones of this token exist, this one included.
    pub fn references(&self) -> usize {
        Arc::strong_count(&self.shared)
    }
}

impl fmt::Debug for DoneToken {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "DoneToken({})", self.shared.id)
    }
}

/// The tokens one item carries: none, one (the common case, no allocation)
/// or several (an item merged from several inputs).
#[derive(Clone, Default)]
pub struct Tokens {
    repr: Repr,
}

#[derive(Clone, Default)]
enum Repr {
    #[default]
    None,
    One(DoneToken),
    Many(Vec<DoneToken>),
}

impl Tokens {
    /// No tokens.
    pub const fn none() -> Self {
        Tokens { repr: Repr::None }
    }

    /// Adds the tokens of `other`.
    pub fn merge(&mut self, other: Tokens) {
        let merged = match (std::mem::take(&mut self.repr), other.repr) {
            (Repr::None, other) | (other, Repr::None) => other,
            (Repr::One(a), Repr::One(b)) => Repr::Many(vec![a, b]),
            (Repr::One(a), Repr::Many(mut many)) | (Repr::Many(mut many), Repr::One(a)) => {
                many.push(a);
                Repr::Many(many)
            }
            (Repr::Many(mut a), Repr::Many(b)) => {
                a.extend(b);
                Repr::Many(a)
            }
        };
        self.repr = merged;
    }

    /// The ids of the data these tokens keep alive.
    pub fn ids(&self) -> Vec<u64> {
        self.iter().map(DoneToken::id).collect()
    }

    /// The tokens.
    pub fn iter(&self) -> impl Iterator<Item = &DoneToken> {
        let slice: &[DoneToken] = match &self.repr {
            Repr::None => &[],
            Repr::One(token) => std::slice::from_ref(token),
            Repr::Many(many) => many,
        };
        slice.iter()
    }

    /// Whether there are no tokens.
    pub fn is_empty(&self) -> bool {
        matches!(self.repr, Repr::None)
    }
}

impl From<DoneToken> for Tokens {
    fn from(token: DoneToken) -> Self {
        Tokens {
            repr: Repr::One(token),
        }
    }
}

impl fmt::Debug for Tokens {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_list()
            .entries(self.iter().map(DoneToken::id))
            .finish()
    }
}

/// A value travelling with the tokens of the data it was made from.
///
/// `Tracked<T>` is an ordinary element type: any publisher, processor or
/// subscriber of `Tracked<T>` carries tokens without knowing about them.
#[derive(Clone, Debug)]
pub struct Tracked<T> {
    /// The datum.
    pub value: T,
    /// The tokens it keeps alive.
    pub tokens: Tokens,
}

impl<T> Tracked<T> {
    /// A datum with one token.
    pub fn new(value: T, token: DoneToken) -> Self {
        Tracked {
            value,
            tokens: token.into(),
        }
    }

    /// A datum that keeps nothing alive.
    pub fn untracked(value: T) -> Self {
        Tracked {
            value,
            tokens: Tokens::none(),
        }
    }

    /// Transforms the value; the tokens move along (a map stage).
    pub fn map<U>(self, f: impl FnOnce(T) -> U) -> Tracked<U> {
        Tracked {
            value: f(self.value),
            tokens: self.tokens,
        }
    }

    /// One item made from two, carrying both inputs' tokens (zip,
    /// combine-latest).
    pub fn zip<U>(self, other: Tracked<U>) -> Tracked<(T, U)> {
        let mut tokens = self.tokens;
        tokens.merge(other.tokens);
        Tracked {
            value: (self.value, other.value),
            tokens,
        }
    }

    /// Collects items into one (a window), carrying all their tokens.
    pub fn collect(items: impl IntoIterator<Item = Tracked<T>>) -> Tracked<Vec<T>> {
        let mut tokens = Tokens::none();
        let value = items
            .into_iter()
            .map(|item| {
                tokens.merge(item.tokens);
                item.value
            })
            .collect();
        Tracked { value, tokens }
    }

    /// Several outputs made from one input (flatten, flat-map): each output
    /// holds a clone of the input's tokens, so the input is done only when
    /// the last output is.
    pub fn fan_out<U>(self, outputs: impl IntoIterator<Item = U>) -> Vec<Tracked<U>> {
        outputs
            .into_iter()
            .map(|value| Tracked {
                value,
                tokens: self.tokens.clone(),
            })
            .collect()
    }

    /// Splits the value from its tokens; the caller then owns the tokens.
    pub fn into_parts(self) -> (T, Tokens) {
        (self.value, self.tokens)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_datum_is_done_once_when_its_last_reference_goes() {
        let (ledger, done) = DoneLedger::channel();
        let token = ledger.issue(7);
        let copies: Vec<_> = (0..3).map(|_| token.clone()).collect();
        assert_eq!(token.references(), 4);
        drop(token);
        drop(copies);
        assert_eq!(done.try_iter().collect::<Vec<_>>(), [7]);
    }

    #[test]
    fn fan_out_keeps_the_input_until_the_last_output() {
        let (ledger, done) = DoneLedger::channel();
        let mut outputs = Tracked::new(1, ledger.issue(1)).fan_out([10, 11, 12]);
        outputs.truncate(1);
        assert!(done.try_recv().is_err());
        drop(outputs);
        assert_eq!(done.try_recv(), Ok(1));
    }

    #[test]
    fn collect_and_merge_carry_every_input() {
        let (ledger, _done) = DoneLedger::channel();
        let window = Tracked::collect((1..=3).map(|id| Tracked::new(id, ledger.issue(id))));
        assert_eq!(window.value, [1, 2, 3]);
        assert_eq!(window.tokens.ids(), [1, 2, 3]);
        let mut merged = window.tokens.clone();
        merged.merge(Tokens::from(ledger.issue(4)));
        assert_eq!(merged.ids(), [1, 2, 3, 4]);
        assert!(Tokens::none().is_empty());
    }
}
