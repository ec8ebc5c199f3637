//! Generated schedules: what a subscriber does to a publisher, step by
//! step, drawn by proptest and shrunk to the shortest one that still fails.
//!
//! A [`Schedule`] creates one publisher — of a few elements, infinite (when
//! the factory's `max_elements()` allows it) or the factory's failed one
//! (when it declares one) — subscribes a
//! probe (which may request from inside `on_subscribe`, request from inside
//! every `on_next`, or cancel from inside one), then runs a list of
//! [`Step`]s: `request(n)` with small and boundary amounts (1…4, 2^62,
//! 2^63−1, 2^63, 2^63+1, `u64::MAX`−1, `u64::MAX`), the same from another
//! thread, the illegal `request(0)` (§3.9: `on_error` with an
//! illegal-demand error is owed), `cancel()`, and subscribing a second
//! subscriber that requests on its own. After every step a reference model
//! says exactly what the publisher owes each subscriber, and the runner
//! checks it: an infinite publisher must never complete, a failed one must
//! signal `on_error` after `on_subscribe` (with or without demand) and
//! nothing else.
//!
//! Every probe of an infinite publisher cancels from inside its
//! [`INFINITE_CANCEL_INSIDE`]-th `on_next` at the latest, so that
//! unbounded demand on a synchronous infinite publisher still returns.
//!
//! Proptest shrinks towards fewer elements, fewer steps, smaller amounts,
//! and the first alternative of each choice (a plain `request` rather than
//! one from another thread), so a minimal counterexample reads like
//! `create_publisher(2); first: request(1); first: request(∞)`.

pub(crate) mod exec;
pub(crate) mod model;

use std::fmt;

use proptest::prelude::*;

use crate::explore::Scripted;
use reactive_streams::demand::EFFECTIVELY_UNBOUNDED;

/// The most elements a generated publisher has (fewer when the factory's
/// `max_elements()` is lower).
pub const MAX_ELEMENTS: u64 = 16;
/// The most steps after subscribing.
pub const MAX_STEPS: usize = 8;
/// A probe of an infinite publisher cancels from inside this `on_next` at
/// the latest (its reflexes may choose an earlier one).
pub const INFINITE_CANCEL_INSIDE: u64 = MAX_ELEMENTS;

/// Which publisher a schedule creates.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Made {
    /// `create_publisher(n)`: exactly `n` elements, then `on_complete`.
    Elements(u64),
    /// `create_publisher(u64::MAX)`: an infinite publisher, which never
    /// completes.
    Infinite,
    /// `create_failed_publisher()`: `on_subscribe`, then `on_error`.
    Failed,
}

impl Made {
    /// How many elements the publisher has: `u64::MAX` for an infinite
    /// one, 0 for a failed one.
    pub fn elements(self) -> u64 {
        match self {
            Made::Elements(n) => n,
            Made::Infinite => u64::MAX,
            Made::Failed => 0,
        }
    }
}

impl fmt::Display for Made {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Made::Elements(n) => write!(f, "create_publisher({n})"),
            Made::Infinite => f.write_str("create_publisher(∞)"),
            Made::Failed => f.write_str("create_failed_publisher()"),
        }
    }
}

/// What the factory offers schedules: the most elements, several
/// subscribers, a failed publisher.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Offer {
    /// The factory's `max_elements()` (`u64::MAX`: infinite publishers too).
    pub max_elements: u64,
    /// The factory's `supports_multiple_subscribers()`.
    pub multiple_subscribers: bool,
    /// The factory has a failed publisher.
    pub failed: bool,
}

/// Which subscriber a step acts on.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Who {
    /// The probe subscribed first (`first` in schedules and messages, as
    /// in the quick rule tests with two subscribers).
    First,
    /// The probe a [`Step::SubscribeSecond`] subscribed.
    Second,
}

impl Who {
    /// The probe's name in schedules and traces.
    pub fn label(self) -> &'static str {
        match self {
            Who::First => "first",
            Who::Second => "second",
        }
    }
}

