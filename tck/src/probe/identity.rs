//! Which element is which: a factory's `element_index`, checked by every
//! probe of a rule test that declared it (`tck.create_n_gives_exactly_n`).
//!
//! A publisher made by `create_publisher(n)` owes each subscriber elements
//! `0 … n−1`, each once and in order. Counting cannot see an element
//! delivered twice in place of another, or one skipped and made up for at
//! the end; the indices can. A probe that saw the start of the stream
//! (one [`created_for`](super::Probe::created_for) a fresh publisher) owes
//! element 0 first; any other probe (a second subscriber of a hot
//! publisher may join late, missing earlier elements) owes, after its
//! first element, the one after it. An element not owed is reported once,
//! naming what came instead.

use std::sync::Arc;

/// The rule a probe files duplicated, skipped or reordered elements under.
pub const EXACTLY_ONCE: &str = "tck.create_n_gives_exactly_n";

/// An element's index in its stream, if told.
type IndexOf<T> = dyn Fn(&T) -> Option<u64> + Send + Sync;

/// A factory's `element_index`: the index of an element in its stream, or
/// `None` where the factory does not tell.
pub struct Identity<T> {
    index: Arc<IndexOf<T>>,
}

impl<T> Clone for Identity<T> {
    fn clone(&self) -> Self {
        Identity {
            index: self.index.clone(),
        }
    }
}

impl<T> Identity<T> {
    /// The identity `index` tells.
    pub(crate) fn new(index: impl Fn(&T) -> Option<u64> + Send + Sync + 'static) -> Self {
        Identity {
            index: Arc::new(index),
        }
    }

    /// The index of `element`, if told.
    pub(crate) fn of(&self, element: &T) -> Option<u64> {
        (self.index)(element)
    }
}

/// The order one subscriber's elements came in.
#[derive(Debug, Default, Clone)]
pub(crate) struct Order {
    /// The stream is owed from element 0 (the probe saw its start).
    pub(crate) from_start: bool,
    /// The last element's index.
    last: Option<u64>,
    /// The next element may skip ahead (not back): the stream resumed
    /// after a stop, and a source may have gone on meanwhile.
    gap_allowed: bool,
}

impl Order {
    /// The order of a stream seen from its start: element 0 is owed first.
    pub(crate) fn from_start() -> Self {
        Order {
            from_start: true,
            ..Order::default()
        }
    }

    /// The index owed next, if known.
    pub(crate) fn owed(&self) -> Option<u64> {
        match self.last {
            Some(last) => Some(last.saturating_add(1)),
            None => self.from_start.then_some(0),
        }
    }

    /// The stream resumes after a stop: the next element may skip ahead.
    pub(crate) fn rejoin(&mut self) {
        self.gap_allowed = true;
    }

    /// Notes element `index`; what was wrong with it, if it was not the one
    /// owed ("element 2 again", "elements 3 … 4 skipped").
    pub(crate) fn next(&mut self, index: u64) -> Result<(), String> {
        let owed = self.owed();
        let last = self.last.replace(index);
        let gap_allowed = std::mem::take(&mut self.gap_allowed);
        let Some(owed) = owed else {
            return Ok(());
        };
        if gap_allowed && index > owed {
            return Ok(());
        }
        match (index.cmp(&owed), last) {
            (std::cmp::Ordering::Equal, _) => Ok(()),
            (std::cmp::Ordering::Greater, _) if index == owed + 1 => {
                Err(format!("is element {index}: element {owed} was skipped"))
            }
            (std::cmp::Ordering::Greater, _) => Err(format!(
                "is element {index}: elements {owed} … {} were skipped",
                index - 1
            )),
            (std::cmp::Ordering::Less, Some(last)) => Err(format!(
                "is element {index} again or out of order, after element {last}"
            )),
            (std::cmp::Ordering::Less, None) => {
                Err(format!("is element {index}, where element {owed} was owed"))
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::Order;

    #[test]
    fn from_the_start_each_once_and_in_order() {
        let mut order = Order {
            from_start: true,
            ..Order::default()
        };
        assert_eq!(order.next(0), Ok(()));
        assert_eq!(order.next(1), Ok(()));
        assert_eq!(
            order.next(1),
            Err(String::from(
                "is element 1 again or out of order, after element 1"
            ))
        );
        assert_eq!(
            order.next(4),
            Err(String::from("is element 4: elements 2 … 3 were skipped"))
        );
    }

    #[test]
    fn a_late_joiner_may_start_anywhere_but_then_goes_on_in_order() {
        let mut order = Order::default();
        assert_eq!(order.next(7), Ok(()));
        assert_eq!(order.next(8), Ok(()));
        assert_eq!(
            order.next(10),
            Err(String::from("is element 10: element 9 was skipped"))
        );
    }

    #[test]
    fn after_a_rejoin_the_stream_may_skip_ahead_once_but_never_back() {
        let mut order = Order::default();
        assert_eq!(order.next(0), Ok(()));
        order.rejoin();
        assert_eq!(order.next(5), Ok(()));
        assert!(order.next(7).is_err());
        order.rejoin();
        assert!(order.next(3).is_err());
    }

    #[test]
    fn the_first_must_be_element_0_from_the_start() {
        let mut order = Order {
            from_start: true,
            ..Order::default()
        };
        assert_eq!(
            order.next(1),
            Err(String::from("is element 1: element 0 was skipped"))
        );
    }
}
