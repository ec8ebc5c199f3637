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
use super::rules::{end, push, EXACT_ITEMS, ITEMS};
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

    /// The first position whose item is not the one owed there.
    fn first_wrong(&self) -> Option<usize> {
        self.indices
            .iter()
            .enumerate()
            .position(|(at, index)| index.is_some_and(|i| i != at as u64))
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
    let count_ok = if ended {
        seen.indices.len() as u64 == owed
    } else {
        seen.indices.len() as u64 >= owed
    };
    if count_ok && seen.first_wrong().is_none() {
        return Ok(());
    }
    let expected = if ended {
        format!(
            "{} to yield items 0 … {} once each and in order (by the factory's item_index), then Ready(None)",
            d.label,
            owed.saturating_sub(1)
        )
    } else {
        format!(
            "{} to yield items 0 … {} once each and in order (by the factory's item_index)",
            d.label,
            owed.saturating_sub(1)
        )
    };
    let mut actual = format!("items [{}]", seen.show());
    if let Some(at) = seen.first_wrong() {
        actual.push_str(&format!(
            ": item {} at position {at}",
            seen.indices[at].unwrap_or_default()
        ));
    }
    if ended {
        actual.push_str(", then Ready(None)");
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
        let mut d = Driver::new(cx, factory.create_stream(n), format!("create_stream({n})"));
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
    let mut d = Driver::new(cx, stream, "fed stream");
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
