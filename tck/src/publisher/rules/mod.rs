//! The publisher rule tests, one function per test, named as the test.
//!
//! Each returns a [`RuleDef`]: what the test needs from the factory and its
//! body. Shared steps (creating publishers, subscribing a probe) live here.

mod checks;
mod idle;
mod section1;
mod section2;
mod section3;
pub(crate) mod several;

pub use checks::*;
pub use section1::*;
pub use section2::*;
pub use section3::*;

use reactive_streams::Publisher;

use super::{Needs, PublisherFactory, RuleDef};
use crate::context::{Failure, RuleBody, RuleCx};
use crate::probe::Probe;

/// A publisher of the factory's element type.
pub(crate) type Pub<F> = Box<dyn Publisher<<F as PublisherFactory>::Element>>;

pub(crate) fn def<F: PublisherFactory>(
    needs: Needs,
    run: fn(&RuleCx, &F) -> RuleBody,
) -> RuleDef<F> {
    RuleDef { needs, run }
}

/// `3`, or `∞` for `u64::MAX` (one vocabulary: [`show_demand`](crate::probe::show_demand)).
pub(crate) fn show(n: u64) -> String {
    crate::probe::show_demand(n)
}

/// `create_publisher(n)` as a step: a panic fails the rule under test.
pub(crate) fn create<F: PublisherFactory>(cx: &RuleCx, f: &F, n: u64) -> Result<Pub<F>, Failure> {
    cx.try_step(cx.rule(), format!("create_publisher({})", show(n)), || {
        f.create_publisher(n)
    })
}

/// `create_failed_publisher()` as a step.
pub(crate) fn create_failed<F: PublisherFactory>(
    cx: &RuleCx,
    f: &F,
) -> Result<Option<Pub<F>>, Failure> {
    cx.try_step(cx.rule(), "create_failed_publisher()", || {
        f.create_failed_publisher()
    })
}

/// `n`, brought within `min_elements()..=max_elements()`.
pub(crate) fn up_to<F: PublisherFactory>(f: &F, n: u64) -> u64 {
    let max = f.max_elements();
    n.min(max).max(f.min_elements().min(max))
}

/// Whether the factory declares it can make a publisher of `n` elements;
/// if not, the scenario needing one is left out and the trace says why.
pub(crate) fn can_make<F: PublisherFactory>(cx: &RuleCx, f: &F, n: u64) -> bool {
    let (min, max) = (f.min_elements(), f.max_elements());
    let can = (min..=max).contains(&n);
    if !can {
        cx.trace(format!(
            "left out: a publisher of {} (the factory makes {}..={})",
            show(n),
            show(min),
            show(max)
        ));
    }
    can
}

/// A probe subscribed to `publisher`, its `on_subscribe` received.
pub(crate) fn subscribed<T: std::fmt::Debug + Send + 'static>(
    probe: Probe<T>,
    publisher: &dyn Publisher<T>,
) -> Result<Probe<T>, Failure> {
    probe.subscribe_to(publisher)?;
    probe.expect_subscribed()?;
    Ok(probe)
}

/// A wait of the test for a signal that `rule` requires (an element owed
/// by §3.8, the `on_error` §3.9 owes after `request(0)`, the end §1.5 owes,
/// the failure §1.4 owes): a miss filed under the test's own rule is
/// `rule`'s, so the test reports "not concluded: `rule` was broken first",
/// never a failure of its own rule. A failure the probe filed under
/// another rule stays as it is.
pub(crate) fn owed_by<R>(
    cx: &RuleCx,
    rule: &str,
    waited: Result<R, Failure>,
) -> Result<R, Failure> {
    waited.map_err(|failure| {
        if failure.rule == cx.rule() {
            cx.failure_of(rule, failure.expected, failure.actual)
        } else {
            failure
        }
    })
}

/// A fresh probe on a fresh publisher of `n` elements, subscribed.
pub(crate) fn fresh<F: PublisherFactory>(
    cx: &RuleCx,
    f: &F,
    n: u64,
) -> Result<(Probe<F::Element>, Pub<F>), Failure> {
    let publisher = create(cx, f, n)?;
    let probe = subscribed(Probe::new(cx, "probe").created_for(n), &*publisher)?;
    Ok((probe, publisher))
}
