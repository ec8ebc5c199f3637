//! `tck_stream_gives_exactly_n`: the factory's promise about the items
//! themselves. A stream from `create_stream(n)` yields `n` items, then
//! `Ready(None)`; a fed stream yields what was pushed, then ends once the
//! feeder ends. When the factory's
//! [`item_index`](super::StreamFactory::item_index) says which item is
//! which, each must come exactly once and in order: a stream that loses,
//! duplicates or reorders items fails here and nowhere else (the rule tests
//! of `stream.1` … `stream.7` count items, but do not look at them).

use std::fmt::Debug;

use super::driver::Driver;
use super::factory::StreamFactory;
use super::latest::{LATEST_HINT, Owed};
use super::rules::{EXACT_ITEMS, ITEMS, end, push};
use crate::context::{Failure, Outcome, RuleBody, RuleCx};

/// The indices of the items `d` yielded, where the factory tells them.
struct Seen {
    /// Per item yielded, in order, its index (`None` where untold).
    indices: Vec<Option<u64>>,
}

impl Seen {
    fn new() -> Seen {
        Seen {
            indices: Vec::new(),
        }
    }

    fn record<F: StreamFactory>(&mut self, factory: &F, item: &F::Item) {
        self.indices.push(factory.item_index(item));
    }

    /// The yielded items as their indices: `0, 1, 1, 3` (`?` where
    /// untold).
    fn show(&self) -> String {
        self.indices
            .iter()
            .map(|i| i.map_or_else(|| String::from("?"), |i| i.to_string()))
            .collect::<Vec<_>>()
            .join(", ")
    }

    /// The first position whose item is not the one owed there: for a
    /// latest-value stream, one not after the item before it, or not one
    /// of the `owed` items.
    fn first_wrong(&self, latest: bool, owed: u64) -> Option<usize> {
        if !latest {
            return self
                .indices
                .iter()
                .enumerate()
                .position(|(at, index)| index.is_some_and(|i| i != at as u64));
        }
        let mut before: Option<u64> = None;
        self.indices.iter().position(|index| match index {
            Some(i) if *i >= owed || before.is_some_and(|b| *i <= b) => true,
            Some(i) => {
                before = Some(*i);
                false
            }
            None => false,
        })
    }

    /// The index of the last item, if told.
    fn last(&self) -> Option<u64> {
        self.indices.last().copied().flatten()
    }
}

fn check<S: futures_core::Stream + Send>(
    d: &Driver<S>,
    seen: &Seen,
    owed: u64,
    ended: bool,
) -> Result<(), Failure>
where
    S::Item: Debug,
{
    let yielded = seen.indices.len() as u64;
    let owes = Owed::of(d.latest, owed);
    let newest_last = !d.latest || !ended || owed == 0 || seen.last().is_none_or(|i| i + 1 == owed);
    let count_ok = if ended {
        owes.paid_by(yielded) && newest_last
    } else {
        yielded >= owes.min
    };
    let wrong = seen.first_wrong(d.latest, owed);
    if count_ok && wrong.is_none() {
        return Ok(());
    }
    let last = owed.saturating_sub(1);
    let items = if d.latest {
        format!(
            "some of items 0 … {last}, each at most once, in order, and item {last} last (a latest-value stream)"
        )
    } else {
        format!("items 0 … {last} once each and in order")
    };
    let then = if ended { ", then Ready(None)" } else { "" };
    let expected = format!(
        "{} to yield {items} (by the factory's item_index){then}",
        d.label
    );
    let mut actual = format!("items [{}]", seen.show());
    if let Some(at) = wrong {
        actual.push_str(&format!(
            ": item {} at position {at}",
            seen.indices[at].unwrap_or_default()
        ));
    }
    actual.push_str(then);
    let skipped_to_newest = ended && yielded < owed && yielded > 0 && seen.last() == Some(last);
    // What a latest-value stream may do: say which declaration allows it.
    if !d.latest && skipped_to_newest && seen.first_wrong(true, owed).is_none() {
        actual.push_str(LATEST_HINT);
    }
    Err(d.cx.failure_of(EXACT_ITEMS, expected, actual))
}

/// `tck.stream_gives_exactly_n`: `create_stream(n)` and the fed stream
/// yield exactly the items owed, each once, in order.
pub(crate) fn tck_stream_gives_exactly_n<F: StreamFactory>(cx: &RuleCx, factory: &F) -> RuleBody {
    const RULE: &str = EXACT_ITEMS;
    let sizes: &[u64] = if factory.endless() {
        &[ITEMS]
    } else {
        &[0, 1, ITEMS]
    };
    for &n in sizes {
        cx.scenario(format!("create_stream({n}), polled to its end"));
        let mut d = Driver::new(cx, factory.create_stream(n), format!("create_stream({n})"))
            .latest_value(factory.latest_value());
        let mut seen = Seen::new();
        let ended = loop {
            if factory.endless() && d.yielded >= n {
                break false;
            }
            match d.next_lenient(RULE)? {
                Some(item) => seen.record(factory, &item),
                None => break true,
            }
        };
        check(&d, &seen, n, ended)?;
        d.drop_stream(RULE)?;
    }
    let Some((stream, mut feeder)) = factory.create_fed_stream() else {
        return Ok(Outcome::Passed);
    };
    cx.scenario(format!(
        "fed stream, {ITEMS} items pushed (as many at once as its capacity allows), then its end"
    ));
    let mut d = Driver::new(cx, stream, "fed stream").latest_value(factory.latest_value());
    let mut seen = Seen::new();
    for i in 0..ITEMS {
        if i.saturating_sub(d.yielded) >= feeder.room() {
            match d.next_lenient(RULE)? {
                Some(item) => seen.record(factory, &item),
                None => return check(&d, &seen, ITEMS, true).map(|()| Outcome::Passed),
            }
        }
        push(cx, &mut feeder, RULE, i)?;
    }
    end(cx, feeder, RULE)?;
    while let Some(item) = d.next_lenient(RULE)? {
        seen.record(factory, &item);
    }
    check(&d, &seen, ITEMS, true)?;
    Ok(Outcome::Passed)
}