/// One step of a schedule, after the first subscriber is subscribed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Step {
    /// `request(n)` on the subscriber's subscription, from the test's
    /// thread or from a thread of its own (joined before the next step).
    Request {
        /// Whose subscription.
        who: Who,
        /// The amount.
        n: u64,
        /// Called from another thread.
        other_thread: bool,
    },
    /// `cancel()`.
    Cancel(Who),
    /// Subscribe a second subscriber to the same publisher (only when the
    /// factory supports several subscribers; a no-op after the first).
    SubscribeSecond,
}

/// How the first subscriber behaves on its own, inside the publisher's
/// calls.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Reflexes {
    /// Requests made from inside `on_subscribe`, in order.
    pub on_subscribe: Vec<u64>,
    /// A request made from inside every `on_next` (0: none).
    pub on_next: u64,
    /// Cancel from inside the `on_next` that brings the count to this.
    pub cancel_inside: Option<u64>,
}

/// A whole generated case: one publisher, one or two subscribers, the steps.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Schedule {
    /// Which publisher it creates.
    pub made: Made,
    /// The first subscriber's reflexes.
    pub reflexes: Reflexes,
    /// What happens after it is subscribed.
    pub steps: Vec<Step>,
}

/// `3`, `∞` for `u64::MAX`, `2^63−1` and friends for the boundaries: the
/// one demand vocabulary, [`show_demand`](crate::probe::show_demand).
pub fn show_amount(n: u64) -> String {
    crate::probe::show_demand(n)
}

/// The amount of a `request` step: an [`amount`], now and then the
/// illegal 0 (§3.9).
pub fn step_amount() -> impl Strategy<Value = u64> {
    prop_oneof![12 => amount(), 1 => Just(0u64)]
}

/// A demand amount: mostly small, sometimes a boundary.
pub fn amount() -> impl Strategy<Value = u64> {
    prop_oneof![
        6 => 1u64..=4,
        1 => prop::sample::select(vec![
            1 << 62,
            EFFECTIVELY_UNBOUNDED,
            1 << 63,
            (1 << 63) + 1,
            u64::MAX - 1,
            u64::MAX,
        ]),
    ]
}

fn who() -> impl Strategy<Value = Who> {
    prop_oneof![3 => Just(Who::First), 1 => Just(Who::Second)]
}

fn step(multiple_subscribers: bool) -> SBoxedStrategy<Step> {
    let second = if multiple_subscribers { 1 } else { 0 };
    prop_oneof![
        10 => (who(), step_amount(), prop::bool::weighted(0.2)).prop_map(|(who, n, other_thread)| {
            Step::Request { who, n, other_thread }
        }),
        2 => who().prop_map(Step::Cancel),
        second => Just(Step::SubscribeSecond),
    ]
    .sboxed()
}

fn reflexes() -> impl Strategy<Value = Reflexes> {
    (
        prop::collection::vec(amount(), 0..=2),
        prop_oneof![4 => Just(0u64), 1 => 1u64..=2],
        prop::option::weighted(0.15, 1u64..=4),
    )
        .prop_map(|(on_subscribe, on_next, cancel_inside)| Reflexes {
            on_subscribe,
            on_next,
            cancel_inside,
        })
}

fn made(offer: Offer, min_elements: u64) -> SBoxedStrategy<Made> {
    let infinite = if offer.max_elements == u64::MAX { 1 } else { 0 };
    let failed = if offer.failed { 1 } else { 0 };
    let fewest = min_elements.min(offer.max_elements);
    let most = offer.max_elements.min(MAX_ELEMENTS).max(fewest);
    // Finite first: proptest shrinks towards the first alternative.
    prop_oneof![
        8 => (fewest..=most).prop_map(Made::Elements),
        infinite => Just(Made::Infinite),
        failed => Just(Made::Failed),
    ]
    .sboxed()
}

