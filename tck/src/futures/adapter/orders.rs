//! Adapters over several inner streams: any of them may end first, and any
//! may stay `Pending` while the others end. Each order is played: items
//! queued in every inner stream, then the inner streams ended one after
//! another, the adapter settling after each end, the last of them staying
//! `Pending` until the others have ended, and only then fed more items and
//! ended. An adapter that ends early (at a later input's end, or taking a
//! waiting input for ended) loses the items that come after; one that polls
//! an inner stream after its end is seen by the inner stream itself.
//!
//! All orders for 2 and 3 inner streams; for more, each rotation (every
//! inner stream ends first once, and stays `Pending` last once).
//!
//! The TCK's inner streams yield plain items, so no inner stream fails
//! first: an error is not an item they can carry.

use super::AdapterFactory;
use super::identity::check;
use super::rules::{Adapted, ITEMS};
use crate::context::{Failure, RuleCx};

/// The orders in which `n` inner streams end: every permutation up to 3,
/// each rotation beyond.
pub(super) fn orders(n: usize) -> Vec<Vec<usize>> {
    if n > 3 {
        return (0..n)
            .map(|first| (0..n).map(|i| (first + i) % n).collect())
            .collect();
    }
    let mut all: Vec<Vec<usize>> = vec![Vec::new()];
    for _ in 0..n {
        let mut longer = Vec::new();
        for order in &all {
            for j in (0..n).filter(|j| !order.contains(j)) {
                let mut next = order.clone();
                next.push(j);
                longer.push(next);
            }
        }
        all = longer;
    }
    all
}

fn names(order: &[usize]) -> String {
    let names: Vec<String> = order.iter().map(|j| j.to_string()).collect();
    names.join(", ")
}

/// Plays every order (for an adapter of 2 inner streams or more; nothing
/// otherwise). With `identity`, each run is judged by `adapter.5`'s check;
/// `Ok(false)` then if the factory does not declare `carried`.
pub(super) fn every_order<F: AdapterFactory>(
    cx: &RuleCx,
    factory: &F,
    rule: &str,
    identity: bool,
) -> Result<bool, Failure> {
    let n = factory.inputs();
    if n < 2 {
        return Ok(true);
    }
    for order in orders(n) {
        let (ended, waiting) = order.split_at(n - 1);
        let waiting = waiting[0];
        let ends = match ended {
            [one] => format!("inner {one} ended, the adapter settling"),
            more => format!(
                "inner {} ended in that order, the adapter settling after each",
                names(more)
            ),
        };
        cx.scenario(format!(
            "{ITEMS} items queued in each of {n} inner streams, then {ends}, inner {waiting} Pending meanwhile; then {ITEMS} more items pushed into inner {waiting}, and its end"
        ));
        let mut a = Adapted::new(cx, factory, rule)?;
        for _ in 0..ITEMS {
            for j in 0..n {
                a.inners.push(j);
            }
        }
        for &j in ended {
            a.inners.end(j);
            a.settle(factory, rule)?;
        }
        for _ in 0..ITEMS {
            a.inners.push(waiting);
        }
        a.inners.end(waiting);
        a.drain(factory, rule)?;
        if identity && !check(&a, factory)? {
            return Ok(false);
        }
    }
    Ok(true)
}

#[cfg(test)]
mod tests {
    use super::orders;

    #[test]
    fn every_order_of_up_to_three_and_each_rotation_beyond() {
        assert_eq!(orders(2), [[0, 1], [1, 0]]);
        assert_eq!(orders(3).len(), 6);
        let mut seen = orders(3);
        seen.sort();
        seen.dedup();
        assert_eq!(seen.len(), 6);
        assert_eq!(orders(4).len(), 4);
        assert!(orders(4).iter().all(|o| {
            let mut o = o.clone();
            o.sort();
            o == [0, 1, 2, 3]
        }));
    }
}
