//! `adapter_5`: an adapter declared to keep its items' identity passes
//! each inner item at most once (exactly once, if it passes every item),
//! each inner stream's items in order.

use super::AdapterFactory;
use super::rules::{Adapted, ITEMS};
use crate::context::{Failure, Outcome, RuleBody, RuleCx};

const RULE: &str = "adapter.5";

const UNDECLARED: &str = "the factory's carried() returns None: the adapter is not declared to keep its items' identity, so there is nothing to check";

/// `adapter.5` on what one adapter yielded; `Ok(false)` when the factory
/// does not declare `carried`.
pub(super) fn check<F: AdapterFactory>(a: &Adapted<F>, factory: &F) -> Result<bool, Failure> {
    let inputs = a.inners.count() as u64;
    let mut values = Vec::new();
    for carried in a.carried() {
        match carried {
            Some(carried) => values.extend_from_slice(carried),
            None => return Ok(false),
        }
    }
    let shown = |v: u64| format!("{v} (inner {}'s item #{})", v % inputs, v / inputs);
    let mut next_of = vec![0u64; inputs as usize];
    let mut seen = std::collections::HashSet::new();
    for &v in &values {
        let (j, i) = ((v % inputs) as usize, v / inputs);
        let wrong = if i >= a.inners.pushed(j) {
            Some(format!("item {v}, which the TCK never pushed"))
        } else if !seen.insert(v) {
            Some(format!("item {} twice", shown(v)))
        } else if i < next_of[j] {
            Some(format!(
                "item {} after item {}",
                shown(v),
                shown((next_of[j] - 1) * inputs + j as u64)
            ))
        } else {
            None
        };
        if let Some(wrong) = wrong {
            return Err(declared_but(a, &values, &wrong));
        }
        next_of[j] = i + 1;
    }
    if factory.passes_every_item() {
        let saw_end: Vec<bool> = (0..inputs as usize)
            .map(|j| a.inners.returned_end(j))
            .collect();
        let at_first_end = factory.ends_at_first_end() && inputs > 1;
        if at_first_end && a.d.ended && !saw_end.contains(&true) {
            return Err(declared_but_lost(
                a,
                &values,
                "Ready(None) before the adapter had seen any inner stream end (ends_at_first_end() lets it end at the first end, not before)",
            ));
        }
        for (j, &saw_end) in saw_end.iter().enumerate() {
            if at_first_end && !saw_end {
                // Declared: what was still queued here may be cut.
                continue;
            }
            let pushed = a.inners.pushed(j);
            let passed = values.iter().filter(|&&v| v % inputs == j as u64).count() as u64;
            if passed < pushed {
                let missing = (0..pushed)
                    .map(|i| a.inners.value(j, i))
                    .find(|v| !seen.contains(v))
                    .unwrap_or_default();
                let why = if a.d.ended && !saw_end {
                    format!(
                        ": the adapter returned Ready(None) before it had seen inner {j} end (an adapter meant to end at the first end of an input declares ends_at_first_end())"
                    )
                } else {
                    format!(", though inner {j} ended")
                };
                return Err(declared_but_lost(
                    a,
                    &values,
                    &format!("item {} never came{why}", shown(missing)),
                ));
            }
        }
    }
    Ok(true)
}

/// The one line a broken identity declaration gets.
fn declared_but<F: AdapterFactory>(a: &Adapted<F>, values: &[u64], wrong: &str) -> Failure {
    let list: Vec<String> = values.iter().map(u64::to_string).collect();
    a.cx().failure(
        "each inner item at most once and each inner stream's items in order, as the factory declares with carried() (make carried() return None if the adapter is not meant to keep its items' identity)",
        format!("{wrong}; items carried, in order: [{}]", list.join(", ")),
    )
}

/// The one line an item lost by an adapter declared to pass every item
/// gets.
fn declared_but_lost<F: AdapterFactory>(a: &Adapted<F>, values: &[u64], lost: &str) -> Failure {
    let list: Vec<String> = values.iter().map(u64::to_string).collect();
    a.cx().failure(
        "every inner item exactly once and each inner stream's items in order, as the factory declares with carried() and passes_every_item() (make passes_every_item() return false if the adapter may drop items)",
        format!("{lost}; items carried, in order: [{}]", list.join(", ")),
    )
}

pub(crate) fn adapter_5<F: AdapterFactory>(cx: &RuleCx, factory: &F) -> RuleBody {
    cx.scenario(format!(
        "every inner stream with {ITEMS} items and ended before the first poll, polled to the adapter's end"
    ));
    let mut a = Adapted::new(cx, factory, RULE)?;
    a.prefill(ITEMS);
    a.drain(factory, RULE)?;
    if !check(&a, factory)? {
        return Ok(Outcome::Skipped(String::from(UNDECLARED)));
    }
    cx.scenario(format!(
        "{ITEMS} items pushed into each inner stream in turn, the adapter settling after each, then their ends"
    ));
    let mut a = Adapted::new(cx, factory, RULE)?;
    for _ in 0..ITEMS {
        for j in 0..a.inners.count() {
            a.inners.push(j);
            a.settle(factory, RULE)?;
        }
    }
    for j in 0..a.inners.count() {
        a.inners.end(j);
    }
    a.drain(factory, RULE)?;
    check(&a, factory)?;
    super::orders::every_order(cx, factory, RULE, true)?;
    Ok(Outcome::Passed)
}