/// Schedules for a factory offering `offer` whose publishers have at least
/// `min_elements` elements (its `min_elements()`).
pub fn schedules_of_lengths(offer: Offer, min_elements: u64) -> SBoxedStrategy<Schedule> {
    // Proptest shrinks a tuple one member at a time, in order: steps
    // first, so that the publisher is shrunk against the shortest
    // schedule.
    (
        prop::collection::vec(step(offer.multiple_subscribers), 0..=MAX_STEPS),
        reflexes(),
        made(offer, min_elements),
    )
        .prop_map(|(steps, mut reflexes, made)| {
            if made == Made::Infinite {
                let k = reflexes
                    .cancel_inside
                    .map_or(INFINITE_CANCEL_INSIDE, |k| k.min(INFINITE_CANCEL_INSIDE));
                reflexes.cancel_inside = Some(k);
            }
            Schedule {
                made,
                reflexes,
                steps,
            }
        })
        .sboxed()
}

impl Schedule {
    /// The steps that act: those on the second subscriber before it is
    /// subscribed, and repeated `SubscribeSecond`s, do nothing and are not
    /// shown.
    pub fn effective_steps(&self) -> Vec<Step> {
        let mut second = false;
        let mut steps = Vec::new();
        for step in &self.steps {
            let acts = match step {
                Step::SubscribeSecond => !std::mem::replace(&mut second, true),
                Step::Request { who, .. } | Step::Cancel(who) => *who == Who::First || second,
            };
            if acts {
                steps.push(step.clone());
            }
        }
        steps
    }

    /// The schedule as numbered lines, one per step, as failures show it.
    pub fn lines(&self) -> Vec<String> {
        let mut lines = vec![self.made.to_string()];
        lines.push(format!(
            "{}: subscribe{}",
            Who::First.label(),
            self.reflexes
        ));
        lines.extend(self.effective_steps().iter().map(|step| match step {
            Step::SubscribeSecond if self.made == Made::Infinite => {
                format!("{step} (cancel() inside on_next #{INFINITE_CANCEL_INSIDE})")
            }
            step => step.to_string(),
        }));
        lines
    }
}

impl fmt::Display for Reflexes {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut parts = Vec::new();
        for n in &self.on_subscribe {
            parts.push(format!("request({}) from on_subscribe", show_amount(*n)));
        }
        if self.on_next > 0 {
            parts.push(format!("request({}) from every on_next", self.on_next));
        }
        if let Some(k) = self.cancel_inside {
            parts.push(format!("cancel() inside on_next #{k}"));
        }
        if !parts.is_empty() {
            write!(f, " ({})", parts.join(", "))?;
        }
        Ok(())
    }
}

impl fmt::Display for Step {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Step::Request {
                who,
                n,
                other_thread,
            } => write!(
                f,
                "{}: request({}){}",
                who.label(),
                show_amount(*n),
                if *other_thread {
                    " from another thread"
                } else {
                    ""
                }
            ),
            Step::Cancel(who) => write!(f, "{}: cancel()", who.label()),
            Step::SubscribeSecond => f.write_str("second: subscribe"),
        }
    }
}

impl fmt::Display for Schedule {
    /// One line: `create_publisher(2); first: subscribe; first: request(1)`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.lines().join("; "))
    }
}

impl Scripted for Schedule {
    fn script(&self) -> Vec<String> {
        self.lines()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn schedules_read_like_a_script() {
        let schedule = Schedule {
            made: Made::Elements(2),
            reflexes: Reflexes {
                on_subscribe: vec![EFFECTIVELY_UNBOUNDED],
                on_next: 1,
                cancel_inside: Some(3),
            },
            steps: vec![
                Step::Request {
                    who: Who::Second,
                    n: 1,
                    other_thread: false,
                },
                Step::Request {
                    who: Who::First,
                    n: u64::MAX,
                    other_thread: false,
                },
                Step::SubscribeSecond,
                Step::Request {
                    who: Who::Second,
                    n: 1 << 63,
                    other_thread: true,
                },
                Step::SubscribeSecond,
                Step::Cancel(Who::First),
            ],
        };
        assert_eq!(
            schedule.lines(),
            [
                "create_publisher(2)",
                "first: subscribe (request(2^63−1) from on_subscribe, request(1) from every on_next, cancel() inside on_next #3)",
                "first: request(∞)",
                "second: subscribe",
                "second: request(2^63) from another thread",
                "first: cancel()",
            ]
        );
    }
}
